// Runs one step of the bf16 GEMM ladder (gemm_ladder.cu) on the GPU: reads A [M, K] and B [N, K]
// (raw bf16 files, as measure_hopper.py writes them from kernsim's initialisers), builds the tensor
// maps with cuTensorMapEncodeTiled, runs the step once on a NaN-poisoned C and writes C, then times
// it: `warmup` launches, then `reps` launches each after an L2 flush, CUDA events around the single
// launch. Prints one JSON line. FLUSH is `write:MIB` (cudaMemsetAsync of MIB MiB, as measured on
// 2026-12-02) or `read:MIB` (a kernel reads MIB MiB: the L2 is left clean, as measure_h200.py does);
// a bare number means write.
//   nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -o ladder_host ladder_host.cu -lcuda
//   ladder_host VARIANT A.bin B.bin M N K C_OUT.bin REPS WARMUP FLUSH [CUBIN]
// With CUBIN (ptxas of the PTX clang wrote for kernsim, ptx_clang/gemm_ladder.ptx) the step's kernel
// is taken from that module instead and launched with cuLaunchKernelEx (the 2x1 cluster as a launch
// attribute: clang's PTX carries no .reqnctapercluster), so the code kernsim simulates is timed too.
// One process per step, so that a step that faults or hangs (killed by the caller) costs only itself.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gemm_ladder.cu"

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                            \
    }                                                                                          \
  } while (0)

// Reads n 16-byte words (the L2 then holds clean lines only); the sum is never true, so nothing is written.
__global__ void flush_read_kernel(const int4* p, size_t n, int* sink) {
  int acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const int4 v = p[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7F3A5C1E) sink[0] = acc;
}

static std::vector<unsigned short> read_file(const char* path, size_t count) {
  std::vector<unsigned short> v(count);
  FILE* f = std::fopen(path, "rb");
  if (!f || std::fread(v.data(), 2, count, f) != count) {
    std::fprintf(stderr, "cannot read %zu bf16 from %s\n", count, path);
    std::exit(2);
  }
  std::fclose(f);
  return v;
}

// A 2-D bf16 tensor map over a row-major [rows, cols] matrix, box [box_rows, 64], 128B swizzle.
static TensorMap make_map(const void* base, int rows, int cols, int box_rows) {
  CUtensorMap m;
  cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
  cuuint32_t box[2] = {64, (cuuint32_t)box_rows};
  cuuint32_t estr[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides,
                                      box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", (int)r);
    std::exit(2);
  }
  TensorMap t;
  static_assert(sizeof(t) == sizeof(m), "a tensor map is 128 bytes");
  std::memcpy(&t, &m, sizeof(m));
  return t;
}

struct Step {
  const void* fn;
  int threads, tile_m, tile_n, smem, b_box_rows;
};

static Step step_of(int v) {
  switch (v) {
    case 1: return {(const void*)ladder_mma_sync, 256, 128, 128, 2 * (128 * 40 + 128 * 40) * 2, 0};
    case 2: return {(const void*)ladder_wgmma_sync, 256, 128, 128, 32768 + 2048, 0};
    case 3: return {(const void*)ladder_wgmma_tma, 256, 128, 128, 4 * 32768 + 2048, 128};
    case 4: return {(const void*)ladder_wgmma_ws, 384, 128, 256, 4 * 49152 + 2048, 256};
    case 5: return {(const void*)ladder_wgmma_ws_mc, 384, 128, 256, 4 * 49152 + 2048, 128};
  }
  std::fprintf(stderr, "no ladder step %d\n", v);
  std::exit(2);
}

static const char* kernel_name(int v) {
  static const char* names[] = {"", "ladder_mma_sync", "ladder_wgmma_sync", "ladder_wgmma_tma", "ladder_wgmma_ws",
                                "ladder_wgmma_ws_mc"};
  return names[v];
}

// The kernel `name` of a cubin file, its dynamic shared-memory limit raised to `smem`.
static CUfunction load_kernel(const char* cubin, const char* name, int smem) {
  CUmodule mod;
  CUfunction f;
  if (cuModuleLoad(&mod, cubin) != CUDA_SUCCESS || cuModuleGetFunction(&f, mod, name) != CUDA_SUCCESS ||
      cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cannot load %s from %s\n", name, cubin);
    std::exit(2);
  }
  return f;
}

int main(int argc, char** argv) {
  if (argc != 11 && argc != 12) {
    std::fprintf(stderr, "usage: %s VARIANT A.bin B.bin M N K C_OUT.bin REPS WARMUP FLUSH [CUBIN]\n", argv[0]);
    return 2;
  }
  const int v = std::atoi(argv[1]), M = std::atoi(argv[4]), N = std::atoi(argv[5]), K = std::atoi(argv[6]);
  const int reps = std::atoi(argv[8]), warmup = std::atoi(argv[9]);
  const bool flush_read = std::strncmp(argv[10], "read:", 5) == 0;
  const char* mib = std::strchr(argv[10], ':') ? std::strchr(argv[10], ':') + 1 : argv[10];
  const size_t flush_bytes = (size_t)std::atoi(mib) << 20;
  const Step st = step_of(v);
  std::vector<unsigned short> ha = read_file(argv[2], (size_t)M * K), hb = read_file(argv[3], (size_t)N * K);
  bf16_t *A, *B, *C;
  void* flush;
  CK(cudaMalloc(&A, ha.size() * 2));
  CK(cudaMalloc(&B, hb.size() * 2));
  CK(cudaMalloc(&C, (size_t)M * N * 2));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMemcpy(A, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  TensorMap ma{}, mb{};
  if (st.b_box_rows) {
    ma = make_map(A, M, K, 128);
    mb = make_map(B, N, K, st.b_box_rows);
  }
  CK(cudaFuncSetAttribute(st.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, st.smem));
  const dim3 grid((M / st.tile_m) * (N / st.tile_n)), block(st.threads);
  CUfunction cf = nullptr;
  if (argc == 12) cf = load_kernel(argv[11], kernel_name(v), st.smem);
  void* kargs_maps[] = {&A, (void*)&B, &C, &ma, &mb, (void*)&M, (void*)&N, (void*)&K};
  void* kargs_plain[] = {&A, (void*)&B, &C, (void*)&M, (void*)&N, (void*)&K};
  auto launch = [&]() {
    if (cf) {
      CUlaunchAttribute attr;
      attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attr.value.clusterDim.x = v == 5 ? 2 : 1;
      attr.value.clusterDim.y = 1;
      attr.value.clusterDim.z = 1;
      CUlaunchConfig cfg = {grid.x, 1, 1, block.x, 1, 1, (unsigned)st.smem, 0, &attr, 1};
      CUresult r = cuLaunchKernelEx(&cfg, cf, st.b_box_rows ? kargs_maps : kargs_plain, nullptr);
      if (r != CUDA_SUCCESS) {
        std::fprintf(stderr, "cuLaunchKernelEx failed: %d\n", (int)r);
        std::exit(2);
      }
      return;
    }
    switch (v) {
      case 1: ladder_mma_sync<<<grid, block, st.smem>>>(A, B, C, M, N, K); break;
      case 2: ladder_wgmma_sync<<<grid, block, st.smem>>>(A, B, C, M, N, K); break;
      case 3: ladder_wgmma_tma<<<grid, block, st.smem>>>(A, B, C, ma, mb, M, N, K); break;
      case 4: ladder_wgmma_ws<<<grid, block, st.smem>>>(A, B, C, ma, mb, M, N, K); break;
      case 5: ladder_wgmma_ws_mc<<<grid, block, st.smem>>>(A, B, C, ma, mb, M, N, K); break;
    }
    CK(cudaGetLastError());
  };
  CK(cudaMemset(C, 0xFF, (size_t)M * N * 2));  // NaN: an unwritten element fails the check
  launch();
  CK(cudaDeviceSynchronize());
  {
    std::vector<unsigned short> hc((size_t)M * N);
    CK(cudaMemcpy(hc.data(), C, hc.size() * 2, cudaMemcpyDeviceToHost));
    FILE* f = std::fopen(argv[7], "wb");
    if (!f || std::fwrite(hc.data(), 2, hc.size(), f) != hc.size()) {
      std::fprintf(stderr, "cannot write %s\n", argv[7]);
      return 2;
    }
    std::fclose(f);
  }
  for (int i = 0; i < warmup; ++i) launch();
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::printf("{\"variant\": %d, \"code\": \"%s\", \"grid\": %u, \"block\": %u, \"dynamic_shared_bytes\": %d, "
              "\"samples_ms\": [",
              v, cf ? "clang PTX (ptxas)" : "nvcc", grid.x, block.x, st.smem);
  for (int r = 0; r < reps; ++r) {
    if (flush_read) {
      flush_read_kernel<<<1056, 256>>>(static_cast<const int4*>(flush), flush_bytes / 16, static_cast<int*>(flush));
      CK(cudaGetLastError());
    } else {
      CK(cudaMemsetAsync(flush, r & 0xFF, flush_bytes));
    }
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    std::printf("%s%.6f", r ? ", " : "", ms);
  }
  std::printf("]}\n");
  return 0;
}
