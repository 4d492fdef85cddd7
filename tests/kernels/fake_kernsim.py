#!/usr/bin/env python3
"""A stand-in for `kernsim run SPEC --arch A --full --dump-buffers DIR`, for testing check_corpus.py
end to end before the simulator exists: it initialises the buffers with launch_inputs.py, "runs"
the kernel with the literal Python emulation of selftest.py, and writes arg<N>.in.bin /
arg<N>.out.bin the way kernsim's --dump-buffers does.

  python3 tests/kernels/check_corpus.py --kernsim tests/kernels/fake_kernsim.py      # all PASS
  FAKE_KERNSIM_CORRUPT=1 python3 tests/kernels/check_corpus.py --kernsim ...          # all FAIL
FAKE_KERNSIM_CORRUPT=1 flips a high bit of the middle element of the first output,
so the checker must report every spec as failed.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import selftest as S  # noqa: E402  (also puts launch_inputs on the path)
import launch_inputs as li  # noqa: E402
import reference as R  # noqa: E402


def main(argv):
    if len(argv) < 3 or argv[1] != "run" or "--dump-buffers" not in argv:
        print("fake_kernsim: usage: run SPEC --arch A --full --dump-buffers DIR", file=sys.stderr)
        return 2
    spec = li.load_spec(argv[2])
    out_dir = argv[argv.index("--dump-buffers") + 1]
    os.makedirs(out_dir, exist_ok=True)
    args = S.inputs_for(spec)
    L = R.Launch(spec, [a.copy() if isinstance(a, np.ndarray) else a for a in args])
    outs = S.EMU[spec["kernel"]](L)
    corrupt = os.environ.get("FAKE_KERNSIM_CORRUPT") == "1"
    for k, a in enumerate(spec["args"]):
        if "buffer" not in a:
            continue
        before = args[k]
        after = S.encode(outs[k], a["buffer"]) if k in outs else before.copy()
        raw = bytearray(np.ascontiguousarray(after).tobytes())
        if corrupt and (k == min(outs) if outs else True):
            size = li.ELEM[a["buffer"]][1]
            raw[(len(raw) // size // 2) * size + size - 1] ^= 0x40  # a high bit of the middle element
            corrupt = False
        with open(os.path.join(out_dir, f"arg{k}.in.bin"), "wb") as f:
            f.write(before.tobytes())
        with open(os.path.join(out_dir, f"arg{k}.out.bin"), "wb") as f:
            f.write(bytes(raw))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
