"""numpy references for the Hopper validation set (launches.py): what each launch's outputs must
be, computed in float32/float64 from the inputs alone -- never from kernsim or from the GPU.

  check(launch, inputs, outputs, subset=True) -> {output name: {rel_l2, max_abs, nonfinite, tol, ok}}

`inputs` and `outputs` map argument names to float32 arrays of the argument's shape (decode() turns
a buffer's storage -- bf16 bits, e4m3 bytes -- into float32). With subset, only part of each output
is recomputed and compared (the first SUBSET_ROWS rows of a matmul, SUBSET_HEADS (batch, head)
pairs of attention, the first SUBSET_ROWS rows of each expert): enough to catch wrong indexing,
cheap enough to run for every launch. measure_hopper.py runs it on the H200's outputs next to its
full torch check; kernsim's outputs are checked with it the same way.
The pass mark is the relative L2 error ||out - ref|| / ||ref||, which rounding the output to
bf16/f16 (and, in attention, P to bf16) keeps far below TOL; NaN or Inf never passes.
"""
import numpy as np

SUBSET_ROWS = 256
SUBSET_HEADS = 2
TOL = {"f16": 3e-3, "bf16": 1e-2}
TOL_ATTENTION = 2e-2


def e4m3_table():
    """float32 value of each e4m3 (fn) byte; 0x7F and 0xFF are NaN."""
    b = np.arange(256)
    s = np.where(b >> 7, -1.0, 1.0)
    e = (b >> 3) & 15
    m = b & 7
    v = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7.0))
    v = np.where((e == 15) & (m == 7), np.nan, v)
    return (s * v).astype(np.float32)


def decode(dtype, storage, shape):
    """A buffer's storage (launch_inputs' typed array) as float32 (or int32) of `shape`."""
    a = np.asarray(storage)
    if dtype == "bf16":
        out = (a.astype(np.uint32) << 16).view(np.float32)
    elif dtype == "e4m3":
        out = e4m3_table()[a.astype(np.uint8)]
    elif dtype == "i32":
        out = a.astype(np.int32)
    else:
        out = a.astype(np.float32)
    return out.reshape(shape)


def _arg(launch, name):
    return next(a for a in launch["args"] if a.get("name") == name)


def _cmp(out, ref, tol):
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    nonfinite = int(np.count_nonzero(~np.isfinite(out)))
    diff = np.where(np.isfinite(out), out - ref, 0.0)
    rel = float(np.linalg.norm(diff) / max(np.linalg.norm(ref), 1e-30))
    return {"rel_l2": rel, "max_abs": float(np.abs(diff).max()) if diff.size else 0.0, "nonfinite": nonfinite,
            "tol": tol, "ok": nonfinite == 0 and rel <= tol}


def ref_matmul(launch, inp, rows):
    a, b = inp["a_ptr"], inp["b_ptr"]
    b_kmajor = launch.get("constexprs", {}).get("B_KMAJOR", False) or launch["kernel"] != "matmul"
    bt = b.T if b_kmajor else b  # [K, N]
    return a[rows] @ bt  # float32 BLAS: its error (~1e-6 relative) is far below TOL


def ref_attention(launch, inp, heads):
    c = launch["constexprs"]
    scale = _arg(launch, "sm_scale")["value"]
    q, k, v = inp["q_ptr"], inp["k_ptr"], inp["v_ptr"]
    B, H, S, D = q.shape
    out = []
    for bh in heads:
        b, h = divmod(bh, H)
        s = (q[b, h] @ k[b, h].T).astype(np.float64) * scale
        if c["CAUSAL"]:
            s = np.where(np.tril(np.ones((S, S), dtype=bool)), s, -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out.append((p / p.sum(axis=1, keepdims=True)).astype(np.float32) @ v[b, h])
    return np.stack(out)


def moe_rows(offsets, per_expert):
    return np.concatenate([np.arange(offsets[e], min(offsets[e] + per_expert, offsets[e + 1]))
                           for e in range(len(offsets) - 1)])


def ref_moe(launch, inp, rows):
    offsets = inp["offsets_ptr"].astype(np.int64)
    x, w = inp["x_ptr"], inp["w_ptr"]
    expert = np.searchsorted(offsets, rows, side="right") - 1
    out = np.empty((len(rows), w.shape[1]))
    for e in np.unique(expert):
        sel = expert == e
        out[sel] = x[rows[sel]] @ w[e].T
    return out


def output_selection(launch, inputs, subset=True):
    """(output name, index into the output that the reference covers) -- usable on numpy and torch."""
    out = next(a for a in launch["args"] if a.get("out"))
    rows_all = out["shape"][0]
    if launch["ref"] == "attention":
        B, H = out["shape"][0], out["shape"][1]
        return out["name"], np.arange(SUBSET_HEADS if subset else B * H)
    if launch["ref"] == "moe":
        offsets = np.asarray(inputs["offsets_ptr"]).astype(np.int64)
        return out["name"], (moe_rows(offsets, SUBSET_ROWS // 4) if subset else np.arange(rows_all))
    return out["name"], np.arange(min(SUBSET_ROWS, rows_all) if subset else rows_all)


def reference(launch, inputs, sel):
    if launch["ref"] == "attention":
        return ref_attention(launch, inputs, sel)
    if launch["ref"] == "moe":
        return ref_moe(launch, inputs, sel)
    return ref_matmul(launch, inputs, sel)


def take(launch, out, sel):
    """The part of an output array (numpy, or torch with `sel` a tensor) that the reference covers."""
    if launch["ref"] == "attention":
        B, H = out.shape[0], out.shape[1]
        flat = out.reshape(B * H, *out.shape[2:])
    else:
        flat = out
    return flat[sel]


def tolerance(launch):
    if launch["ref"] == "attention":
        return TOL_ATTENTION
    out = next(a for a in launch["args"] if a.get("out"))
    return TOL[out["dtype"]]


def check(launch, inputs, outputs, subset=True):
    name, sel = output_selection(launch, inputs, subset)
    ref = reference(launch, inputs, sel)
    return {name: _cmp(take(launch, outputs[name], sel), ref, tolerance(launch))}
