"""On-demand inputs of the H200 validation set's power-law SpMV launches (issue 17): CSR row
pointers whose row lengths follow a power law, made with integers only (splitmix64 counters from
launch_inputs.py), so every machine writes the same bytes; a sha256 per file checks it.

Row r's length: j = number of trailing zero bits of a random 64-bit word (P(j) = 2^-(j+1)), the
octave k = j (or j + j // 2 for the heavy matrix), base = XM << k, length = base + (another
word) % base, capped at CAP. With k = j the row-length tail falls as 1/len (Pareto with alpha = 2 for the density);
with k = j + j // 2 it falls as len^(-2/3), heavier.

  python3 calibration/validation/h200/ext_inputs.py     # writes inputs/*.bin (and prints stats)
"""
import hashlib
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(HERE, "inputs")
sys.path.insert(0, os.path.dirname(HERE))
import launch_inputs as li  # noqa: E402

# name: (rows, xm, heavy, cap, stream)
MATRICES = {
    "pl_r512k": (1 << 19, 2, False, 1 << 16, 7001),
    "pl_r256k_heavy": (1 << 18, 1, True, 1 << 15, 7002),
}
PL_COLS = 1 << 20
SHA256 = {  # of the files this code wrote on 2026-12-04; ensure() fails if a machine writes others
    "pl_r512k": "d7c6d2fa642709b57d4c535e5f740a94b576f298524ae8df994e9f1d79861695",
    "pl_r256k_heavy": "e97dc04fb7d542900de3764cbebdda834288a0af3f93c0b87dbd541ed6224390",
}


def row_lengths(name):
    rows, xm, heavy, cap, stream = MATRICES[name]
    r1 = li.counter_random(0, stream, 0, rows)
    r2 = li.counter_random(0, stream + 1, 0, rows)
    j = np.zeros(rows, dtype=np.int64)  # trailing zero bits of r1 (integer-only)
    alive = np.ones(rows, dtype=bool)
    w = r1.copy()
    for _ in range(64):
        alive &= (w & np.uint64(1)) == 0
        if not alive.any():
            break
        j += alive
        w >>= np.uint64(1)
    k = j + j // 2 if heavy else j
    k = np.minimum(k, 40)
    base = np.uint64(xm) << k.astype(np.uint64)
    lengths = base + r2 % base
    return np.minimum(lengths, np.uint64(cap)).astype(np.int64)


def rowptr(name):
    lens = row_lengths(name)
    out = np.zeros(lens.size + 1, dtype=np.int64)
    np.cumsum(lens, out=out[1:])
    assert out[-1] < 2 ** 31
    return out.astype("<i4")


def path_of(name):
    return os.path.join(INPUTS, f"{name}.rowptr.i32.bin")


def nnz(name):
    return int(rowptr(name)[-1])


def ensure(path):
    """Writes `path` if it is one of ours and missing. -> True if it is ours."""
    base = os.path.basename(path)
    for name in MATRICES:
        if base == f"{name}.rowptr.i32.bin":
            if not os.path.exists(path):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                data = rowptr(name).tobytes()
                digest = hashlib.sha256(data).hexdigest()
                if name in SHA256 and SHA256[name] != digest:
                    raise RuntimeError(f"{base}: sha256 {digest} differs from the recorded {SHA256[name]}")
                with open(path, "wb") as f:
                    f.write(data)
            return True
    return False


def main():
    for name in MATRICES:
        rp = rowptr(name)
        lens = np.diff(rp)
        ensure(path_of(name))
        print(f"{name}: rows {lens.size}, nnz {rp[-1]}, mean {lens.mean():.1f}, max {lens.max()}, "
              f"rows >= 1024: {(lens >= 1024).sum()}, share of nnz in rows >= 1024: "
              f"{lens[lens >= 1024].sum() / rp[-1]:.2f}, sha256 {hashlib.sha256(rp.tobytes()).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
