"""A/B of two kernsim binaries over launch specs of the grown H200 set, one process per launch.

    python3 bench/ab_set.py OLD_KERNSIM NEW_KERNSIM OUT.jsonl WORKERS [SPEC_ID ...]

Each launch runs `kernsim run SPEC --arch h200 --json --time-limit 0` with the old and the new
binary back to back (alternating which goes first), from the repository root; one JSON line per
launch is appended to OUT.jsonl: user + system CPU seconds and the predicted time of each, the
instructions timed and the end of the new binary's sampling note. Without ids, every spec of
calibration/validation/h200/specs. Two runs side by side over two halves of the ids use both cores
of a 2-core machine (CPU seconds, not wall time, are compared). bench/ab_detailed.py samples every
K-th launch instead."""
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

old, new, out, workers = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
ids = sys.argv[5:] or sorted(f[:-5] for f in os.listdir('calibration/validation/h200/specs'))


def one(b, sid):
    p = subprocess.run(['/usr/bin/time', '-f', 'CPU %U %S', b, 'run', f'calibration/validation/h200/specs/{sid}.json', '--arch',
                        'h200', '--json', '--time-limit', '0'], capture_output=True, text=True)
    cpu = None
    for line in p.stderr.splitlines():
        if line.startswith('CPU '):
            cpu = float(line.split()[1]) + float(line.split()[2])
    try:
        d = json.loads(p.stdout)
        return cpu, d['time_us'], d['sampling']['note'], d['sampling']['warp_instructions_timed']
    except (ValueError, KeyError):
        return cpu, None, p.stderr[-300:], 0


def job(i_sid):
    i, sid = i_sid
    order = [old, new] if i % 2 == 0 else [new, old]
    r = {b: one(b, sid) for b in order}
    rec = {'id': sid, 'old_cpu': r[old][0], 'new_cpu': r[new][0], 'old_us': r[old][1], 'new_us': r[new][1],
           'old_insts': r[old][3], 'new_insts': r[new][3], 'new_note': r[new][2][-200:]}
    with open(out, 'a') as f:
        f.write(json.dumps(rec) + '\n')
    return rec


with ThreadPoolExecutor(workers) as ex:
    for rec in ex.map(job, enumerate(ids)):
        print(rec['id'], rec['old_cpu'], rec['new_cpu'], rec['old_us'], rec['new_us'], flush=True)
