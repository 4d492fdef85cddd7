"""The examples run end to end and give the documented verdicts (the scripts exit non-zero on an
unexpected verdict)."""

import subprocess
import sys

import pytest

from conftest import ROOT


def test_rl_reward_example_gives_the_four_verdicts():
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "rl_reward.py"), "--workers", "2"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = {line.split()[0]: line.split()[1] for line in p.stdout.splitlines()
            if line.split() and line.split()[0] in ("slow", "fast", "wrong", "oob")}
    assert rows == {"slow": "True", "fast": "True", "wrong": "False", "oob": "False"}


def test_rl_reward_example_scores_the_cuda_candidates_on_mi300x():
    # the CUDA candidates are ported to the AMD part; `fast` assumes 32-lane warps (named in the
    # note) and is still right, since each 32-lane half of a wave sums a whole row
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "rl_reward.py"), "--arch", "mi300x", "--workers", "2"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = {line.split()[0]: line for line in p.stdout.splitlines()
            if line.split() and line.split()[0] in ("slow", "fast", "wrong", "oob")}
    assert {k: v.split()[1] for k, v in rows.items()} == {"slow": "True", "fast": "True", "wrong": "False", "oob": "False"}
    assert "warp32-lane-math" in rows["fast"] and "warp32-" not in rows["slow"]


@pytest.mark.slow
def test_kernelbench_example_scores_the_candidate():
    p = subprocess.run([sys.executable, str(ROOT / "examples" / "kernelbench_task.py")],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "candidate correct" in p.stdout and "speedup" in p.stdout
