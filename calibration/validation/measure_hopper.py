#!/usr/bin/env python3
"""Measures the Hopper (wgmma/TMA) validation set (hopper/launches.py) on an H200.

Per launch: the inputs are kernsim's own initial buffers (launch_inputs.py, built on the GPU with
cupy when it is there), the output is poisoned with NaN, the kernel runs once and its output is
checked against torch in fp32 (TF32 off; whole output) and against the numpy reference
(hopper/reference.py; a subset of the output). Then `--warmup` launches and `--reps` timed ones,
each after a `--flush-mib` MiB flush of the 50 MiB L2 -- a device write (torch zero_, the default,
as the brief for the 2026-12-02 measurement asked) or with `--flush-mode read` a read that leaves the
L2 clean (measure_h200.py's way) -- with CUDA events around the single launch; median, min, p10, p90.

  Triton launches: the @triton.jit kernels of hopper/triton_kernels.py through Triton's own JIT
  (the H200's Triton); the PTX and metadata it compiled are kept (ptx_triton.tar.gz), since that
  is the PTX kernsim runs.
  The CUDA ladder: hopper/cuda/ladder_host.cu built with nvcc -gencode=arch=compute_90a,code=sm_90a,
  one process per step (a fault or a hang costs only that step: `--step-timeout-s`).

Writes into --out: hopper_validation.json (device, clocks before/after, versions, commands, per
launch: checks, samples, stats, TFLOP/s, compile facts), ptx_triton.tar.gz, and prints a table.

  python3 calibration/validation/measure_hopper.py --out /tmp/hv            # on the H200
  python3 calibration/validation/measure_hopper.py --dry-run --out /tmp/hv  # here: inputs + references
"""
from __future__ import annotations

import argparse
import fnmatch
import io
import json
import os
import platform
import subprocess
import sys
import tarfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HOPPER = os.path.join(HERE, "hopper")
sys.path.insert(0, HERE)
sys.path.insert(0, HOPPER)
import launch_inputs as li  # noqa: E402
import launches as hl  # noqa: E402
import reference  # noqa: E402

STORAGE = {"e4m3": "u8"}  # launch dtype -> kernsim buffer type


def log(msg):
    print(msg, flush=True)


def spec_arg(a):
    """The kernsim buffer argument (dict) of a launch buffer."""
    return {"buffer": STORAGE.get(a["dtype"], a["dtype"]), "count": hl.numel(a["shape"]), "init": a["init"]}


def buffer_args(launch):
    """[(index of the kernsim spec argument holding it, launch arg)] for each buffer."""
    idx = hl.spec_buffer_index(launch)
    return [(idx[a["name"]], a) for a in launch["args"] if a["kind"] == "buf"]


def host_inputs(launch, xp):
    """{name: storage array} built exactly as kernsim builds the spec's buffers."""
    res = {}
    for k, a in buffer_args(launch):
        res[a["name"]] = li.make_buffer(spec_arg(a), k, 0, os.path.join(HOPPER, "specs"), xp=xp)
    return res


def nvidia_smi():
    q = "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu"
    try:
        p = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv"], capture_output=True, text=True, timeout=30)
        return p.stdout.strip() if p.returncode == 0 else f"error: {p.stderr.strip()}"
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unavailable: {e}"


def stats_us(samples_ms):
    us = np.asarray(samples_ms, dtype=np.float64) * 1000.0
    return {"median_us": float(np.median(us)), "min_us": float(us.min()), "p10_us": float(np.percentile(us, 10)),
            "p90_us": float(np.percentile(us, 90)), "n": int(us.size)}


# ------------------------------------------------------------------------------------ torch side


class Gpu:
    def __init__(self, flush_mib, flush_mode="write"):
        import torch
        self.torch = torch
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        try:
            import cupy
            self.cp = cupy
        except ImportError:
            self.cp = None
        self.flush_buf = torch.zeros(flush_mib << 20, dtype=torch.uint8, device="cuda")
        self.flush_mode = flush_mode
        self.cache = {}

    def tensor(self, a, k, storage):
        torch = self.torch
        key = (k, a["dtype"], tuple(a["shape"]), a["init"])
        if key in self.cache:
            return self.cache[key]
        if self.cp is not None:
            arr = li.make_buffer(spec_arg(a), k, 0, os.path.join(HOPPER, "specs"), xp=self.cp)
            self.cp.cuda.Device().synchronize()
            if arr.dtype == self.cp.uint16:
                arr = arr.view(self.cp.int16)
            t = torch.from_dlpack(arr)
        else:
            arr = storage if storage is not None else li.make_buffer(spec_arg(a), k, 0, os.path.join(HOPPER, "specs"))
            if arr.dtype == np.uint16:
                arr = arr.view(np.int16)
            t = torch.from_numpy(np.ascontiguousarray(arr)).cuda()
        view = {"bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn}.get(a["dtype"])
        t = t.view(view) if view is not None else t
        t = t.reshape(a["shape"])
        if not a["out"]:
            self.cache[key] = t
        return t

    def flush(self):
        if self.flush_mode == "read":  # leaves the L2 clean (measure_h200.py's way)
            self.flush_sink = self.flush_buf.view(self.torch.float32).sum()
        else:  # a write (the 2026-12-02 measurement): the L2 holds none of the launch's data afterwards
            self.flush_buf.zero_()

    def time(self, launch_fn, reps, warmup):
        torch = self.torch
        for _ in range(warmup):
            launch_fn()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        out = []
        for _ in range(reps):
            self.flush()
            torch.cuda._sleep(200000)  # ~0.1 ms: the launch below is queued before the start event fires
            s.record()
            launch_fn()
            e.record()
            e.synchronize()
            out.append(s.elapsed_time(e))
        return out


def torch_reference(gpu, launch, t):
    """fp32 reference of the whole output, on the GPU (TF32 off)."""
    torch = gpu.torch
    f = lambda n: t[n].float()  # noqa: E731
    r = launch["ref"]
    if r == "attention":
        c = launch["constexprs"]
        scale = next(a for a in launch["args"] if a["name"] == "sm_scale")["value"]
        return torch.nn.functional.scaled_dot_product_attention(f("q_ptr"), f("k_ptr"), f("v_ptr"),
                                                                is_causal=bool(c["CAUSAL"]), scale=scale)
    if r == "moe":
        offs = t["offsets_ptr"].cpu().tolist()
        x, w = f("x_ptr"), t["w_ptr"]
        out = torch.empty((x.shape[0], w.shape[1]), dtype=torch.float32, device="cuda")
        for e in range(len(offs) - 1):
            out[offs[e]:offs[e + 1]] = x[offs[e]:offs[e + 1]] @ w[e].float().T
        return out
    a = f("a_ptr")
    kmajor = launch.get("constexprs", {}).get("B_KMAJOR", False) or launch["kernel"] != "matmul"
    b = f("b_ptr")
    return a @ (b.T if kmajor else b)


def torch_check(gpu, launch, t, out):
    torch = gpu.torch
    ref = torch_reference(gpu, launch, t)
    o = t[out["name"]].float()
    nonfinite = int((~torch.isfinite(o)).sum().item())
    diff = torch.where(torch.isfinite(o), o - ref, torch.zeros_like(o))
    rel = float((diff.double().norm() / ref.double().norm().clamp_min(1e-30)).item())
    tol = reference.tolerance(launch)
    return {"rel_l2": rel, "max_abs": float(diff.abs().max().item()), "nonfinite": nonfinite, "tol": tol,
            "ok": nonfinite == 0 and rel <= tol}


def numpy_check(gpu, launch, t):
    """reference.py on a subset: inputs decoded on the host, the output's covered part copied back."""
    inputs = {}
    for k, a in buffer_args(launch):
        if a["out"]:
            continue
        x = t[a["name"]]
        if a["dtype"] == "bf16":
            x = x.view(gpu.torch.int16)
        elif a["dtype"] == "e4m3":
            x = x.view(gpu.torch.uint8)
        st = x.cpu().numpy()
        if a["dtype"] == "bf16":
            st = st.view(np.uint16)
        inputs[a["name"]] = reference.decode(a["dtype"], st, a["shape"])
    name, sel = reference.output_selection(launch, inputs)
    o = t[name].float()
    part = reference.take(launch, o, gpu.torch.as_tensor(np.asarray(sel), device="cuda")).cpu().numpy()
    ref = reference.reference(launch, inputs, sel)
    return reference._cmp(part, ref, reference.tolerance(launch))


# ----------------------------------------------------------------------------------- Triton launches


def run_triton(gpu, launch, reps, warmup, ptx_store):
    import triton
    import triton_kernels as tk
    torch = gpu.torch
    fn = getattr(tk, launch["kernel"])
    t = {}
    for k, a in buffer_args(launch):
        t[a["name"]] = gpu.tensor(a, k, None) if not a["out"] else \
            torch.full(a["shape"], float("nan"), dtype={"bf16": torch.bfloat16, "f16": torch.float16}[a["dtype"]],
                       device="cuda")
    args = []
    for a in launch["args"]:
        if a["kind"] == "buf":
            if launch["kernel"] != "matmul_tma":
                args.append(t[a["name"]])
        elif a["kind"] == "desc":
            from triton.tools.tensor_descriptor import TensorDescriptor
            args.append(TensorDescriptor.from_tensor(t[a["buffer"]], a["block"]))
        else:
            args.append(a["value"])
    grid = tuple(launch["grid"])
    opts = dict(launch["constexprs"], num_warps=launch["num_warps"], num_stages=launch["num_stages"])
    ck = fn[grid](*args, **opts)
    torch.cuda.synchronize()
    out = next(a for a in launch["args"] if a.get("out"))
    res = {"torch_check": torch_check(gpu, launch, t, out), "numpy_check": numpy_check(gpu, launch, t)}
    md = {k: v for k, v in ck.metadata._asdict().items() if isinstance(v, (int, float, str, bool, list, dict, type(None)))}
    ptx = ck.asm["ptx"]
    ptx_store[launch["id"]] = (ptx, md)
    res["compile"] = {"name": md.get("name"), "shared": md.get("shared"), "n_regs": getattr(ck, "n_regs", None),
                      "n_spills": getattr(ck, "n_spills", None),
                      "ptx_ops": {op: ptx.count(op) for op in ("wgmma.mma_async", "cp.async.bulk.tensor", "mbarrier.try_wait",
                                                               "mma.sync", "cp.async.cg")}}
    res["samples_ms"] = gpu.time(lambda: fn[grid](*args, **opts), reps, warmup)
    return res


# ------------------------------------------------------------------------------------ CUDA ladder


def build_ladder(cache):
    """The host program (nvcc) and a cubin of clang's PTX (ptxas): -> (exe, cubin or None, facts)."""
    exe = os.path.join(cache, "ladder_host")
    cmd = ["nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-O3", "-Xptxas", "-v", "-o", exe,
           os.path.join(HOPPER, "cuda", "ladder_host.cu"), "-lcuda"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"nvcc failed: {p.stderr[-3000:]}")
    cubin = os.path.join(cache, "gemm_ladder_clang.cubin")
    cmd2 = ["ptxas", "-arch=sm_90a", "-O3", "-v", os.path.join(HOPPER, "ptx_clang", "gemm_ladder.ptx"), "-o", cubin]
    q = subprocess.run(cmd2, capture_output=True, text=True)
    facts = {"command": " ".join(cmd), "ptxas_report": p.stderr[-6000:], "clang_ptx_command": " ".join(cmd2),
             "clang_ptxas_report": (q.stdout + q.stderr)[-6000:]}
    return exe, (cubin if q.returncode == 0 else None), facts


def run_ladder_process(cmd, timeout_s):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return None, f"did not finish in {timeout_s} s (a hang: killed)"
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr[-2000:]}"
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def run_ladder(gpu, launch, reps, warmup, ladder, cache, timeout_s):
    torch = gpu.torch
    exe = ladder["exe"]
    t = {}
    for k, a in buffer_args(launch):
        if not a["out"]:
            t[a["name"]] = gpu.tensor(a, k, None)
    M, N, K = (next(a["value"] for a in launch["args"] if a.get("name") == n) for n in ("M", "N", "K"))
    paths = {}
    for n in ("a_ptr", "b_ptr"):
        paths[n] = os.path.join(cache, f"ladder_{n}_{M}x{N}x{K}.bin")
        if not os.path.exists(paths[n]):
            t[n].view(torch.int16).cpu().numpy().tofile(paths[n])
    c_path = os.path.join(cache, f"ladder_c_{launch['id']}.bin")
    variant = int(launch["notes"].split("variant=")[1].split(";")[0])
    cmd = [exe, str(variant), paths["a_ptr"], paths["b_ptr"], str(M), str(N), str(K), c_path, str(reps), str(warmup),
           f"{ladder['flush_mode']}:{ladder['flush_mib']}"]
    out = next(a for a in launch["args"] if a.get("out"))

    def load_c():
        c = np.fromfile(c_path, dtype=np.int16)
        t["c_ptr"] = torch.from_numpy(c).cuda().view(torch.bfloat16).reshape(M, N)

    res = {}
    if ladder["cubin"]:  # clang's PTX first: the code kernsim simulates
        cmd2 = cmd + [ladder["cubin"]]
        rec, err = run_ladder_process(cmd2, timeout_s)
        if err:
            res["clang_ptx"] = {"error": err, "command": " ".join(cmd2)}
        else:
            load_c()
            res["clang_ptx"] = dict(stats_us(rec["samples_ms"]), torch_check=torch_check(gpu, launch, t, out),
                                    samples_ms=rec["samples_ms"], command=" ".join(cmd2))
    rec, err = run_ladder_process(cmd, timeout_s)
    if err:
        res.update({"error": f"step {variant}: {err}", "command": " ".join(cmd)})
        return res
    load_c()
    res.update({"torch_check": torch_check(gpu, launch, t, out), "numpy_check": numpy_check(gpu, launch, t),
                "samples_ms": rec["samples_ms"], "host": {k: v for k, v in rec.items() if k != "samples_ms"},
                "command": " ".join(cmd)})
    return res


# ----------------------------------------------------------------------------------------- main


def versions():
    v = {"python": platform.python_version()}
    for mod in ("torch", "triton", "cupy", "numpy"):
        try:
            v[mod] = __import__(mod).__version__
        except ImportError:
            v[mod] = None
    try:
        v["nvcc"] = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    except OSError:
        v["nvcc"] = None
    return v


def device_props(torch):
    p = torch.cuda.get_device_properties(0)
    return {"name": p.name, "sm_count": p.multi_processor_count, "cc": f"{p.major}.{p.minor}",
            "total_memory": p.total_memory, "l2_bytes": getattr(p, "L2_cache_size", None),
            "cuda_runtime": torch.version.cuda, "driver_version": torch.cuda.driver_version()
            if hasattr(torch.cuda, "driver_version") else None}


def dry_run(selected):
    """Here, without a GPU: build every input with numpy and run each numpy reference on a tiny
    stand-in (the references' own code paths), and check the shapes."""
    for L in selected:
        for k, a in buffer_args(L):
            if a["init"].startswith("file:"):
                st = li.make_buffer(spec_arg(a), k, 0, os.path.join(HOPPER, "specs"))
                assert st.size == hl.numel(a["shape"]), (L["id"], a["name"])
        log(f"ok   {L['id']}: {len(L['args'])} args, grid {L['grid']}")
    return 0


def save(out_dir, doc, ptx_store):
    """Writes the JSON and the PTX archive (after every launch: a crash later loses nothing)."""
    with open(os.path.join(out_dir, "hopper_validation.json.tmp"), "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(os.path.join(out_dir, "hopper_validation.json.tmp"), os.path.join(out_dir, "hopper_validation.json"))
    with tarfile.open(os.path.join(out_dir, "ptx_triton.tar.gz"), "w:gz") as tf:
        for lid, (ptx, md) in sorted(ptx_store.items()):
            for name, data in ((f"{lid}.ptx", ptx.encode()), (f"{lid}.json", json.dumps(md, indent=1, default=str).encode())):
                ti = tarfile.TarInfo(name)
                ti.size = len(data)
                tf.addfile(ti, io.BytesIO(data))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--flush-mib", type=int, default=256)
    ap.add_argument("--flush-mode", choices=("write", "read"), default="write",
                    help="write (as measured on 2026-12-02) or read (leaves the L2 clean, as measure_h200.py)")
    ap.add_argument("--cache-dir", default="/tmp/kernsim_hopper_cache")
    ap.add_argument("--step-timeout-s", type=int, default=40)
    ap.add_argument("--budget-s", type=float, default=420.0, help="stop starting launches after this many seconds")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.cache_dir, exist_ok=True)
    os.makedirs(os.path.join(HOPPER, "specs"), exist_ok=True)  # file: inits are relative to it
    selected = [L for L in hl.all_launches() if not a.only or any(fnmatch.fnmatch(L["id"], p) for p in a.only)]
    selected.sort(key=lambda L: L["kind"] != "ladder")  # the ladder first: hand-written, the likeliest to need a second look
    if a.dry_run:
        return dry_run(selected)
    t_start = time.time()
    import torch
    gpu = Gpu(a.flush_mib, a.flush_mode)
    doc = {"what": "Hopper wgmma/TMA validation set (calibration/validation/hopper), measured", "date_utc":
           time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "command": " ".join([sys.executable] + sys.argv),
           "method": {"reps": a.reps, "warmup": a.warmup, "flush": f"{a.flush_mib} MiB device {a.flush_mode} "
                      "(write: zero_ / cudaMemsetAsync; read: sum / a read kernel) before each timed launch", "timer": "CUDA events around the single launch", "statistic": "median",
                      "inputs": "kernsim's initial buffers (launch_inputs.py, seed 0)", "tf32": False},
           "nvidia_smi_before": nvidia_smi(), "versions": versions(), "device": device_props(torch), "launches": []}
    ladder = None
    ptx_store = {}
    for L in selected:
        if time.time() - t_start > a.budget_s:
            doc["launches"].append({"id": L["id"], "error": "skipped: wall-time budget spent"})
            log(f"SKIP {L['id']} (budget)")
            continue
        t0 = time.time()
        try:
            if L["kind"] == "triton":
                res = run_triton(gpu, L, a.reps, a.warmup, ptx_store)
            else:
                if ladder is None:
                    exe, cubin, facts = build_ladder(a.cache_dir)
                    ladder = {"exe": exe, "cubin": cubin, "flush_mib": a.flush_mib, "flush_mode": a.flush_mode}
                    doc["ladder_build"] = facts
                res = run_ladder(gpu, L, a.reps, a.warmup, ladder, a.cache_dir, a.step_timeout_s)
        except Exception as e:  # one failing launch must not cost the others
            res = {"error": f"{type(e).__name__}: {str(e)[:3000]}"}
            try:
                torch.cuda.synchronize()
            except Exception as e2:  # a broken context: what is measured so far is saved below
                res["error"] += f"; then synchronize: {e2}"
        rec = {"id": L["id"], "family": L["family"], "kind": L["kind"], "kernel": L["kernel"], "grid": L["grid"],
               "notes": L["notes"], "flops": L["flops"], "min_bytes": L["min_bytes"]}
        rec.update(res)
        if "samples_ms" in res:
            rec.update(stats_us(res["samples_ms"]))
            rec["tflops"] = L["flops"] / (rec["median_us"] * 1e-6) / 1e12
            rec["gbytes_s"] = L["min_bytes"] / (rec["median_us"] * 1e-6) / 1e9
        rec["wall_s"] = round(time.time() - t0, 2)
        doc["launches"].append(rec)
        ok = res.get("torch_check", {}).get("ok") and res.get("numpy_check", {}).get("ok")
        if "error" in res:
            log(f"ERR  {L['id']}: {res['error'][:600]}")
        else:
            log(f"{'ok  ' if ok else 'BAD '} {L['id']}: {rec['median_us']:.1f} us, {rec['tflops']:.0f} TFLOP/s, "
                f"torch rel {res['torch_check']['rel_l2']:.2e}, numpy rel {res['numpy_check']['rel_l2']:.2e} "
                f"({rec['wall_s']} s)")
        if "clang_ptx" in res:
            c = res["clang_ptx"]
            log(f"     clang PTX: {c.get('error') or '%.1f us, torch ok %s' % (c['median_us'], c['torch_check']['ok'])}")
        save(a.out, doc, ptx_store)
    doc["nvidia_smi_after"] = nvidia_smi()
    doc["wall_s"] = round(time.time() - t_start, 1)
    save(a.out, doc, ptx_store)
    log("\nid | median us | TFLOP/s | checks")
    for r in doc["launches"]:
        if "median_us" in r:
            log(f"{r['id']} | {r['median_us']:.1f} | {r['tflops']:.0f} | torch {r['torch_check']['ok']} numpy {r['numpy_check']['ok']}")
        else:
            log(f"{r['id']} | - | - | {r.get('error', '')[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
