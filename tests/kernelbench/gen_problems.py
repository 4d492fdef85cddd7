#!/usr/bin/env python3
"""Writes kernsim's KernelBench-format problem set: problems/levelN/NN_Name.py (class Model,
get_inputs, get_init_inputs, module-level size constants), candidates/levelN/NN_Name/<variant>.py
(class ModelNew: CUDA through load_inline or Triton), and manifest.json (the expected verdict of
every candidate -- the ground truth for kernsim's KernelBench engine and the H200 comparison).

This table is the one source: edit it and rerun `python3 tests/kernelbench/gen_problems.py`;
`--check` fails when the files on disk differ from what it would write (the test runs it).
Every file is written anew for kernsim; none is copied from KernelBench.
"""
import argparse
import difflib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _templates import cuda_candidate, reference, triton_candidate  # noqa: E402

PROBLEMS = []

# Verdicts a candidate can carry (README.md explains each).
VERDICTS = {"correct", "incorrect", "hack", "compile_error", "runtime_error", "timeout"}
HACKS = {"output_aliases_input", "cached_result", "partial_computation", "timer_dependent", "side_stream",
         "torch_reference"}


def problem(level, num, name, ref_src, out_shape, size, ops):
    p = {"level": level, "num": num, "name": name, "ref": ref_src, "out_shape": out_shape, "size": size,
         "ops": ops, "cands": []}
    PROBLEMS.append(p)
    return p


def cand(p, variant, lang, src, expected="correct", hack=None, kb_correct=True, speed="", note="",
         run_on_gpu=True, constexprs=None):
    assert expected in VERDICTS and (hack is None or hack in HACKS), (variant, expected, hack)
    assert (expected == "hack") == (hack is not None)
    p["cands"].append({"variant": variant, "lang": lang, "src": src, "expected": expected, "hack": hack,
                       "kb_correct": kb_correct, "speed": speed, "note": note, "run_on_gpu": run_on_gpu,
                       "constexprs": constexprs or {}})


def ext_name(p, variant):
    return f"kb_l{p['level']}_{p['num']:02d}_{variant}"


def doc(p, variant, what, verdict):
    return (f"KernelBench-format candidate for level{p['level']}/{p['num']:02d}_{p['name']}: {what}\n\n"
            f"Expected verdict: {verdict} (tests/kernelbench/manifest.json).")


# ================================================================================== elementwise
UNARY = {
    # name: (doc, torch forward, C expression of v, Triton expression of x)
    "ReLU": ("ReLU activation, elementwise.", "return torch.relu(x)", "fmaxf(v, 0.0f)", "tl.maximum(x, 0.0)"),
    "GELU": ("GELU activation (exact, erf form), elementwise.", "return F.gelu(x)",
             "0.5f * v * (1.0f + erff(v * 0.70710678118654752f))",
             "0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))"),
    "Sigmoid": ("Sigmoid activation, elementwise.", "return torch.sigmoid(x)", "1.0f / (1.0f + __expf(-v))",
                "1.0 / (1.0 + tl.exp(-x))"),
    "Tanh": ("Tanh activation, elementwise.", "return torch.tanh(x)", "tanhf(v)",
             "2.0 / (1.0 + tl.exp(-2.0 * x)) - 1.0"),
    "SiLU": ("SiLU (swish) activation, elementwise.", "return F.silu(x)", "v / (1.0f + __expf(-v))",
             "x / (1.0 + tl.exp(-x))"),
    "LeakyReLU": ("LeakyReLU activation (negative_slope 0.01), elementwise.",
                  "return F.leaky_relu(x, negative_slope=self.negative_slope)", "v > 0.0f ? v : 0.01f * v",
                  "tl.where(x > 0, x, 0.01 * x)"),
    "HardTanh": ("HardTanh activation (clamp to [-1, 1]), elementwise.",
                 "return F.hardtanh(x, min_val=-1.0, max_val=1.0)", "fminf(fmaxf(v, -1.0f), 1.0f)",
                 "tl.minimum(tl.maximum(x, -1.0), 1.0)"),
}
EW_SIZE = "x of 4096 x 2048 float32 (8 Mi elements, 32 MiB in + 32 MiB out): large enough that the H200 time " \
          "is memory-bound rather than launch-bound, small enough for the CPU simulator"


def unary_ref(name):
    d, fwd, _, _ = UNARY[name]
    init_sig, init_body = "", ""
    if name == "LeakyReLU":
        init_sig, init_body = ", negative_slope: float = 0.01", "self.negative_slope = negative_slope"
    return reference(d, EW_SIZE, init_sig, init_body, "x: torch.Tensor", fwd,
                     "batch_size = 4096\ndim = 2048", "x = torch.randn(batch_size, dim)\nreturn [x]")


def unary_cuda_naive(p, variant, cexpr, verdict="correct", body_override=None, host_extra="", what=None):
    op = p["name"].lower()
    line = body_override or f"out[i] = {cexpr};"
    kernels = f"""
    __global__ void {op}_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t n) {{
        const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {{
            const float v = x[i];
            {line}
        }}
    }}"""
    host = f"""
    torch::Tensor {op}_cuda(torch::Tensor x) {{
        CHECK_INPUT(x);
        auto out = torch::empty_like(x);
        const int64_t n = x.numel();
        const int threads = 256;
        const int blocks = (int)((n + threads - 1) / threads);{host_extra}
        {op}_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
        return out;
    }}"""
    return cuda_candidate(doc(p, variant, what or "one element per thread, 256-thread blocks (naive).", verdict),
                          ext_name(p, variant), kernels, host, f"torch::Tensor {op}_cuda(torch::Tensor x);",
                          [f"{op}_cuda"], init_sig_of(p), "", "x", f"return EXT.{op}_cuda(x)")


def init_sig_of(p):
    return ", negative_slope: float = 0.01" if p["name"] == "LeakyReLU" else ""


def unary_cuda_vec4(p, variant, cexpr):
    op = p["name"].lower()
    kernels = f"""
    __device__ __forceinline__ float {op}_f(float v) {{ return {cexpr}; }}

    // float4 loads and stores, grid-stride loop; block 0 also does the n % 4 tail.
    __global__ void {op}_vec4_kernel(const float4* __restrict__ x4, float4* __restrict__ out4, int64_t n4,
                                     const float* __restrict__ x, float* __restrict__ out, int64_t n) {{
        const int64_t stride = (int64_t)gridDim.x * blockDim.x;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {{
            float4 v = x4[i];
            v.x = {op}_f(v.x);
            v.y = {op}_f(v.y);
            v.z = {op}_f(v.z);
            v.w = {op}_f(v.w);
            out4[i] = v;
        }}
        if (blockIdx.x == 0 && threadIdx.x < n - 4 * n4) {{
            const int64_t j = 4 * n4 + threadIdx.x;
            out[j] = {op}_f(x[j]);
        }}
    }}"""
    host = f"""
    torch::Tensor {op}_cuda(torch::Tensor x) {{
        CHECK_INPUT(x);
        auto out = torch::empty_like(x);
        const int64_t n = x.numel();
        const int64_t n4 = n / 4;
        const int threads = 256;
        const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
        int blocks = (int)std::min<int64_t>((n4 + threads - 1) / threads, (int64_t)sms * 8);
        if (blocks < 1) blocks = 1;
        cudaStream_t stream = at::cuda::getCurrentCUDAStream();
        {op}_vec4_kernel<<<blocks, threads, 0, stream>>>(
            reinterpret_cast<const float4*>(x.data_ptr<float>()), reinterpret_cast<float4*>(out.data_ptr<float>()),
            n4, x.data_ptr<float>(), out.data_ptr<float>(), n);
        return out;
    }}"""
    return cuda_candidate(doc(p, variant, "float4 vectorised, grid-stride over 8 blocks per SM (fast).", "correct"),
                          ext_name(p, variant), kernels, host, f"torch::Tensor {op}_cuda(torch::Tensor x);",
                          [f"{op}_cuda"], init_sig_of(p), "", "x", f"return EXT.{op}_cuda(x)", stream_header=True)


def unary_triton(p, variant, texpr, block=1024, verdict="correct", what=None):
    op = p["name"].lower()
    kernels = f"""
    BLOCK_SIZE = {block}


    @triton.jit
    def {op}_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
        y = {texpr}
        tl.store(out_ptr + offsets, y, mask=mask)"""
    wrappers = f"""
    def triton_{op}(x: torch.Tensor) -> torch.Tensor:
        assert x.is_cuda, "x must be a CUDA tensor"
        x = x.contiguous()
        out = torch.empty_like(x)
        n_elements = x.numel()
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        {op}_kernel[grid](x, out, n_elements, BLOCK_SIZE=BLOCK_SIZE)
        return out"""
    return triton_candidate(doc(p, variant, what or f"Triton, {block} elements per program.", verdict), kernels,
                            wrappers, init_sig_of(p), "", "x", f"return triton_{op}(x)")


def build_unary():
    for num, name in enumerate(UNARY, start=1):
        _, _, cexpr, texpr = UNARY[name]
        p = problem(1, num, name, unary_ref(name), [4096, 2048], EW_SIZE, ["elementwise"])
        if name in ("ReLU", "Sigmoid", "SiLU"):
            cand(p, "cuda_vec4", "cuda", unary_cuda_vec4(p, "cuda_vec4", cexpr), speed="fast")
        if name != "Sigmoid" and name != "SiLU":
            cand(p, "cuda_naive", "cuda", unary_cuda_naive(p, "cuda_naive", cexpr), speed="naive")
        cand(p, "triton", "triton", unary_triton(p, "triton", texpr), speed="fast", constexprs={
            f"{name.lower()}_kernel": {"BLOCK_SIZE": 1024}})
        if name == "ReLU":
            kernels = """
            // Writes the result over its input and hands the input back: no output allocation.
            __global__ void relu_inplace_kernel(float* __restrict__ x, int64_t n) {
                const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
                if (i < n) x[i] = fmaxf(x[i], 0.0f);
            }"""
            host = """
            torch::Tensor relu_cuda(torch::Tensor x) {
                CHECK_INPUT(x);
                const int64_t n = x.numel();
                relu_inplace_kernel<<<(int)((n + 255) / 256), 256>>>(x.data_ptr<float>(), n);
                return x;
            }"""
            src = cuda_candidate(doc(p, "hack_inplace", "computes in place and returns its input tensor "
                                     "(output aliases input).", "hack output_aliases_input"),
                                 ext_name(p, "hack_inplace"), kernels, host, "torch::Tensor relu_cuda(torch::Tensor x);",
                                 ["relu_cuda"], "", "", "x", "return EXT.relu_cuda(x)")
            cand(p, "hack_inplace", "cuda", src, expected="hack", hack="output_aliases_input", kb_correct=True,
                 speed="fast", note="the reference has already run when the candidate overwrites x, so "
                 "KernelBench's value check passes; ReLU is idempotent, so timing loops are unaffected")
        if name == "Sigmoid":
            cand(p, "cuda_naive", "cuda", unary_cuda_naive(p, "cuda_naive", cexpr), speed="naive")
            src = unary_cuda_naive(p, "hack_cache", cexpr, verdict="hack cached_result",
                                   what="computes the first call's result and returns it on every later call.")
            src = src.replace("        return sigmoid_cuda_ext.sigmoid_cuda(x)",
                              "        # the first result is kept and returned for every later input\n"
                              "        if self._cached is None:\n"
                              "            self._cached = hack_cache_ext.sigmoid_cuda(x)\n"
                              "        return self._cached")
            src = src.replace("        return hack_cache_ext.sigmoid_cuda(x)",
                              "        # the first result is kept and returned for every later input\n"
                              "        if self._cached is None:\n"
                              "            self._cached = hack_cache_ext.sigmoid_cuda(x)\n"
                              "        return self._cached")
            src = src.replace("super(ModelNew, self).__init__()\n        pass",
                              "super(ModelNew, self).__init__()\n        self._cached = None")
            assert "_cached = None" in src and "self._cached\n" in src
            cand(p, "hack_cache", "cuda", src, expected="hack", hack="cached_result", kb_correct=False, speed="fast",
                 note="KernelBench's check on several seeds reuses one ModelNew instance, so the second seed fails")
        if name == "Tanh":
            src = unary_cuda_naive(p, "compile_error", cexpr, verdict="compile_error",
                                   body_override="out[i] = tanhf(v) * gain;  // `gain` is never declared",
                                   what="uses an undeclared identifier in the kernel (does not compile).")
            cand(p, "compile_error", "cuda", src, expected="compile_error", kb_correct=None,
                 note="nvcc: identifier \"gain\" is undefined")
        if name == "SiLU":
            src = unary_triton(p, "triton_compile_error", texpr, block=1000, verdict="compile_error",
                               what="Triton with BLOCK_SIZE=1000: tl.arange needs a power of two, so the "
                               "kernel fails to compile at its first launch.")
            cand(p, "triton_compile_error", "triton", src, expected="compile_error", kb_correct=None,
                 note="triton: arange's range must be a power of 2", constexprs={"silu_kernel": {"BLOCK_SIZE": 1000}})
        if name == "LeakyReLU":
            src = unary_cuda_naive(p, "crash_host", cexpr, verdict="runtime_error",
                                   host_extra="\n        // looks the output pointer up in a table that was never "
                                   "allocated: segfault in host code\n        float* volatile* table = nullptr;\n"
                                   "        float* volatile out_ptr = table[x.dim()];\n"
                                   "        (void)out_ptr;",
                                   what="dereferences a null pointer in its host wrapper (segfault in host code).")
            cand(p, "crash_host", "cuda", src, expected="runtime_error", kb_correct=False,
                 note="the evaluating process dies with SIGSEGV; the evaluator must survive it")
        if name == "HardTanh":
            kernels = """
            // Waits for a flag that nothing ever sets: never terminates.
            __global__ void hardtanh_kernel(const float* __restrict__ x, float* __restrict__ out,
                                            const int* __restrict__ ready, int64_t n) {
                const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
                while (((volatile const int*)ready)[0] == 0) {
                }
                if (i < n) out[i] = fminf(fmaxf(x[i], -1.0f), 1.0f);
            }"""
            host = """
            torch::Tensor hardtanh_cuda(torch::Tensor x) {
                CHECK_INPUT(x);
                auto out = torch::empty_like(x);
                auto ready = torch::zeros({1}, x.options().dtype(torch::kInt32));
                const int64_t n = x.numel();
                hardtanh_kernel<<<(int)((n + 255) / 256), 256>>>(x.data_ptr<float>(), out.data_ptr<float>(),
                                                                 ready.data_ptr<int>(), n);
                return out;
            }"""
            src = cuda_candidate(doc(p, "hang", "spins on a flag nothing sets (never terminates).", "timeout"),
                                 ext_name(p, "hang"), kernels, host, "torch::Tensor hardtanh_cuda(torch::Tensor x);",
                                 ["hardtanh_cuda"], "", "", "x", "return EXT.hardtanh_cuda(x)")
            cand(p, "hang", "cuda", src, expected="timeout", kb_correct=None, run_on_gpu=False,
                 note="not run on the H200 by default (measure script --include-hang): a hung kernel needs its "
                 "process killed")


def build_vector_add():
    size = EW_SIZE.replace("x of", "a and b, each").replace("32 MiB in", "64 MiB in")
    p = problem(1, 8, "VectorAdd", reference(
        "Elementwise sum of two tensors.", size, "", "", "a: torch.Tensor, b: torch.Tensor", "return a + b",
        "batch_size = 4096\ndim = 2048", "a = torch.randn(batch_size, dim)\nb = torch.randn(batch_size, dim)\n"
        "return [a, b]"), [4096, 2048], size, ["elementwise"])
    kernels = """
    __global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                               int64_t n) {
        const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = a[i] + b[i];
    }"""
    host = """
    torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b) {
        CHECK_INPUT(a);
        CHECK_INPUT(b);
        TORCH_CHECK(a.sizes() == b.sizes(), "a and b must have the same shape");
        auto out = torch::empty_like(a);
        const int64_t n = a.numel();
        add_kernel<<<(int)((n + 255) / 256), 256>>>(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), n);
        return out;
    }"""
    decl = "torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b);"
    cand(p, "cuda_naive", "cuda", cuda_candidate(doc(p, "cuda_naive", "one element per thread (naive).", "correct"),
                                                 ext_name(p, "cuda_naive"), kernels, host, decl, ["add_cuda"], "", "",
                                                 "a, b", "return EXT.add_cuda(a, b)"), speed="naive")
    kernels4 = """
    __global__ void add_vec4_kernel(const float4* __restrict__ a, const float4* __restrict__ b,
                                    float4* __restrict__ out, int64_t n4) {
        const int64_t stride = (int64_t)gridDim.x * blockDim.x;
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
            const float4 x = a[i], y = b[i];
            out[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        }
    }"""
    host4 = """
    torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b) {
        CHECK_INPUT(a);
        CHECK_INPUT(b);
        TORCH_CHECK(a.sizes() == b.sizes(), "a and b must have the same shape");
        TORCH_CHECK(a.numel() % 4 == 0, "this kernel needs a multiple of 4 elements");
        auto out = torch::empty_like(a);
        const int64_t n4 = a.numel() / 4;
        const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
        const int blocks = (int)std::min<int64_t>((n4 + 255) / 256, (int64_t)sms * 8);
        add_vec4_kernel<<<blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
            reinterpret_cast<const float4*>(a.data_ptr<float>()), reinterpret_cast<const float4*>(b.data_ptr<float>()),
            reinterpret_cast<float4*>(out.data_ptr<float>()), n4);
        return out;
    }"""
    cand(p, "cuda_vec4", "cuda", cuda_candidate(doc(p, "cuda_vec4", "float4, grid-stride (fast).", "correct"),
                                                ext_name(p, "cuda_vec4"), kernels4, host4, decl, ["add_cuda"], "", "",
                                                "a, b", "return EXT.add_cuda(a, b)", stream_header=True), speed="fast")
    tk = """
    BLOCK_SIZE = 2048


    @triton.jit
    def add_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        a = tl.load(a_ptr + offsets, mask=mask)
        b = tl.load(b_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, a + b, mask=mask)"""
    tw = """
    def triton_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        assert a.is_cuda and b.is_cuda, "Tensors must be on CUDA"
        a, b = a.contiguous(), b.contiguous()
        out = torch.empty_like(a)
        n_elements = out.numel()
        grid = (triton.cdiv(n_elements, BLOCK_SIZE),)
        add_kernel[grid](a, b, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
        return out"""
    cand(p, "triton", "triton", triton_candidate(doc(p, "triton", "Triton, 2048 elements per program.", "correct"),
                                                 tk, tw, "", "", "a, b", "return triton_add(a, b)"),
         speed="fast", constexprs={"add_kernel": {"BLOCK_SIZE": 2048, "num_warps": 8}})
    kt = """
    // Reads %globaltimer. Block 0 stores the time of this launch in ts[slot ^ 1]; every block compares
    // its clock with the previous launch's time in ts[slot]. Launches less than 2 ms apart mean a timing
    // loop is running, and then only 1/16 of the output is computed.
    __global__ void add_timed_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                     float* __restrict__ out, int64_t n, unsigned long long* ts, int slot) {
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        const unsigned long long prev = ts[slot];
        if (blockIdx.x == 0 && threadIdx.x == 0) ts[slot ^ 1] = now;
        const bool measured = prev != 0ull && now - prev < 2000000ull;
        const int64_t limit = measured ? n / 16 : n;
        const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (i < limit) out[i] = a[i] + b[i];
    }"""
    ht = """
    torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor ts, int64_t slot) {
        CHECK_INPUT(a);
        CHECK_INPUT(b);
        CHECK_CUDA(ts);
        auto out = torch::empty_like(a);
        const int64_t n = a.numel();
        add_timed_kernel<<<(int)((n + 255) / 256), 256>>>(
            a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), n,
            reinterpret_cast<unsigned long long*>(ts.data_ptr<int64_t>()), (int)slot);
        return out;
    }"""
    src = cuda_candidate(doc(p, "hack_globaltimer", "reads %globaltimer and computes 1/16 of the output when "
                             "launches come less than 2 ms apart (a timing loop).", "hack timer_dependent"),
                         ext_name(p, "hack_globaltimer"), kt, ht,
                         "torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor ts, int64_t slot);",
                         ["add_cuda"], "", "self.ts = None\nself.calls = 0", "a, b",
                         "if self.ts is None:\n    self.ts = torch.zeros(2, dtype=torch.int64, device=a.device)\n"
                         "slot = self.calls % 2\nself.calls += 1\nreturn EXT.add_cuda(a, b, self.ts, slot)")
    cand(p, "hack_globaltimer", "cuda", src, expected="hack", hack="timer_dependent", kb_correct=True, speed="hack",
         note="KernelBench's correctness trials make new CPU inputs between calls (>2 ms apart), so they see the full "
         "result; its timing loop (L2 flush between calls, <1 ms apart) gets the 1/16 kernel")


# ================================================================================== row-wise
ROW_SIZE = "x of {r} x {d} float32 ({m} Mi elements); one row per CUDA block / Triton program"


def rsize(r, d):
    return ROW_SIZE.format(r=r, d=d, m=r * d // (1 << 20))


# Each row op: reference pieces and the kernel bodies. In the CUDA bodies `xr` is the row's input,
# `yr` its output row, `row` its index, `D` the row length; bodies run in every thread of the block
# (blockrow, j strides by blockDim.x) or in one thread (rowthread, j strides by 1): STEP says which.
ROWOPS = {}


def rowop(key, **kw):
    ROWOPS[key] = kw


rowop("sum", doc="Sum reduction over dim 1 (keepdim).", fwd="return torch.sum(x, dim=self.dim, keepdim=True)",
      init=(", dim: int = 1", "self.dim = dim"), out="rows1",
      cuda="float s = 0.0f;\nfor (int j = START; j < D; j += STEP) s += xr[j];\ns = REDUCE_SUM(s);\nif (LEAD) out[row] = s;",
      tri="x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0)\ntl.store(out_ptr + row, tl.sum(x, axis=0))")
rowop("mean", doc="Mean over dim 1.", fwd="return torch.mean(x, dim=self.dim)", init=(", dim: int = 1", "self.dim = dim"),
      out="rows",
      cuda="float s = 0.0f;\nfor (int j = START; j < D; j += STEP) s += xr[j];\ns = REDUCE_SUM(s);\nif (LEAD) out[row] = s / D;",
      tri="x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0)\ntl.store(out_ptr + row, tl.sum(x, axis=0) / D)")
rowop("max", doc="Max reduction over dim 1.", fwd="return torch.max(x, dim=self.dim)[0]",
      init=(", dim: int = 1", "self.dim = dim"), out="rows",
      cuda="float m = -INFINITY;\nfor (int j = START; j < D; j += STEP) m = fmaxf(m, xr[j]);\nm = REDUCE_MAX(m);\n"
           "if (LEAD) out[row] = m;",
      tri="x = tl.load(x_ptr + row * D + cols, mask=mask, other=-float(\"inf\"))\ntl.store(out_ptr + row, tl.max(x, axis=0))")
SOFTMAX_CUDA = ("float m = -INFINITY;\nfor (int j = START; j < D; j += STEP) m = fmaxf(m, xr[j] * scale);\n"
                "m = REDUCE_MAX(m);\nfloat s = 0.0f;\nfor (int j = START; j < D; j += STEP) s += __expf(xr[j] * scale - m);\n"
                "s = REDUCE_SUM(s);\nconst float inv = 1.0f / s;\n"
                "for (int j = START; j < D; j += STEP) yr[j] = __expf(xr[j] * scale - m) * inv;")
SOFTMAX_TRI = ("x = tl.load(x_ptr + row * D + cols, mask=mask, other=-float(\"inf\")) * scale\n"
               "e = tl.exp(x - tl.max(x, axis=0))\ny = e / tl.sum(e, axis=0)\ntl.store(out_ptr + row * D + cols, y, mask=mask)")
rowop("softmax", doc="Softmax over dim 1.", fwd="return torch.softmax(x, dim=1)", out="same", scale="1.0f",
      cuda=SOFTMAX_CUDA, tri=SOFTMAX_TRI)
rowop("scale_softmax", doc="Scale then softmax over the last dim (attention-score style fusion).",
      fwd="return torch.softmax(x * self.scale, dim=-1)", init=(", scale: float", "self.scale = scale"), out="same",
      scale="(float)scale", cuda=SOFTMAX_CUDA, tri=SOFTMAX_TRI, init_inputs="[scale]")
rowop("logsumexp", doc="LogSumExp over dim 1.", fwd="return torch.logsumexp(x, dim=1)", out="rows", scale="1.0f",
      cuda=SOFTMAX_CUDA.rsplit("\nconst float inv", 1)[0] + "\nif (LEAD) out[row] = m + logf(s);",
      tri="x = tl.load(x_ptr + row * D + cols, mask=mask, other=-float(\"inf\"))\nm = tl.max(x, axis=0)\n"
          "s = tl.sum(tl.exp(x - m), axis=0)\ntl.store(out_ptr + row, m + tl.log(s))")
LN_CUDA = ("float s = 0.0f;\nfor (int j = START; j < D; j += STEP) s += xr[j];\nconst float mean = REDUCE_SUM(s) / D;\n"
           "float v = 0.0f;\nfor (int j = START; j < D; j += STEP) { const float d = xr[j] - mean; v += d * d; }\n"
           "const float rstd = rsqrtf(REDUCE_SUM(v) / D + eps);\n"
           "for (int j = START; j < D; j += STEP) { const float y = (xr[j] - mean) * rstd * w[j] + b[j]; yr[j] = ACT; }")
LN_TRI = ("x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0)\nmean = tl.sum(x, axis=0) / D\n"
          "xc = tl.where(mask, x - mean, 0.0)\nvar = tl.sum(xc * xc, axis=0) / D\nrstd = 1.0 / tl.sqrt(var + eps)\n"
          "w = tl.load(w_ptr + cols, mask=mask, other=0.0)\nb = tl.load(b_ptr + cols, mask=mask, other=0.0)\n"
          "y = xc * rstd * w + b\ny = ACT\ntl.store(out_ptr + row * D + cols, y, mask=mask)")
rowop("layernorm", doc="LayerNorm over the last dim (elementwise affine).", fwd="return self.ln(x)",
      init=(", normalized_shape: int", "self.ln = nn.LayerNorm(normalized_shape)"), out="same", params="wb",
      cuda=LN_CUDA.replace("ACT", "y"), tri=LN_TRI.replace("y = ACT\n", ""), init_inputs="[dim]")
rowop("layernorm_gelu", doc="LayerNorm over the last dim followed by GELU.", fwd="return F.gelu(self.ln(x))",
      init=(", normalized_shape: int", "self.ln = nn.LayerNorm(normalized_shape)"), out="same", params="wb",
      cuda=LN_CUDA.replace("ACT", "0.5f * y * (1.0f + erff(y * 0.70710678118654752f))"),
      tri=LN_TRI.replace("ACT", "0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))"), init_inputs="[dim]")
RMS_CUDA = ("float ss = 0.0f;\nfor (int j = START; j < D; j += STEP) ss += xr[j] * xr[j];\n"
            "const float r = rsqrtf(REDUCE_SUM(ss) / D + eps);\nfor (int j = START; j < D; j += STEP) yr[j] = xr[j] * r WMUL;")
RMS_TRI = ("x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0)\nr = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / D + eps)\n"
           "y = x * r WMUL\ntl.store(out_ptr + row * D + cols, y, mask=mask)")
rowop("rmsnorm", doc="RMS normalisation over the last dim (no weight).",
      fwd="return x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)",
      init=(", eps: float = 1e-5", "self.eps = eps"), out="same", params="eps",
      cuda=RMS_CUDA.replace(" WMUL", ""), tri=RMS_TRI.replace(" WMUL", ""))
rowop("rmsnorm_scale", doc="RMS normalisation over the last dim times a learned per-feature weight.",
      fwd="rms = torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)\nreturn x * rms * self.weight",
      init=(", dim: int, eps: float = 1e-5", "self.eps = eps\nself.weight = nn.Parameter(torch.randn(dim))"),
      out="same", params="w_eps", cuda=RMS_CUDA.replace("WMUL", "* w[j]"),
      tri=RMS_TRI.replace("WMUL", "* tl.load(w_ptr + cols, mask=mask, other=0.0)"), init_inputs="[dim]")
rowop("l2norm", doc="L2 normalisation of each row: x / ||x||_2 over dim 1.",
      fwd="return x / torch.norm(x, p=2, dim=1, keepdim=True)", out="same",
      cuda="float ss = 0.0f;\nfor (int j = START; j < D; j += STEP) ss += xr[j] * xr[j];\n"
           "const float inv = 1.0f / sqrtf(REDUCE_SUM(ss));\nfor (int j = START; j < D; j += STEP) yr[j] = xr[j] * inv;",
      tri="x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0)\ny = x / tl.sqrt(tl.sum(x * x, axis=0))\n"
          "tl.store(out_ptr + row * D + cols, y, mask=mask)")


def row_ref(key, rows, d, extra_consts=""):
    o = ROWOPS[key]
    init_sig, init_body = o.get("init", ("", ""))
    consts = f"batch_size = {rows}\ndim = {d}" + extra_consts
    return reference(o["doc"], rsize(rows, d), init_sig, init_body, "x: torch.Tensor", o["fwd"], consts,
                     "x = torch.randn(batch_size, dim)\nreturn [x]", o.get("init_inputs", "[]"))


def row_params(key):
    """(C params, host params, host args, python module init body, python forward extra args)."""
    o = ROWOPS[key]
    pk = o.get("params", "")
    if "scale" in o:
        if key == "scale_softmax":
            return (", float scale", ", double scale", ", scale", "self.scale = scale", ", self.scale", ", scale: float")
        return (", float scale", "", ", 1.0f" if False else ", 1.0", "", "", "")
    if pk == "wb":
        return (", const float* __restrict__ w, const float* __restrict__ b, float eps",
                ", torch::Tensor w, torch::Tensor b, double eps", ", w.data_ptr<float>(), b.data_ptr<float>(), (float)eps",
                "self.ln = nn.LayerNorm(normalized_shape)", ", self.ln.weight, self.ln.bias, self.ln.eps",
                ", normalized_shape: int")
    if pk == "eps":
        return (", float eps", ", double eps", ", (float)eps", "self.eps = eps", ", self.eps", ", eps: float = 1e-5")
    if pk == "w_eps":
        return (", const float* __restrict__ w, float eps", ", torch::Tensor w, double eps",
                ", w.data_ptr<float>(), (float)eps", "self.eps = eps\nself.weight = nn.Parameter(torch.randn(dim))",
                ", self.weight, self.eps", ", dim: int, eps: float = 1e-5")
    return ("", "", "", "", "", o.get("init", ("", ""))[0])


def row_out_alloc(key):
    out = ROWOPS[key]["out"]
    return {"same": "torch::empty_like(x)", "rows": "torch::empty({rows}, x.options())",
            "rows1": "torch::empty({rows, 1}, x.options())"}[out]


def row_cuda(p, key, variant, kind, body_edit=None, what=None, verdict="correct", out_alloc=None):
    o = ROWOPS[key]
    cparams, hparams, hargs, init_body, fwd_extra, init_sig = row_params(key)
    if key == "softmax" or key == "logsumexp":
        hargs = ", 1.0f"
    body = o["cuda"]
    if body_edit:
        body = body_edit(body)
    if kind == "blockrow":
        body = body.replace("START", "threadIdx.x").replace("STEP", "blockDim.x").replace(
            "REDUCE_SUM", "block_sum").replace("REDUCE_MAX", "block_max").replace("LEAD", "threadIdx.x == 0")
        head = "const int64_t row = blockIdx.x;\n"
        launch = "rows, threads"
        what = what or "one 256-thread block per row, warp-shuffle + shared-memory block reductions (fast)."
    else:
        body = body.replace("START", "0").replace("STEP", "1").replace("REDUCE_SUM", "").replace(
            "REDUCE_MAX", "").replace("LEAD", "true")
        head = "const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;\nif (row >= rows) return;\n"
        launch = "(int)((rows + threads - 1) / threads), threads"
        what = what or "one thread per row, sequential loops (naive; uncoalesced)."
    kernel = (f"__global__ void {key}_{kind}_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t rows, "
              f"int D{cparams}) {{\n" + "\n".join("    " + ln for ln in (head + "const float* xr = x + row * D;\n"
                                                                         "float* yr = out + row * D;\n(void)yr;\n" + body).splitlines()) + "\n}")
    fn = f"{key}_cuda"
    tensor_checks = "".join(f"\n    CHECK_INPUT({t});" for t in ("w", "b") if f"torch::Tensor {t}" in hparams)
    host = f"""
torch::Tensor {fn}(torch::Tensor x{hparams}) {{
    CHECK_INPUT(x);{tensor_checks}
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    const int64_t rows = x.size(0);
    const int D = (int)x.size(1);
    auto out = {out_alloc or row_out_alloc(key)};
    const int threads = 256;
    {key}_{kind}_kernel<<<{launch}>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, D{hargs});
    return out;
}}"""
    decl = f"torch::Tensor {fn}(torch::Tensor x{hparams});"
    return cuda_candidate(doc(p, variant, what, verdict), ext_name(p, variant), kernel, host, decl, [fn],
                          init_sig, init_body, "x", f"return EXT.{fn}(x{fwd_extra})", helpers=(kind == "blockrow"))


def row_triton(p, key, d, variant="triton", num_warps=8):
    o = ROWOPS[key]
    _, _, _, init_body, fwd_extra, init_sig = row_params(key)
    pk = o.get("params", "")
    kparams = {"wb": "w_ptr, b_ptr, eps, ", "eps": "eps, ", "w_eps": "w_ptr, eps, "}.get(pk, "")
    if "scale" in o:
        kparams = "scale, "
    body = o["tri"]
    kernel = (f"@triton.jit\ndef {key}_kernel(x_ptr, out_ptr, {kparams}D, BLOCK_D: tl.constexpr):\n"
              "    row = tl.program_id(0)\n    cols = tl.arange(0, BLOCK_D)\n    mask = cols < D\n" +
              "\n".join("    " + ln for ln in body.splitlines()))
    out = {"same": "torch.empty_like(x)", "rows": "torch.empty(rows, device=x.device, dtype=x.dtype)",
           "rows1": "torch.empty(rows, 1, device=x.device, dtype=x.dtype)"}[o["out"]]
    pyparams = {"wb": ", w, b, eps", "eps": ", eps", "w_eps": ", w, eps"}.get(pk, "")
    if key == "scale_softmax":
        pyparams = ", scale"
    kargs = pyparams.lstrip(", ")
    if key in ("softmax", "logsumexp") and "scale" in o:
        kargs, pyparams = ("1.0" if key == "softmax" else ""), ""
    if key == "logsumexp":
        kernel = kernel.replace("scale, ", "")
        kargs = ""
    wrapper = f"""
def triton_{key}(x: torch.Tensor{pyparams}) -> torch.Tensor:
    assert x.is_cuda and x.dim() == 2
    x = x.contiguous()
    rows, D = x.shape
    out = {out}
    BLOCK_D = triton.next_power_of_2(D)
    {key}_kernel[(rows,)](x, out, {kargs + ", " if kargs else ""}D, BLOCK_D=BLOCK_D, num_warps={num_warps})
    return out"""
    return triton_candidate(doc(p, variant, "Triton, one program per row holding the whole row in registers.",
                                "correct"), kernel, wrapper, init_sig, init_body, "x",
                            f"return triton_{key}(x{fwd_extra})"), {f"{key}_kernel": {
                                "BLOCK_D": 1 << (d - 1).bit_length(), "num_warps": num_warps}}


def row_problem(level, num, name, key, rows, d, out_shape, cands, extra_consts=""):
    p = problem(level, num, name, row_ref(key, rows, d, extra_consts), out_shape, rsize(rows, d), ["row_reduction"])
    for c in cands:
        if c == "rowthread":
            cand(p, "cuda_rowthread", "cuda", row_cuda(p, key, "cuda_rowthread", "rowthread"), speed="naive")
        elif c == "blockrow":
            cand(p, "cuda_blockrow", "cuda", row_cuda(p, key, "cuda_blockrow", "blockrow"), speed="fast")
        elif c == "triton":
            src, ce = row_triton(p, key, d)
            cand(p, "triton", "triton", src, speed="fast", constexprs=ce)
    return p


def build_rows():
    p = row_problem(1, 9, "Sum_dim1", "sum", 2048, 4096, [2048, 1], ["rowthread", "blockrow", "triton"])
    src = row_cuda(p, "sum", "wrong_race", "blockrow",
                   body_edit=lambda b: "float s = 0.0f;\nfor (int j = START; j < D; j += STEP) s += xr[j];\n"
                   "out[row] += s;  // every thread adds its partial sum without an atomic",
                   what="every thread adds its partial sum into out[row] with a plain +=, no atomic (data race: "
                   "lost updates).", verdict="incorrect", out_alloc="torch::zeros({rows, 1}, x.options())")
    cand(p, "wrong_race", "cuda", src, expected="incorrect", kb_correct=False,
         note="non-atomic read-modify-write from 256 threads: the lanes of a warp overwrite each other")
    src = row_cuda(p, "sum", "wrong_offbyone", "blockrow", body_edit=lambda b: b.replace("j < D;", "j < D - 1;"),
                   what="the loop stops at D - 1, so the last column is never added (off by one).",
                   verdict="incorrect")
    cand(p, "wrong_offbyone", "cuda", src, expected="incorrect", kb_correct=False,
         note="each row sum misses x[r, -1] ~ N(0,1) against sums ~ N(0, 64): about half the rows are beyond "
         "atol + rtol * |sum|")
    p = row_problem(1, 10, "Mean_dim1", "mean", 2048, 4096, [2048], ["blockrow", "triton"])
    src = row_cuda(p, "mean", "offbyone_within_tol", "blockrow", body_edit=lambda b: b.replace("j < D;", "j < D - 1;"),
                   what="the loop stops at D - 1, so the last column is never added (off by one) -- but the "
                   "error, x[r, -1] / 4096 ~ 2.4e-4, is inside atol=rtol=1e-2.", verdict="correct (within tolerance)")
    cand(p, "offbyone_within_tol", "cuda", src, expected="correct", kb_correct=True, speed="fast",
         note="a wrong kernel that the tolerance accepts: KernelBench calls it correct, so must kernsim")
    row_problem(1, 11, "Max_dim1", "max", 2048, 4096, [2048], ["rowthread", "triton"])
    p = row_problem(1, 12, "Softmax", "softmax", 4096, 2048, [4096, 2048], ["rowthread", "blockrow", "triton"])
    kernels = """
    // Computes each row's maximum (never used) so that a kernel runs; the result is PyTorch's.
    __global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ m, int64_t rows, int D) {
        const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (r < rows) {
            float v = -INFINITY;
            for (int j = 0; j < D; ++j) v = fmaxf(v, x[r * D + j]);
            m[r] = v;
        }
    }"""
    host = """
    torch::Tensor softmax_cuda(torch::Tensor x) {
        CHECK_INPUT(x);
        auto m = torch::empty({x.size(0)}, x.options());
        row_max_kernel<<<(int)((x.size(0) + 255) / 256), 256>>>(x.data_ptr<float>(), m.data_ptr<float>(), x.size(0),
                                                               (int)x.size(1));
        return torch::softmax(x, 1);
    }"""
    src = cuda_candidate(doc(p, "hack_torch_reference", "launches a decoy kernel and returns torch::softmax's "
                             "result (the reference's own computation).", "hack torch_reference"),
                         ext_name(p, "hack_torch_reference"), kernels, host, "torch::Tensor softmax_cuda(torch::Tensor x);",
                         ["softmax_cuda"], "", "", "x", "return EXT.softmax_cuda(x)")
    cand(p, "hack_torch_reference", "cuda", src, expected="hack", hack="torch_reference", kb_correct=True, speed="slow",
         note="the output comes from ATen's softmax kernel called inside the extension")
    p = row_problem(1, 13, "LayerNorm", "layernorm", 4096, 2048, [4096, 2048], ["rowthread", "blockrow", "triton"])
    src = row_cuda(p, "layernorm", "wrong_transposed", "blockrow",
                   body_edit=lambda b: b.replace("const float* xr = x + row * D;", ""),
                   what="reads x[j * rows + row] (column-major indexing of a row-major tensor): statistics and "
                   "values of the wrong elements.", verdict="incorrect")
    src = src.replace("const float* xr = x + row * D;", "const float* xr = x + row;  // BUG: strided as if transposed")
    src = src.replace("xr[j]", "xr[(int64_t)j * rows]")
    assert "xr[(int64_t)j * rows]" in src
    cand(p, "wrong_transposed", "cuda", src, expected="incorrect", kb_correct=False,
         note="indexing bug: reads column-major")
    p = row_problem(1, 14, "RMSNorm", "rmsnorm", 4096, 2048, [4096, 2048], ["blockrow", "triton"])
    src = row_cuda(p, "rmsnorm", "wrong_nosqrt", "blockrow",
                   body_edit=lambda b: b.replace("rsqrtf(REDUCE_SUM(ss) / D + eps)", "1.0f / (REDUCE_SUM(ss) / D + eps)"),
                   what="divides by the mean square instead of its square root.", verdict="incorrect")
    cand(p, "wrong_nosqrt", "cuda", src, expected="incorrect", kb_correct=False,
         note="mean(x^2) of 2048 N(0,1) values is 1 +- 0.03, so the error is ~1.5% of |y|: beyond rtol 1e-2 "
         "for |y| > ~1")
    row_problem(1, 15, "L2Normalize", "l2norm", 2048, 4096, [2048, 4096], ["blockrow", "triton"])


# ================================================================================== matmul family
def mm_kernel(kind, blayout="kn", epi=None, batched=False, k_end="K", name="matmul"):
    """CUDA GEMM C[M,N] = A[M,K] * B (B as [K,N] 'kn' or as W[N,K] 'nk', nn.Linear's layout)."""
    bidx = "B[(int64_t)kk * N + col]" if blayout == "kn" else "B[(int64_t)col * K + kk]"
    epi_params = ", const float* __restrict__ bias" if epi and "bias" in epi else ""
    store = "C[(int64_t)row * N + col] = " + ((epi or "acc").replace("ACC", "acc")) + ";"
    boff = ("    const int64_t z = blockIdx.z;\n    A += z * (int64_t)M * K;\n    B += z * (int64_t)K * N;\n"
            "    C += z * (int64_t)M * N;\n") if batched else ""
    sig = (f"__global__ void {name}_{kind}_kernel(const float* __restrict__ A, const float* __restrict__ B, "
           f"float* __restrict__ C, int M, int N, int K{epi_params})")
    if kind == "naive":
        return sig + " {\n" + boff + f"""    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {{
        float acc = 0.0f;
        for (int kk = 0; kk < {k_end}; ++kk) acc += A[(int64_t)row * K + kk] * {bidx};
        {store}
    }}
}}"""
    if kind == "tiled":
        bload = ("Bs[threadIdx.y][threadIdx.x] = (t + threadIdx.y < K && col < N) ? "
                 "B[(int64_t)(t + threadIdx.y) * N + col] : 0.0f;") if blayout == "kn" else (
            "{  // W tile loaded along K (coalesced) and stored transposed\n"
            "            const int wn = blockIdx.x * TILE + threadIdx.y, wk = t + threadIdx.x;\n"
            "            Bs[threadIdx.x][threadIdx.y] = (wn < N && wk < K) ? B[(int64_t)wn * K + wk] : 0.0f;\n        }")
        return "#define TILE 32\n\n" + sig + " {\n" + boff + f"""    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {{
        As[threadIdx.y][threadIdx.x] = (row < M && t + threadIdx.x < K) ? A[(int64_t)row * K + t + threadIdx.x] : 0.0f;
        {bload}
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }}
    if (row < M && col < N) {{
        {store}
    }}
}}"""
    assert kind == "regblock"
    bload = ("""        for (int i = threadIdx.x; i < BK * BN; i += 256) {
            const int k = i / BN, n = i % BN;
            Bs[k][n] = (t + k < K && col0 + n < N) ? B[(int64_t)(t + k) * N + col0 + n] : 0.0f;
        }""" if blayout == "kn" else """        for (int i = threadIdx.x; i < BK * BN; i += 256) {
            const int n = i / BK, k = i % BK;  // consecutive threads walk along a row of W
            Bs[k][n] = (t + k < K && col0 + n < N) ? B[(int64_t)(col0 + n) * K + t + k] : 0.0f;
        }""")
    return "#define BM 64\n#define BN 64\n#define BK 16\n\n// 64x64 tile per 256-thread block, 4x4 outputs per thread.\n" + \
        sig.replace("__global__ void", "__global__ void __launch_bounds__(256)") + " {\n" + boff + f"""    __shared__ float As[BK][BM + 4];
    __shared__ float Bs[BK][BN + 4];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float accs[4][4] = {{}};
    for (int t = 0; t < K; t += BK) {{
        for (int i = threadIdx.x; i < BM * BK; i += 256) {{
            const int m = i / BK, k = i % BK;
            As[k][m] = (row0 + m < M && t + k < K) ? A[(int64_t)(row0 + m) * K + t + k] : 0.0f;
        }}
{bload}
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {{
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) accs[i][j] += a[i] * b[j];
        }}
        __syncthreads();
    }}
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) {{
            const int row = row0 + ty + 16 * i, col = col0 + tx + 16 * j;
            const float acc = accs[i][j];
            if (row < M && col < N) {{
                {store}
            }}
        }}
}}"""


def mm_launch(kind, name, batched=False, m_expr="M", extra_args="", stream=""):
    zdim = ", batch" if batched else ""
    if kind == "naive":
        return (f"const dim3 block(16, 16);\n    const dim3 grid((N + 15) / 16, ({m_expr} + 15) / 16{zdim});\n"
                f"    {name}_naive_kernel<<<grid, block{stream}>>>(PTRS, M, N, K{extra_args});")
    if kind == "tiled":
        return (f"const dim3 block(32, 32);\n    const dim3 grid((N + 31) / 32, ({m_expr} + 31) / 32{zdim});\n"
                f"    {name}_tiled_kernel<<<grid, block{stream}>>>(PTRS, M, N, K{extra_args});")
    return (f"const dim3 grid((N + 63) / 64, ({m_expr} + 63) / 64{zdim});\n"
            f"    {name}_regblock_kernel<<<grid, 256{stream}>>>(PTRS, M, N, K{extra_args});")


MM_SIZE = "A {m}x{k} times B {k}x{n} float32 ({g} G multiply-adds)"

TRI_MM = """
@triton.jit
def {name}_kernel(a_ptr, b_ptr, c_ptr, {bias}M, N, K, stride_az, stride_am, stride_ak, stride_bz, stride_bk,
                  stride_bn, stride_cz, stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    z = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + z * stride_az + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + z * stride_bz + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="{prec}")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
{epi}    c_ptrs = c_ptr + z * stride_cz + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))"""


def tri_mm(name, prec="ieee", bias=False, epi=""):
    e = ""
    if bias:
        e += "    acc += tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)[None, :]\n"
    if epi:
        e += "    acc = " + epi + "\n"
    return TRI_MM.format(name=name, bias="bias_ptr, " if bias else "", prec=prec, epi=e)


MM_CONSTEXPRS = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "num_warps": 4}


def build_matmul():
    # ---- 16: square matmul, uniform inputs (as KernelBench's own level-1 matmuls)
    ref = reference("Square matrix multiplication C = A @ B.", MM_SIZE.format(m=1024, k=1024, n=1024, g=1) +
                    "; inputs uniform in [0, 1) as in KernelBench's level-1 matmuls",
                    "", "", "A: torch.Tensor, B: torch.Tensor", "return torch.matmul(A, B)", "N = 1024",
                    "A = torch.rand(N, N)\nB = torch.rand(N, N)\nreturn [A, B]")
    p = problem(1, 16, "Matmul_Square", ref, [1024, 1024], MM_SIZE.format(m=1024, k=1024, n=1024, g=1), ["matmul"])
    decl = "torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B);"

    def mm_host(kind, stream_code="", stream_arg=""):
        return f"""
torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B) {{
    CHECK_INPUT(A);
    CHECK_INPUT(B);
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0), "shape mismatch");
    const int M = (int)A.size(0), K = (int)A.size(1), N = (int)B.size(1);
    auto C = torch::empty({{M, N}}, A.options());{stream_code}
    {mm_launch(kind, "matmul", stream=stream_arg).replace("PTRS", "A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>()")}
    return C;
}}"""

    what = {"naive": "one thread per output element, 16x16 blocks (naive).",
            "tiled": "32x32 shared-memory tiles, one output per thread.",
            "regblock": "64x64 shared-memory tiles, 4x4 register-blocked outputs per thread (fastest CUDA)."}
    for kind, speed in (("naive", "naive"), ("regblock", "fast")):
        v = f"cuda_{kind}"
        cand(p, v, "cuda", cuda_candidate(doc(p, v, what[kind], "correct"), ext_name(p, v), mm_kernel(kind),
                                          mm_host(kind), decl, ["matmul_cuda"], "", "", "A, B",
                                          "return EXT.matmul_cuda(A, B)"), speed=speed)
    tw = """
def triton_matmul(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    assert A.is_cuda and B.is_cuda
    M, K = A.shape
    N = B.shape[1]
    C = torch.empty((M, N), device=A.device, dtype=A.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), 1)
    matmul_kernel[grid](A, B, C, M, N, K, 0, A.stride(0), A.stride(1), 0, B.stride(0), B.stride(1), 0, C.stride(0),
                        C.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4)
    return C"""
    cand(p, "triton_tf32", "triton", triton_candidate(
        doc(p, "triton_tf32", "Triton tl.dot with TF32 inputs (tensor cores). Correct within atol=rtol=1e-2 "
            "here because the inputs are uniform in [0, 1) (every output is ~256).", "correct"),
        tri_mm("matmul", prec="tf32"), tw, "", "", "A, B", "return triton_matmul(A, B)"),
        speed="fast", constexprs={"matmul_kernel": MM_CONSTEXPRS},
        note="TF32 rounding error ~1e-3 absolute against outputs ~256: well inside the tolerance")
    stream_code = """
    // The product runs on a private non-blocking stream: nothing orders it with the caller's stream.
    static cudaStream_t side = nullptr;
    if (side == nullptr) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);"""
    cand(p, "hack_side_stream", "cuda", cuda_candidate(
        doc(p, "hack_side_stream", "the register-blocked GEMM launched on a private non-blocking stream; CUDA events "
            "recorded on the current stream do not wait for it.", "hack side_stream"),
        ext_name(p, "hack_side_stream"), mm_kernel("regblock"), mm_host("regblock", stream_code, ", 0, side"), decl,
        ["matmul_cuda"], "", "", "A, B", "return EXT.matmul_cuda(A, B)"),
        expected="hack", hack="side_stream", kb_correct=True, speed="hack",
        note="KernelBench synchronises the device before comparing, so values pass; its events on the default "
             "stream time almost nothing")

    # ---- 17: rectangular matmul, normal inputs
    ref = reference("Rectangular matrix multiplication C = A @ B.", MM_SIZE.format(m=512, k=1024, n=2048, g=1),
                    "", "", "A: torch.Tensor, B: torch.Tensor", "return torch.matmul(A, B)", "M = 512\nK = 1024\nN = 2048",
                    "A = torch.randn(M, K)\nB = torch.randn(K, N)\nreturn [A, B]")
    p = problem(1, 17, "Matmul_Rect", ref, [512, 2048], MM_SIZE.format(m=512, k=1024, n=2048, g=1), ["matmul"])
    cand(p, "cuda_tiled", "cuda", cuda_candidate(doc(p, "cuda_tiled", what["tiled"], "correct"),
                                                 ext_name(p, "cuda_tiled"), mm_kernel("tiled"), mm_host("tiled"), decl,
                                                 ["matmul_cuda"], "", "", "A, B", "return EXT.matmul_cuda(A, B)"),
         speed="medium")
    cand(p, "triton", "triton", triton_candidate(doc(p, "triton", "Triton tl.dot, IEEE fp32 (no TF32).", "correct"),
                                                 tri_mm("matmul"), tw, "", "", "A, B", "return triton_matmul(A, B)"),
         speed="fast", constexprs={"matmul_kernel": MM_CONSTEXPRS})
    cand(p, "wrong_offbyone", "cuda", cuda_candidate(
        doc(p, "wrong_offbyone", "naive GEMM whose k loop stops at K - 1 (off by one).", "incorrect"),
        ext_name(p, "wrong_offbyone"), mm_kernel("naive", k_end="K - 1"), mm_host("naive"), decl, ["matmul_cuda"],
        "", "", "A, B", "return EXT.matmul_cuda(A, B)"), expected="incorrect", kb_correct=False,
        note="each output misses A[i,K-1]*B[K-1,j] ~ N(0,1) against outputs ~N(0,32): most elements beyond tolerance")

    # ---- 18: batched matmul
    ref = reference("Batched matrix multiplication C[b] = A[b] @ B[b].",
                    "A 16x256x512 times B 16x512x256 float32 (0.5 G multiply-adds)", "", "",
                    "A: torch.Tensor, B: torch.Tensor", "return torch.bmm(A, B)", "batch_size = 16\nm = 256\nk = 512\nn = 256",
                    "A = torch.randn(batch_size, m, k)\nB = torch.randn(batch_size, k, n)\nreturn [A, B]")
    p = problem(1, 18, "BMM", ref, [16, 256, 256], "16 x (256x512 @ 512x256)", ["matmul"])
    host = """
torch::Tensor bmm_cuda(torch::Tensor A, torch::Tensor B) {
    CHECK_INPUT(A);
    CHECK_INPUT(B);
    TORCH_CHECK(A.dim() == 3 && B.dim() == 3 && A.size(0) == B.size(0) && A.size(2) == B.size(1), "shape mismatch");
    const int batch = (int)A.size(0), M = (int)A.size(1), K = (int)A.size(2), N = (int)B.size(2);
    auto C = torch::empty({batch, M, N}, A.options());
    LAUNCH
    return C;
}"""
    ptrs = "A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>()"
    cand(p, "cuda_naive", "cuda", cuda_candidate(
        doc(p, "cuda_naive", "one thread per output, batch on grid z (naive).", "correct"), ext_name(p, "cuda_naive"),
        mm_kernel("naive", batched=True, name="bmm"),
        host.replace("LAUNCH", mm_launch("naive", "bmm", batched=True).replace("PTRS", ptrs)),
        "torch::Tensor bmm_cuda(torch::Tensor A, torch::Tensor B);", ["bmm_cuda"], "", "", "A, B",
        "return EXT.bmm_cuda(A, B)"), speed="naive")
    tw_b = """
def triton_bmm(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    assert A.is_cuda and B.is_cuda
    batch, M, K = A.shape
    N = B.shape[2]
    C = torch.empty((batch, M, N), device=A.device, dtype=A.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), batch)
    bmm_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), A.stride(2), B.stride(0), B.stride(1), B.stride(2),
                     C.stride(0), C.stride(1), C.stride(2), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4)
    return C"""
    cand(p, "triton", "triton", triton_candidate(doc(p, "triton", "Triton tl.dot (IEEE fp32), batch on grid axis 2.",
                                                     "correct"), tri_mm("bmm"), tw_b, "", "", "A, B",
                                                 "return triton_bmm(A, B)"),
         speed="fast", constexprs={"bmm_kernel": MM_CONSTEXPRS})

    # ---- 19: matrix-vector
    ref = reference("Matrix-vector product y = A @ x.", "A 4096x4096 float32 (64 MiB), x 4096x1", "", "",
                    "A: torch.Tensor, x: torch.Tensor", "return torch.matmul(A, x)", "M = 4096\nK = 4096",
                    "A = torch.randn(M, K)\nx = torch.randn(K, 1)\nreturn [A, x]")
    p = problem(1, 19, "MatVec", ref, [4096, 1], "A 4096x4096, x 4096x1", ["matvec"])
    k_thread = """
__global__ void matvec_thread_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                     int M, int K) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[(int64_t)row * K + k] * x[k];
        y[row] = acc;
    }
}"""
    k_warp = """
// One warp per row: lanes stride along the row (coalesced), then a shuffle reduction.
__global__ void matvec_warp_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   int M, int K) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (warp >= M) return;
    const float* a = A + (int64_t)warp * K;
    float acc = 0.0f;
    for (int k = lane; k < K; k += 32) acc += a[k] * x[k];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[warp] = acc;
}"""
    host = """
torch::Tensor matvec_cuda(torch::Tensor A, torch::Tensor x) {
    CHECK_INPUT(A);
    CHECK_INPUT(x);
    const int M = (int)A.size(0), K = (int)A.size(1);
    TORCH_CHECK(x.numel() == K, "x must have K elements");
    auto y = torch::empty({M, 1}, A.options());
    LAUNCH
    return y;
}"""
    for v, k, launch, w, sp in (
            ("cuda_rowthread", k_thread, "matvec_thread_kernel<<<(M + 255) / 256, 256>>>(A.data_ptr<float>(), "
             "x.data_ptr<float>(), y.data_ptr<float>(), M, K);", "one thread per row (naive: uncoalesced).", "naive"),
            ("cuda_warprow", k_warp, "matvec_warp_kernel<<<(M * 32 + 255) / 256, 256>>>(A.data_ptr<float>(), "
             "x.data_ptr<float>(), y.data_ptr<float>(), M, K);", "one warp per row, coalesced, shuffle reduction.",
             "fast")):
        cand(p, v, "cuda", cuda_candidate(doc(p, v, w, "correct"), ext_name(p, v), k, host.replace("LAUNCH", launch),
                                          "torch::Tensor matvec_cuda(torch::Tensor A, torch::Tensor x);",
                                          ["matvec_cuda"], "", "", "A, x", "return EXT.matvec_cuda(A, x)"), speed=sp)


LINEAR_INIT_SIG = ", in_features: int, out_features: int"


def linear_family():
    """Linear (L1) and the two GEMM-epilogue fusions (L2)."""
    specs = [
        # level, num, name, doc, fwd, batch, in, out, C epilogue, Triton epilogue, extra init, extra consts
        (1, 20, "Linear", "Fully connected layer y = x @ W^T + b (nn.Linear).", "return self.gemm(x)", 512, 1024, 1024,
         "ACC + bias[col]", "", "", ""),
        (2, 1, "Gemm_Bias_ReLU", "nn.Linear followed by ReLU.", "return torch.relu(self.gemm(x))", 512, 1024, 1024,
         "fmaxf(ACC + bias[col], 0.0f)", "tl.maximum(acc, 0.0)", "", ""),
        (2, 2, "Gemm_GELU_Scale", "nn.Linear, GELU, then multiplication by a constant.",
         "return F.gelu(self.gemm(x)) * self.scale", 256, 1024, 2048,
         "GELU_SCALE", "0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476)) * scale", ", scale: float",
         "\nscale = 2.0"),
    ]
    for level, num, name, d, fwd, batch, fin, fout, cepi, tepi, extra_sig, extra_consts in specs:
        init_sig = LINEAR_INIT_SIG + extra_sig
        init_body = "self.gemm = nn.Linear(in_features, out_features)" + ("\nself.scale = scale" if extra_sig else "")
        size = f"x {batch}x{fin}, W {fout}x{fin} float32 ({batch * fin * fout / 2**30:.2g} G multiply-adds)"
        ref = reference(d, size, init_sig, init_body, "x: torch.Tensor", fwd,
                        f"batch_size = {batch}\nin_features = {fin}\nout_features = {fout}" + extra_consts,
                        "x = torch.randn(batch_size, in_features)\nreturn [x]",
                        "[in_features, out_features" + (", scale]" if extra_sig else "]"))
        p = problem(level, num, name, ref, [batch, fout], size, ["matmul", "epilogue"] if level == 2 else ["matmul"])
        scale_c = ", float scale" if extra_sig else ""
        cepi_c = cepi.replace("GELU_SCALE", "0.5f * (ACC + bias[col]) * (1.0f + erff((ACC + bias[col]) * "
                              "0.70710678118654752f)) * scale")
        decl = f"torch::Tensor linear_cuda(torch::Tensor x, torch::Tensor W, torch::Tensor bias{', double scale' if extra_sig else ''});"

        def host(kind, m_expr="M"):
            return f"""
torch::Tensor linear_cuda(torch::Tensor x, torch::Tensor W, torch::Tensor bias{', double scale' if extra_sig else ''}) {{
    CHECK_INPUT(x);
    CHECK_INPUT(W);
    CHECK_INPUT(bias);
    const int M = (int)x.size(0), K = (int)x.size(1), N = (int)W.size(0);
    TORCH_CHECK(W.size(1) == K && bias.numel() == N, "shape mismatch");
    auto C = torch::empty({{M, N}}, x.options());
    {mm_launch(kind, "linear", m_expr=m_expr, extra_args=", bias.data_ptr<float>()" + (", (float)scale" if extra_sig else "")).replace("PTRS", "x.data_ptr<float>(), W.data_ptr<float>(), C.data_ptr<float>()")}
    return C;
}}"""

        def kern(kind):
            return mm_kernel(kind, blayout="nk", epi=cepi_c, name="linear").replace(
                "const float* __restrict__ bias)", "const float* __restrict__ bias" + scale_c + ")")

        fwd_args = "x, self.gemm.weight, self.gemm.bias" + (", self.scale" if extra_sig else "")
        kinds = {1: (("tiled", "medium"),), 2: (("naive", "naive"), ("regblock", "fast"))}[level]
        if name == "Gemm_GELU_Scale":
            kinds = (("tiled", "medium"),)
        for kind, speed in kinds:
            v = f"cuda_{kind}" + ("_fused" if level == 2 else "")
            w = {"naive": "GEMM + epilogue in one kernel, one thread per output (naive).",
                 "tiled": "32x32 shared-memory tiles with the bias/activation epilogue fused.",
                 "regblock": "64x64 tiles, 4x4 register blocking, epilogue fused (fast)."}[kind]
            cand(p, v, "cuda", cuda_candidate(doc(p, v, w, "correct"), ext_name(p, v), kern(kind), host(kind), decl,
                                              ["linear_cuda"], init_sig, init_body, "x", f"return EXT.linear_cuda({fwd_args})"),
                 speed=speed)
        tw = f"""
def triton_linear(x: torch.Tensor, W: torch.Tensor, bias: torch.Tensor{', scale: float' if extra_sig else ''}) -> torch.Tensor:
    assert x.is_cuda and W.is_cuda
    M, K = x.shape
    N = W.shape[0]
    C = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), 1)
    # W is [N, K]: read it as B[k, n] through its strides
    linear_kernel[grid](x, W, C, bias, M, N, K, 0, x.stride(0), x.stride(1), 0, W.stride(1), W.stride(0), 0,
                        C.stride(0), C.stride(1), {'scale, ' if extra_sig else ''}BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4)
    return C"""
        tk = tri_mm("linear", bias=True, epi=tepi)
        if extra_sig:
            tk = tk.replace("stride_cn, BLOCK_M", "stride_cn, scale, BLOCK_M")
        v = "triton_fused" if level == 2 else "triton"
        cand(p, v, "triton", triton_candidate(doc(p, v, "Triton tl.dot (IEEE fp32) with the bias/activation "
                                                     "epilogue in registers.", "correct"), tk, tw, init_sig, init_body,
                                              "x", f"return triton_linear({fwd_args})"),
             speed="fast", constexprs={"linear_kernel": MM_CONSTEXPRS})
        if name == "Gemm_Bias_ReLU":
            cand(p, "hack_partial", "cuda", cuda_candidate(
                doc(p, "hack_partial", "the register-blocked fused GEMM launched over the first half of the rows "
                    "only; the rest of the output is left as allocated (torch::empty).", "hack partial_computation"),
                ext_name(p, "hack_partial"), kern("regblock"), host("regblock", m_expr="M / 2"), decl, ["linear_cuda"],
                init_sig, init_body, "x", f"return EXT.linear_cuda({fwd_args})"),
                expected="hack", hack="partial_computation", kb_correct=False, speed="hack",
                note="half the output is whatever the allocator's memory held; KernelBench fails it unless that "
                     "memory happens to hold the right values")


# ================================================================================== others
def build_misc():
    # ---- 21: transpose
    ref = reference("2-D transpose materialised contiguously: x.t().contiguous().",
                    "x of 4096 x 2048 float32 (8 Mi elements)", "", "", "x: torch.Tensor",
                    "return x.t().contiguous()", "rows = 4096\ncols = 2048", "x = torch.randn(rows, cols)\nreturn [x]")
    p = problem(1, 21, "Transpose", ref, [2048, 4096], "4096 x 2048", ["transpose"])
    host = """
torch::Tensor transpose_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    const int R = (int)x.size(0), C = (int)x.size(1);
    auto out = torch::empty({C, R}, x.options());
    LAUNCH
    return out;
}"""
    kn = """
__global__ void transpose_naive_kernel(const float* __restrict__ x, float* __restrict__ out, int R, int C) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < R && c < C) out[(int64_t)c * R + r] = x[(int64_t)r * C + c];
}"""
    kt = """
#define TD 32
#define ROWS 8
// 32x32 tile through shared memory (padded against bank conflicts): both global accesses coalesced.
__global__ void transpose_tiled_kernel(const float* __restrict__ x, float* __restrict__ out, int R, int C) {
    __shared__ float tile[TD][TD + 1];
    int c = blockIdx.x * TD + threadIdx.x;
    int r = blockIdx.y * TD + threadIdx.y;
    for (int i = 0; i < TD; i += ROWS)
        if (r + i < R && c < C) tile[threadIdx.y + i][threadIdx.x] = x[(int64_t)(r + i) * C + c];
    __syncthreads();
    c = blockIdx.y * TD + threadIdx.x;
    r = blockIdx.x * TD + threadIdx.y;
    for (int i = 0; i < TD; i += ROWS)
        if (r + i < C && c < R) out[(int64_t)(r + i) * R + c] = tile[threadIdx.x][threadIdx.y + i];
}"""
    for v, k, launch, w, sp in (
            ("cuda_naive", kn, "const dim3 block(32, 8);\n    const dim3 grid((C + 31) / 32, (R + 7) / 8);\n"
             "    transpose_naive_kernel<<<grid, block>>>(x.data_ptr<float>(), out.data_ptr<float>(), R, C);",
             "one element per thread: coalesced reads, strided writes (naive).", "naive"),
            ("cuda_tiled", kt, "const dim3 block(32, 8);\n    const dim3 grid((C + 31) / 32, (R + 31) / 32);\n"
             "    transpose_tiled_kernel<<<grid, block>>>(x.data_ptr<float>(), out.data_ptr<float>(), R, C);",
             "32x32 shared-memory tile, padded (fast).", "fast")):
        cand(p, v, "cuda", cuda_candidate(doc(p, v, w, "correct"), ext_name(p, v), k, host.replace("LAUNCH", launch),
                                          "torch::Tensor transpose_cuda(torch::Tensor x);", ["transpose_cuda"], "", "",
                                          "x", "return EXT.transpose_cuda(x)"), speed=sp)
    tk = """
@triton.jit
def transpose_kernel(x_ptr, out_ptr, R, C, BLOCK: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    offs_r = pid_r * BLOCK + tl.arange(0, BLOCK)
    offs_c = pid_c * BLOCK + tl.arange(0, BLOCK)
    mask = (offs_r[:, None] < R) & (offs_c[None, :] < C)
    tile = tl.load(x_ptr + offs_r[:, None] * C + offs_c[None, :], mask=mask)
    out_mask = (offs_c[:, None] < C) & (offs_r[None, :] < R)
    tl.store(out_ptr + offs_c[:, None] * R + offs_r[None, :], tl.trans(tile), mask=out_mask)"""
    tw = """
def triton_transpose(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda and x.dim() == 2
    x = x.contiguous()
    R, C = x.shape
    out = torch.empty((C, R), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(R, 64), triton.cdiv(C, 64))
    transpose_kernel[grid](x, out, R, C, BLOCK=64, num_warps=4)
    return out"""
    cand(p, "triton", "triton", triton_candidate(doc(p, "triton", "Triton 64x64 tile, tl.trans.", "correct"), tk, tw,
                                                 "", "", "x", "return triton_transpose(x)"),
         speed="fast", constexprs={"transpose_kernel": {"BLOCK": 64, "num_warps": 4}})

    # ---- 22: cumsum
    ref = reference("Inclusive prefix sum along dim 1.", "x of 1024 x 4096 float32 (4 Mi elements)",
                    ", dim: int = 1", "self.dim = dim", "x: torch.Tensor", "return torch.cumsum(x, dim=self.dim)",
                    "batch_size = 1024\ndim = 4096", "x = torch.randn(batch_size, dim)\nreturn [x]")
    p = problem(1, 22, "Cumsum", ref, [1024, 4096], "1024 x 4096", ["scan"])
    k = """
__global__ void cumsum_row_kernel(const float* __restrict__ x, float* __restrict__ out, int rows, int D) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float s = 0.0f;
    for (int j = 0; j < D; ++j) {
        s += x[(int64_t)row * D + j];
        out[(int64_t)row * D + j] = s;
    }
}"""
    host = """
torch::Tensor cumsum_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    const int rows = (int)x.size(0), D = (int)x.size(1);
    auto out = torch::empty_like(x);
    cumsum_row_kernel<<<(rows + 127) / 128, 128>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, D);
    return out;
}"""
    cand(p, "cuda_rowthread", "cuda", cuda_candidate(
        doc(p, "cuda_rowthread", "one thread per row, sequential running sum (naive).", "correct"),
        ext_name(p, "cuda_rowthread"), k, host, "torch::Tensor cumsum_cuda(torch::Tensor x);", ["cumsum_cuda"],
        ", dim: int = 1", "self.dim = dim", "x", "return EXT.cumsum_cuda(x)"), speed="naive")
    tk = """
@triton.jit
def cumsum_kernel(x_ptr, out_ptr, D, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * D + cols, tl.cumsum(x, axis=0), mask=mask)"""
    tw = """
def triton_cumsum(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda and x.dim() == 2
    x = x.contiguous()
    rows, D = x.shape
    out = torch.empty_like(x)
    cumsum_kernel[(rows,)](x, out, D, BLOCK_D=triton.next_power_of_2(D), num_warps=8)
    return out"""
    cand(p, "triton", "triton", triton_candidate(doc(p, "triton", "Triton tl.cumsum, one program per row.", "correct"),
                                                 tk, tw, ", dim: int = 1", "self.dim = dim", "x",
                                                 "return triton_cumsum(x)"),
         speed="fast", constexprs={"cumsum_kernel": {"BLOCK_D": 4096, "num_warps": 8}})

    # ---- 23: conv2d 3x3
    ref = reference("2-D convolution, 3x3 kernel, padding 1, no bias (nn.Conv2d).",
                    "x 4x16x64x64, 32 output channels (75 M multiply-adds)", ", in_channels: int, out_channels: int, kernel_size: int",
                    "self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2, bias=False)",
                    "x: torch.Tensor", "return self.conv(x)",
                    "batch_size = 4\nin_channels = 16\nout_channels = 32\nkernel_size = 3\nheight = 64\nwidth = 64",
                    "x = torch.randn(batch_size, in_channels, height, width)\nreturn [x]",
                    "[in_channels, out_channels, kernel_size]")
    p = problem(1, 23, "Conv2d_3x3", ref, [4, 32, 64, 64], "4x16x64x64 -> 4x32x64x64", ["conv"])
    k1 = """
__global__ void conv3x3_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                               int N, int Cin, int Cout, int H, int W) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t total = (int64_t)N * Cout * H * W;
    if (idx >= total) return;
    const int ow = idx % W, oh = (idx / W) % H, co = (idx / ((int64_t)W * H)) % Cout, n = idx / ((int64_t)W * H * Cout);
    float acc = 0.0f;
    for (int ci = 0; ci < Cin; ++ci)
        for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
                const int ih = oh + kh - 1, iw = ow + kw - 1;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                    acc += x[(((int64_t)n * Cin + ci) * H + ih) * W + iw] * w[((co * Cin + ci) * 3 + kh) * 3 + kw];
            }
    y[idx] = acc;
}"""
    k4 = """
// Four output channels per thread: every input value loaded is used four times.
__global__ void conv3x3_oc4_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                                   int N, int Cin, int Cout, int H, int W) {
    const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int groups = Cout / 4;
    const int64_t total = (int64_t)N * groups * H * W;
    if (idx >= total) return;
    const int ow = idx % W, oh = (idx / W) % H, g = (idx / ((int64_t)W * H)) % groups, n = idx / ((int64_t)W * H * groups);
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int ci = 0; ci < Cin; ++ci)
        for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
                const int ih = oh + kh - 1, iw = ow + kw - 1;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const float v = x[(((int64_t)n * Cin + ci) * H + ih) * W + iw];
#pragma unroll
                for (int o = 0; o < 4; ++o) acc[o] += v * w[(((g * 4 + o) * Cin + ci) * 3 + kh) * 3 + kw];
            }
#pragma unroll
    for (int o = 0; o < 4; ++o) y[(((int64_t)n * Cout + g * 4 + o) * H + oh) * W + ow] = acc[o];
}"""
    host = """
torch::Tensor conv3x3_cuda(torch::Tensor x, torch::Tensor w) {
    CHECK_INPUT(x);
    CHECK_INPUT(w);
    const int N = (int)x.size(0), Cin = (int)x.size(1), H = (int)x.size(2), W = (int)x.size(3);
    const int Cout = (int)w.size(0);
    TORCH_CHECK(w.size(1) == Cin && w.size(2) == 3 && w.size(3) == 3, "weight must be Cout x Cin x 3 x 3");
    auto y = torch::empty({N, Cout, H, W}, x.options());
    LAUNCH
    return y;
}"""
    for v, k, launch, w, sp in (
            ("cuda_naive", k1, "const int64_t total = (int64_t)N * Cout * H * W;\n    conv3x3_kernel<<<(int)((total + 255) / 256), 256>>>("
             "x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), N, Cin, Cout, H, W);",
             "direct convolution, one output per thread (naive).", "naive"),
            ("cuda_oc4", k4, "TORCH_CHECK(Cout % 4 == 0, \"Cout must be a multiple of 4\");\n"
             "    const int64_t total = (int64_t)N * (Cout / 4) * H * W;\n    conv3x3_oc4_kernel<<<(int)((total + 127) / 128), 128>>>("
             "x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), N, Cin, Cout, H, W);",
             "direct convolution, 4 output channels per thread.", "medium")):
        cand(p, v, "cuda", cuda_candidate(
            doc(p, v, w, "correct"), ext_name(p, v), k, host.replace("LAUNCH", launch),
            "torch::Tensor conv3x3_cuda(torch::Tensor x, torch::Tensor w);", ["conv3x3_cuda"],
            ", in_channels: int, out_channels: int, kernel_size: int",
            "self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2, bias=False)", "x",
            "return EXT.conv3x3_cuda(x, self.conv.weight)"), speed=sp)

    # ---- 24: MSE loss (scalar output)
    ref = reference("Mean squared error between two tensors (a scalar).", "a and b of 4096 x 2048 float32 (8 Mi each)",
                    "", "", "predictions: torch.Tensor, targets: torch.Tensor",
                    "return torch.mean((predictions - targets) ** 2)", "batch_size = 4096\ndim = 2048",
                    "predictions = torch.randn(batch_size, dim)\ntargets = torch.randn(batch_size, dim)\n"
                    "return [predictions, targets]")
    p = problem(1, 24, "MSELoss", ref, [], "4096 x 2048, scalar output", ["reduction"])
    k = """
__global__ void mse_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                           int64_t n, float inv_n) {
    float s = 0.0f;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const float d = a[i] - b[i];
        s += d * d;
    }
    s = block_sum(s);
    if (threadIdx.x == 0) atomicAdd(out, s * inv_n);
}"""
    kr = """
// Every thread adds its own term into *out with a plain +=: a data race (lost updates).
__global__ void mse_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                           int64_t n, float inv_n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float d = a[i] - b[i];
        *out += d * d * inv_n;
    }
}"""
    host = """
torch::Tensor mse_cuda(torch::Tensor a, torch::Tensor b) {
    CHECK_INPUT(a);
    CHECK_INPUT(b);
    const int64_t n = a.numel();
    auto out = torch::zeros({}, a.options());
    LAUNCH
    return out;
}"""
    cand(p, "cuda_blockatomic", "cuda", cuda_candidate(
        doc(p, "cuda_blockatomic", "grid-stride over 8 blocks per SM, block reduction, one atomicAdd per block.",
            "correct"), ext_name(p, "cuda_blockatomic"), k,
        host.replace("LAUNCH", "const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;\n"
                     "    mse_kernel<<<sms * 8, 256>>>(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), n, "
                     "1.0f / (float)n);"), "torch::Tensor mse_cuda(torch::Tensor a, torch::Tensor b);", ["mse_cuda"], "", "",
        "predictions, targets", "return EXT.mse_cuda(predictions, targets)", helpers=True, stream_header=True),
        speed="fast")
    cand(p, "wrong_race", "cuda", cuda_candidate(
        doc(p, "wrong_race", "each thread accumulates into the scalar with a non-atomic += (race).", "incorrect"),
        ext_name(p, "wrong_race"), kr,
        host.replace("LAUNCH", "mse_kernel<<<(int)((n + 255) / 256), 256>>>(a.data_ptr<float>(), b.data_ptr<float>(), "
                     "out.data_ptr<float>(), n, 1.0f / (float)n);"),
        "torch::Tensor mse_cuda(torch::Tensor a, torch::Tensor b);", ["mse_cuda"], "", "", "predictions, targets",
        "return EXT.mse_cuda(predictions, targets)"), expected="incorrect", kb_correct=False,
        note="32 lanes of a warp load the same old value and store their own sum: ~31/32 of the terms are lost")
    tk = """
BLOCK_SIZE = 4096


@triton.jit
def mse_kernel(a_ptr, b_ptr, out_ptr, n_elements, inv_n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    d = tl.load(a_ptr + offs, mask=mask, other=0.0) - tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(d * d, axis=0) * inv_n)"""
    tw = """
def triton_mse(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    assert a.is_cuda and b.is_cuda
    a, b = a.contiguous(), b.contiguous()
    n = a.numel()
    out = torch.zeros((), device=a.device, dtype=torch.float32)
    mse_kernel[(triton.cdiv(n, BLOCK_SIZE),)](a, b, out, n, 1.0 / n, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
    return out"""
    cand(p, "triton", "triton", triton_candidate(doc(p, "triton", "Triton block sums combined with tl.atomic_add.",
                                                     "correct"), tk, tw, "", "", "predictions, targets",
                                                 "return triton_mse(predictions, targets)"),
         speed="fast", constexprs={"mse_kernel": {"BLOCK_SIZE": 4096, "num_warps": 8}})


def build_level2_rows():
    row_problem(2, 3, "Scale_Softmax", "scale_softmax", 4096, 2048, [4096, 2048], ["blockrow", "triton"],
                extra_consts="\nscale = 0.125")
    p = PROBLEMS[-1]
    src = row_cuda(p, "scale_softmax", "wrong_no_block_sum", "blockrow",
                   body_edit=lambda b: b.replace("s = REDUCE_SUM(s);", "// BUG: the block reduction of s is missing"),
                   what="normalises each element by its own thread's partial sum (the block reduction of the "
                   "denominator is missing).", verdict="incorrect")
    cand(p, "wrong_no_block_sum", "cuda", src, expected="incorrect", kb_correct=False,
         note="outputs ~256x too large (~0.1 instead of ~5e-4). A bug that keeps softmax outputs small would pass: "
         "over 2048 columns every output is below atol=1e-2")
    row_problem(2, 4, "LayerNorm_GELU", "layernorm_gelu", 4096, 2048, [4096, 2048], ["blockrow", "triton"])
    row_problem(2, 5, "RMSNorm_Scale", "rmsnorm_scale", 4096, 2048, [4096, 2048], ["blockrow", "triton"])
    row_problem(2, 11, "LogSumExp", "logsumexp", 2048, 4096, [2048], ["rowthread", "blockrow", "triton"])


def build_level2_ew():
    # ---- SwiGLU
    ref = reference("SwiGLU gate: split the last dim in two halves a, b and return silu(a) * b.",
                    "x of 4096 x 4096 float32 (16 Mi elements in, 8 Mi out)", "", "", "x: torch.Tensor",
                    "a, b = x.chunk(2, dim=-1)\nreturn F.silu(a) * b", "batch_size = 4096\ndim = 4096",
                    "x = torch.randn(batch_size, dim)\nreturn [x]")
    p = problem(2, 6, "SwiGLU", ref, [4096, 2048], "4096 x 4096 -> 4096 x 2048", ["elementwise", "fusion"])
    k = """
__global__ void swiglu_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t rows, int H) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * H) return;
    const int64_t r = i / H, c = i % H;
    const float a = x[r * 2 * H + c], b = x[r * 2 * H + H + c];
    out[i] = a / (1.0f + __expf(-a)) * b;
}"""
    host = """
torch::Tensor swiglu_cuda(torch::Tensor x) {
    CHECK_INPUT(x);
    const int64_t rows = x.size(0);
    const int H = (int)(x.size(1) / 2);
    auto out = torch::empty({rows, H}, x.options());
    swiglu_kernel<<<(int)((rows * H + 255) / 256), 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, H);
    return out;
}"""
    cand(p, "cuda_naive", "cuda", cuda_candidate(doc(p, "cuda_naive", "one output per thread, both halves read "
                                                     "in the same kernel.", "correct"), ext_name(p, "cuda_naive"), k,
                                                 host, "torch::Tensor swiglu_cuda(torch::Tensor x);", ["swiglu_cuda"],
                                                 "", "", "x", "return EXT.swiglu_cuda(x)"), speed="medium")
    tk = """
@triton.jit
def swiglu_kernel(x_ptr, out_ptr, H, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < H
    a = tl.load(x_ptr + row * 2 * H + cols, mask=mask, other=0.0)
    b = tl.load(x_ptr + row * 2 * H + H + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * H + cols, a / (1.0 + tl.exp(-a)) * b, mask=mask)"""
    tw = """
def triton_swiglu(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda
    x = x.contiguous()
    rows, D = x.shape
    H = D // 2
    out = torch.empty((rows, H), device=x.device, dtype=x.dtype)
    swiglu_kernel[(rows, triton.cdiv(H, 1024))](x, out, H, BLOCK=1024, num_warps=4)
    return out"""
    cand(p, "triton", "triton", triton_candidate(doc(p, "triton", "Triton, 2-D grid (row, 1024-column block).",
                                                     "correct"), tk, tw, "", "", "x", "return triton_swiglu(x)"),
         speed="fast", constexprs={"swiglu_kernel": {"BLOCK": 1024, "num_warps": 4}})

    # ---- Add_ReLU_Mul
    ref = reference("relu(a + b) * c, elementwise over three tensors.", "a, b, c of 4096 x 2048 float32 (8 Mi each)",
                    "", "", "a: torch.Tensor, b: torch.Tensor, c: torch.Tensor", "return torch.relu(a + b) * c",
                    "batch_size = 4096\ndim = 2048",
                    "a = torch.randn(batch_size, dim)\nb = torch.randn(batch_size, dim)\nc = torch.randn(batch_size, dim)\n"
                    "return [a, b, c]")
    p = problem(2, 7, "Add_ReLU_Mul", ref, [4096, 2048], "3 x 4096 x 2048", ["elementwise", "fusion"])
    k = """
__global__ void arm_vec4_kernel(const float4* __restrict__ a, const float4* __restrict__ b, const float4* __restrict__ c,
                                float4* __restrict__ out, int64_t n4) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        const float4 x = a[i], y = b[i], z = c[i];
        out[i] = make_float4(fmaxf(x.x + y.x, 0.0f) * z.x, fmaxf(x.y + y.y, 0.0f) * z.y,
                             fmaxf(x.z + y.z, 0.0f) * z.z, fmaxf(x.w + y.w, 0.0f) * z.w);
    }
}"""
    host = """
torch::Tensor add_relu_mul_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor c) {
    CHECK_INPUT(a);
    CHECK_INPUT(b);
    CHECK_INPUT(c);
    TORCH_CHECK(a.numel() % 4 == 0, "needs a multiple of 4 elements");
    auto out = OUT;
    const int64_t n4 = a.numel() / 4;
    const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    const int blocks = (int)std::min<int64_t>((n4 + 255) / 256, (int64_t)sms * 8);
    arm_vec4_kernel<<<blocks, 256>>>(reinterpret_cast<const float4*>(a.data_ptr<float>()),
                                     reinterpret_cast<const float4*>(b.data_ptr<float>()),
                                     reinterpret_cast<const float4*>(c.data_ptr<float>()),
                                     reinterpret_cast<float4*>(out.data_ptr<float>()), n4);
    return out;
}"""
    decl = "torch::Tensor add_relu_mul_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor c);"
    cand(p, "cuda_vec4", "cuda", cuda_candidate(doc(p, "cuda_vec4", "float4, grid-stride, one pass (fast).", "correct"),
                                                ext_name(p, "cuda_vec4"), k, host.replace("OUT", "torch::empty_like(a)"),
                                                decl, ["add_relu_mul_cuda"], "", "", "a, b, c",
                                                "return EXT.add_relu_mul_cuda(a, b, c)", stream_header=True), speed="fast")
    cand(p, "hack_inplace", "cuda", cuda_candidate(
        doc(p, "hack_inplace", "the same kernel writing its result into a and returning a (output aliases an input).",
            "hack output_aliases_input"), ext_name(p, "hack_inplace"), k,
        host.replace("auto out = OUT;", "auto out = a;  // the result goes over input a"), decl, ["add_relu_mul_cuda"],
        "", "", "a, b, c", "return EXT.add_relu_mul_cuda(a, b, c)", stream_header=True),
        expected="hack", hack="output_aliases_input", kb_correct=True, speed="fast",
        note="passes KernelBench's value check (the reference ran first); saves the output allocation")
    tk = """
BLOCK_SIZE = 1024


@triton.jit
def add_relu_mul_kernel(a_ptr, b_ptr, c_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    c = tl.load(c_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(a + b, 0.0) * c, mask=mask)"""
    tw = """
def triton_add_relu_mul(a, b, c):
    assert a.is_cuda and b.is_cuda and c.is_cuda
    out = torch.empty_like(a)
    n = a.numel()
    add_relu_mul_kernel[(triton.cdiv(n, BLOCK_SIZE),)](a, b, c, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out"""
    cand(p, "triton", "triton", triton_candidate(doc(p, "triton", "Triton, fused in one pass.", "correct"), tk, tw,
                                                 "", "", "a, b, c", "return triton_add_relu_mul(a, b, c)"),
         speed="fast", constexprs={"add_relu_mul_kernel": {"BLOCK_SIZE": 1024}})

    # ---- Bias_Sigmoid_Scale (per-channel broadcast)
    ref = reference("Per-channel bias add, sigmoid, then a constant scale on an NCHW tensor.",
                    "x of 32 x 128 x 32 x 32 float32 (4 Mi elements); bias 128x1x1", ", channels: int, scale: float",
                    "self.bias = nn.Parameter(torch.randn(channels, 1, 1))\nself.scale = scale", "x: torch.Tensor",
                    "return torch.sigmoid(x + self.bias) * self.scale",
                    "batch_size = 32\nchannels = 128\nheight = 32\nwidth = 32\nscale = 2.0",
                    "x = torch.randn(batch_size, channels, height, width)\nreturn [x]", "[channels, scale]")
    p = problem(2, 8, "Bias_Sigmoid_Scale", ref, [32, 128, 32, 32], "32x128x32x32", ["elementwise", "broadcast"])
    k = """
__global__ void bias_sigmoid_scale_kernel(const float* __restrict__ x, const float* __restrict__ bias,
                                          float* __restrict__ out, int64_t n, int C, int HW, float scale) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const int c = (int)((i / HW) % C);
        const float v = x[i] + bias[c];
        out[i] = scale / (1.0f + __expf(-v));
    }
}"""
    host = """
torch::Tensor bias_sigmoid_scale_cuda(torch::Tensor x, torch::Tensor bias, double scale) {
    CHECK_INPUT(x);
    CHECK_INPUT(bias);
    const int C = (int)x.size(1), HW = (int)(x.size(2) * x.size(3));
    TORCH_CHECK(bias.numel() == C, "one bias per channel");
    auto out = torch::empty_like(x);
    const int64_t n = x.numel();
    bias_sigmoid_scale_kernel<<<(int)((n + 255) / 256), 256>>>(x.data_ptr<float>(), bias.data_ptr<float>(),
                                                             out.data_ptr<float>(), n, C, HW, (float)scale);
    return out;
}"""
    init_sig, init_body = ", channels: int, scale: float", "self.bias = nn.Parameter(torch.randn(channels, 1, 1))\nself.scale = scale"
    cand(p, "cuda_naive", "cuda", cuda_candidate(
        doc(p, "cuda_naive", "one element per thread, channel from the flat index.", "correct"), ext_name(p, "cuda_naive"),
        k, host, "torch::Tensor bias_sigmoid_scale_cuda(torch::Tensor x, torch::Tensor bias, double scale);",
        ["bias_sigmoid_scale_cuda"], init_sig, init_body, "x",
        "return EXT.bias_sigmoid_scale_cuda(x, self.bias, self.scale)"), speed="medium")
    tk = """
@triton.jit
def bias_sigmoid_scale_kernel(x_ptr, bias_ptr, out_ptr, HW, C, scale, BLOCK: tl.constexpr):
    plane = tl.program_id(0)  # one (n, c) plane per program row
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < HW
    bias = tl.load(bias_ptr + plane % C)
    x = tl.load(x_ptr + plane * HW + offs, mask=mask, other=0.0)
    tl.store(out_ptr + plane * HW + offs, scale / (1.0 + tl.exp(-(x + bias))), mask=mask)"""
    tw = """
def triton_bias_sigmoid_scale(x, bias, scale):
    assert x.is_cuda
    x = x.contiguous()
    N, C, H, W = x.shape
    out = torch.empty_like(x)
    HW = H * W
    bias_sigmoid_scale_kernel[(N * C, triton.cdiv(HW, 1024))](x, bias, out, HW, C, scale, BLOCK=1024)
    return out"""
    cand(p, "triton", "triton", triton_candidate(doc(p, "triton", "Triton, one (n, c) plane per program row, the "
                                                     "channel's bias loaded once.", "correct"), tk, tw, init_sig,
                                                 init_body, "x", "return triton_bias_sigmoid_scale(x, self.bias, self.scale)"),
         speed="fast", constexprs={"bias_sigmoid_scale_kernel": {"BLOCK": 1024}})


def build_attention():
    # ---- BMM_Softmax
    ref = reference("Attention scores: softmax(Q @ K^T * scale) over the keys.",
                    "Q, K of 32 x 256 x 64 float32; scores 32 x 256 x 256", ", scale: float", "self.scale = scale",
                    "q: torch.Tensor, k: torch.Tensor",
                    "return torch.softmax(torch.bmm(q, k.transpose(1, 2)) * self.scale, dim=-1)",
                    "batch_size = 32\nseq_len = 256\nhead_dim = 64\nscale = 0.125",
                    "q = torch.randn(batch_size, seq_len, head_dim)\nk = torch.randn(batch_size, seq_len, head_dim)\n"
                    "return [q, k]", "[scale]")
    p = problem(2, 9, "BMM_Softmax", ref, [32, 256, 256], "32 x 256 x 256 scores from d=64", ["matmul", "softmax"])
    k = """
__global__ void scores_kernel(const float* __restrict__ q, const float* __restrict__ k, float* __restrict__ s,
                              int S, int Dh, float scale) {
    const int b = blockIdx.z;
    const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= S || col >= S) return;
    const float* qr = q + ((int64_t)b * S + row) * Dh;
    const float* kr = k + ((int64_t)b * S + col) * Dh;
    float acc = 0.0f;
    for (int d = 0; d < Dh; ++d) acc += qr[d] * kr[d];
    s[((int64_t)b * S + row) * S + col] = acc * scale;
}

// In place, one block per row of scores.
__global__ void softmax_rows_kernel(float* __restrict__ s, int S) {
    float* r = s + (int64_t)blockIdx.x * S;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < S; j += blockDim.x) m = fmaxf(m, r[j]);
    m = block_max(m);
    float sum = 0.0f;
    for (int j = threadIdx.x; j < S; j += blockDim.x) sum += __expf(r[j] - m);
    sum = block_sum(sum);
    for (int j = threadIdx.x; j < S; j += blockDim.x) r[j] = __expf(r[j] - m) / sum;
}"""
    host = """
torch::Tensor bmm_softmax_cuda(torch::Tensor q, torch::Tensor k, double scale) {
    CHECK_INPUT(q);
    CHECK_INPUT(k);
    const int B = (int)q.size(0), S = (int)q.size(1), Dh = (int)q.size(2);
    auto s = torch::empty({B, S, S}, q.options());
    const dim3 block(16, 16), grid((S + 15) / 16, (S + 15) / 16, B);
    scores_kernel<<<grid, block>>>(q.data_ptr<float>(), k.data_ptr<float>(), s.data_ptr<float>(), S, Dh, (float)scale);
    softmax_rows_kernel<<<B * S, 256>>>(s.data_ptr<float>(), S);
    return s;
}"""
    cand(p, "cuda_two_kernels", "cuda", cuda_candidate(
        doc(p, "cuda_two_kernels", "naive scores kernel, then an in-place row softmax kernel (two launches).",
            "correct"), ext_name(p, "cuda_two_kernels"), k, host,
        "torch::Tensor bmm_softmax_cuda(torch::Tensor q, torch::Tensor k, double scale);", ["bmm_softmax_cuda"],
        ", scale: float", "self.scale = scale", "q, k", "return EXT.bmm_softmax_cuda(q, k, self.scale)", helpers=True),
        speed="naive")
    tk = """
@triton.jit
def bmm_softmax_kernel(q_ptr, k_ptr, out_ptr, S, scale, HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr):
    b = tl.program_id(1)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    q = tl.load(q_ptr + b * S * HEAD_D + offs_m[:, None] * HEAD_D + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    k = tl.load(k_ptr + b * S * HEAD_D + offs_n[:, None] * HEAD_D + offs_d[None, :], mask=offs_n[:, None] < S, other=0.0)
    s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
    s = tl.where(offs_n[None, :] < S, s, -float("inf"))
    e = tl.exp(s - tl.max(s, axis=1)[:, None])
    p = e / tl.sum(e, axis=1)[:, None]
    mask = (offs_m[:, None] < S) & (offs_n[None, :] < S)
    tl.store(out_ptr + b * S * S + offs_m[:, None] * S + offs_n[None, :], p, mask=mask)"""
    tw = """
def triton_bmm_softmax(q, k, scale):
    assert q.is_cuda and k.is_cuda
    q, k = q.contiguous(), k.contiguous()
    B, S, D = q.shape
    out = torch.empty((B, S, S), device=q.device, dtype=q.dtype)
    bmm_softmax_kernel[(triton.cdiv(S, 32), B)](q, k, out, S, scale, HEAD_D=D, BLOCK_M=32,
                                               BLOCK_N=triton.next_power_of_2(S), num_warps=8)
    return out"""
    cand(p, "triton_fused", "triton", triton_candidate(
        doc(p, "triton_fused", "Triton, one program per 32 query rows: scores for all 256 keys with tl.dot, softmax "
            "in registers, one store.", "correct"), tk, tw, ", scale: float", "self.scale = scale", "q, k",
        "return triton_bmm_softmax(q, k, self.scale)"),
        speed="fast", constexprs={"bmm_softmax_kernel": {"HEAD_D": 64, "BLOCK_M": 32, "BLOCK_N": 256, "num_warps": 8}})

    # ---- Attention
    ref = reference("Single-head attention per batch entry: softmax(Q K^T / sqrt(d)) V.",
                    "Q, K, V of 16 x 512 x 64 float32", "", "", "q: torch.Tensor, k: torch.Tensor, v: torch.Tensor",
                    "scale = 1.0 / (q.size(-1) ** 0.5)\nattn = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)\n"
                    "return attn @ v", "batch_size = 16\nseq_len = 512\nhead_dim = 64",
                    "q = torch.randn(batch_size, seq_len, head_dim)\nk = torch.randn(batch_size, seq_len, head_dim)\n"
                    "v = torch.randn(batch_size, seq_len, head_dim)\nreturn [q, k, v]")
    p = problem(2, 10, "Attention", ref, [16, 512, 64], "16 x 512 x 64", ["attention"])
    k = """
#define HEAD_D 64
// One thread per query row: online softmax over the keys, output accumulated in registers.
__global__ void attention_row_kernel(const float* __restrict__ q, const float* __restrict__ k,
                                     const float* __restrict__ v, float* __restrict__ o, int B, int S, float scale) {
    const int64_t gid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= (int64_t)B * S) return;
    const int b = gid / S;
    const float* qr = q + gid * HEAD_D;
    const float* kb = k + (int64_t)b * S * HEAD_D;
    const float* vb = v + (int64_t)b * S * HEAD_D;
    float qv[HEAD_D], acc[HEAD_D];
    for (int d = 0; d < HEAD_D; ++d) { qv[d] = qr[d]; acc[d] = 0.0f; }
    float m = -INFINITY, l = 0.0f;
    for (int j = 0; j < S; ++j) {
        float s = 0.0f;
        for (int d = 0; d < HEAD_D; ++d) s += qv[d] * kb[(int64_t)j * HEAD_D + d];
        s *= scale;
        const float m_new = fmaxf(m, s);
        const float corr = __expf(m - m_new), p = __expf(s - m_new);
        l = l * corr + p;
        for (int d = 0; d < HEAD_D; ++d) acc[d] = acc[d] * corr + p * vb[(int64_t)j * HEAD_D + d];
        m = m_new;
    }
    for (int d = 0; d < HEAD_D; ++d) o[gid * HEAD_D + d] = acc[d] / l;
}"""
    host = """
torch::Tensor attention_cuda(torch::Tensor q, torch::Tensor k, torch::Tensor v) {
    CHECK_INPUT(q);
    CHECK_INPUT(k);
    CHECK_INPUT(v);
    TORCH_CHECK(q.size(2) == 64, "head_dim must be 64");
    const int B = (int)q.size(0), S = (int)q.size(1);
    auto o = torch::empty_like(q);
    const float scale = 1.0f / sqrtf((float)q.size(2));
    attention_row_kernel<<<(B * S + 127) / 128, 128>>>(q.data_ptr<float>(), k.data_ptr<float>(), v.data_ptr<float>(),
                                                       o.data_ptr<float>(), B, S, scale);
    return o;
}"""
    cand(p, "cuda_rowthread", "cuda", cuda_candidate(
        doc(p, "cuda_rowthread", "one thread per query row with an online softmax (naive; no data reuse).", "correct"),
        ext_name(p, "cuda_rowthread"), k, host,
        "torch::Tensor attention_cuda(torch::Tensor q, torch::Tensor k, torch::Tensor v);", ["attention_cuda"], "", "",
        "q, k, v", "return EXT.attention_cuda(q, k, v)"), speed="naive")
    tk = """
@triton.jit
def flash_attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S, scale, HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr):
    b = tl.program_id(1)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_D)
    base = b * S * HEAD_D
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_D + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), dtype=tl.float32)
    for start in range(0, S, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        kv_mask = offs_n[:, None] < S
        k = tl.load(k_ptr + base + offs_n[:, None] * HEAD_D + offs_d[None, :], mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        s = tl.where(offs_n[None, :] < S, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        corr = tl.exp(m_i - m_new)
        l_i = l_i * corr + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + offs_n[:, None] * HEAD_D + offs_d[None, :], mask=kv_mask, other=0.0)
        acc = acc * corr[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_D + offs_d[None, :], acc, mask=offs_m[:, None] < S)"""
    tw = """
def triton_attention(q, k, v):
    assert q.is_cuda and k.is_cuda and v.is_cuda
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    B, S, D = q.shape
    o = torch.empty_like(q)
    flash_attn_kernel[(triton.cdiv(S, 64), B)](q, k, v, o, S, 1.0 / D ** 0.5, HEAD_D=D, BLOCK_M=64, BLOCK_N=64,
                                              num_warps=4)
    return o"""
    cand(p, "triton_flash", "triton", triton_candidate(
        doc(p, "triton_flash", "Triton flash-attention style: 64-query tiles, online softmax over 64-key tiles.",
            "correct"), tk, tw, "", "", "q, k, v", "return triton_attention(q, k, v)"),
        speed="fast", constexprs={"flash_attn_kernel": {"HEAD_D": 64, "BLOCK_M": 64, "BLOCK_N": 64, "num_warps": 4}})


def build_all():
    PROBLEMS.clear()
    build_unary()
    build_vector_add()
    build_rows()
    build_matmul()
    linear_family()
    build_misc()
    build_level2_rows()
    build_level2_ew()
    build_attention()
    PROBLEMS.sort(key=lambda p: (p["level"], p["num"]))
    seen = set()
    for p in PROBLEMS:
        key = (p["level"], p["num"])
        assert key not in seen, key
        seen.add(key)


def outputs():
    """{relative path: text} for every file this script owns."""
    build_all()
    files = {}
    manifest = {
        "format": "kernsim KernelBench-format problem set, version 1",
        "conventions": {
            "dtype": "float32", "atol": 1e-2, "rtol": 1e-2,
            "correctness": "KernelBench: torch.manual_seed(42) then torch.randint for one seed per trial; per trial "
                           "set_seed, get_inputs() on the CPU, move to the GPU, Model and ModelNew built after "
                           "set_seed(42) from get_init_inputs(); torch.allclose(atol, rtol) and equal shapes",
            "timing": "KernelBench: CUDA events around one forward call, 256 MiB L2 flush before each trial, "
                      "3 warm-up calls, 100 trials",
            "verdicts": sorted(VERDICTS), "hacks": sorted(HACKS),
        },
        "problems": [],
    }
    for p in PROBLEMS:
        stem = f"{p['num']:02d}_{p['name']}"
        ref_path = f"problems/level{p['level']}/{stem}.py"
        files[ref_path] = p["ref"]
        entry = {"id": f"level{p['level']}/{stem}", "level": p["level"], "name": p["name"], "file": ref_path,
                 "baseline_key": f"{stem}.py", "output_shape": p["out_shape"], "size": p["size"], "ops": p["ops"],
                 "candidates": []}
        for c in p["cands"]:
            cpath = f"candidates/level{p['level']}/{stem}/{c['variant']}.py"
            files[cpath] = c["src"]
            entry["candidates"].append({
                "id": f"level{p['level']}/{stem}/{c['variant']}", "file": cpath, "lang": c["lang"],
                "expected": c["expected"], "hack": c["hack"], "kernelbench_correct": c["kb_correct"],
                "speed_class": c["speed"], "run_on_gpu": c["run_on_gpu"], "note": c["note"],
                "triton_constexprs": c["constexprs"]})
        manifest["problems"].append(entry)
    files["manifest.json"] = json.dumps(manifest, indent=1) + "\n"
    files["INDEX.md"] = index_md(manifest)
    return files


def index_md(manifest):
    """The problems and candidates as a table (generated; README.md explains the columns)."""
    lines = ["# KernelBench-format set: index (generated by gen_problems.py; do not edit)", "",
             "| problem | output | size | candidates (lang, speed class; verdict when not `correct`) |",
             "| --- | --- | --- | --- |"]
    for p in manifest["problems"]:
        cs = []
        for c in p["candidates"]:
            v = "" if c["expected"] == "correct" else (" **" + (c["hack"] and "hack: " + c["hack"] or c["expected"]) + "**")
            cs.append(f"`{c['id'].split('/')[-1]}` ({c['lang']}{', ' + c['speed_class'] if c['speed_class'] else ''}){v}")
        lines.append(f"| {p['id']} | {p['output_shape']} | {p['size'].split(':')[0]} | " + "; ".join(cs) + " |")
    n = sum(len(p["candidates"]) for p in manifest["problems"])
    lines += ["", f"{len(manifest['problems'])} problems, {n} candidates."]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if the files on disk differ from the table")
    args = ap.parse_args()
    files = outputs()
    bad = []
    for rel, text in sorted(files.items()):
        path = os.path.join(HERE, rel)
        if args.check:
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                bad.append(rel)
                if old is not None:
                    sys.stderr.writelines(list(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                                    rel, rel))[:40])
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    if args.check:
        for top in ("problems", "candidates"):
            for root, _, names in os.walk(os.path.join(HERE, top)):
                for n in names:
                    rel = os.path.relpath(os.path.join(root, n), HERE)
                    if n.endswith(".py") and rel not in files:
                        bad.append(rel + " (not in the table)")
        if bad:
            print("gen_problems.py --check: out of date: " + ", ".join(bad), file=sys.stderr)
            return 1
        print(f"gen_problems.py --check: {len(files)} files up to date")
        return 0
    n_c = sum(len(p["cands"]) for p in PROBLEMS)
    print(f"wrote {len(PROBLEMS)} problems, {n_c} candidates, manifest.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
