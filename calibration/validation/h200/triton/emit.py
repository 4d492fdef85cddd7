#!/usr/bin/env python3
"""Compiles the validation set's Triton launches (launches.py) for sm_90a with the Triton installed
here (no GPU) and writes ptx_triton/<id>.ptx and <id>.json (Triton's metadata: shared memory,
warps, version). That PTX is what kernsim runs and what measure_h200.py assembles with ptxas and
times on the H200, so the measured code is the simulated code.

  python3 calibration/validation/h200/triton/emit.py [--only PATTERN]
  python3 calibration/validation/h200/gen_specs.py          # then the specs
"""
import argparse
import fnmatch
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "ptx_triton")
sys.path.insert(0, HERE)
import launches  # noqa: E402

PTX_VERSION = 90
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, pinned
TTYPE = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "i32": "i32", "u8": "u8", "f64": "fp64", "i64": "i64"}


def compile_launch(L):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    import kernels
    fn = getattr(kernels, L["kernel"])
    sig, div = {}, []
    for a in L["args"]:
        if "buffer" in a:
            sig[a["name"]] = "*" + TTYPE[a["buffer"]]
            div.append(a["name"])
        else:
            sig[a["name"]] = TTYPE[a["type"]]
            if a["type"] == "i32" and a["value"] % 16 == 0:
                div.append(a["name"])
    for k in L["constexprs"]:
        sig[k] = "constexpr"
    names = list(fn.arg_names)
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in div}
    src = ASTSource(fn, sig, constexprs=dict(L["constexprs"]), attrs=attrs)
    # PTX ISA 9.0: what CUDA 13.0's ptxas (the H200 machine's toolkit) accepts; Triton writes that
    # .version itself (LLVM's features are capped at 9.0 whatever the Triton).
    return triton.compile(src, target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": L["num_warps"], "ptx_version": PTX_VERSION})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args()
    import triton
    os.makedirs(OUT, exist_ok=True)
    bad = 0
    for L in launches.launches():
        if a.only and not any(fnmatch.fnmatch(L["id"], p) for p in a.only):
            continue
        try:
            k = compile_launch(L)
        except Exception as e:  # noqa: BLE001 -- report every failing launch, then fail
            print(f"FAIL {L['id']}: {type(e).__name__}: {str(e)[:1500]}")
            bad += 1
            continue
        with open(os.path.join(OUT, L["id"] + ".ptx"), "w") as f:
            f.write(k.asm["ptx"])
        md = k.metadata._asdict()
        keep = {key: md[key] for key in ("name", "num_warps", "num_ctas", "shared", "cluster_dims", "target")
                if key in md}
        keep = json.loads(json.dumps(keep, default=str))
        keep["triton_version"] = triton.__version__
        keep["ptx_version"] = PTX_VERSION
        with open(os.path.join(OUT, L["id"] + ".json"), "w") as f:
            json.dump(keep, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"ok   {L['id']}: {L['kernel']}, {L['num_warps']} warps, shared {md.get('shared')} B")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
