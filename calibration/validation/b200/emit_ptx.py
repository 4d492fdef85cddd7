#!/usr/bin/env python3
"""Compiles the Blackwell set for sm_100a (no GPU needed) and keeps what kernsim runs:

  ptx_triton/<id>.ptx, <id>.json   each Triton launch, as the Triton installed here writes it
                                   (metadata: entry name, shared bytes, warps, Triton version,
                                   ptxas registers)
  ptx_clang/tcgen05_ladder.ptx     cuda/tcgen05_ladder.cu through clang-22 for sm_100a (what
                                   `kernsim run` compiles from the .cu source itself)

Every PTX is assembled with ptxas for sm_100a (Triton's own ptxas-blackwell; the ladder also with
the CUDA toolkit's ptxas when one is installed) and must reach tcgen05.mma of the kind the launch
needs, or the script fails.

  python3 calibration/validation/b200/emit_ptx.py [--only PATTERN] [--out DIR]
"""
import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import b200_launches as bl  # noqa: E402

TRITON_TYPE = {"f16": "fp16", "bf16": "bf16", "f32": "fp32", "i32": "i32", "e4m3": "fp8e4nv", "u8": "u8"}
LADDER_CU = os.path.join(HERE, "cuda", "tcgen05_ladder.cu")
# what each family's PTX must contain (tcgen05.mma and its kind)
MUST = {"triton_matmul": r"tcgen05\.mma\.cta_group::1\.kind::(f16|f8f6f4)",
        "triton_attention": r"tcgen05\.mma\.cta_group::1\.kind::f16",
        "cuda_tcgen05_ladder": r"tcgen05\.mma\.cta_group::2\.kind::f16"}
MUST_SCALED = {"e4m3": r"tcgen05\.mma\.cta_group::1\.kind::mxf8f6f4\.block_scale",
               "e2m1": r"tcgen05\.mma\.cta_group::1\.kind::mxf4\.block_scale"}


def kernel_fn(launch):
    if launch["kernel"] == "matmul_scaled":
        import b200_triton
        return b200_triton.matmul_scaled
    import triton_kernels  # the Hopper set's (b200_launches put its folder on sys.path)
    return getattr(triton_kernels, launch["kernel"])


def signature(launch):
    sig, div = {}, []
    for a in launch["args"]:
        if a["kind"] == "buf":
            sig[a["name"]] = "*" + TRITON_TYPE[a["dtype"]]
            div.append(a["name"])
        else:
            sig[a["name"]] = a["type"].replace("f32", "fp32")
            if a["type"] == "i32" and a["value"] % 16 == 0:
                div.append(a["name"])
    return sig, div


def compile_triton(launch):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    fn = kernel_fn(launch)
    sig, div = signature(launch)
    for k in launch["constexprs"]:
        sig[k] = "constexpr"
    names = list(fn.arg_names)
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in div}
    src = ASTSource(fn, sig, constexprs=dict(launch["constexprs"]), attrs=attrs)
    return triton.compile(src, target=GPUTarget("cuda", 100, 32),
                          options={"num_warps": launch["num_warps"], "num_stages": launch["num_stages"]})


def triton_ptxas():
    import triton
    p = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas-blackwell")
    return p if os.path.exists(p) else shutil.which("ptxas")


def ptxas(tool, ptx_text, entry=None):
    """(registers of `entry` or of every entry, error text) from `tool -arch=sm_100a -v`."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "k.ptx")
        with open(p, "w") as f:
            f.write(ptx_text)
        r = subprocess.run([tool, "-arch=sm_100a", "-v", p, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()[-2000:]
    regs = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"Compiling entry function '(\w+)'.*?Used (\d+) registers", r.stderr + r.stdout, re.S)}
    return (regs.get(entry) if entry else regs), ""


def emit_ladder(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, "tcgen05_ladder.ptx")
    clang = shutil.which("clang++-22") or shutil.which("clang++")
    cuda = "/usr/local/cuda" if os.path.isdir("/usr/local/cuda") else None
    cmd = [clang, "-x", "cuda", "--cuda-gpu-arch=sm_100a", "--cuda-device-only", "-S", "-O3", "-std=c++17",
           "-Wno-unknown-cuda-version", "-o", out, LADDER_CU] + ([f"--cuda-path={cuda}"] if cuda else [])
    subprocess.run(cmd, check=True)
    text = open(out).read()
    problems = []
    for tool in [t for t in (triton_ptxas(), shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas") if t and os.path.exists(t)]:
        regs, err = ptxas(tool, text)
        if regs is None:
            problems.append(f"ladder: {tool} rejects it: {err}")
        else:
            print(f"ladder: {os.path.basename(tool)} ok, registers {regs}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=HERE, help="folder to write ptx_triton/ and ptx_clang/ into (default: here)")
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args()
    import triton
    tdir = os.path.join(a.out, "ptx_triton")
    os.makedirs(tdir, exist_ok=True)
    tool = triton_ptxas()
    problems = []
    for L in bl.all_launches():
        if L["kind"] != "triton" or (a.only and not any(fnmatch.fnmatch(L["id"], p) for p in a.only)):
            continue
        try:
            k = compile_triton(L)
        except Exception as e:  # report every failing launch, then fail
            problems.append(f"{L['id']}: {type(e).__name__}: {str(e)[:1500]}")
            continue
        ptx = k.asm["ptx"]
        must = MUST_SCALED[L["fmt"]] if L["kernel"] == "matmul_scaled" else MUST[L["family"]]
        if not re.search(must, ptx):
            problems.append(f"{L['id']}: no {must} in Triton's PTX")
        regs, err = ptxas(tool, ptx, k.metadata.name)
        if err:
            problems.append(f"{L['id']}: ptxas rejects it: {err}")
        md = {"name": k.metadata.name, "shared": k.metadata.shared, "num_warps": k.metadata.num_warps,
              "num_stages": L["num_stages"], "target": "sm_100a", "triton": triton.__version__,
              "ptxas": os.path.basename(tool), "registers": regs,
              "global_scratch_size": getattr(k.metadata, "global_scratch_size", 0),
              "profile_scratch_size": getattr(k.metadata, "profile_scratch_size", 0)}
        with open(os.path.join(tdir, L["id"] + ".ptx"), "w") as f:
            f.write(ptx)
        with open(os.path.join(tdir, L["id"] + ".json"), "w") as f:
            json.dump(md, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{L['id']}: {md['name']} shared {md['shared']} registers {regs}")
    if not a.only:
        problems += emit_ladder(os.path.join(a.out, "ptx_clang"))
    if problems:
        print("\n".join(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
