#!/usr/bin/env python3
"""Compiles the set's Triton launches for sm_90a with the Triton installed here (no GPU needed) and
writes their PTX and metadata: a check that every kernel compiles to wgmma (and, with descriptors,
to cp.async.bulk.tensor) before any device time is spent.

  python3 calibration/validation/hopper/emit_ptx.py --out /tmp/hopper_ptx [--only PATTERN]

The PTX kernsim runs is the PTX the H200's Triton emitted during the measurement (measure_hopper.py
writes it; it is kept in ptx_triton/); this script is for checking, and for that directory when the
two Triton versions agree.
"""
import argparse
import fnmatch
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import launches  # noqa: E402

TRITON_TYPE = {"f16": "fp16", "bf16": "bf16", "f32": "fp32", "i32": "i32", "e4m3": "fp8e4nv"}


def signature(launch):
    """Triton's (signature, divisible-argument names) for a launch's user arguments."""
    bufs = {a["name"]: a for a in launch["args"] if a["kind"] == "buf"}
    sig, div = {}, []
    for a in launch["args"]:
        if a["kind"] == "buf":
            if launch["kernel"] == "matmul_tma":
                continue  # the descriptors carry the buffers
            sig[a["name"]] = "*" + TRITON_TYPE[a["dtype"]]
            div.append(a["name"])
        elif a["kind"] == "desc":
            t = TRITON_TYPE[bufs[a["buffer"]]["dtype"]]
            sig[a["name"]] = f"tensordesc<{t}[{', '.join(str(b) for b in a['block'])}]>"
        else:
            sig[a["name"]] = a["type"].replace("f32", "fp32")
            if a["type"] == "i32" and a["value"] % 16 == 0:
                div.append(a["name"])
    return sig, div


def compile_launch(launch):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    import triton_kernels
    fn = getattr(triton_kernels, launch["kernel"])
    sig, div = signature(launch)
    for k in launch["constexprs"]:
        sig[k] = "constexpr"
    names = list(fn.arg_names)
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in div}
    src = ASTSource(fn, sig, constexprs=dict(launch["constexprs"]), attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": launch["num_warps"], "num_stages": launch["num_stages"]})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    import triton
    bad = 0
    for L in launches.all_launches():
        if L["kind"] != "triton" or (a.only and not any(fnmatch.fnmatch(L["id"], p) for p in a.only)):
            continue
        try:
            k = compile_launch(L)
        except Exception as e:  # report every failing launch, then fail
            print(f"FAIL {L['id']}: {type(e).__name__}: {str(e)[:2000]}")
            bad += 1
            continue
        ptx = k.asm["ptx"]
        with open(os.path.join(a.out, L["id"] + ".ptx"), "w") as f:
            f.write(ptx)
        md = {k2: (v if isinstance(v, (int, str, float, bool, list, dict, type(None))) else str(v))
              for k2, v in k.metadata._asdict().items()}
        md["triton_version"] = triton.__version__
        with open(os.path.join(a.out, L["id"] + ".json"), "w") as f:
            json.dump(md, f, indent=1, default=str)
        ops = {op: ptx.count(op) for op in ("wgmma.mma_async", "cp.async.bulk.tensor", "mbarrier.try_wait", "mma.sync")}
        print(f"ok   {L['id']}: shared {k.metadata.shared} B, {ops}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
