// The CUDA runtime API subset a PyTorch extension built by kernsim calls, compiled into every
// extension and linked with -Bsymbolic so that these definitions, not the real libcudart that
// PyTorch's CUDA build loads globally, answer the extension's calls. Every function forwards to
// the process-wide state in libkernsim_rt.so (kernsim_rt.cpp). A function missing here is found
// by the link check in cpp_extension.py, which names it (the candidate fails to build with
// "unsupported CUDA runtime function"), so no call ever reaches the real runtime.
//
// Memory is host memory: cudaMalloc returns registered host allocations, copies of every kind
// are memcpy. Kernel launches (<<<>>> through __cudaPushCallConfiguration and the device stub,
// or cudaLaunchKernel) go to the simulator through ks_launch. Events read the simulated clock.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>

extern "C" {
int ks_install_allocator();
void* ks_malloc(std::size_t n);
int ks_free(void* p);
int ks_find(std::uintptr_t p, std::uintptr_t* base, std::size_t* size);
void ks_register_function(const void* host_fn, const char* module, const char* name);
void ks_set_error(int code, const char* msg);
int ks_get_last_error(int clear);
const char* ks_error_message();
void ks_push_config(const unsigned* dims6, std::size_t shmem, void* stream);
int ks_pop_config(unsigned* dims6, std::size_t* shmem, void** stream);
int ks_launch(const void* host_fn, const unsigned* dims6, std::size_t shmem, void* stream, void** args);
void* ks_stream_create();
int ks_stream_destroy(void* s);
int ks_stream_known(void* s);
void* ks_event_create();
int ks_event_destroy(void* e);
int ks_event_record(void* e, void* stream);
float ks_event_elapsed_ms(void* a, void* b);
int ks_stream_wait_event(void* stream, void* e);
void ks_event_synchronize(void* e);
void ks_stream_synchronize(void* stream);
void ks_device_synchronize();
long long ks_get_prop(const char* key);
const char* ks_device_name();
}

namespace {

cudaError_t fail(cudaError_t e, const char* msg) {
  ks_set_error(static_cast<int>(e), msg);
  return e;
}

long long prop(const char* k, long long fallback = 0) {
  const long long v = ks_get_prop(k);
  return v < 0 ? fallback : v;
}

struct ModuleHandle {
  char id[256];
};

}  // namespace

extern "C" {

// ---- registration, emitted by clang for every translation unit with kernels ------------------
// clang's fat-binary wrapper: {magic, version, data, unused}; kernsim gives clang a "GPU binary"
// that is the module's id as text (cpp_extension.py), so each kernel maps to its kernsim module.
void** __cudaRegisterFatBinary(void* fat) {
  struct Wrapper {
    int magic, version;
    const char* data;
    void* unused;
  };
  auto* w = static_cast<Wrapper*>(fat);
  auto* h = new ModuleHandle;
  std::memset(h->id, 0, sizeof h->id);
  if (w && w->data) std::strncpy(h->id, w->data, sizeof h->id - 1);
  return reinterpret_cast<void**>(h);
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void** handle, const char* host_fn, char* device_fn, const char*, int, uint3*, uint3*,
                            dim3*, dim3*, int*) {
  ks_register_function(host_fn, reinterpret_cast<ModuleHandle*>(handle)->id, device_fn);
}
void __cudaRegisterVar(void**, char*, char*, const char*, int, std::size_t, int, int) {
  // __device__ / __constant__ variables live in the kernel's module (kernsim maps them per
  // launch); host access to them (cudaMemcpyToSymbol) is not provided, so it does not link.
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shmem, cudaStream_t stream) {
  const unsigned d[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  ks_push_config(d, shmem, stream);
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, std::size_t* shmem, void* stream) {
  unsigned d[6];
  void* s = nullptr;
  if (ks_pop_config(d, shmem, &s))
    return fail(cudaErrorMissingConfiguration, "kernsim: no launch configuration to pop");
  *grid = dim3(d[0], d[1], d[2]);
  *block = dim3(d[3], d[4], d[5]);
  *static_cast<cudaStream_t*>(stream) = static_cast<cudaStream_t>(s);
  return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, std::size_t shmem,
                             cudaStream_t stream) {
  const unsigned d[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  if (!ks_stream_known(stream)) return fail(cudaErrorInvalidResourceHandle, "kernsim: launch on an unknown stream");
  return static_cast<cudaError_t>(ks_launch(func, d, shmem, stream, args));
}

// ---- errors ---------------------------------------------------------------------------------
cudaError_t cudaGetLastError() {
  return static_cast<cudaError_t>(ks_get_last_error(1));
}
cudaError_t cudaPeekAtLastError() {
  return static_cast<cudaError_t>(ks_get_last_error(0));
}
const char* cudaGetErrorString(cudaError_t e) {
  if (e == cudaSuccess) return "no error";
  const char* m = ks_error_message();
  return m && *m ? m : "kernsim: CUDA runtime error";
}
const char* cudaGetErrorName(cudaError_t e) {
  return e == cudaSuccess ? "cudaSuccess" : "cudaErrorKernsim";
}

// ---- device ---------------------------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice, "kernsim: one device (0)");
}
cudaError_t cudaDeviceSynchronize() {
  ks_device_synchronize();
  return static_cast<cudaError_t>(ks_get_last_error(0));
}
cudaError_t cudaDriverGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  if (d != 0) return fail(cudaErrorInvalidDevice, "kernsim: one device (0)");
  std::memset(p, 0, sizeof *p);
  std::strncpy(p->name, ks_device_name(), sizeof p->name - 1);
  p->totalGlobalMem = static_cast<std::size_t>(prop("total_global_mem"));
  p->sharedMemPerBlock = static_cast<std::size_t>(prop("shared_per_block", 49152));
  p->sharedMemPerBlockOptin = static_cast<std::size_t>(prop("shared_per_block_optin"));
  p->sharedMemPerMultiprocessor = static_cast<std::size_t>(prop("shared_per_sm"));
  p->regsPerBlock = static_cast<int>(prop("regs_per_block"));
  p->regsPerMultiprocessor = static_cast<int>(prop("regs_per_block"));
  p->warpSize = static_cast<int>(prop("warp_size", 32));
  p->maxThreadsPerBlock = static_cast<int>(prop("max_threads_per_block", 1024));
  for (int i = 0; i < 3; ++i) {
    const char* bk[] = {"max_block_x", "max_block_y", "max_block_z"};
    const char* gk[] = {"max_grid_x", "max_grid_y", "max_grid_z"};
    p->maxThreadsDim[i] = static_cast<int>(prop(bk[i]));
    p->maxGridSize[i] = static_cast<int>(prop(gk[i]));
  }
  p->major = static_cast<int>(prop("major"));
  p->minor = static_cast<int>(prop("minor"));
  p->multiProcessorCount = static_cast<int>(prop("sm_count"));
  p->l2CacheSize = static_cast<int>(prop("l2_bytes"));
  p->maxThreadsPerMultiProcessor = static_cast<int>(prop("max_threads_per_sm"));
  p->maxBlocksPerMultiProcessor = static_cast<int>(prop("max_blocks_per_sm"));
  p->memoryBusWidth = static_cast<int>(prop("memory_bus_width"));
  p->concurrentKernels = 1;
  p->unifiedAddressing = 1;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int d) {
  if (d != 0) return fail(cudaErrorInvalidDevice, "kernsim: one device (0)");
  const char* k = nullptr;
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock:
      k = "max_threads_per_block";
      break;
    case cudaDevAttrMaxBlockDimX:
      k = "max_block_x";
      break;
    case cudaDevAttrMaxBlockDimY:
      k = "max_block_y";
      break;
    case cudaDevAttrMaxBlockDimZ:
      k = "max_block_z";
      break;
    case cudaDevAttrMaxGridDimX:
      k = "max_grid_x";
      break;
    case cudaDevAttrMaxGridDimY:
      k = "max_grid_y";
      break;
    case cudaDevAttrMaxGridDimZ:
      k = "max_grid_z";
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      k = "shared_per_block";
      break;
    case cudaDevAttrWarpSize:
      k = "warp_size";
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      k = "regs_per_block";
      break;
    case cudaDevAttrClockRate:
      k = "clock_khz";
      break;
    case cudaDevAttrMultiProcessorCount:
      k = "sm_count";
      break;
    case cudaDevAttrL2CacheSize:
      k = "l2_bytes";
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      k = "max_threads_per_sm";
      break;
    case cudaDevAttrComputeCapabilityMajor:
      k = "major";
      break;
    case cudaDevAttrComputeCapabilityMinor:
      k = "minor";
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      k = "shared_per_sm";
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      k = "shared_per_block_optin";
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      k = "max_blocks_per_sm";
      break;
    default:
      break;
  }
  const long long x = k ? ks_get_prop(k) : -1;
  if (x < 0) return fail(cudaErrorNotSupported, "kernsim: cudaDeviceGetAttribute: this attribute is not provided");
  *v = static_cast<int>(x);
  return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) {
  return cudaSuccess;
}
cudaError_t cudaFuncSetCacheConfig(const void*, cudaFuncCache) {
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) {
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
  *total = static_cast<std::size_t>(prop("total_global_mem"));
  *free_bytes = *total;
  return cudaSuccess;
}

// ---- memory ---------------------------------------------------------------------------------
cudaError_t cudaMalloc(void** p, std::size_t n) {
  *p = ks_malloc(n);
  return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation, "kernsim: cudaMalloc: out of host memory");
}
cudaError_t cudaMallocAsync(void** p, std::size_t n, cudaStream_t) {
  return cudaMalloc(p, n);
}
cudaError_t cudaMallocManaged(void** p, std::size_t n, unsigned) {
  return cudaMalloc(p, n);
}
cudaError_t cudaMallocHost(void** p, std::size_t n) {
  return cudaMalloc(p, n);
}
cudaError_t cudaHostAlloc(void** p, std::size_t n, unsigned) {
  return cudaMalloc(p, n);
}
cudaError_t cudaFree(void* p) {
  return ks_free(p) ? fail(cudaErrorInvalidValue, "kernsim: cudaFree of a pointer cudaMalloc did not return")
                    : cudaSuccess;
}
cudaError_t cudaFreeAsync(void* p, cudaStream_t) {
  return cudaFree(p);
}
cudaError_t cudaFreeHost(void* p) {
  return cudaFree(p);
}
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t n, cudaMemcpyKind) {
  if (n) std::memmove(dst, src, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t n, cudaMemcpyKind k, cudaStream_t) {
  return cudaMemcpy(dst, src, n, k);
}
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                         std::size_t height, cudaMemcpyKind) {
  for (std::size_t r = 0; r < height; ++r)
    std::memmove(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width);
  return cudaSuccess;
}
cudaError_t cudaMemset(void* p, int v, std::size_t n) {
  if (n) std::memset(p, v, n);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int v, std::size_t n, cudaStream_t) {
  return cudaMemset(p, v, n);
}

// ---- streams and events ---------------------------------------------------------------------
cudaError_t cudaStreamCreate(cudaStream_t* s) {
  *s = static_cast<cudaStream_t>(ks_stream_create());
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  return cudaStreamCreate(s);
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned, int) {
  return cudaStreamCreate(s);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  return ks_stream_destroy(s) ? fail(cudaErrorInvalidResourceHandle, "kernsim: unknown stream") : cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  ks_stream_synchronize(s);
  return static_cast<cudaError_t>(ks_get_last_error(0));
}
cudaError_t cudaStreamQuery(cudaStream_t) {
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned) {
  return ks_stream_wait_event(s, e) ? fail(cudaErrorInvalidResourceHandle, "kernsim: unknown event") : cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  *least = 0;
  *greatest = 0;
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = static_cast<cudaEvent_t>(ks_event_create());
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) {
  return cudaEventCreate(e);
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  return ks_event_destroy(e) ? fail(cudaErrorInvalidResourceHandle, "kernsim: unknown event") : cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  return ks_event_record(e, s) ? fail(cudaErrorInvalidResourceHandle, "kernsim: unknown event") : cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  ks_event_synchronize(e);
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t) {
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  const float v = ks_event_elapsed_ms(a, b);
  if (v < 0) return fail(cudaErrorInvalidResourceHandle, "kernsim: cudaEventElapsedTime of an event not recorded");
  *ms = v;
  return cudaSuccess;
}

}  // extern "C"
