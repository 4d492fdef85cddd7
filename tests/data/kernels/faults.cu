// Kernels that misbehave on purpose: the simulator must stop them with a named error.
extern "C" __global__ void oob_write(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i + n] = 1.0f;  // every thread writes past the end
}
extern "C" __global__ void oob_read_one(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + (i == 37 ? 1000 : 0)];  // thread 37 reads far out of bounds
}
extern "C" __global__ void misaligned(const char* in, float* out) {
  int i = threadIdx.x;
  out[i] = *reinterpret_cast<const float*>(in + 1 + 4 * i);  // 4-byte load at odd address
}
extern "C" __global__ void endless(int* flag) {
  while (atomicAdd(flag, 0) == 0) {
  }
}
extern "C" __global__ void null_deref(const float* p, float* out) {
  out[threadIdx.x] = p[threadIdx.x];  // p is passed as 0
}
