#!/usr/bin/env python3
"""The Blackwell set's ctest (b200_validation_set): the set is consistent, and kernsim either runs
each launch or stops it with a named unsupported instruction -- never a crash, a parse error or an
internal error.

Consistency: specs/ is what gen_specs.py writes from b200_launches.py (and the PTX kept here);
every launch has a reference (b200_reference.REFS) and exactly one output; every spec buffer has the
element count and storage type of its launch argument; every Triton PTX targets sm_100a; the
ladder's PTX in ptx_clang/ is what clang-22 writes from cuda/tcgen05_ladder.cu today (when clang
is installed).

Runs: `kernsim run SPEC --arch b200 --time-limit T --max-instructions N` for every spec. Accepted:
exit 0; exit 5 naming what is unsupported; exit 6 from the wall-time or instruction limit (the
launch runs; a full run of these launches takes minutes, not a ctest's seconds). Anything else
fails the test, with kernsim's message.

  python3 calibration/validation/b200/check_set.py --kernsim build/kernsim [--only PATTERN]
"""
import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import b200_launches as bl  # noqa: E402
import b200_reference as br  # noqa: E402
import importlib.util  # noqa: E402

# gen_specs.py by path: b200_launches puts ../hopper (which has its own gen_specs.py) first on sys.path
_gs = importlib.util.spec_from_file_location("b200_gen_specs", os.path.join(HERE, "gen_specs.py"))
gs = importlib.util.module_from_spec(_gs)
_gs.loader.exec_module(gs)

STORAGE = {"e4m3": "u8"}


def consistency():
    problems = []
    specs = {s["id"]: s for s in gs.all_specs(problems)}
    for L in bl.all_launches():
        if L["ref"] not in br.REFS:
            problems.append(f"{L['id']}: no reference `{L['ref']}`")
        if sum(1 for a in L["args"] if a.get("out")) != 1:
            problems.append(f"{L['id']}: not exactly one output")
        s = specs.get(L["id"])
        if s is None:
            continue
        path = os.path.join(gs.SPECS, L["id"] + ".json")
        if not os.path.exists(path) or json.load(open(path)) != json.loads(json.dumps(s)):
            problems.append(f"{L['id']}: specs/{L['id']}.json is stale (run gen_specs.py)")
        by_name = {a.get("name"): a for a in s["args"]}
        for a in L["args"]:
            if a["kind"] != "buf":
                continue
            sa = by_name.get(a["name"])
            if sa is None or sa.get("count") != bl.numel(a["shape"]) or sa.get("buffer") != STORAGE.get(a["dtype"], a["dtype"]):
                problems.append(f"{L['id']}: buffer {a['name']} in the spec is not {a['dtype']}[{bl.numel(a['shape'])}]")
        if L["kind"] == "triton":
            text = open(os.path.join(gs.PTX_TRITON, L["id"] + ".ptx")).read()
            if ".target sm_100a" not in text:
                problems.append(f"{L['id']}: its PTX does not target sm_100a")
    stale = sorted(set(os.listdir(gs.SPECS)) - {i + ".json" for i in specs})
    problems += [f"specs/{n}: no launch of that id" for n in stale]
    clang = shutil.which("clang++-22")
    if clang and os.path.isdir("/usr/local/cuda"):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "l.ptx")
            r = subprocess.run([clang, "-x", "cuda", "--cuda-gpu-arch=sm_100a", "--cuda-device-only", "-S", "-O3",
                                "-std=c++17", "--cuda-path=/usr/local/cuda", "-Wno-unknown-cuda-version", "-o", out,
                                os.path.join(HERE, "cuda", "tcgen05_ladder.cu")], capture_output=True, text=True)
            if r.returncode != 0:
                problems.append(f"cuda/tcgen05_ladder.cu does not compile: {r.stderr[-1500:]}")
            elif open(out).read() != open(gs.PTX_CLANG).read():
                problems.append("ptx_clang/tcgen05_ladder.ptx is stale (run emit_ptx.py)")
    return problems, len(specs)


def run_one(kernsim, L, time_limit, max_instructions):
    spec = os.path.join(gs.SPECS, L["id"] + ".json")
    t0 = time.time()
    r = subprocess.run([kernsim, "run", spec, "--arch", "b200", "--time-limit", str(time_limit),
                        "--max-instructions", str(max_instructions)], capture_output=True, text=True)
    msg = (r.stderr.strip().splitlines() or [""])[-1]
    ok = (r.returncode == 0 or (r.returncode == 5 and "unsupported" in msg and len(msg) > 30)
          or (r.returncode == 6 and ("wall-time limit" in msg or "instruction limit" in msg)))
    return L["id"], r.returncode, time.time() - t0, msg, ok, r.stdout


def run_all(kernsim, only, time_limit, max_instructions, jobs):
    from concurrent.futures import ThreadPoolExecutor
    todo = [L for L in bl.all_launches() if not only or any(fnmatch.fnmatch(L["id"], p) for p in only)]
    with ThreadPoolExecutor(max_workers=jobs) as ex:  # most of a run is filling the input buffers
        rows = list(ex.map(lambda L: run_one(kernsim, L, time_limit, max_instructions), todo))
    problems = [f"{lid}: exit {rc}: {msg or out[-500:]}" for lid, rc, _, msg, ok, out in rows if not ok]
    for lid, rc, dt, msg, _, _ in rows:
        print(f"{lid:45s} exit {rc} {dt:5.2f} s  {msg[:150]}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernsim", default=os.path.join(HERE, "..", "..", "..", "build", "kernsim"))
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--time-limit", type=float, default=0.5, help="wall seconds a running launch gets (default 0.5)")
    ap.add_argument("--max-instructions", type=int, default=500_000)
    ap.add_argument("--jobs", type=int, default=3, help="kernsim processes at once (default 3)")
    a = ap.parse_args()
    problems, n = consistency()
    print(f"consistency: {n} specs, {len(problems)} problems")
    problems += run_all(a.kernsim, a.only, a.time_limit, a.max_instructions, a.jobs)
    if problems:
        print("\n".join(["FAIL"] + problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
