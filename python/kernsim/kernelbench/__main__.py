"""python3 -m kernsim.kernelbench REF.py CAND.py --arch h200 [--baseline FILE] [--json]

Also: ... gpumode FOLDER SUBMISSION.py, ... arena CONFIG.yaml (adapters.py)."""

import argparse
import json
import sys


def _print_human(r: dict) -> None:
    print(f"compiled: {r['compiled']}   correct: {r['correct']}   arch: {r.get('arch')}   cache: {r.get('cache')}")
    cc = r.get("correctness_checked")
    if cc:
        extra = " (SAMPLED CTAs)" if cc.get("sampled") else ""
        print(f"checked: {cc.get('passed')}/{cc.get('trials')} trials, {cc.get('elements_checked')} of "
              f"{cc.get('elements_total')} elements{extra}")
    for l in r.get("launches") or []:
        print(f"  launch {l['kernel']} grid={l['grid']} block={l['block']}: {l['time_us']:.3f} us")
    fmt = lambda v: "n/a" if v is None else f"{v:.3f}"
    print(f"runtime_us: {fmt(r.get('runtime_us'))}   ref_runtime_us: {fmt(r.get('ref_runtime_us'))} "
          f"({r.get('ref_runtime_source')})   speedup: {fmt(r.get('speedup'))}   sol_us: {fmt(r.get('sol_us'))}")
    for h in r.get("hacks") or []:
        print(f"HACK {h['kind']}: {h['detail']}")
    for n in r.get("notes") or []:
        print(f"note: {n}")
    if r.get("error"):
        print(f"error: {r['error']}")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("gpumode", "arena"):
        from . import adapters
        return adapters.main(argv)
    ap = argparse.ArgumentParser(prog="python3 -m kernsim.kernelbench",
                                 description="Score a KernelBench candidate on a simulated GPU (docs/kernelbench.md).")
    ap.add_argument("ref")
    ap.add_argument("cand")
    ap.add_argument("--arch", default="h200")
    ap.add_argument("--device", dest="device_file", help="a device file instead of --arch's built-in one")
    ap.add_argument("--baseline", help="baseline_time_torch.json-shaped table of reference times (ms)")
    ap.add_argument("--level", help="the baseline table's level key (level1, level2, ...)")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--atol", type=float, default=1e-2)
    ap.add_argument("--rtol", type=float, default=1e-2)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--cache", choices=["cold-dirty", "cold", "warm"], default="cold-dirty")
    ap.add_argument("--functional", choices=["auto", "complete", "sampled"], default="auto")
    ap.add_argument("--time-limit", type=float, default=1800.0, help="seconds for the whole evaluation")
    ap.add_argument("--memory-limit-gb", type=float, default=48.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from . import evaluate
    r = evaluate(a.ref, a.cand, a.arch, baseline=a.baseline, level=a.level, trials=a.trials, atol=a.atol,
                 rtol=a.rtol, seed=a.seed, cache=a.cache, functional=a.functional, time_limit_s=a.time_limit,
                 memory_limit_gb=a.memory_limit_gb, device_file=a.device_file)
    if a.json:
        print(json.dumps(r, default=str))
    else:
        _print_human(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
