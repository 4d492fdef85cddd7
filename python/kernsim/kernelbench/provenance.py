"""Which outputs of a candidate's forward PyTorch computed on the host, not a launched kernel.

The evaluator records, in order, every ATen operation of the forward (the storages it read and
produced: reftime.record_ops) and every kernel launch (the storages whose bytes it changed:
runtime.Runtime.simulate). Each storage then carries a state:

* ``None``: made by an allocation or a fill (``torch::empty``, ``zeros``, ``fill_``), or an
  input of the forward;
* ``"kernel"``: written by a launched kernel, or computed by PyTorch from something a kernel
  wrote (a torch op on a kernel's result is part of the candidate's own pipeline:
  KernelBench candidates keep a torch matmul and fuse the epilogue, or finish a reduction with
  ``.sum()``);
* ``"torch"``: computed by a PyTorch operation (softmax, matmul, ...) from storages no kernel
  wrote: the reference's computation done on the host, whatever the kernels did beside it.

Copies (``clone``, ``copy_``, ``contiguous``, ``cat``) carry their source's state; views share
their storage and change nothing. An output whose storage ends ``"torch"`` is the hack
``output_from_torch``. Memory copies through the CUDA runtime (cudaMemcpy) are not recorded:
a storage they fill keeps its earlier state, so they can hide a hack but never invent one.
"""

from __future__ import annotations

from .reftime import FREE

CREATE = {"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided", "zeros", "ones", "full",
          "zeros_like", "ones_like", "full_like", "new_zeros", "new_ones", "new_full", "fill", "fill_", "zero_",
          "rand", "randn", "rand_like", "randn_like", "uniform_", "normal_", "scalar_tensor", "arange"}
COPY = {"copy", "copy_", "clone", "_to_copy", "contiguous", "cat", "stack", "_unsafe_view", "index_select",
        "slice_scatter", "select_scatter", "as_strided_scatter", "view_copy", "expand_copy", "permute_copy",
        "transpose_copy", "t_copy"}


def _merge(states, compute: bool):
    if "kernel" in states:
        return "kernel"
    if compute or "torch" in states:
        return "torch"
    return None


def storage_states(events: list) -> dict:
    """{storage address: (state, the op or kernel that set it)} after ``events`` (see above)."""
    st: dict = {}
    for ev in events:
        if "launch" in ev:
            for b in ev["writes"]:
                st[b] = ("kernel", ev["launch"])
            continue
        name, ins, outs = ev["op"], ev["ins"], ev["outs"]
        if name in CREATE or not ins:
            # an allocation or fill: what it made holds no result yet
            for p in outs:
                st[p] = (None, name)
            continue
        if name in FREE:
            continue  # a view shares its input's storage; size/stride queries write nothing
        if name == "copy_":
            src = [st.get(p, (None,))[0] for p in ins[1:]]
            for p in outs:
                st[p] = (_merge(src, False), name)
            continue
        state = _merge([st.get(p, (None,))[0] for p in ins], name not in COPY)
        for p in outs:
            st[p] = (state, name)
    return st


def torch_computed_outputs(events: list, outputs: list) -> list[tuple[int, str]]:
    """[(output index, op name)] for each output tensor whose storage PyTorch computed."""
    from .reftime import storage_ptr
    st = storage_states(events)
    bad = []
    for i, o in enumerate(outputs):
        if not hasattr(o, "untyped_storage"):
            continue
        p = storage_ptr(o)
        if p is not None and st.get(p, (None,))[0] == "torch":
            bad.append((i, st[p][1]))
    return bad
