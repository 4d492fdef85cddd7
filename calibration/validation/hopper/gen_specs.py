#!/usr/bin/env python3
"""Writes the kernsim launch specs of the Hopper validation set, specs/<id>.json, from launches.py.

  python3 calibration/validation/hopper/gen_specs.py           # (re)write specs/
  python3 calibration/validation/hopper/gen_specs.py --check   # fail if specs/ differs

Triton launches run the PTX the H200's Triton emitted (ptx_triton/<id>.ptx, with its metadata
<id>.json: entry name, dynamic shared bytes, tensor-descriptor boxes and swizzles); the ladder runs
clang's PTX of cuda/gemm_ladder.cu (ptx_clang/), which kernsim compiles itself from the source.
Each spec's arguments are checked against its PTX entry's parameters (count and kind).

Spec version 2 (issue 12) where a launch has tensor maps or a cluster:
  {"tensor_map": {"buffer": B, "dtype", "dims" (innermost first), "strides_bytes", "box",
   "element_strides", "swizzle", "interleave", "l2_promotion", "oob_fill"}}
  B is the index of the buffer argument the map describes (the ladder), or -- for Triton's
  host-side tensor descriptors, whose kernels take no pointer to the tensor -- the buffer itself,
  inline: {"buffer": "bf16", "count": N, "init": "uniform"} (a buffer that is no parameter).
  A Triton descriptor parameter is the map, then the tensor's shape (i32 each, outermost first),
  then its strides in elements (i64 each), as Triton's launcher passes them.
  "cluster": [x, y, z] for the 2x1-cluster ladder step (clang drops __cluster_dims__, so its PTX
  carries no .reqnctapercluster: the spec says it).
Triton's trailing scratch pointers (global, profile) get a 1-byte buffer each: the kernels declare
no scratch (size 0; the metadata says so), so they never touch it.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import launches as hl  # noqa: E402

SPECS = os.path.join(HERE, "specs")
PTX_TRITON = os.path.join(HERE, "ptx_triton")
PTX_CLANG = os.path.join(HERE, "ptx_clang", "gemm_ladder.ptx")
STORAGE = {"e4m3": "u8"}
SWIZZLE = {0: "none", 1: "32B", 2: "64B", 3: "128B"}
ESIZE = {"f16": 2, "bf16": 2, "f32": 4, "i32": 4, "u8": 1}


def buffer_obj(a):
    d = {"buffer": STORAGE.get(a["dtype"], a["dtype"]), "count": hl.numel(a["shape"]), "init": a["init"]}
    return d


def tensor_map(buffer_ref, dtype, shape, box_outer_first, swizzle, l2):
    rows, cols = shape[0] if len(shape) == 2 else hl.numel(shape[:-1]), shape[-1]
    return {"tensor_map": {"buffer": buffer_ref, "dtype": dtype, "dims": [cols, rows],
                           "strides_bytes": [cols * ESIZE[dtype]], "box": list(reversed(box_outer_first)),
                           "element_strides": [1, 1], "swizzle": swizzle, "interleave": "none", "l2_promotion": l2,
                           "oob_fill": "zero"}}


def triton_args(L, md):
    bufs = {a["name"]: a for a in L["args"] if a["kind"] == "buf"}
    tma = L["kernel"] == "matmul_tma"
    metas = list(md.get("tensordesc_meta") or [])
    args = []
    for a in L["args"]:
        if a["kind"] == "buf":
            if not tma:
                args.append(dict(buffer_obj(a), name=a["name"]))
        elif a["kind"] == "desc":
            b = bufs[a["buffer"]]
            meta = metas.pop(0)
            m = tensor_map(buffer_obj(b), STORAGE.get(b["dtype"], b["dtype"]), b["shape"], meta["block_size"],
                           SWIZZLE[meta["swizzle"]], "128B")  # Triton's driver: L2 promotion 128B, OOB fill zero
            m["name"] = a["name"]
            args.append(m)
            args += [{"type": "i32", "value": s, "name": f"{a['name']}.shape{i}"} for i, s in enumerate(b["shape"])]
            strides = [hl.numel(b["shape"][i + 1:]) for i in range(len(b["shape"]))]
            args += [{"type": "i64", "value": s, "name": f"{a['name']}.stride{i}"} for i, s in enumerate(strides)]
        else:
            args.append({"type": a["type"], "value": a["value"], "name": a["name"]})
    return args


def ladder_args(L):
    idx = {a["name"]: k for k, a in enumerate(L["args"]) if a["kind"] == "buf"}
    args = []
    for a in L["args"]:
        if a["kind"] == "buf":
            args.append(dict(buffer_obj(a), name=a["name"]))
        elif a["kind"] == "desc":
            b = next(x for x in L["args"] if x.get("name") == a["buffer"])
            m = tensor_map(idx[a["buffer"]], b["dtype"], b["shape"], a["block"], "128B", "256B")
            m["name"] = a["name"]
            args.append(m)
        else:
            args.append({"type": a["type"], "value": a["value"], "name": a["name"]})
    return args


def ptx_params(text, entry):
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(([^)]*)\)", text)
    if not m:
        return None
    out = []
    for p in m.group(1).split(","):
        if not p.strip():
            continue
        if re.search(r"\.b8\s+\S+\[128\]", p):
            out.append("tensor_map")
        else:
            out.append(re.search(r"\.param\s+\.(\w+)", p).group(1))
    return out


OK_KIND = {"buffer": {"u64"}, "i32": {"u32", "s32", "b32"}, "i64": {"u64", "s64", "b64"}, "f32": {"f32", "b32"},
           "tensor_map": {"tensor_map"}}


def check_params(spec, params):
    if params is None:
        return [f"{spec['id']}: no entry {spec['kernel']} in its PTX"]
    if len(params) != len(spec["args"]):
        return [f"{spec['id']}: PTX takes {len(params)} parameters, the spec gives {len(spec['args'])}"]
    bad = []
    for k, (p, a) in enumerate(zip(params, spec["args"])):
        kind = "tensor_map" if "tensor_map" in a else "buffer" if "buffer" in a else a["type"]
        if p not in OK_KIND[kind]:
            bad.append(f"{spec['id']}: args[{k}] ({a.get('name')}) is {kind}, PTX parameter {k} is {p}")
    return bad


def spec_of(L, problems):
    d = {"spec_version": 1, "id": L["id"], "family": L["family"]}
    if L["kind"] == "triton":
        md_path = os.path.join(PTX_TRITON, L["id"] + ".json")
        if not os.path.exists(md_path):
            problems.append(f"{L['id']}: no {os.path.relpath(md_path, HERE)} (run measure_hopper.py on the H200)")
            return None
        with open(md_path) as f:
            md = json.load(f)
        with open(os.path.join(PTX_TRITON, L["id"] + ".ptx")) as f:
            ptx = f.read()
        d.update({"source": f"../ptx_triton/{L['id']}.ptx", "kernel": md["name"], "grid": L["grid"],
                  "block": [L["num_warps"] * 32], "dynamic_shared_bytes": int(md["shared"])})
        d["args"] = triton_args(L, md)
        params = ptx_params(ptx, md["name"])
        for name in ("global_scratch", "profile_scratch")[: max(0, (len(params) if params else 0) - len(d["args"]))]:
            d["args"].append({"buffer": "u8", "count": 1, "init": "zeros", "name": name})
        if md.get("global_scratch_size") or md.get("profile_scratch_size"):
            problems.append(f"{L['id']}: the kernel declares scratch memory; size its buffers")
    else:
        with open(PTX_CLANG) as f:
            ptx = f.read()
        d.update({"source": "../cuda/gemm_ladder.cu", "kernel": L["kernel"], "grid": L["grid"], "block": L["block"],
                  "dynamic_shared_bytes": L["dynamic_shared_bytes"]})
        if L["cluster"]:
            d["cluster"] = L["cluster"]
        d["args"] = ladder_args(L)
        params = ptx_params(ptx, L["kernel"])
    if any("tensor_map" in a for a in d["args"]) or "cluster" in d:
        d["spec_version"] = 2
    d["notes"] = L["notes"]
    d["flops"] = L["flops"]
    d["min_bytes"] = L["min_bytes"]
    problems += check_params(d, params)
    return d


def main():
    check = "--check" in sys.argv
    problems, specs = [], []
    for L in hl.all_launches():
        s = spec_of(L, problems)
        if s:
            specs.append(s)
    if problems:
        print("\n".join(problems))
        return 1
    return write_specs(specs, SPECS, "launches.py", check)


def write_specs(specs, specs_dir, table, check):
    """Writes each spec to specs_dir/<id>.json, or with `check` reports specs that differ from what
    `table` (the launch table's file name) generates and files no launch makes; 0 or 1 as an exit
    code. The Blackwell set's gen_specs.py uses it too."""
    os.makedirs(specs_dir, exist_ok=True)
    drift = []
    for s in specs:
        path = os.path.join(specs_dir, s["id"] + ".json")
        text = json.dumps(s, indent=1) + "\n"
        if check:
            if not os.path.exists(path) or open(path).read() != text:
                drift.append(s["id"])
        else:
            with open(path, "w") as f:
                f.write(text)
    if check:
        stale = sorted(set(os.listdir(specs_dir)) - {s["id"] + ".json" for s in specs})
        if drift or stale:
            print(f"specs differ from {table}: {drift + stale}")
            return 1
        print(f"{len(specs)} specs match")
        return 0
    print(f"wrote {len(specs)} specs to {os.path.relpath(specs_dir)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
