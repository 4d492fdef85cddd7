#!/usr/bin/env python3
"""Runs the CUDA test corpus through kernsim and checks every output against numpy references.

For each spec in tests/kernels/cuda/specs:
    kernsim run SPEC.json --arch h200 --full --dump-buffers DIR
kernsim writes every buffer argument N as DIR/arg<N>.in.bin (before the launch) and
DIR/arg<N>.out.bin (after), raw little-endian. The checker types them by the spec, runs the
reference (tests/kernels/reference.py) on the *.in.bin contents, compares each output within its
stated tolerance, and requires every other buffer to come back byte-for-byte unchanged. It also
checks that kernsim's initial bytes equal launch_inputs.py's port of the spec's init rules (the port
the H200 measurement script uses), so the two cannot drift apart silently.

One line per spec: PASS / FAIL (with max abs / rel error and the first bad element) / SKIP.
Exit status 0 when everything passed, 1 otherwise.

  python3 tests/kernels/check_corpus.py                       # all specs, kernsim compiles the .cu (clang)
  python3 tests/kernels/check_corpus.py --ptx-producer nvcc   # nvcc -ptx first, kernsim reads the PTX
  python3 tests/kernels/check_corpus.py --only 'sgemm_*'      # ids or kernel names, shell patterns
  python3 tests/kernels/check_corpus.py --self-test           # references vs independent emulations, no kernsim
  python3 tests/kernels/check_corpus.py --parse-check         # every spec parses (kernsim exit 0 or 5, never 3)
                                                              # and matches its kernel's PTX parameters
  python3 tests/kernels/check_corpus.py --from-dumps DIR      # check dumps DIR/<id>/arg<N>.{in,out}.bin made
                                                              # elsewhere (e.g. on a GPU by measure_h200.py)
Only numpy and the standard library are needed.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SPEC_DIR = os.path.join(HERE, "cuda", "specs")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "calibration", "validation"))

import launch_inputs as li  # noqa: E402
import reference as R  # noqa: E402

EXIT_NOT_IMPLEMENTED = 5
EXIT_BAD_INPUT = 3


def load_specs(spec_dir, only):
    specs = []
    for name in sorted(os.listdir(spec_dir)):
        if not name.endswith(".json"):
            continue
        spec = li.load_spec(os.path.join(spec_dir, name))
        sid = spec.get("id", name[:-5])
        if only and not any(fnmatch.fnmatch(sid, p) or fnmatch.fnmatch(spec["kernel"], p) for p in only):
            continue
        specs.append(spec)
    return specs


def public_spec(spec):
    return {k: v for k, v in spec.items() if not k.startswith("_")}


def nvcc_rewrite(specs, work):
    """Compile each source once with nvcc -ptx and write spec copies that point at the PTX.
    Returns {id: path of the rewritten spec} or raises with nvcc's message."""
    ptx_dir = os.path.join(work, "ptx")
    spec_out = os.path.join(work, "specs")
    os.makedirs(ptx_dir, exist_ok=True)
    os.makedirs(spec_out, exist_ok=True)
    compiled = {}
    paths = {}
    for spec in specs:
        src = os.path.normpath(os.path.join(spec["_dir"], spec["source"]))
        if src not in compiled:
            ptx = os.path.join(ptx_dir, os.path.splitext(os.path.basename(src))[0] + ".ptx")
            cmd = ["nvcc", "-ptx", "-arch=sm_90a", "-o", ptx, src]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stderr}")
            compiled[src] = ptx
        s = public_spec(spec)
        s["source"] = compiled[src]
        args = []
        for a in s["args"]:
            a = dict(a)
            init = a.get("init", "")
            if isinstance(init, str) and init.startswith("file:") and not os.path.isabs(init[5:]):
                a["init"] = "file:" + os.path.normpath(os.path.join(spec["_dir"], init[5:]))
            args.append(a)
        s["args"] = args
        path = os.path.join(spec_out, spec.get("id", spec["kernel"]) + ".json")
        with open(path, "w") as f:
            json.dump(s, f, indent=1)
        paths[spec.get("id")] = path
    return paths


def read_dump(spec, dump_dir):
    """-> (inputs list for the reference, {k: out array}, problems list)"""
    problems = []
    ins, outs = [], {}
    for k, a in enumerate(spec["args"]):
        if "buffer" not in a:
            ins.append(li.scalar_value(a))
            continue
        dtype, size = li.ELEM[a["buffer"]]
        want = int(a["count"]) * size
        arrays = []
        for kind in ("in", "out"):
            p = os.path.join(dump_dir, f"arg{k}.{kind}.bin")
            if not os.path.exists(p):
                problems.append(f"missing {os.path.basename(p)}")
                arrays.append(None)
                continue
            raw = np.fromfile(p, dtype=np.uint8)
            if raw.size != want:
                problems.append(f"{os.path.basename(p)} has {raw.size} bytes, want {want}")
                arrays.append(None)
                continue
            arrays.append(raw.view(dtype).copy())
        ins.append(arrays[0])
        outs[k] = arrays[1]
    return ins, outs, problems


def check_dump(spec, dump_dir, check_init=True):
    """-> (ok, message)"""
    ins, outs, problems = read_dump(spec, dump_dir)
    if problems:
        return False, "; ".join(problems)
    msgs = []
    if check_init:
        for k, a in enumerate(spec["args"]):
            if "buffer" in a:
                mine = li.make_buffer(a, k, int(spec.get("seed", 0)), spec["_dir"])
                if mine.tobytes() != ins[k].tobytes():
                    msgs.append(f"arg{k}.in.bin differs from launch_inputs.py's init ({a.get('init', 'zeros')})")
    try:
        expect = R.run_reference(spec, ins)
    except KeyError:
        return False, f"no reference for kernel {spec['kernel']}"
    worst_abs, worst_rel = 0.0, 0.0
    for k, a in enumerate(spec["args"]):
        if "buffer" not in a:
            continue
        etype = a["buffer"]
        if k in expect:
            ok, mx, rel, nbad, first = R.compare(outs[k], expect[k], etype)
            worst_abs, worst_rel = max(worst_abs, mx), max(worst_rel, rel)
            if not ok:
                got = R.as_float64(outs[k], etype).reshape(-1)[first] if etype in ("f32", "f16", "bf16", "f64") \
                    else int(outs[k].reshape(-1)[first])
                want = np.asarray(expect[k].values).reshape(-1)[first]
                msgs.append(f"arg{k}: {nbad}/{outs[k].size} outside tolerance, first [{first}] got {got!r} "
                            f"want {want!r} (max abs {mx:.3g}, max rel {rel:.3g}; tol: {expect[k].tol.why})")
        elif outs[k].tobytes() != ins[k].tobytes():
            changed = int(np.sum(outs[k].view(np.uint8) != ins[k].view(np.uint8)))
            msgs.append(f"arg{k}: not an output but {changed} bytes changed")
    if msgs:
        return False, "; ".join(msgs)
    return True, f"max abs {worst_abs:.3g}, max rel {worst_rel:.3g}"


def run_kernsim(kernsim, spec_path, dump_dir, arch, timeout):
    cmd = [kernsim, "run", spec_path, "--arch", arch, "--full", "--dump-buffers", dump_dir]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    return p.returncode, (p.stderr or p.stdout).strip().splitlines()[-1:] or [""]


CLANG_CMD = ["clang++-22", "-x", "cuda", "--cuda-gpu-arch=sm_90a", "--cuda-device-only", "-S", "-O2",
             "--cuda-path=/usr/local/cuda", "-Wno-unknown-cuda-version"]


def compile_ptx(src, producer, out_dir):
    """-> (ptx text or None, error message)"""
    out = os.path.join(out_dir, f"{os.path.basename(src)}.{producer}.ptx")
    cmd = (["nvcc", "-ptx", "-arch=sm_90a", "-o", out, src] if producer == "nvcc" else CLANG_CMD + ["-o", out, src])
    if shutil.which(cmd[0]) is None:
        return None, f"{cmd[0]} not found"
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    with open(out) as f:
        return f.read(), ""


def parse_check(specs, kernsim, arch, producers, kernsim_timeout=60.0):
    """Every spec must get past kernsim's spec reader (exit 0 or 5, never 3 = bad input), and its
    kernel name and arguments must match the kernel's PTX parameters as each compiler emits them."""
    fails = 0
    work = tempfile.mkdtemp(prefix="kernsim-parse-")
    entries = {}
    try:
        for spec in specs:
            sid = spec.get("id")
            src = os.path.normpath(os.path.join(spec["_dir"], spec["source"]))
            problems = []
            if not os.path.exists(src):
                problems.append(f"source {src} does not exist")
            else:
                for prod in producers:
                    if (src, prod) not in entries:
                        text, err = compile_ptx(src, prod, work)
                        entries[(src, prod)] = (li.ptx_entry_params(text) if text is not None else None, err)
                    ent, err = entries[(src, prod)]
                    if ent is None:
                        problems.append(f"{prod}: {err}")
                    else:
                        problems += [f"{prod}: {m}" for m in li.check_signature(spec, ent)]
            note = ""
            if kernsim:
                try:
                    p = subprocess.run([kernsim, "run", spec["_path"], "--arch", arch], capture_output=True, text=True,
                                       timeout=kernsim_timeout)
                except subprocess.TimeoutExpired:
                    # the spec reader answers in milliseconds; still running means it was accepted
                    p = subprocess.CompletedProcess([], 0, "", "")
                    note = f" (kernsim still running after {kernsim_timeout:g} s: spec accepted)"
                if p.returncode == EXIT_BAD_INPUT:
                    problems.append(f"kernsim rejects the spec (exit 3): {p.stderr.strip()}")
                elif p.returncode not in (0, EXIT_NOT_IMPLEMENTED):
                    # 4 (compile/parse), 6 (fault), 70: the spec was read; the failure is kernsim's
                    note = f" (spec accepted; kernsim then exits {p.returncode}: {p.stderr.strip()[:200]})"
            if problems:
                print(f"FAIL {sid}: " + "; ".join(problems))
                fails += 1
            else:
                print(f"ok   {sid}{note}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(specs) - fails} passed, {fails} failed")
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernsim", default=os.path.join(REPO, "build", "kernsim"), help="kernsim binary (default build/kernsim)")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--specs", default=SPEC_DIR, help="directory of specs (default tests/kernels/cuda/specs)")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="spec id or kernel name, shell patterns allowed; repeatable")
    ap.add_argument("--ptx-producer", choices=["clang", "nvcc"], default="clang",
                    help="clang: kernsim compiles the .cu itself; nvcc: nvcc -ptx first, kernsim reads the PTX")
    ap.add_argument("--self-test", action="store_true", help="check the references without kernsim")
    ap.add_argument("--parse-check", action="store_true",
                    help="check that kernsim accepts every spec (exit 0 or 5) and that kernel names and arguments "
                         "match the PTX parameters from clang and nvcc")
    ap.add_argument("--no-compile", action="store_true", help="--parse-check without compiling (kernsim only)")
    ap.add_argument("--no-kernsim", action="store_true", help="--parse-check without kernsim (compilers only)")
    ap.add_argument("--from-dumps", metavar="DIR", help="check existing dumps DIR/<id>/ instead of running kernsim")
    ap.add_argument("--allow-unimplemented", action="store_true",
                    help="count kernsim's exit 5 (not implemented) as SKIP instead of FAIL")
    ap.add_argument("--no-init-check", action="store_true", help="do not compare *.in.bin with launch_inputs.py")
    ap.add_argument("--keep", metavar="DIR", help="keep the dumps under DIR/<id>/")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per kernsim run (default 300)")
    a = ap.parse_args()

    specs = load_specs(a.specs, a.only)
    if not specs:
        print("no specs matched", file=sys.stderr)
        return 2

    if a.self_test:
        import selftest
        t0 = time.time()
        fails = selftest.self_test(specs, report_unused=not a.only and a.specs == SPEC_DIR)
        print(f"self-test: {fails} failure(s) in {time.time() - t0:.1f} s")
        return 1 if fails else 0

    if a.parse_check:
        producers = [p for p in ("clang", "nvcc") if not a.no_compile]
        return parse_check(specs, None if a.no_kernsim else a.kernsim, a.arch, producers, a.timeout)

    if a.from_dumps:
        npass = nfail = 0
        for spec in specs:
            sid = spec.get("id")
            d = os.path.join(a.from_dumps, sid)
            if not os.path.isdir(d):
                print(f"FAIL {sid}: no dump directory {d}")
                nfail += 1
                continue
            ok, msg = check_dump(spec, d, not a.no_init_check)
            print(f"{'PASS' if ok else 'FAIL'} {sid}: {msg}")
            npass += ok
            nfail += not ok
        print(f"{npass} passed, {nfail} failed")
        return 1 if nfail else 0

    if not os.path.exists(a.kernsim):
        print(f"kernsim binary not found: {a.kernsim} (build it, or pass --kernsim)", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="kernsim-corpus-")
    try:
        paths = {s.get("id"): s["_path"] for s in specs}
        if a.ptx_producer == "nvcc":
            paths = nvcc_rewrite(specs, work)
        npass = nfail = nskip = 0
        for spec in specs:
            sid = spec.get("id")
            dump = os.path.join(a.keep, sid) if a.keep else os.path.join(work, "dumps", sid)
            if os.path.isdir(dump):
                shutil.rmtree(dump)
            os.makedirs(dump, exist_ok=True)
            t0 = time.time()
            rc, last = run_kernsim(a.kernsim, paths[sid], dump, a.arch, a.timeout)
            dt = time.time() - t0
            dumped = all(os.path.exists(os.path.join(dump, f"arg{k}.out.bin"))
                         for k, arg in enumerate(spec["args"]) if "buffer" in arg)
            if rc == 0 or (rc == EXIT_NOT_IMPLEMENTED and dumped):
                # exit 5 with complete dumps: the kernel ran functionally and only a later stage
                # (timing) is missing -- the outputs can be checked
                ok, msg = check_dump(spec, dump, not a.no_init_check)
                note = "" if rc == 0 else ", exit 5 after the functional run"
                print(f"{'PASS' if ok else 'FAIL'} {sid} ({dt:.2f} s{note}): {msg}")
                npass += ok
                nfail += not ok
            elif rc == EXIT_NOT_IMPLEMENTED and a.allow_unimplemented:
                print(f"SKIP {sid}: kernsim exit 5 (not implemented): {last[0]}")
                nskip += 1
            else:
                print(f"FAIL {sid}: kernsim exit {rc}: {last[0] if isinstance(last, list) else last}")
                nfail += 1
        print(f"{npass} passed, {nfail} failed, {nskip} skipped")
        return 1 if nfail else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
