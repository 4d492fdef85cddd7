#!/usr/bin/env python3
"""Writes the kernsim launch specs of the Blackwell validation set, specs/<id>.json, from
b200_launches.py, in the Hopper set's spec format (../hopper/gen_specs.py, whose functions this
reuses: spec version 2 where a launch has tensor maps or a cluster, tensor maps by buffer index).

  python3 calibration/validation/b200/gen_specs.py           # (re)write specs/
  python3 calibration/validation/b200/gen_specs.py --check   # fail if specs/ differs

Triton launches run the PTX the Triton installed here wrote for sm_100a (ptx_triton/, by
emit_ptx.py); the ladder runs cuda/tcgen05_ladder.cu, which kernsim compiles itself (clang-22;
ptx_clang/ holds that PTX for checking). Each spec's arguments are checked against its PTX entry's
parameters. Run with `kernsim run SPEC --arch b200`.
"""
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import b200_launches as bl  # noqa: E402


def _hopper_gen_specs():
    spec = importlib.util.spec_from_file_location("hopper_gen_specs", os.path.join(HERE, "..", "hopper", "gen_specs.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


hg = _hopper_gen_specs()
SPECS = os.path.join(HERE, "specs")
PTX_TRITON = os.path.join(HERE, "ptx_triton")
PTX_CLANG = os.path.join(HERE, "ptx_clang", "tcgen05_ladder.ptx")


def spec_of(L, problems):
    d = {"spec_version": 1, "id": L["id"], "family": L["family"]}
    if L["kind"] == "triton":
        md_path = os.path.join(PTX_TRITON, L["id"] + ".json")
        if not os.path.exists(md_path):
            problems.append(f"{L['id']}: no {os.path.relpath(md_path, HERE)} (run emit_ptx.py)")
            return None
        with open(md_path) as f:
            md = json.load(f)
        with open(os.path.join(PTX_TRITON, L["id"] + ".ptx")) as f:
            ptx = f.read()
        d.update({"source": f"../ptx_triton/{L['id']}.ptx", "kernel": md["name"], "grid": L["grid"],
                  "block": [L["num_warps"] * 32], "dynamic_shared_bytes": int(md["shared"])})
        d["args"] = hg.triton_args(L, md)
        params = hg.ptx_params(ptx, md["name"])
        for name in ("global_scratch", "profile_scratch")[: max(0, (len(params) if params else 0) - len(d["args"]))]:
            d["args"].append({"buffer": "u8", "count": 1, "init": "zeros", "name": name})
        if md.get("global_scratch_size") or md.get("profile_scratch_size"):
            problems.append(f"{L['id']}: the kernel declares scratch memory; size its buffers")
    else:
        with open(PTX_CLANG) as f:
            ptx = f.read()
        d.update({"source": "../cuda/tcgen05_ladder.cu", "kernel": L["kernel"], "grid": L["grid"], "block": L["block"],
                  "dynamic_shared_bytes": L["dynamic_shared_bytes"]})
        if L["cluster"]:
            d["cluster"] = L["cluster"]
        d["args"] = hg.ladder_args(L)
        params = hg.ptx_params(ptx, L["kernel"])
    if any("tensor_map" in a for a in d["args"]) or "cluster" in d:
        d["spec_version"] = 2
    d["notes"] = L["notes"]
    d["flops"] = L["flops"]
    d["min_bytes"] = L["min_bytes"]
    problems += hg.check_params(d, params)
    return d


def all_specs(problems):
    out = []
    for L in bl.all_launches():
        s = spec_of(L, problems)
        if s:
            out.append(s)
    return out


def main():
    check = "--check" in sys.argv
    problems = []
    specs = all_specs(problems)
    if problems:
        print("\n".join(problems))
        return 1
    return hg.write_specs(specs, SPECS, "b200_launches.py", check)


if __name__ == "__main__":
    sys.exit(main())
