#!/usr/bin/env python3
"""ThunderKittens' H100 GEMM levels and a HipKittens gfx950 BF16 GEMM, compiled and run in kernsim.

    python3 calibration/validation/kittens/run_kittens.py --fetch            # git clone both into a temp dir
    python3 calibration/validation/kittens/run_kittens.py --tk ~/ThunderKittens --hk ~/HipKittens

For each ThunderKittens level (kernels/gemm/educational_h100/level_NN.cu) the script writes a launch
spec (tk_specs.py: the kernel's `matmul_globals` struct with its pointers and tensor maps, the
matrices as spec-level buffers), runs it on h200 at --check-n with every CTA (--full
--dump-buffers) and compares C with a numpy matrix product of the same A and B, then times it at
--n. The HipKittens kernel (kernels/gemm/bf16fp32/mi350x/256_256_64_32_with16x32.cpp, an 8192^3
bf16 GEMM: its sizes are #defines) is run on mi355x at --hk-check-n with every workgroup (a copy of
the source with the #defines set, in the output directory) and C compared with numpy's A B^T, then
timed as written (8192^3, sampled); HipKittens' GQA attention forward (kernels/attn/gqa/kernel.cpp,
sizes by -D as its Makefile gives them) is checked at B1 H4 H_KV2 N256 D128 with every workgroup
(O and the log-sum-exp against numpy) and timed at its Makefile's B16 H64 H_KV8 N2048. Nothing of either project is written into this repository: the specs and
dumps go to a temporary directory (--out keeps them).

Exit status: 0 when every launch ran and every checked output matched, 1 otherwise.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tk_specs  # noqa: E402

TK_URL = "https://github.com/HazyResearch/ThunderKittens"
HK_URL = "https://github.com/HazyResearch/HipKittens"
HK_GEMM = "kernels/gemm/bf16fp32/mi350x/256_256_64_32_with16x32.cpp"


def bf16_to_f32(raw):
    return (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32)


def kernsim_bin(args):
    if args.kernsim:
        return args.kernsim
    built = os.path.join(HERE, "..", "..", "..", "build", "kernsim")
    return built if os.path.exists(built) else "kernsim"


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def write_spec(out, name, spec):
    path = os.path.join(out, name + ".json")
    with open(path, "w") as f:
        json.dump(spec, f, indent=1)
    return path


def absolute(spec, root):
    """Paths in the spec made absolute against the checkout, so the spec can live anywhere."""
    spec["source"] = os.path.join(root, spec["source"])
    spec["compile"]["include_dirs"] = [os.path.join(root, d) for d in spec["compile"]["include_dirs"]]
    return spec


def check_tk(ks, out, tk, level, n):
    spec = absolute(tk_specs.spec(level, f"kernels/gemm/educational_h100/level_{level}.cu", n), tk)
    path = write_spec(out, f"tk_level_{level}_{n}", spec)
    dump = os.path.join(out, f"tk_level_{level}_{n}_dump")
    rc, so, se = run([ks, "run", path, "--arch", "h200", "--full", "--dump-buffers", dump, "--json"])
    if rc != 0:
        return False, (se or so).strip().splitlines()[-1] if (se or so).strip() else f"exit {rc}"
    names = ("A", "B", "C") if "buffers" in spec else ("arg0", "arg1", "arg2")
    f32 = spec.get("buffers") is None and spec["args"][0]["buffer"] == "f32"

    def load(stem, when):
        raw = open(os.path.join(dump, f"{stem}.{when}.bin"), "rb").read()
        return (np.frombuffer(raw, np.float32) if f32 else bf16_to_f32(raw)).reshape(n, n)
    a, b, c = load(names[0], "in"), load(names[1], "in"), load(names[2], "out")
    ref = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.max(np.abs(c - ref)))
    tol = 1e-3 * np.sqrt(n) if f32 else 0.02 * np.sqrt(n)  # bf16 output: 8 bits of mantissa
    return err <= tol, f"max |C - A B| = {err:.4g} (tolerance {tol:.3g})"


def time_tk(ks, out, tk, level, n):
    spec = absolute(tk_specs.spec(level, f"kernels/gemm/educational_h100/level_{level}.cu", n), tk)
    path = write_spec(out, f"tk_level_{level}_{n}", spec)
    # the scalar levels (01-03) execute ~10^8 warp instructions at 4096^3: no wall-time limit
    rc, so, se = run([ks, "run", path, "--arch", "h200", "--json", "--time-limit", "0"])
    if rc != 0:
        return None, (se or so).strip().splitlines()[-1] if (se or so).strip() else f"exit {rc}"
    r = json.loads(so)
    return r["time_us"], r.get("bottleneck", "")


def hk_spec(hk, m=8192, gemm=HK_GEMM):
    """HipKittens' micro_tk: `micro_globals {gl a, b, c; hipStream_t stream;}` with
    gl<bf16, -1, -1, -1, -1> = {bf16* raw_ptr; size_t batch, depth, rows, cols; descriptor_dict<> (an
    empty struct, 1 byte)} (48 bytes: no tensor maps on AMD); the stream pointer is never read by
    the kernel. C = A B^T (mma_ABt)."""
    def gl(name, rows, cols):
        return {"struct": [{"pointer": name}, {"type": "u64", "value": 1}, {"type": "u64", "value": 1},
                           {"type": "u64", "value": rows}, {"type": "u64", "value": cols}, {"bytes": "00"}]}
    return {"spec_version": 2, "source": os.path.join(hk, gemm), "kernel": "micro_tk",
            "grid": [(m // 256) * (m // 256)], "block": [512], "dynamic_shared_bytes": 160000,
            "buffers": {"A": {"buffer": "bf16", "count": m * m, "init": "uniform"},
                        "B": {"buffer": "bf16", "count": m * m, "init": "uniform"},
                        "C": {"buffer": "bf16", "count": m * m, "init": "zeros"}},
            "args": [{"struct": [gl("A", m, m), gl("B", m, m), gl("C", m, m), {"type": "u64", "value": 0}]}],
            "compile": {"include_dirs": [os.path.join(hk, "include")], "defines": {"KITTENS_CDNA4": None},
                        "std": "c++20"},
            "flops": 2 * m ** 3, "id": "hk_bf16_gemm_mi350x_8192", "family": "hipkittens"}


def hk_small_source(hk, out, m, gemm=HK_GEMM):
    """HipKittens' GEMM fixes its sizes with `#define M 8192` (and K, N): for a check at a size
    kernsim runs with every workgroup, a copy of the source with the three #defines set to `m` is
    written to `out` (outside this repository; the copy includes its headers through the spec's
    include directories, as the original does)."""
    text = open(os.path.join(hk, gemm)).read()
    for d in ("M", "K", "N"):
        text, k = re.subn(rf"^#define {d} \d+\s*$", f"#define {d} {m}", text, count=1, flags=re.M)
        if k != 1:
            raise SystemExit(f"{gemm}: no `#define {d} <size>` line to set (the kernel changed?)")
    path = os.path.join(out, f"hk_gemm_{m}.cpp")
    open(path, "w").write(text)
    return path


def check_hk(ks, out, hk, extra_includes, m, gemm=HK_GEMM):
    """The GEMM at m^3 with every workgroup: C (bf16) against numpy's A B^T (mma_ABt) of the A and
    B kernsim generated."""
    spec = hk_spec(hk, m, gemm)
    spec["source"] = hk_small_source(hk, out, m, gemm)
    spec["compile"]["include_dirs"] += extra_includes
    path = write_spec(out, f"hk_bf16_gemm_{m}", spec)
    dump = os.path.join(out, f"hk_bf16_gemm_{m}_dump")
    rc, so, se = run([ks, "run", path, "--arch", "mi355x", "--full", "--dump-buffers", dump, "--json"])
    if rc != 0:
        return False, (se or so).strip()[-2000:] or f"exit {rc}"

    def load(stem, when):
        return bf16_to_f32(open(os.path.join(dump, f"{stem}.{when}.bin"), "rb").read()).reshape(m, m)
    a, b, c = load("A", "in"), load("B", "in"), load("C", "out")
    err = float(np.max(np.abs(c - a.astype(np.float64) @ b.astype(np.float64).T)))
    tol = 0.02 * np.sqrt(m)
    t = json.loads(so)["time_us"]
    return err <= tol, f"max |C - A B^T| = {err:.4g} (tolerance {tol:.3g}); {t:.2f} us"


HK_ATTN = "kernels/attn/gqa/kernel.cpp"
HK_ATTN_CAUSAL = "kernels/attn/gqa_causal/kernel.cpp"


def hk_attn_spec(hk, b, h, h_kv, n, d=128, src=HK_ATTN):
    """HipKittens' GQA attention forward: `attn_globals<128> {gl Qg, Kg, Vg, Og; gl<float> L_vec;
    hipStream_t stream;}`, Q/O (B, N, H, D) and K/V (B, N, H_KV, D) bf16, L (B, H, 1, N) float (the
    log-sum-exp); sizes by -D as its Makefile gives them (the kernel maps workgroups to heads with
    H = (H / H_KV)^2, so H_KV^2 = H). Workgroups (H, N / 256, B) of 8 waves, 160000 bytes of LDS."""
    def gl(name, *dims):
        return {"struct": [{"pointer": name}] + [{"type": "u64", "value": v} for v in dims] + [{"bytes": "00"}]}
    return {"spec_version": 2, "source": os.path.join(hk, src), "kernel": f"attend_ker<{d}>",
            "grid": [h, (n // 32 + 7) // 8, b], "block": [512], "dynamic_shared_bytes": 160000,
            "buffers": {"Q": {"buffer": "bf16", "count": b * n * h * d, "init": "uniform"},
                        "K": {"buffer": "bf16", "count": b * n * h_kv * d, "init": "uniform"},
                        "V": {"buffer": "bf16", "count": b * n * h_kv * d, "init": "uniform"},
                        "O": {"buffer": "bf16", "count": b * n * h * d, "init": "zeros"},
                        "L": {"buffer": "f32", "count": b * h * n, "init": "zeros"}},
            "args": [{"struct": [gl("Q", b, n, h, d), gl("K", b, n, h_kv, d), gl("V", b, n, h_kv, d), gl("O", b, n, h, d),
                                 gl("L", b, h, 1, n), {"type": "u64", "value": 0}]}],
            "compile": {"include_dirs": [os.path.join(hk, "include")],
                        "defines": {"KITTENS_CDNA4": None, "HIP_ENABLE_WARP_SYNC_BUILTINS": None, "ATTN_B": str(b),
                                    "ATTN_H": str(h), "ATTN_H_KV": str(h_kv), "ATTN_N": str(n)},
                        "std": "c++20", "flags": ["-ffast-math"]},
            "flops": 4 * b * n * n * h * d, "id": f"hk_gqa_attn_b{b}_h{h}_n{n}", "family": "hipkittens"}


def check_hk_attn(ks, out, hk, extra_includes, b=1, h=4, h_kv=2, n=256, d=128, causal=False):
    """The attention with every workgroup: O against numpy's softmax(Q K^T / sqrt(D)) V per head (KV
    head h // (H / H_KV); causal: key j > query i masked), L against the log-sum-exp of the scaled
    scores."""
    spec = hk_attn_spec(hk, b, h, h_kv, n, d, HK_ATTN_CAUSAL if causal else HK_ATTN)
    spec["compile"]["include_dirs"] += extra_includes
    tag = f"hk_gqa_attn_{'causal_' if causal else ''}{n}"
    path = write_spec(out, tag, spec)
    dump = os.path.join(out, tag + "_dump")
    rc, so, se = run([ks, "run", path, "--arch", "mi355x", "--full", "--dump-buffers", dump, "--json"])
    if rc != 0:
        return False, (se or so).strip()[-2000:] or f"exit {rc}"

    def load(stem, shape):
        return bf16_to_f32(open(os.path.join(dump, f"{stem}.{'out' if stem == 'O' else 'in'}.bin"), "rb").read()).reshape(shape)
    q, k, v = load("Q", (b, n, h, d)), load("K", (b, n, h_kv, d)), load("V", (b, n, h_kv, d))
    o = load("O", (b, n, h, d))
    lse = np.frombuffer(open(os.path.join(dump, "L.out.bin"), "rb").read(), np.float32).reshape(b, h, n)
    err_o = err_l = 0.0
    for bi in range(b):
        for hi in range(h):
            kv = hi // (h // h_kv)
            s = q[bi, :, hi].astype(np.float64) @ k[bi, :, kv].astype(np.float64).T / np.sqrt(d)
            if causal:
                s[np.triu(np.ones((n, n), bool), 1)] = -np.inf
            m = s.max(axis=1, keepdims=True)
            p = np.exp(s - m)
            z = p.sum(axis=1, keepdims=True)
            err_o = max(err_o, float(np.max(np.abs(o[bi, :, hi] - (p / z) @ v[bi, :, kv].astype(np.float64)))))
            err_l = max(err_l, float(np.max(np.abs(lse[bi, hi] - (m + np.log(z))[:, 0]))))
    # bf16 outputs: half an ulp is 1e-3 below 0.5 (non-causal rows average many values) and 4e-3
    # below 1 (a causal row's first query sees one key); fast-math exp2
    tol_o, tol_l = (8e-3, 2e-3) if causal else (4e-3, 1e-3)
    t = json.loads(so)["time_us"]
    return err_o <= tol_o and err_l <= tol_l, (f"max |O - softmax(QK^T/sqrt(D))V| = {err_o:.3g} (tolerance {tol_o}), "
                                               f"max |L - lse| = {err_l:.3g} (tolerance {tol_l}); {t:.2f} us")


def fetch(url, into):
    subprocess.run(["git", "clone", "--depth", "1", url, into], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tk", help="a ThunderKittens checkout")
    ap.add_argument("--hk", help="a HipKittens checkout")
    ap.add_argument("--fetch", action="store_true", help="git clone the repositories not given into a temp dir")
    ap.add_argument("--levels", default="01,02,03,04,05,06,07,08")
    ap.add_argument("--check-n", type=int, default=256, help="matrix size of the checked (every-CTA) runs")
    ap.add_argument("--n", type=int, default=4096, help="matrix size of the timed runs (0: none)")
    ap.add_argument("--kernsim", help="the kernsim binary (default: build/kernsim, else PATH)")
    ap.add_argument("--out", help="keep specs and dumps here")
    ap.add_argument("--hk-check-n", type=int, default=512,
                    help="HipKittens: matrix size of the checked (every-workgroup) run, a copy of the source with "
                         "its M/K/N #defines set (a multiple of 256; 0: none)")
    ap.add_argument("--hk-gemm", default=HK_GEMM,
                    help="HipKittens: the micro_tk GEMM source, relative to the checkout (also "
                         "kernels/gemm/bf16fp32/mi350x/256_256_64_32_with32x16.cpp: check it at 1024, its workgroup "
                         "swizzle needs a multiple of 8 workgroups)")
    ap.add_argument("--hk-include", action="append", default=[],
                    help="more include directories for HipKittens (pybind11's and Python's: its kernels include pybind11; "
                         "default: both, found through an installed pybind11)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kernsim_kittens_")
    out = args.out or tmp
    os.makedirs(out, exist_ok=True)
    ks = kernsim_bin(args)
    tk, hk = args.tk, args.hk
    if args.fetch and not tk:
        tk = os.path.join(tmp, "ThunderKittens")
        fetch(TK_URL, tk)
    if args.fetch and not hk:
        hk = os.path.join(tmp, "HipKittens")
        fetch(HK_URL, hk)
    ok = True
    if tk:
        print(f"ThunderKittens {tk} (educational H100 GEMM levels, h200)")
        for level in args.levels.split(","):
            good, msg = check_tk(ks, out, tk, level, args.check_n)
            ok &= good
            line = f"  level {level}  {args.check_n}^3 every CTA: {'ok' if good else 'FAILED'}  {msg}"
            if good and args.n:
                t, why = time_tk(ks, out, tk, level, args.n)
                line += f"; {args.n}^3: " + (f"{t:.1f} us, {2 * args.n ** 3 / t / 1e6:.1f} TFLOP/s, {why}" if t else f"FAILED {why}")
                ok &= t is not None
            print(line, flush=True)
    if hk and not args.hk_include:  # pybind11's and Python's headers, when pybind11 is installed
        try:
            import pybind11
            import sysconfig
            args.hk_include = [pybind11.get_include(), sysconfig.get_path("include")]
        except ImportError:
            pass
    if hk:
        print(f"HipKittens {hk} ({args.hk_gemm}, mi355x)")
        if args.hk_check_n:
            good, msg = check_hk(ks, out, hk, args.hk_include, args.hk_check_n, args.hk_gemm)
            ok &= good
            print(f"  {args.hk_check_n}^3 every workgroup: {'ok' if good else 'FAILED'}  {msg}", flush=True)
        good, msg = check_hk_attn(ks, out, hk, args.hk_include)
        ok &= good
        print(f"  {HK_ATTN} B1 H4 H_KV2 N256 D128, every workgroup: {'ok' if good else 'FAILED'}  {msg}", flush=True)
        good, msg = check_hk_attn(ks, out, hk, args.hk_include, causal=True)
        ok &= good
        print(f"  {HK_ATTN_CAUSAL} B1 H4 H_KV2 N256 D128, every workgroup: {'ok' if good else 'FAILED'}  {msg}", flush=True)
        spec = hk_attn_spec(hk, 16, 64, 8, 2048)  # its Makefile's sizes
        spec["compile"]["include_dirs"] += args.hk_include
        rc, so, se = run([ks, "run", write_spec(out, "hk_gqa_attn_2048", spec), "--arch", "mi355x", "--json", "--time-limit", "0"])
        if rc != 0:
            ok = False
            print("  attention FAILED:", (se or so).strip()[-2000:])
        else:
            t = json.loads(so)["time_us"]
            print(f"  attention B16 H64 H_KV8 N2048 D128 sampled: {t:.1f} us, {spec['flops'] / t / 1e6:.1f} TFLOP/s, "
                  f"{json.loads(so).get('bottleneck', '')}", flush=True)
        spec = hk_spec(hk, gemm=args.hk_gemm)
        spec["compile"]["include_dirs"] += args.hk_include
        path = write_spec(out, "hk_bf16_gemm_8192", spec)
        rc, so, se = run([ks, "run", path, "--arch", "mi355x", "--json", "--time-limit", "0"])
        if rc != 0:
            ok = False
            print("  FAILED:", (se or so).strip()[-2000:])
        else:
            r = json.loads(so)
            print(f"  8192^3 sampled: {r['time_us']:.1f} us, {2 * 8192 ** 3 / r['time_us'] / 1e6:.1f} TFLOP/s, {r.get('bottleneck', '')}")
    if not args.out:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
