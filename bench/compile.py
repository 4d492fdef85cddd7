"""Seconds per uncached compile of the kernel corpus, as a user's `kernsim compile` pays them.

    python3 bench/compile.py [--repeat 3] [--only SUBSTRING] [--kinds cuda hip port]
                             [--breakdown] [--resubmit] [--save DIR] [--against DIR] [--json OUT.json]
                             [--baseline OTHER_KERNSIM]

One `kernsim compile FILE --arch A -o OUT` process per file and repeat, each one a compile-cache
miss: the script's own cache directory (KERNSIM_CACHE_DIR) loses its compiled entries (`v1/`)
before every compile and keeps what kernsim builds once per installation (tool versions, the
__oclc_* constants, the precompiled prelude). `--cold` drops those too, so the first compile of
each file pays them. Kinds: `cuda` (tests/kernels/cuda/*.cu for sm_90a, `--arch h200`), `hip`
(tests/kernels/hip/*.hip for gfx942, `--arch mi300x`), `port` (the .cu files for gfx942, CUDA on
AMD; sources the port refuses are listed and left out). Prints median/p90/max wall and CPU
seconds (user + system of the process and its tools) per file, per kind; on a machine shared
with other work prefer CPU seconds.

`--breakdown` adds where the time goes for each CUDA file, by running the pieces of the compile
by hand (the commands of docs/compile.md, without kernsim's precompiled prelude): clang's frontend
and backend milliseconds (`-ftime-trace`), the bytes the preprocessor produces (`-E`) and the
number of headers read, and the wall seconds of `ptxas -v` and `nvdisasm -c` on the result.

`--baseline BIN` compiles every file with BIN too (its own cache directory), alternating with
`--kernsim` compile by compile, so that both see the same load on a shared machine.

`--resubmit` also compiles, in a fresh cache, each file and then a copy of it with a comment
added to every line and the indentation doubled (what an RL loop or an editor resubmits), and
counts the copies the compile cache served; each copy is also compiled in an empty cache and its
PTX compared with the original's (instructions, and `.loc` lines without their columns) or its
code object's instructions with the original's.

`--save DIR` writes every output (PTX, code object) to DIR; `--against DIR` compares every output
with the one saved there: byte-identical, or (PTX) identical once the `.file`/`.loc` lines are set
aside, or (code object) identical in `llvm-objdump -d` instructions; anything else is a failure
and the exit status is 1.
"""

import argparse
import glob
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiers import pct  # noqa: E402  (the percentile bench/tiers.py reports with)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
KINDS = {  # kind: (corpus glob, arch, output extension)
    "cuda": ("tests/kernels/cuda/*.cu", "h200", ".ptx"),
    "hip": ("tests/kernels/hip/*.hip", "mi300x", ".co"),
    "port": ("tests/kernels/cuda/*.cu", "mi300x", ".co"),
}


def timed(argv, env=None):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p, wall, cpu


def compile_once(kernsim, src, arch, out, cache, cold):
    shutil.rmtree(os.path.join(cache, "v1"), ignore_errors=True)
    if cold:
        shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, KERNSIM_CACHE_DIR=cache)
    p, wall, cpu = timed([kernsim, "compile", src, "--arch", arch, "-o", out], env)
    if p.returncode != 0:
        return {"wall_s": wall, "cpu_s": cpu, "failure": "exit %d: %s" % (p.returncode, p.stderr.strip()[-400:])}
    return {"wall_s": wall, "cpu_s": cpu}


def summary(rows, key):
    xs = [r[key] for r in rows]
    return "median %.3f  p90 %.3f  max %.3f" % (statistics.median(xs), pct(xs, 0.9), max(xs))


# ---- where the time goes (CUDA) ----

def cuda_path():
    return os.environ.get("KERNSIM_CUDA_PATH") or "/usr/local/cuda"


def find_tool(env, cands):
    for c in ([os.environ[env]] if os.environ.get(env) else []) + cands:
        p = shutil.which(c) if "/" not in c else (c if os.access(c, os.X_OK) else None)
        if p:
            return p
    return None


def nvdisasm():
    cands = [os.path.join(cuda_path(), "bin/nvdisasm"), "nvdisasm"]
    import sysconfig
    lib = sysconfig.get_paths()["purelib"]
    cands += [os.path.join(lib, s) for s in ("nvidia/cu13/bin/nvdisasm", "nvidia/cuda_nvdisasm/bin/nvdisasm",
                                             "triton/backends/nvidia/bin/nvdisasm")]
    return find_tool("KERNSIM_NVDISASM", cands)


def clang_argv(src, out, extra):
    cuda = cuda_path()
    argv = [os.environ.get("KERNSIM_CLANG") or "clang++-22", "-x", "cuda", "--cuda-gpu-arch=sm_90a", "--cuda-device-only",
            "-O3", "-gline-tables-only", "-std=c++17", "--cuda-path=" + cuda, "-Wno-unknown-cuda-version"]
    if os.path.isdir(os.path.join(cuda, "include/cccl/cuda/std")):
        argv += ["-isystem", os.path.join(cuda, "include/cccl")]
    return argv + extra + ["-o", out, src]


def breakdown(src, tmp):
    row = {}
    ptx, trace, dep = os.path.join(tmp, "b.ptx"), os.path.join(tmp, "b.json"), os.path.join(tmp, "b.d")
    p, wall, _ = timed(clang_argv(src, ptx, ["-S", "-MD", "-MF", dep, "-Xclang", "-ftime-trace=" + trace,
                                             "-Xclang", "-ftime-trace-granularity=100000"]))
    if p.returncode != 0:
        return {"failure": p.stderr[-300:]}
    row["clang_s"] = wall
    for e in json.load(open(trace))["traceEvents"]:
        if e.get("name") in ("Total Frontend", "Total Backend") and "dur" in e:
            row[e["name"].split()[1].lower() + "_ms"] = e["dur"] / 1000.0
    row["headers"] = len(re.findall(r"\S+", open(dep).read().replace("\\\n", " ").split(": ", 1)[1])) - 1
    p, _, _ = timed(clang_argv(src, "-", ["-E"]))
    row["preprocessed_bytes"] = len(p.stdout)
    ptxas = find_tool("KERNSIM_PTXAS", [os.path.join(cuda_path(), "bin/ptxas"), "ptxas"])
    cubin = os.path.join(tmp, "b.cubin")
    if ptxas:
        _, row["ptxas_s"], _ = timed([ptxas, "-arch=sm_90a", "-v", ptx, "-o", cubin])
        dis = nvdisasm()
        if dis:
            _, row["nvdisasm_s"], _ = timed([dis, "-c", cubin])
    return row


# ---- output identity ----

def ptx_instructions(text):
    return [l for l in text.splitlines() if not re.match(r"\s*\.(file|loc)\b", l)]


def objdump(path):
    tool = find_tool("KERNSIM_LLVM_OBJDUMP", ["llvm-objdump-22", "/usr/lib/llvm-22/bin/llvm-objdump"])
    p = subprocess.run([tool, "-d", "--no-show-raw-insn", path], capture_output=True, text=True)
    return [l for l in p.stdout.splitlines()[2:]]


def same_output(new, old, ext):
    a, b = open(new, "rb").read(), open(old, "rb").read()
    if a == b:
        return "identical"
    if ext == ".ptx" and ptx_instructions(a.decode()) == ptx_instructions(b.decode()):
        return "same instructions (line info differs)"
    if ext == ".co" and objdump(new) == objdump(old):
        return "same instructions (llvm-objdump -d)"
    return None


# ---- resubmissions ----

def edited(text):
    """The same source as an RL loop or an editor resubmits it: a comment added at the end of every
    line and the indentation doubled, except on lines that end in or follow a line splice."""
    out, spliced = [], False
    for line in text.split("\n"):
        stripped = line.rstrip()
        keep = spliced or not stripped or stripped.endswith("\\")
        spliced = stripped.endswith("\\")
        indent = len(line) - len(line.lstrip(" "))
        out.append(line if keep else " " * (2 * indent) + line.lstrip(" ") + "  // edited")
    return "\n".join(out)


def resubmit(kernsim, src, arch, tmp):
    """Compiles `src` in a fresh cache, then its edited copy beside it: whether the copy hit (no new
    cache entry) and its wall seconds."""
    cache = os.path.join(tmp, "resubmit_cache")
    shutil.rmtree(cache, ignore_errors=True)
    work = os.path.join(tmp, "resubmit")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ext = os.path.splitext(src)[1]
    a, b = os.path.join(work, "a" + ext), os.path.join(work, "b" + ext)
    text = open(src).read()
    open(a, "w").write(text)
    open(b, "w").write(edited(text))
    env = dict(os.environ, KERNSIM_CACHE_DIR=cache)
    entries = lambda: len(glob.glob(os.path.join(cache, "v1", "*", "*")))
    first, _, _ = timed([kernsim, "compile", a, "--arch", arch, "-o", os.path.join(work, "a.out")], env)
    before = entries()
    p, wall, cpu = timed([kernsim, "compile", b, "--arch", arch, "-o", os.path.join(work, "b.out")], env)
    if first.returncode != 0 or p.returncode != 0:
        return {"failure": (first.stderr + p.stderr).strip()[-300:]}
    row = {"resubmit_hit": entries() == before, "resubmit_wall_s": wall, "resubmit_cpu_s": cpu}
    # the edited copy compiled on its own gives the same instructions on the same lines
    env["KERNSIM_CACHE_DIR"] = cache + "_fresh"
    fresh = os.path.join(work, "b_fresh.out")
    q, _, _ = timed([kernsim, "compile", b, "--arch", arch, "-o", fresh], env)
    shutil.rmtree(cache + "_fresh", ignore_errors=True)
    a_out = os.path.join(work, "a.out")
    if q.returncode != 0:
        row["resubmit_same"] = "fresh compile failed"
    elif arch == "h200":
        canon = lambda t: [re.sub(r"^(\s*\.loc\s+\d+\s+\d+)\s+\d+.*$", r"\1", l) for l in t.splitlines()
                           if not re.match(r"\s*\.file\b", l)]
        row["resubmit_same"] = canon(open(fresh).read()) == canon(open(a_out).read())
    else:
        row["resubmit_same"] = objdump(fresh) == objdump(a_out)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kinds", nargs="+", default=["cuda", "hip"], choices=sorted(KINDS))
    ap.add_argument("--repeat", type=int, default=3, help="compiles per file; the median counts")
    ap.add_argument("--only", default="")
    ap.add_argument("--cold", action="store_true", help="also drop what kernsim builds once per installation")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--resubmit", action="store_true", help="also compile an edited copy (comments, indentation)")
    ap.add_argument("--save")
    ap.add_argument("--against")
    ap.add_argument("--kernsim", default=os.path.join(ROOT, "build/kernsim"))
    ap.add_argument("--baseline", help="another kernsim binary, run alternately with --kernsim on every file")
    ap.add_argument("--json")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="kernsim_bench_compile_")
    cache = os.path.join(tmp, "cache")
    rows, failed = [], 0
    try:
        for kind in a.kinds:
            pattern, arch, ext = KINDS[kind]
            for src in sorted(glob.glob(os.path.join(ROOT, pattern))):
                name = os.path.basename(src)
                if a.only not in name:
                    continue
                out = os.path.join(tmp, kind + "_" + name + ext)
                runs, base = [], []
                for _ in range(max(1, a.repeat)):  # with --baseline, the two binaries alternate
                    if a.baseline:
                        base.append(compile_once(a.baseline, src, arch, out + ".base", cache + "_base", a.cold))
                    runs.append(compile_once(a.kernsim, src, arch, out, cache, a.cold))
                bad = [r for r in runs if "failure" in r]
                row = {"kind": kind, "file": name, "arch": arch,
                       "wall_s": statistics.median(r["wall_s"] for r in runs),
                       "cpu_s": statistics.median(r["cpu_s"] for r in runs)}
                if base and not any("failure" in r for r in base):
                    row["base_wall_s"] = statistics.median(r["wall_s"] for r in base)
                    row["base_cpu_s"] = statistics.median(r["cpu_s"] for r in base)
                if bad:  # a CUDA source the port refuses (exit 4 or 5) is expected, not a failure
                    row["failure"] = bad[0]["failure"]
                    failed += kind != "port"
                if not bad and a.save:
                    os.makedirs(a.save, exist_ok=True)
                    shutil.copy(out, os.path.join(a.save, kind + "_" + name + ext))
                if not bad and a.against:
                    old = os.path.join(a.against, kind + "_" + name + ext)
                    row["output"] = same_output(out, old, ext) if os.path.exists(old) else "no saved output"
                    if row["output"] is None:
                        row["output"] = "DIFFERENT"
                        failed += 1
                if kind == "cuda" and a.breakdown:
                    row.update(breakdown(src, tmp))
                if a.resubmit and kind != "port":
                    row.update(resubmit(a.kernsim, src, arch, tmp))
                rows.append(row)
                extra = "".join("  %s %s" % (k, ("%.3f" % v) if isinstance(v, float) else v)
                                for k, v in row.items() if k not in ("kind", "file", "arch", "wall_s", "cpu_s"))
                print("%-5s %-16s wall %.3f s  cpu %.3f s%s" % (kind, name, row["wall_s"], row["cpu_s"], extra), flush=True)
        print()
        for kind in a.kinds:
            ok = [r for r in rows if r["kind"] == kind and "failure" not in r]
            if ok:
                print("%-5s %2d files  wall s: %s   cpu s: %s" % (kind, len(ok), summary(ok, "wall_s"), summary(ok, "cpu_s")))
            based = [r for r in ok if "base_wall_s" in r]
            if based:
                print("%-5s %2d files, baseline %s  wall s: %s   cpu s: %s" % (kind, len(based), a.baseline,
                      summary(based, "base_wall_s"), summary(based, "base_cpu_s")))
            hits = [r for r in ok if "resubmit_hit" in r]
            if hits:
                print("%-5s edited resubmissions that hit the cache: %d of %d; wall s: %s; compiled afresh, the same "
                      "instructions on the same lines: %d of %d" %
                      (kind, sum(r["resubmit_hit"] for r in hits), len(hits), summary(hits, "resubmit_wall_s"),
                       sum(r.get("resubmit_same") is True for r in hits), len(hits)))
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f, indent=1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
