// SAXPY, y = a*x + y: the demo kernel of the README's quick start.
__global__ void saxpy(unsigned long n, float a, const float* __restrict__ x, float* __restrict__ y) {
  unsigned long i = blockIdx.x * static_cast<unsigned long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
