#!/usr/bin/env python3
"""Measures the H200 validation launch set (calibration/validation/h200/specs) on a real GPU.

For every spec:
  1. compile its .cu once with `nvcc -cubin -arch=sm_90a -O3` (cached by content; sources compile
     in parallel) and once with `nvcc -ptx` to check the spec's kernel name and arguments against
     the kernel's parameters;
  2. build every buffer exactly as kernsim does (launch_inputs.py: the bit-exact port of
     api::make_initial_bytes -- splitmix64 counters, f16/bf16 rounding), on the GPU with cupy, and
     compare a prefix and a suffix of each buffer with the numpy port on the CPU;
  3. load the cubin with cupy.RawModule(path=...), get_function(kernel) (mangled names as in the
     spec), pass scalars as numpy scalars of the spec's type;
  4. warm up (3 launches), then for each of N >= 25 timed launches: flush the L2 by reading a
     256 MiB device buffer (a read leaves the L2 clean: the previous launch's dirty lines are
     written back during the flush, not during the timed launch -- flushing by writing would leave
     ~50 MiB of dirty lines whose write-back the next launch pays for), then record CUDA events
     around that single launch;
  5. report median, min, p10, p90 (microseconds).
Outputs that kernels accumulate into (atomic sums, histograms, saxpy's y) are not re-initialised
between launches: their values do not change the work done, so the timing does not change; the JSON
says so per launch.

Afterwards (unless --no-corpus-check) it runs the small correctness corpus
(tests/kernels/cuda/specs) once on the GPU, writes the buffers like kernsim's --dump-buffers
(<out>/corpus_dumps/<id>/arg<N>.{in,out}.bin) and checks them against tests/kernels/reference.py --
real-hardware evidence that the kernels and their references are right.

Writes into --out:
  validation_measured.csv   id,median_us,min_us,p10_us,p90_us,n
  validation_measured.json  device, driver, clocks (nvidia-smi before and after), nvcc, cupy, and
                            per launch: all samples, stats, grid, block, flops, min_bytes, notes
  corpus_check.txt          one PASS/FAIL line per corpus spec (and corpus_dumps/)
The lead copies the CSV and JSON to calibration/data/h200/.

  python3 calibration/validation/measure_h200.py --out /tmp/h200_run            # on the GPU machine
  python3 calibration/validation/measure_h200.py --dry-run --out /tmp/dry      # anywhere: no GPU
  python3 calibration/validation/measure_h200.py --self-test                   # init port vs C++ golden

--dry-run does everything except touching the GPU: parses the specs, compiles (unless --no-compile),
checks signatures, builds every buffer with numpy and checks its byte size. Requires python3 with
numpy; cupy (cupy-cuda13x) only for a real run. Budget: the full run is meant to finish in < 8 min.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import csv
import fnmatch
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SPEC_DIR = os.path.join(HERE, "h200", "specs")
CORPUS_SPEC_DIR = os.path.join(REPO, "tests", "kernels", "cuda", "specs")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "h200"))
import launch_inputs as li  # noqa: E402
import ext_inputs  # noqa: E402  (issue 17's power-law CSR row pointers)
import ext_reference  # noqa: E402  (numpy references of issue 17's launches)

NVCC_CUBIN = ["-cubin", "-arch=sm_90a", "-O3"]
NVCC_PTX = ["-ptx", "-arch=sm_90a", "-O3"]
ACCUMULATING = {  # kernels whose outputs accumulate across launches (values do not change the timing)
    "reduce_atomic_f32", "reduce_shuffle_f32", "reduce_minmax_i32", "dot_f64", "histogram_global",
    "histogram_shared", "saxpy_grid_stride", "atomic_lines_f32", "atomic_lines_u32", "hist_pow_global",
    "hist_pow_shared", "hist_pow_warpagg", "sum_shuffle_gs", "sum_shuffle_gs_f4", "sum_atomic",
}


def log(msg):
    print(msg, flush=True)


# ------------------------------------------------------------------------------------ specs


def load_specs(spec_dir, only):
    specs = []
    for name in sorted(os.listdir(spec_dir)):
        if name.endswith(".json"):
            s = li.load_spec(os.path.join(spec_dir, name))
            sid = s.get("id", name[:-5])
            if only and not any(fnmatch.fnmatch(sid, p) or fnmatch.fnmatch(s["kernel"], p) for p in only):
                continue
            specs.append(s)
    return specs


def source_of(spec):
    return os.path.normpath(os.path.join(spec["_dir"], spec["source"]))


def ensure_input_files(specs):
    """Create the validation set's on-demand inputs (the big CSR row pointers) when missing."""
    for spec in specs:
        for a in spec["args"]:
            init = a.get("init", "")
            if isinstance(init, str) and init.startswith("file:"):
                path = os.path.normpath(os.path.join(spec["_dir"], init[5:]))
                if ext_inputs.ensure(path):
                    continue
                if not os.path.exists(path) and os.path.basename(path) == "csr_big.rowptr.i32.bin":
                    sys.path.insert(0, os.path.join(REPO, "tests", "kernels", "cuda"))
                    import gen_inputs
                    log(f"generating {os.path.relpath(path, REPO)}")
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "wb") as f:
                        f.write(gen_inputs.pack_i32(gen_inputs.csr_big_rowptr()))


# ---------------------------------------------------------------------------------- compile


def nvcc_version():
    try:
        return subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    except OSError:
        return None


def compile_one(src, flags, ext, cache_dir, nvcc_ver):
    with open(src, "rb") as f:
        key = hashlib.sha256(f.read() + " ".join(flags).encode() + (nvcc_ver or "").encode()).hexdigest()[:16]
    out = os.path.join(cache_dir, f"{os.path.splitext(os.path.basename(src))[0]}-{key}.{ext}")
    if os.path.exists(out):
        return out, None, 0.0
    t0 = time.time()
    tmp = out + f".tmp{os.getpid()}"
    p = subprocess.run(["nvcc"] + flags + ["-o", tmp, src], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip(), time.time() - t0
    os.replace(tmp, out)
    return out, None, time.time() - t0


def ptxas_one(ptx, cache_dir):
    """A PTX source (the Triton launches' PTX, kept in the repository) -> cubin with ptxas."""
    with open(ptx, "rb") as f:
        key = hashlib.sha256(f.read()).hexdigest()[:16]
    cubin = os.path.join(cache_dir, f"{os.path.splitext(os.path.basename(ptx))[0]}-{key}.cubin")
    if os.path.exists(cubin):
        return {"cubin": cubin, "ptx": ptx, "error": None}
    p = subprocess.run(["ptxas", "-arch=sm_90a", "-O3", ptx, "-o", cubin], capture_output=True, text=True)
    return {"cubin": cubin if p.returncode == 0 else None, "ptx": ptx,
            "error": None if p.returncode == 0 else f"ptxas: {p.stderr.strip()}\n"}


def compile_from_ptx(sources, ptx_dir, cache_dir):
    """Measure the very PTX kernsim simulates: `ptx_dir/manifest.json` maps each source (relative
    to the repository) to the PTX `kernsim compile` produced for it; ptxas turns it into a cubin
    here. -> {src: {"cubin": path, "ptx": path, "error": str|None}}"""
    os.makedirs(cache_dir, exist_ok=True)
    with open(os.path.join(ptx_dir, "manifest.json")) as f:
        manifest = json.load(f)
    res = {}
    for src in sources:
        if src.endswith(".ptx"):
            res[src] = ptxas_one(src, cache_dir)
            continue
        rel = os.path.relpath(src, REPO)
        entry = manifest.get(rel)
        if entry is None:
            res[src] = {"cubin": None, "ptx": None, "error": f"no PTX for {rel} in {ptx_dir}/manifest.json\n"}
            continue
        ptx = os.path.join(ptx_dir, entry)
        cubin = os.path.join(cache_dir, os.path.splitext(entry)[0] + ".cubin")
        p = subprocess.run(["ptxas", "-arch=sm_90a", "-O3", ptx, "-o", cubin], capture_output=True, text=True)
        res[src] = {"cubin": cubin if p.returncode == 0 else None, "ptx": ptx,
                    "error": None if p.returncode == 0 else f"ptxas: {p.stderr.strip()}\n"}
    return res


def compile_all(sources, cache_dir, jobs, want_cubin=True):
    """-> {src: {"cubin": path, "ptx": path, "error": str|None}}"""
    os.makedirs(cache_dir, exist_ok=True)
    ver = nvcc_version()
    if ver is None:
        raise RuntimeError("nvcc not found on PATH")
    tasks = {}
    ptx_sources = [src for src in sources if src.endswith(".ptx")]
    sources = [src for src in sources if not src.endswith(".ptx")]
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        ptx_done = {src: ex.submit(ptxas_one, src, cache_dir) for src in ptx_sources} if want_cubin else {}
        for src in sources:
            tasks[(src, "ptx")] = ex.submit(compile_one, src, NVCC_PTX, "ptx", cache_dir, ver)
            if want_cubin:
                tasks[(src, "cubin")] = ex.submit(compile_one, src, NVCC_CUBIN, "cubin", cache_dir, ver)
        res = {src: {"cubin": None, "ptx": None, "error": None} for src in sources}
        for (src, kind), fut in tasks.items():
            path, err, dt = fut.result()
            res[src][kind] = path
            if err:
                res[src]["error"] = (res[src]["error"] or "") + f"nvcc {kind}: {err}\n"
            elif dt:
                log(f"  compiled {os.path.relpath(src, REPO)} -> {kind} in {dt:.1f} s")
        for src, fut in ptx_done.items():
            res[src] = fut.result()
        for src in ptx_sources:
            res.setdefault(src, {"cubin": None, "ptx": src, "error": None})
    return res


# ---------------------------------------------------------------------------------- buffers


def build_args(spec, xp, verify=True, chunk=1 << 23):
    """Kernel arguments: device (or numpy) arrays for buffers, numpy scalars for scalars. With
    verify, the first and last 2048 elements of each GPU buffer are compared with numpy."""
    seed = int(spec.get("seed", 0))
    args = []
    for k, a in enumerate(spec["args"]):
        if "buffer" not in a:
            args.append(li.scalar_value(a))
            continue
        arr = li.make_buffer(a, k, seed, spec["_dir"], xp=xp, chunk=chunk)
        n = int(a["count"])
        want = n * li.ELEM[a["buffer"]][1]
        if arr.nbytes != want or arr.size != n:
            raise ValueError(f"args[{k}]: built {arr.nbytes} bytes, spec says {want}")
        if verify and xp is not np:
            for start in (0, max(0, n - 2048)):
                cnt = min(2048, n - start)
                ref = li.buffer_range(a, k, seed, spec["_dir"], start, cnt, np)
                got = xp.asnumpy(arr[start:start + cnt])
                if got.tobytes() != ref.tobytes():
                    raise ValueError(f"args[{k}]: GPU-built contents differ from the numpy port at [{start}, {start + cnt})")
        args.append(arr)
    return args


def check_sizes(spec):
    """Sanity of flops/min_bytes against the buffers: min_bytes cannot exceed reading and writing
    every buffer once."""
    total = sum(li.buffer_bytes(a) for a in spec["args"] if "buffer" in a)
    problems = []
    mb = spec.get("min_bytes")
    if mb is not None and mb > 2 * total:
        problems.append(f"min_bytes {mb} exceeds twice the buffers' {total} bytes")
    return total, problems


# ------------------------------------------------------------------------------------ device


def nvidia_smi():
    q = "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu"
    out = {}
    for query in (q, "clocks.sm,clocks.mem,clocks.max.sm"):
        try:
            p = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv"], capture_output=True, text=True,
                               timeout=30)
            out[query] = p.stdout.strip() if p.returncode == 0 else f"error: {p.stderr.strip()}"
        except (OSError, subprocess.TimeoutExpired) as e:
            out[query] = f"unavailable: {e}"
    return out


def device_info(cp):
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    info = {"name": name, "sm_count": props.get("multiProcessorCount"), "l2_bytes": props.get("l2CacheSize"),
            "cc": f"{props.get('major')}.{props.get('minor')}", "clock_khz": props.get("clockRate"),
            "mem_clock_khz": props.get("memoryClockRate"), "mem_bus_bits": props.get("memoryBusWidth"),
            "driver_version": cp.cuda.runtime.driverGetVersion(), "runtime_version": cp.cuda.runtime.runtimeGetVersion(),
            "cupy": cp.__version__}
    return info


# ------------------------------------------------------------------------------------ timing


def stats_us(samples_ms):
    us = np.asarray(samples_ms, dtype=np.float64) * 1000.0
    return {"median_us": float(np.median(us)), "min_us": float(us.min()), "p10_us": float(np.percentile(us, 10)),
            "p90_us": float(np.percentile(us, 90)), "n": int(us.size)}


FLUSH_SRC = r'''
extern "C" __global__ void kernsim_flush_read(const float4* p, unsigned long long n, float* sink) {
  float a = 0.0f;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    float4 v = p[i];
    a += v.x + v.y + v.z + v.w;
  }
  if (a == 1234.5f) sink[0] = a;
}
'''


def make_flush(cp, nbytes):
    """A callable that reads an nbytes buffer (zeros) on the current stream: the L2 ends up holding
    only clean lines of it, so the timed launch starts cold and pays for no write-back."""
    buf = cp.zeros(nbytes // 4, dtype=cp.float32)
    sink = cp.zeros(1, dtype=cp.float32)
    kern = cp.RawKernel(FLUSH_SRC, "kernsim_flush_read")
    n16 = np.uint64(nbytes // 16)
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]

    def flush():
        kern((sms * 8,), (256,), (buf, n16, sink))

    flush.nbytes = nbytes
    flush.buffers = (buf, sink)
    return flush


def time_spec(cp, spec, func, args, flush, reps, warmup):
    grid, block = li.dims3(spec["grid"]), li.dims3(spec["block"])
    dyn = int(spec.get("dynamic_shared_bytes", 0))
    if dyn > 48 * 1024:
        func.max_dynamic_shared_size_bytes = dyn
    launch = lambda: func(grid, block, tuple(args), shared_mem=dyn)  # noqa: E731
    t0 = time.time()
    for _ in range(warmup):
        launch()
    cp.cuda.Device().synchronize()
    warm_s = (time.time() - t0) / max(warmup, 1)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    samples = []
    for r in range(reps):
        flush()  # reads 256 MiB: evicts the L2 and leaves it clean
        start.record()
        launch()
        end.record()
        end.synchronize()
        samples.append(cp.cuda.get_elapsed_time(start, end))
    return samples, warm_s


def run_corpus_on_gpu(cp, modules, out_dir):
    """Run each corpus spec once and check its outputs with check_corpus's checker."""
    sys.path.insert(0, os.path.join(REPO, "tests", "kernels"))
    import check_corpus
    specs = load_specs(CORPUS_SPEC_DIR, [])
    dump_root = os.path.join(out_dir, "corpus_dumps")
    lines, nfail = [], 0
    for spec in specs:
        sid = spec["id"]
        try:
            mod = modules[source_of(spec)]
            func = mod.get_function(spec["kernel"])
            args = build_args(spec, cp)
            before = [cp.asnumpy(a) if isinstance(a, cp.ndarray) else None for a in args]
            grid, block = li.dims3(spec["grid"]), li.dims3(spec["block"])
            func(grid, block, tuple(args), shared_mem=int(spec.get("dynamic_shared_bytes", 0)))
            cp.cuda.Device().synchronize()
            d = os.path.join(dump_root, sid)
            os.makedirs(d, exist_ok=True)
            for k, a in enumerate(args):
                if before[k] is not None:
                    before[k].tofile(os.path.join(d, f"arg{k}.in.bin"))
                    cp.asnumpy(a).tofile(os.path.join(d, f"arg{k}.out.bin"))
            ok, msg = check_corpus.check_dump(spec, d)
        except Exception as e:  # noqa: BLE001 -- report and go on
            ok, msg = False, f"{type(e).__name__}: {e}"
        line = f"{'PASS' if ok else 'FAIL'} {sid}: {msg}"
        log("  " + line)
        lines.append(line)
        nfail += not ok
    lines.append(f"{len(specs) - nfail} passed, {nfail} failed")
    with open(os.path.join(out_dir, "corpus_check.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return nfail


# -------------------------------------------------------------------------------- self-test


def self_test():
    """The numpy init port against sha256 digests of bytes produced by kernsim's C++."""
    with open(os.path.join(HERE, "init_golden.json")) as f:
        golden = json.load(f)
    bad = 0
    for case in golden["cases"]:
        for k, digest in case["sha256"].items():
            a = case["args"][int(k)]
            b = li.make_buffer(a, int(k), case["seed"], HERE, chunk=997)
            ok = hashlib.sha256(b.tobytes()).hexdigest() == digest
            sl = li.buffer_range(a, int(k), case["seed"], HERE, 123, 45)
            ok_range = sl.tobytes() == b[123:168].tobytes()
            if not (ok and ok_range):
                log(f"FAIL seed {case['seed']} args[{k}] {a['buffer']} {a['init']}: "
                    f"{'digest differs' if not ok else ''} {'range differs' if not ok_range else ''}")
                bad += 1
    n = sum(len(c["sha256"]) for c in golden["cases"])
    log(f"init port vs C++ golden: {n - bad} of {n} buffers bit-identical")
    return 1 if bad else 0


# -------------------------------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="output directory (created)")
    ap.add_argument("--specs", default=SPEC_DIR, help="spec directory (default calibration/validation/h200/specs)")
    ap.add_argument("--only", action="append", default=[], metavar="PATTERN", help="spec ids or kernel names")
    ap.add_argument("--reps", type=int, default=25, help="timed launches per spec (default 25)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--flush-mib", type=int, default=256, help="L2 flush buffer (default 256 MiB)")
    ap.add_argument("--budget-s", type=float, default=450.0,
                    help="wall-time budget; past it, remaining specs get fewer reps (never below 10), and it says so")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1), help="parallel nvcc processes")
    ap.add_argument("--cache-dir", help="compile cache (default <out>/cubin_cache)")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: parse, compile, check signatures, build buffers")
    ap.add_argument("--ptx-dir", help="measure the PTX in this directory (made by make_clang_ptx.py) instead of nvcc's code")
    ap.add_argument("--tag", default="", help="suffix of the output files (validation_measured<tag>.csv)")
    ap.add_argument("--no-compile", action="store_true", help="with --dry-run: skip nvcc")
    ap.add_argument("--no-corpus-check", action="store_true", help="skip the correctness corpus on the GPU")
    ap.add_argument("--no-check", action="store_true", help="skip the numpy checks of the launches' outputs")
    ap.add_argument("--ext-only", action="store_true", help="only the launches issue 17 added (h200/ext_specs.py)")
    ap.add_argument("--self-test", action="store_true", help="check the init port against the C++ golden digests")
    a = ap.parse_args()

    if a.self_test:
        return self_test()
    if not a.out:
        ap.error("--out is required")
    t_start = time.time()
    os.makedirs(a.out, exist_ok=True)
    specs = load_specs(a.specs, a.only)
    if a.ext_only:
        import ext_specs
        keep = set(ext_specs.ids())
        specs = [sp for sp in specs if sp["id"] in keep]
    if not specs:
        log("no specs matched")
        return 2
    log(f"{len(specs)} specs from {os.path.relpath(a.specs, REPO)}")
    ensure_input_files(specs)

    corpus = [] if (a.dry_run or a.no_corpus_check) else load_specs(CORPUS_SPEC_DIR, [])
    sources = sorted({source_of(s) for s in specs} | {source_of(s) for s in corpus})
    compiled = {}
    if not (a.dry_run and a.no_compile):
        if a.ptx_dir:
            log(f"assembling the PTX of {len(sources)} sources from {a.ptx_dir} with ptxas")
            compiled = compile_from_ptx(sources, a.ptx_dir, a.cache_dir or os.path.join(a.out, "cubin_cache_ptx"))
        else:
            log(f"compiling {len(sources)} sources with nvcc ({a.jobs} in parallel)")
            compiled = compile_all(sources, a.cache_dir or os.path.join(a.out, "cubin_cache"), a.jobs)
        log(f"compiled in {time.time() - t_start:.1f} s")

    # static checks: sources compile, names and parameters match, sizes are sane
    errors = {}
    for spec in specs:
        src = source_of(spec)
        problems = check_sizes(spec)[1]
        if compiled:
            c = compiled[src]
            if c["error"]:
                problems.append(c["error"].strip())
            else:
                with open(c["ptx"]) as f:
                    problems += li.check_signature(spec, li.ptx_entry_params(f.read()))
        if problems:
            errors[spec["id"]] = "; ".join(problems)
            log(f"ERROR {spec['id']}: {errors[spec['id']]}")

    results = []
    if a.dry_run:
        for i, spec in enumerate(specs, 1):
            sid = spec["id"]
            if sid in errors:
                continue
            t0 = time.time()
            try:
                args = build_args(spec, np)
                total = sum(x.nbytes for x in args if isinstance(x, np.ndarray))
                del args
                log(f"[{i:3d}/{len(specs)} +{time.time() - t_start:6.1f}s] {sid}: {total / 2**20:.1f} MiB of buffers "
                    f"built in {time.time() - t0:.2f} s (dry run)")
                results.append({"id": sid, "buffer_bytes": total})
            except Exception as e:  # noqa: BLE001
                errors[sid] = f"{type(e).__name__}: {e}"
                log(f"ERROR {sid}: {errors[sid]}")
        with open(os.path.join(a.out, "dry_run.json"), "w") as f:
            json.dump({"specs": results, "errors": errors, "seconds": time.time() - t_start}, f, indent=1)
        log(f"dry run: {len(results)} specs ready, {len(errors)} errors, {time.time() - t_start:.1f} s")
        return 1 if errors else 0

    import cupy as cp  # only for a real run

    smi_before = nvidia_smi()
    dev = device_info(cp)
    log(f"device: {dev['name']}, {dev['sm_count']} SMs, driver {dev['driver_version']}, cupy {dev['cupy']}")
    modules = {}
    for src, c in compiled.items():
        if c["cubin"]:
            modules[src] = cp.RawModule(path=c["cubin"])
    flush = make_flush(cp, a.flush_mib << 20)
    pool = cp.get_default_memory_pool()
    csv_rows = []
    checker = cf.ThreadPoolExecutor(max_workers=4)  # numpy checks run beside the GPU timing
    pending, futures = [], {}
    for i, spec in enumerate(specs, 1):
        sid = spec["id"]
        if sid in errors:
            continue
        elapsed = time.time() - t_start
        reps = a.reps
        remaining = len(specs) - i + 1
        rec = {"id": sid, "kernel": spec["kernel"], "family": spec.get("family"), "notes": spec.get("notes"),
               "grid": li.dims3(spec["grid"]), "block": li.dims3(spec["block"]),
               "dynamic_shared_bytes": int(spec.get("dynamic_shared_bytes", 0)),
               "flops": spec.get("flops"), "min_bytes": spec.get("min_bytes"),
               "accumulating_outputs_not_reset": spec["kernel"] in ACCUMULATING}
        try:
            t0 = time.time()
            args = build_args(spec, cp, chunk=1 << 26)
            cp.cuda.Device().synchronize()
            build_s = time.time() - t0
            func = modules[source_of(spec)].get_function(spec["kernel"])
            # budget: estimate this spec's cost from one launch, shrink reps if the run would overrun
            dyn = int(spec.get("dynamic_shared_bytes", 0))
            if dyn > 48 * 1024:
                func.max_dynamic_shared_size_bytes = dyn
            checked = ext_reference.has_check(spec) and not a.no_check
            if checked:  # the first launch, from the initial buffers, is the one checked against numpy
                ins = [cp.asnumpy(x) if isinstance(x, cp.ndarray) else x.item() for x in args]
            t1 = time.time()
            func(li.dims3(spec["grid"]), li.dims3(spec["block"]), tuple(args), shared_mem=dyn)
            cp.cuda.Device().synchronize()
            one = time.time() - t1
            if checked:
                outs = [cp.asnumpy(x) if isinstance(x, cp.ndarray) else None for x in args]
                while len(pending) >= 6:  # bound the host copies held by checks in flight
                    pending.pop(0)[1].result()
                pending.append((sid, checker.submit(ext_reference.check, spec, ins, outs)))
                del ins, outs
            left = a.budget_s - elapsed
            if left < remaining * (a.reps + a.warmup) * (one + 2e-4):
                reps = min(a.reps, max(10, int(left / max(remaining, 1) / (one + 2e-4)) - a.warmup))
                if reps < a.reps:
                    log(f"  budget: {sid} gets {reps} timed launches instead of {a.reps}")
            samples, _ = time_spec(cp, spec, func, args, flush, reps, a.warmup)
            st = stats_us(samples)
            rec.update(st)
            rec["samples_us"] = [float(x * 1000.0) for x in samples]
            rec["buffer_build_s"] = build_s
            fl, mb = spec.get("flops"), spec.get("min_bytes")
            extra = ""
            if fl:
                extra += f", {fl / (st['median_us'] * 1e-6) / 1e12:.2f} TFLOP/s"
            if mb:
                extra += f", {mb / (st['median_us'] * 1e-6) / 1e12:.2f} TB/s"
            log(f"[{i:3d}/{len(specs)} +{time.time() - t_start:6.1f}s] {sid}: median {st['median_us']:.2f} us "
                f"(min {st['min_us']:.2f}, p10 {st['p10_us']:.2f}, p90 {st['p90_us']:.2f}, n {st['n']}){extra}")
            csv_rows.append([sid] + [f"{st[k]:.3f}" for k in ("median_us", "min_us", "p10_us", "p90_us")] + [st["n"]])
            if checked:
                futures[sid] = pending[-1][1]
            del args
        except Exception as e:  # noqa: BLE001 -- record and go on
            errors[sid] = f"{type(e).__name__}: {e}"
            rec["error"] = errors[sid]
            log(f"ERROR {sid}: {errors[sid]}")
        results.append(rec)
        pool.free_all_blocks()
    del flush
    pool.free_all_blocks()
    smi_after = nvidia_smi()
    # outputs against numpy: a launch whose output is wrong keeps its record but leaves the CSV
    check_lines, check_fail = [], 0
    for rec in results:
        fut = futures.get(rec["id"])
        if fut is None:
            continue
        res = fut.result()
        rec["check"] = {"ok": bool(res[0]), "message": res[1]}
        check_lines.append(f"{'PASS' if res[0] else 'FAIL'} {rec['id']}: {res[1]}")
        if not res[0]:
            check_fail += 1
            errors[rec["id"]] = "output check failed: " + res[1]
            csv_rows = [r for r in csv_rows if r[0] != rec["id"]]
            log(f"FAIL {rec['id']}: {res[1]}")
    checker.shutdown()
    if check_lines:
        check_lines.append(f"{len(check_lines) - check_fail} passed, {check_fail} failed")
        with open(os.path.join(a.out, f"validation_checks{a.tag}.txt"), "w") as f:
            f.write("\n".join(check_lines) + "\n")
        log(f"output checks: {check_lines[-1]}")

    with open(os.path.join(a.out, f"validation_measured{a.tag}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "median_us", "min_us", "p10_us", "p90_us", "n"])
        w.writerows(csv_rows)
    meta = {"device": dev, "nvidia_smi_before": smi_before, "nvidia_smi_after": smi_after, "nvcc": nvcc_version(),
            "nvcc_flags": NVCC_CUBIN, "host": platform.node(), "python": platform.python_version(),
            "numpy": np.__version__, "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t_start)),
            "method": f"{a.warmup} warm-up launches, then {a.reps} timed launches (fewer only if the budget ran out: "
                      f"see n), each after reading a {a.flush_mib} MiB buffer to flush the L2 (clean), CUDA events around "
                      "the single launch", "launches": results, "errors": errors}
    corpus_fail = 0
    if not a.no_corpus_check:
        log("correctness corpus on the GPU:")
        corpus_fail = run_corpus_on_gpu(cp, modules, a.out)
        meta["corpus_check_failures"] = corpus_fail
    meta["seconds"] = time.time() - t_start
    with open(os.path.join(a.out, f"validation_measured{a.tag}.json"), "w") as f:
        json.dump(meta, f, indent=1)
    log(f"done in {time.time() - t_start:.1f} s: {len(csv_rows)} measured, {len(errors)} errors, "
        f"{corpus_fail} corpus failures; wrote {os.path.join(a.out, f'validation_measured{a.tag}.csv')}")
    return 1 if (errors or corpus_fail) else 0


if __name__ == "__main__":
    sys.exit(main())
