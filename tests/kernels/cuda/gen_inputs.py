#!/usr/bin/env python3
"""Deterministic binary inputs for the corpus specs (stdlib only).

Writes CSR structures (row pointers and column indices, int32 little-endian) for the SpMV specs:

  inputs/csr_small.rowptr.i32.bin   203 rows + 1   (tests/kernels/cuda/specs/spmv_csr_*.json)
  inputs/csr_small.colidx.i32.bin   nnz column indices, sorted and unique within each row

The matrix has 171 columns, row lengths 0..12 from a splitmix64 stream, a few empty rows, and two
long rows (97 and 65 entries) so that a warp-per-row kernel loops more than once per lane.

`--validation` also writes the row pointers of the large CSR used by the H200 validation set,
calibration/validation/h200/inputs/csr_big.rowptr.i32.bin (ignored by git: about 2 MB, made
on demand; measure_h200.py calls csr_big_rowptr() itself when the file is missing). Its column
indices come from the spec's own `randint` initialiser.

Run from anywhere:  python3 tests/kernels/cuda/gen_inputs.py [--validation] [--check]
`--check` regenerates in memory and fails if the committed files differ.
"""
import argparse
import os
import struct
import sys

MASK64 = (1 << 64) - 1
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

SMALL_ROWS, SMALL_COLS = 203, 171
BIG_ROWS, BIG_COLS, BIG_MAX_LEN = 500000, 500000, 64


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


class Stream:
    """splitmix64 counter stream: value k is splitmix64(key + k)."""

    def __init__(self, key):
        self.key = splitmix64(key)
        self.k = 0

    def next(self):
        self.k += 1
        return splitmix64((self.key + self.k) & MASK64)

    def below(self, n):
        return self.next() % n


def csr_small():
    """(rowptr, colidx) of the small test matrix."""
    s = Stream(2024)
    lengths = []
    for r in range(SMALL_ROWS):
        if r == 17:
            lengths.append(97)
        elif r == 100:
            lengths.append(65)
        elif r % 29 == 5:
            lengths.append(0)  # empty rows
        else:
            lengths.append(s.below(13))
    rowptr = [0]
    colidx = []
    for r, ln in enumerate(lengths):
        # partial Fisher-Yates: ln distinct columns, then sorted, as CSR usually is
        pool = list(range(SMALL_COLS))
        for k in range(ln):
            j = k + s.below(SMALL_COLS - k)
            pool[k], pool[j] = pool[j], pool[k]
        colidx.extend(sorted(pool[:ln]))
        rowptr.append(len(colidx))
    return rowptr, colidx


def csr_big_rowptr(rows=BIG_ROWS, max_len=BIG_MAX_LEN):
    """Row pointers of the validation matrix: lengths uniform in [0, max_len]."""
    s = Stream(4096)
    rowptr = [0]
    total = 0
    for _ in range(rows):
        total += s.below(max_len + 1)
        rowptr.append(total)
    return rowptr


def pack_i32(values):
    return struct.pack("<%di" % len(values), *values)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    print(f"wrote {os.path.relpath(path, REPO)} ({len(data)} bytes)")


def small_files():
    rowptr, colidx = csr_small()
    return {
        os.path.join(HERE, "inputs", "csr_small.rowptr.i32.bin"): pack_i32(rowptr),
        os.path.join(HERE, "inputs", "csr_small.colidx.i32.bin"): pack_i32(colidx),
    }


def big_rowptr_path():
    return os.path.join(REPO, "calibration", "validation", "h200", "inputs", "csr_big.rowptr.i32.bin")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--validation", action="store_true", help="also write the validation set's large CSR row pointers")
    ap.add_argument("--check", action="store_true", help="compare with the files on disk instead of writing")
    a = ap.parse_args()
    files = small_files()
    if a.validation:
        files[big_rowptr_path()] = pack_i32(csr_big_rowptr())
    if a.check:
        bad = 0
        for path, data in files.items():
            try:
                with open(path, "rb") as f:
                    same = f.read() == data
            except FileNotFoundError:
                same = False
            print(("ok   " if same else "DIFF ") + os.path.relpath(path, REPO))
            bad += not same
        return 1 if bad else 0
    for path, data in files.items():
        write(path, data)
    rowptr, colidx = csr_small()
    print(f"csr_small: rows={SMALL_ROWS} cols={SMALL_COLS} nnz={len(colidx)}")
    if a.validation:
        print(f"csr_big: rows={BIG_ROWS} cols={BIG_COLS} nnz={csr_big_rowptr()[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
