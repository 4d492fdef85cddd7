"""A/B CPU seconds per process of two kernsim binaries on the detailed tier.

    python3 bench/ab_detailed.py OLD_KERNSIM NEW_KERNSIM OLD_VALIDATE.json K

OLD_VALIDATE.json: `kernsim validate ... --json` of the old binary (its per-launch cpu_seconds
order the set); every K-th launch of that order and the two slowest run, old and new alternating
(so that both see the same load), one `kernsim run SPEC --arch h200 --json` process each, from the
repository root; prints each launch's user + system CPU seconds and whether the two predictions
agree, then the medians and maxima. Prefer it to two separate runs on a shared machine."""
import json, os, resource, statistics, subprocess, sys
base, new, basejson, k = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = sorted(json.load(open(basejson))['launches'], key=lambda r: r['cpu_seconds'])
pick = rows[k // 2::k] + [rows[-1], rows[-2]]
spec_dir = 'calibration/validation/h200/specs'
def run(b, sid):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([b, 'run', os.path.join(spec_dir, sid + '.json'), '--arch', 'h200', '--json', '--time-limit', '0'],
                       capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, json.loads(p.stdout)['time_us'] if p.returncode == 0 else None
out = []
for i, r in enumerate(pick):
    order = [base, new] if i % 2 == 0 else [new, base]
    res = {b: run(b, r['id']) for b in order}
    (cb, tb), (cn, tn) = res[base], res[new]
    out.append((r['id'], cb, cn, tb, tn))
    print('%-34s base %6.2f s  new %6.2f s  %s' % (r['id'], cb, cn, 'same' if tb == tn else 'DIFF %r %r' % (tb, tn)), flush=True)
cb = [o[1] for o in out]; cn = [o[2] for o in out]
print('launches %d: base median %.3f max %.2f | new median %.3f max %.2f | median ratio new/base %.3f' % (
    len(out), statistics.median(cb), max(cb), statistics.median(cn), max(cn), statistics.median([o[2] / o[1] for o in out])))
