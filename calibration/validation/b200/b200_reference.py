"""numpy references for the Blackwell validation set (b200_launches.py): what each launch's outputs
must be, from the inputs alone -- never from kernsim or from a GPU.

  check(launch, inputs, outputs, subset=True) -> {output name: {rel_l2, max_abs, nonfinite, tol, ok}}

The plain matmuls, the ladder (C = A B^T) and attention use the Hopper set's references
(../hopper/reference.py). New here: the MX block-scaled matmul, with the formats as the OCP
Microscaling spec (v1.0) and the PTX ISA define them:
  e2m1 (fp4): sign bit 3, exponent bits 1-2 (bias 1), mantissa bit 0: 0, 0.5, 1, 1.5, 2, 3, 4, 6;
              two a byte, element 2j in the low nibble, 2j + 1 in the high one;
  e8m0 (scale): 2^(byte - 127), 0xFF is NaN; one per 32 consecutive elements of K.
`inputs` hold each buffer's storage decoded by decode(): float32 for e4m3/bf16, the raw uint8
bytes for e2m1 data and e8m0 scales (ref_scaled decodes those itself, knowing K).
"""
import importlib.util
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("hopper_reference", os.path.join(HERE, "..", "hopper", "reference.py"))
hr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hr)

SUBSET_ROWS = hr.SUBSET_ROWS
TOL_SCALED = 1e-2  # bf16 output rounding: ~2e-3 relative


def e2m1_table():
    """float32 value of each e2m1 nibble 0..15."""
    mag = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0], dtype=np.float32)
    return np.concatenate([mag, -mag])


def e8m0_table():
    """float32 value of each e8m0 byte; 0xFF is NaN."""
    t = np.ldexp(1.0, np.arange(256) - 127)  # float64: 2^128 (byte 255) does not fit a float32
    t[255] = np.nan
    return t.astype(np.float32)


def unpack_e2m1(packed, k):
    """[rows, k / 2] bytes -> [rows, k] float32 (element 2j from the low nibble)."""
    b = np.asarray(packed, dtype=np.uint8).reshape(-1, k // 2)
    out = np.empty((b.shape[0], k), dtype=np.float32)
    t = e2m1_table()
    out[:, 0::2] = t[b & 0x0F]
    out[:, 1::2] = t[b >> 4]
    return out


def scaled_values(data, scales, fmt, k):
    """The real values of one operand: decoded data [rows, k] times its e8m0 block scales."""
    vals = unpack_e2m1(data, k) if fmt == "e2m1" else np.asarray(data, dtype=np.float32).reshape(-1, k)
    s = e8m0_table()[np.asarray(scales, dtype=np.uint8).reshape(-1, k // 32)]
    return vals * np.repeat(s, 32, axis=1)


def ref_scaled(launch, inp, rows):
    fmt = launch["fmt"]
    K = next(a for a in launch["args"] if a.get("name") == "K")["value"]
    a = scaled_values(np.asarray(inp["a_ptr"]).reshape(-1, K // (2 if fmt == "e2m1" else 1))[rows],
                      np.asarray(inp["sa_ptr"]).reshape(-1, K // 32)[rows], fmt, K)
    b = scaled_values(inp["b_ptr"], inp["sb_ptr"], fmt, K)
    return a.astype(np.float64) @ b.T.astype(np.float64)


def decode(dtype, storage, shape):
    """A buffer's storage as the reference reads it (u8 stays bytes)."""
    if dtype == "u8":
        return np.asarray(storage, dtype=np.uint8).reshape(shape)
    return hr.decode(dtype, storage, shape)


def check(launch, inputs, outputs, subset=True):
    if launch["ref"].startswith("scaled_"):
        out = next(a for a in launch["args"] if a.get("out"))
        rows = np.arange(min(SUBSET_ROWS, out["shape"][0]) if subset else out["shape"][0])
        ref = ref_scaled(launch, inputs, rows)
        return {out["name"]: hr._cmp(np.asarray(outputs[out["name"]])[rows], ref, TOL_SCALED)}
    return hr.check(launch, inputs, outputs, subset)


REFS = {"matmul", "matmul_nt", "attention", "scaled_e4m3", "scaled_e2m1"}  # every launch's `ref` is one of these
