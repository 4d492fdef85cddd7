// kernsim's stand-ins for PyTorch's CUDA-side C++ API (c10::cuda, at::cuda), for extensions that
// kernsim builds against the CPU tensors of a CPU process (docs/kernelbench.md). The current
// stream is the legacy default stream (0); guards do nothing (one device); device properties
// come from the simulated part's device file through the CUDA runtime stand-in.
#pragma once
#include <c10/core/Device.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

#include <optional>

namespace c10::cuda {
class CUDAStream {
 public:
  CUDAStream() = default;
  explicit CUDAStream(cudaStream_t s) : s_(s) {}
  cudaStream_t stream() const { return s_; }
  operator cudaStream_t() const { return s_; }
  c10::DeviceIndex device_index() const { return 0; }
  c10::Device device() const { return c10::Device(c10::DeviceType::CPU); }
  int64_t id() const { return reinterpret_cast<int64_t>(s_); }
  void synchronize() const { cudaStreamSynchronize(s_); }
  bool operator==(const CUDAStream& o) const { return s_ == o.s_; }
  bool operator!=(const CUDAStream& o) const { return s_ != o.s_; }

 private:
  cudaStream_t s_ = nullptr;
};
inline CUDAStream getCurrentCUDAStream(c10::DeviceIndex = -1) {
  return CUDAStream();
}
inline CUDAStream getDefaultCUDAStream(c10::DeviceIndex = -1) {
  return CUDAStream();
}
inline CUDAStream getStreamFromPool(bool = false, c10::DeviceIndex = -1) {
  cudaStream_t s = nullptr;
  cudaStreamCreate(&s);
  return CUDAStream(s);
}
inline void setCurrentCUDAStream(CUDAStream) {}
inline c10::DeviceIndex current_device() {
  return 0;
}
inline c10::DeviceIndex device_count() {
  return 1;
}
inline void device_synchronize() {
  cudaDeviceSynchronize();
}

struct CUDAGuard {
  explicit CUDAGuard(c10::DeviceIndex) {}
  explicit CUDAGuard(c10::Device) {}
  void set_device(c10::Device) {}
  void set_index(c10::DeviceIndex) {}
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(std::optional<c10::Device>) {}
  explicit OptionalCUDAGuard(c10::Device) {}
  explicit OptionalCUDAGuard(c10::DeviceIndex) {}
  void set_device(c10::Device) {}
  void set_index(c10::DeviceIndex) {}
  void reset() {}
};
struct CUDAStreamGuard {
  explicit CUDAStreamGuard(CUDAStream) {}
};
struct OptionalCUDAStreamGuard {
  OptionalCUDAStreamGuard() = default;
  explicit OptionalCUDAStreamGuard(std::optional<CUDAStream>) {}
};
}  // namespace c10::cuda

namespace at::cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool;
using c10::cuda::OptionalCUDAGuard;
using c10::cuda::OptionalCUDAStreamGuard;
using c10::cuda::setCurrentCUDAStream;
inline cudaDeviceProp* getCurrentDeviceProperties() {
  static cudaDeviceProp p;
  static bool done = (cudaGetDeviceProperties(&p, 0), true);
  (void)done;
  return &p;
}
inline cudaDeviceProp* getDeviceProperties(c10::DeviceIndex) {
  return getCurrentDeviceProperties();
}
inline int getNumGPUs() {
  return 1;
}
inline bool is_available() {
  return true;
}
inline c10::DeviceIndex current_device() {
  return 0;
}
}  // namespace at::cuda

#define C10_CUDA_CHECK(EXPR)                                                            \
  do {                                                                                  \
    const cudaError_t __ks_err = (EXPR);                                                \
    TORCH_CHECK(__ks_err == cudaSuccess, "CUDA error: ", cudaGetErrorString(__ks_err)); \
  } while (0)
#define C10_CUDA_CHECK_WARN(EXPR) (void)(EXPR)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
#define TORCH_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
