#!/usr/bin/env python3
"""Runs the HIP test corpus (tests/kernels/hip/specs) through kernsim for AMD targets.

The same checker as the CUDA corpus (check_corpus.py: every output against its numpy reference,
every other buffer unchanged, initial bytes against launch_inputs.py), with the HIP-only
references (reference.HIP_REFS: wave64 votes, shuffles and scans, MFMA GEMM tiles) added, and
--specs defaulting to the HIP specs. Every launch is timed by the AMD CU model (kernsim run --full).

  python3 tests/kernels/check_hip_corpus.py --kernsim build/kernsim --arch mi300x
  python3 tests/kernels/check_hip_corpus.py --kernsim build/kernsim --arch mi355x --only 'mfma_*'
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import check_corpus  # noqa: E402
import reference as R  # noqa: E402

R.REFS.update(R.HIP_REFS)

if __name__ == "__main__":
    if not any(a == "--specs" or a.startswith("--specs=") for a in sys.argv[1:]):
        sys.argv[1:1] = ["--specs", os.path.join(HERE, "hip", "specs")]
    if not any(a == "--arch" or a.startswith("--arch=") for a in sys.argv[1:]):
        sys.argv[1:1] = ["--arch", "mi300x"]
    sys.exit(check_corpus.main())
