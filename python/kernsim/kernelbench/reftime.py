"""The reference's time and the problem's speed-of-light bound.

* From a baseline table (KernelBench's ``baseline_time_torch.json`` shape:
  ``{"level1": {"19_ReLU.py": {"mean": 0.0123, ...}}}`` in milliseconds, or a flat
  ``{"19_ReLU.py": 0.0123}``), looked up by the reference file's name.
* Otherwise simulated: the ATen operations the reference executes are recorded (a
  TorchDispatchMode around its forward) and each is timed by a kernsim kernel on the part:
  memory-bound operations (elementwise, copies, reductions, softmax, layer/RMS/batch norm) by
  kernsim's streaming kernel moving the operation's input and output bytes once (PyTorch's
  kernels for them are single-pass for the shapes KernelBench uses), fp32 matrix products
  (mm, addmm, bmm, baddbmm) by kernsim's simulated SGEMM (gemm.py), fp16/bf16 ones by its
  tensor-core GEMM (tcgemm.py), convolutions by its implicit-GEMM tensor-core kernel (conv.py;
  fp32 in TF32 as cuDNN runs them under PyTorch's defaults), each launch with its launch
  overhead from the device file. An operation with no model (transposed convolutions, mv/dot,
  and anything not listed) is named in ``ref_unmodeled_ops`` with the reason in
  ``ref_unmodeled_why``, and the simulated time is then not given: never guessed.
* ``sol_us``: the bound no implementation beats on the part: max(FLOPs of the matrix products /
  the tensor-core peak for their dtype (fp32: TF32), bytes of the inputs and parameters read
  once + the outputs written once / the HBM bandwidth) + one launch overhead, all from the
  device file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

FREE = {"view", "_unsafe_view", "reshape", "expand", "permute", "transpose", "t", "slice", "select", "unsqueeze",
        "squeeze", "as_strided", "detach", "alias", "empty", "empty_like", "new_empty", "empty_strided", "lift_fresh",
        "split", "chunk", "unbind", "narrow", "_reshape_alias", "view_as", "expand_as", "flatten", "unflatten",
        "contiguous", "numel", "size", "stride", "dim", "is_contiguous", "item", "_local_scalar_dense", "sym_size",
        "set_", "resize_", "split_with_sizes", "diagonal", "movedim", "unfold", "_to_copy_noop", "result_type",
        "new_empty_strided", "_has_compatible_shallow_copy_type", "zero_size"}
MATMUL = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "addbmm", "dot", "mv", "addmv", "_scaled_mm"}
MEMORY = {
    # elementwise and copies
    "add", "sub", "mul", "div", "relu", "relu_", "gelu", "sigmoid", "tanh", "exp", "log", "clamp", "clamp_min",
    "clamp_max", "where", "copy", "copy_", "_to_copy", "clone", "pow", "sqrt", "rsqrt", "neg", "abs", "maximum",
    "minimum", "leaky_relu", "hardtanh", "silu", "softplus", "elu", "selu", "mish", "hardswish", "hardsigmoid", "sign",
    "log1p", "expm1", "reciprocal", "sin", "cos", "erf", "fill", "fill_", "zero_", "zeros", "ones", "full",
    "zeros_like", "ones_like", "full_like", "add_", "mul_", "sub_", "div_", "masked_fill", "gt", "lt", "ge", "le",
    "eq", "ne", "logical_and", "logical_or", "logical_not", "bitwise_and", "floor", "ceil", "round", "trunc",
    "frac", "remainder", "fmod", "lerp", "addcmul", "addcdiv", "threshold", "threshold_backward", "elu_", "celu",
    "gelu_", "silu_", "sigmoid_", "tanh_", "exp_", "square", "cat", "stack", "rand", "randn", "uniform_", "normal_",
    "bernoulli_", "tril", "triu", "hardshrink", "softshrink", "tanhshrink", "logsigmoid", "log_sigmoid_forward",
    "glu", "prelu", "_prelu_kernel", "rrelu_with_noise", "clamp_", "hardtanh_", "leaky_relu_",
    # reductions
    "sum", "mean", "amax", "amin", "max", "min", "var", "std", "argmax", "argmin", "norm", "linalg_vector_norm",
    "prod", "logsumexp", "cumsum", "cumprod", "var_mean", "std_mean", "all", "any", "nansum",
    # softmax and norms
    "_softmax", "_log_softmax", "softmax", "log_softmax", "native_layer_norm", "layer_norm", "native_batch_norm",
    "_native_batch_norm_legit_no_training", "_native_batch_norm_legit", "native_group_norm", "group_norm",
    "rms_norm", "_fused_rms_norm", "instance_norm", "batch_norm", "_batch_norm_impl_index",
}


def _meta(x):
    import torch
    if isinstance(x, torch.Tensor):
        return {"shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", ""), "bytes": x.numel() * x.element_size(),
                "strides": list(x.stride()) if x.layout == torch.strided else None}
    return None


def _flat(xs):
    import torch
    out = []
    for x in xs if isinstance(xs, (list, tuple)) else [xs]:
        if isinstance(x, (list, tuple)):
            out += _flat(x)
        elif isinstance(x, torch.Tensor):
            out.append(x)
    return out


def storage_ptr(t) -> int | None:
    """The address of tensor ``t``'s storage (what the evaluator's allocator registered), or None
    for an empty one."""
    try:
        s = t.untyped_storage()
        return s.data_ptr() if s.nbytes() else None
    except (RuntimeError, NotImplementedError):
        return None


def record_ops(model, inputs, events: list | None = None):
    """Runs model(*inputs) and returns (output, [op records]). With ``events`` (the runtime's
    list, where kernel launches append what they wrote), each op also appends
    ``{"op", "ins", "outs"}`` with the storage addresses it read and produced, in order."""
    from torch.utils._python_dispatch import TorchDispatchMode

    ops = []

    class Rec(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = func.overloadpacket.__name__ if hasattr(func, "overloadpacket") else str(func)
            tin = _flat(list(args) + list((kwargs or {}).values()))
            tout = _flat(out)
            ins = [m for m in (_meta(t) for t in tin) if m]
            outs = [m for m in (_meta(t) for t in tout) if m]
            rec = {"op": name, "inputs": ins, "outputs": outs}
            if name in ("convolution", "_convolution") and len(args) >= 9:
                # aten.convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
                rec["params"] = {"stride": list(args[3]), "padding": list(args[4]), "dilation": list(args[5]),
                                 "transposed": bool(args[6]), "output_padding": list(args[7]), "groups": int(args[8])}
            if name in ("cumsum", "cumprod") and len(args) >= 2:
                rec["params"] = {"dim": int(args[1])}
            ops.append(rec)
            if events is not None:
                events.append({"op": name, "ins": [p for p in map(storage_ptr, tin) if p],
                               "outs": [p for p in map(storage_ptr, tout) if p]})
            return out

    with Rec():
        out = model(*inputs)
    return out, ops


def _matmul_flops(op) -> float:
    ins = op["inputs"]
    name = op["op"]
    try:
        if name in ("mm", "matmul") and len(ins) >= 2 and len(ins[0]["shape"]) == 2:
            (m, k), (_, n) = ins[0]["shape"], ins[1]["shape"]
            return 2.0 * m * n * k
        if name == "addmm":
            (m, k), (_, n) = ins[1]["shape"], ins[2]["shape"]
            return 2.0 * m * n * k
        if name in ("bmm", "baddbmm"):
            a, b = (ins[0], ins[1]) if name == "bmm" else (ins[1], ins[2])
            bb, m, k = a["shape"]
            n = b["shape"][2]
            return 2.0 * bb * m * n * k
        if name == "linear":
            x, w = ins[0], ins[1]
            rows = math.prod(x["shape"][:-1])
            return 2.0 * rows * w["shape"][0] * w["shape"][1]
    except (ValueError, IndexError, KeyError):
        pass
    out = op["outputs"][0]["shape"] if op["outputs"] else []
    k = ins[0]["shape"][-1] if ins and ins[0]["shape"] else 0
    return 2.0 * math.prod(out) * k if out else 0.0


def sol_bound(ops, input_bytes: int, output_bytes: int, dv: dict) -> tuple:
    """(sol_us, detail): the speed-of-light bound of the problem on the part."""
    flops_by = {}
    for op in ops or []:
        if op["op"] in MATMUL or op["op"] in ("convolution", "_convolution", "conv2d", "conv1d", "conv3d"):
            dt = op["inputs"][0]["dtype"] if op["inputs"] else "float32"
            if op["op"] in MATMUL:
                f = _matmul_flops(op)
            else:  # convolution: 2 x output elements x (in_channels/groups x kernel volume)
                w = op["inputs"][1]["shape"] if len(op["inputs"]) > 1 else []
                f = 2.0 * math.prod(op["outputs"][0]["shape"]) * math.prod(w[1:]) if w and op["outputs"] else 0.0
            flops_by[dt] = flops_by.get(dt, 0.0) + f
    t_compute = 0.0
    missing_peak = []
    for dt, f in flops_by.items():
        peak = dv.get("tensor_f16_flops") if dt in ("float16", "bfloat16") else dv.get("tensor_tf32_flops") \
            if dt == "float32" else dv.get("fp32_flops")
        peak = peak or dv.get("fp32_flops")
        if not peak:
            missing_peak.append(dt)
            continue
        t_compute += f / peak * 1e6
    bw = dv.get("hbm_gbps")
    t_mem = (input_bytes + output_bytes) / (bw * 1e9) * 1e6 if bw else None
    if t_mem is None:
        return None, "the device file gives no HBM bandwidth"
    launch = dv.get("launch_overhead_us") or 0.0
    detail = {"flops": sum(flops_by.values()), "bytes": input_bytes + output_bytes, "compute_us": t_compute,
              "memory_us": t_mem, "launch_overhead_us": launch}
    if missing_peak:
        detail["no_peak_for"] = missing_peak
    # at least one launch: its overhead (device file) is part of the bound
    return max(t_compute, t_mem) + launch, detail


# ---------------------------------------------------------------------------------------------
# simulated ATen ops

_STREAM_SRC = r'''
// kernsim's model of a memory-bound ATen operation: read n_in 16-byte words, write n_out.
extern "C" __global__ void kb_stream(const float4* __restrict__ in, long n_in, float4* __restrict__ out, long n_out) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  long stride = (long)gridDim.x * blockDim.x;
  long n = n_in > n_out ? n_in : n_out;
  for (; i < n; i += stride) {
    float4 v = i < n_in ? in[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    if (i < n_out) out[i] = v;
  }
}
'''
_stream_cache: dict = {}


def _stream_time_us(rt, read_bytes: int, write_bytes: int) -> float:
    import kernsim
    key = (read_bytes, write_bytes, rt.opts.cache)
    if key in _stream_cache:
        return _stream_cache[key]
    from .. import _core
    m = _stream_cache.get("module")
    if m is None:
        m = kernsim.compile(_STREAM_SRC, rt.opts.arch, device_file=rt.opts.device_file)
        _stream_cache["module"] = m
    n_in = max(1, -(-read_bytes // 16))
    n_out = max(1, -(-write_bytes // 16))
    n = max(n_in, n_out)
    block = 256
    grid = max(1, min(-(-n // block), rt.dev["sm_count"] * 8 if rt.dev.get("sm_count") else 1024))
    k = m.kernel("kb_stream")
    spec = {"spec_version": 1, "source": m.source, "kernel": k.name, "grid": [grid, 1, 1], "block": [block, 1, 1],
            "args": [{"buffer": "f32", "count": 4 * n_in, "init": "zeros"}, {"type": "i64", "value": n_in},
                     {"buffer": "f32", "count": 4 * n_out, "init": "zeros"}, {"type": "i64", "value": n_out}]}
    job = {"spec_json": json.dumps(spec), "base_dir": "/", "origin": "reference op model", "arch": rt.opts.arch,
           "device_file": rt.opts.device_file or "", "full": False, "keep_outputs": False, "max_instructions": 0,
           "wall_time_limit_s": 0.0, "cache": rt.opts.cache}
    r = _core.run_jobs([job], 1)[0]
    if not r.get("ok", True) and "time_us" not in r:
        raise RuntimeError(r.get("error", "stream kernel failed"))
    t = float(r["time_us"])
    _stream_cache[key] = t
    return t


# ATen ops that PyTorch implements as a sequence of other ops on every device (the kernels eager
# launches for one recorded op): (op, read, write) with "in"/"out" the recorded op's input/output
# bytes. logsumexp (ATen's ReduceOps): amax, |max| == inf masked to 0, exp(x - max) summed, log,
# + max; torch.profiler on the CPU lists the same ops nested under aten::logsumexp.
COMPOSITE = {
    "logsumexp": [("amax", "in", "out"), ("abs", "out", "out"), ("eq", "out", "out"), ("masked_fill_", "out", "out"),
                  ("sub", "in+out", "in"), ("exp_", "in", "in"), ("sum", "in", "out"), ("log_", "out", "out"),
                  ("add_", "out+out", "out")],
}


def _eager_model(op, rt):
    """The per-op record of an op timed by something other than one streaming pass (eager.py's
    kernels, or COMPOSITE's sequence of streaming kernels), None for the plain streaming model."""
    from . import eager
    name = op["op"]
    if name in COMPOSITE:
        nin = sum(i["bytes"] for i in op["inputs"])
        nout = sum(o["bytes"] for o in op["outputs"])
        size = {"in": nin, "out": nout, "in+out": nin + nout, "out+out": 2 * nout}
        ks = [{"op": k, "time_us": _stream_time_us(rt, size[r], size[w]), "read_bytes": size[r], "write_bytes": size[w]}
              for k, r, w in COMPOSITE[name]]
        return {"op": name, "time_us": sum(k["time_us"] for k in ks), "model": f"eager composite: {len(ks)} streaming kernels",
                "kernels": ks}
    kind, p = None, None
    if name in eager.SCAN_OPS:
        p = eager.scan_problem(op)
        kind = p and "scan_" + p["kind"]
    elif name in eager.COPY_OPS:
        p = eager.copy_problem(op)
        kind = p and "copy"
    if not p:
        return None
    g = eager.time_eager(kind, p, rt.opts.arch, rt.opts.device_file, rt.opts.cache)
    return {"op": name, "time_us": g["time_us"], "model": f"kernsim eager-kernel model {g['kernel']}"}


GEMM = {"mm", "addmm", "bmm", "baddbmm"}  # kernsim's SGEMM (gemm.py) or tensor-core GEMM (tcgemm.py); matmul/linear decompose into them


def simulate_ops(ops, rt) -> tuple:
    """(total_us or None, per-op list, unmodeled op names, {name: why})."""
    from . import conv, eager, gemm, tcgemm
    total = 0.0
    per = []
    unmodeled = []
    why = {}
    for op in ops:
        name = op["op"]
        if name in FREE or (not op["outputs"] and name not in MEMORY):
            continue
        if name in MEMORY:
            e = _eager_model(op, rt)
            if e is not None:
                per.append(e)
                total += e["time_us"]
                continue
            rb = sum(i["bytes"] for i in op["inputs"])
            wb = sum(o["bytes"] for o in op["outputs"])
            if name in ("zeros", "ones", "full", "fill_", "zero_", "fill", "zeros_like", "ones_like", "full_like",
                        "rand", "randn", "uniform_", "normal_"):
                rb = 0
            t = _stream_time_us(rt, rb, wb)
            per.append({"op": name, "time_us": t, "read_bytes": rb, "write_bytes": wb, "model": "stream"})
            total += t
        elif name in GEMM and eager.gemv_problem(op) is not None:
            g = eager.time_eager("gemv", eager.gemv_problem(op), rt.opts.arch, rt.opts.device_file, rt.opts.cache)
            per.append({"op": name, "time_us": g["time_us"], "model": f"kernsim matrix-vector kernel {g['kernel']}"})
            total += g["time_us"]
        elif name in GEMM:
            half = bool(op["inputs"]) and op["inputs"][-1]["dtype"] in tcgemm.DTYPES
            try:
                if half:
                    p = tcgemm.check_product(op)
                    g = tcgemm.time_product(p, rt.opts.arch, rt.opts.device_file, rt.opts.cache)
                else:
                    p = gemm.product(op)
                    g = gemm.time_product(p, rt.opts.arch, rt.opts.device_file, rt.opts.cache)
            except gemm.NoModel as e:
                unmodeled.append(name)
                why.setdefault(name, str(e))
                continue
            model = f"kernsim tensor-core GEMM ({p['dtype']}, mma.sync) {g['config']}" if half else \
                f"kernsim SGEMM {g['config']}"
            per.append({"op": name, "time_us": g["time_us"], "model": model,
                        "shape": {k: p[k] for k in ("batch", "M", "N", "K", "trans_a", "trans_b")}})
            total += g["time_us"]
        elif name in conv.CONV_OPS:
            try:
                p = conv.problem(op)
                g = conv.time_conv(p, rt.opts.arch, rt.opts.device_file, rt.opts.cache)
            except gemm.NoModel as e:
                unmodeled.append(name)
                why.setdefault(name, str(e))
                continue
            per.append({"op": name, "time_us": g["time_us"],
                        "model": f"kernsim implicit-GEMM convolution ({'tf32' if p['dtype'] == 'float32' else p['dtype']}, "
                                 f"mma.sync) {g['config']}",
                        "shape": {k: p[k] for k in ("N", "C", "K", "G", "OD", "OH", "OW", "T", "R", "S")}})
            total += g["time_us"]
        else:
            unmodeled.append(name)
            why.setdefault(name, "no kernsim model for this ATen operation" + (
                " (matrix products: fp32 mm/addmm/bmm/baddbmm only)" if name in MATMUL else ""))
    return (None if unmodeled else total), per, sorted(set(unmodeled)), why


def _baseline_lookup(path: str, key: str, level: str | None):
    data = json.loads(Path(path).read_text())

    def val(v):
        if isinstance(v, dict):
            v = v.get("mean", v.get("time_ms", v.get("runtime_ms")))
        return float(v) * 1000.0 if v is not None else None

    if key in data and not isinstance(data[key], dict) or (key in data and "mean" in data[key]):
        return val(data[key])
    levels = [level] if level and level in data else list(data)
    for lv in levels:
        if isinstance(data.get(lv), dict) and key in data[lv]:
            return val(data[lv][key])
    return None


def reference_time(req: dict, ref_ops, rt) -> dict:
    out = {}
    # speed of light from the recorded ops and the problem's inputs/outputs
    sol, detail = None, None
    if ref_ops is not None:
        io = req.get("_io_bytes")
        if io:
            sol, detail = sol_bound(ref_ops, io[0], io[1], rt.dev)
    out["sol_us"] = sol
    out["sol_detail"] = detail
    base = req.get("baseline")
    if base:
        t = _baseline_lookup(base, req.get("ref_name", ""), req.get("level"))
        if t is not None:
            out["ref_runtime_us"] = t
            out["ref_runtime_source"] = f"baseline: {base}"
            return out
        out["ref_baseline_missing"] = f"{req.get('ref_name')} is not in {base}"
    if ref_ops is None:
        return out
    total, per, unmodeled, why = simulate_ops(ref_ops, rt)
    out["ref_ops"] = per
    if unmodeled:
        out["ref_unmodeled_ops"] = unmodeled
        out["ref_unmodeled_why"] = why
        out["ref_runtime_source"] = "simulated ATen ops: no model for " + ", ".join(unmodeled)
        out["ref_runtime_us"] = None
    else:
        out["ref_runtime_us"] = total
        out["ref_runtime_source"] = "simulated ATen ops (kernsim kernels)"
    return out
