// HIP port of tests/kernels/cuda/stencil.cu (same kernels, same launch semantics).
// Jacobi-style stencils on row-major grids; boundary points are copied unchanged.
//  - stencil2d_5pt:      out = c0*u + c1*(W + E + N + S); 2D grid of 2D blocks, one point per thread
//  - stencil2d_5pt_smem: the same, staging a (bx+2) x (by+2) tile with halo in shared memory;
//                        block must be 32 x 8
//  - stencil3d_7pt:      out = c0*u + c1*(W + E + N + S + down + up); 3D grid of 3D blocks
// x is the fastest-varying index: element (x, y) lives at y*nx + x, (x, y, z) at (z*ny + y)*nx + x.
#include <hip/hip_runtime.h>

extern "C" __global__ void stencil2d_5pt(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                         float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  size_t i = (size_t)y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[i] = in[i];
    return;
  }
  float nb = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx];
  out[i] = c0 * in[i] + c1 * nb;
}

#define ST_BX 32
#define ST_BY 8

extern "C" __global__ void stencil2d_5pt_smem(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                              float c0, float c1) {
  __shared__ float tile[ST_BY + 2][ST_BX + 2];
  const int x = blockIdx.x * ST_BX + threadIdx.x;
  const int y = blockIdx.y * ST_BY + threadIdx.y;
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  // Clamp loads to the grid: clamped halo values are only read for boundary points, which copy.
  const int cx = min(x, nx - 1), cy = min(y, ny - 1);
  tile[ty][tx] = in[(size_t)cy * nx + cx];
  if (threadIdx.x == 0) tile[ty][0] = in[(size_t)cy * nx + max(cx - 1, 0)];
  if (threadIdx.x == ST_BX - 1) tile[ty][ST_BX + 1] = in[(size_t)cy * nx + min(cx + 1, nx - 1)];
  if (threadIdx.y == 0) tile[0][tx] = in[(size_t)max(cy - 1, 0) * nx + cx];
  if (threadIdx.y == ST_BY - 1) tile[ST_BY + 1][tx] = in[(size_t)min(cy + 1, ny - 1) * nx + cx];
  __syncthreads();
  if (x >= nx || y >= ny) return;
  size_t i = (size_t)y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[i] = tile[ty][tx];
    return;
  }
  float nb = tile[ty][tx - 1] + tile[ty][tx + 1] + tile[ty - 1][tx] + tile[ty + 1][tx];
  out[i] = c0 * tile[ty][tx] + c1 * nb;
}

extern "C" __global__ void stencil3d_7pt(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                                         float c0, float c1) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  size_t plane = (size_t)nx * ny;
  size_t i = (size_t)z * plane + (size_t)y * nx + x;
  if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
    out[i] = in[i];
    return;
  }
  float nb = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - plane] + in[i + plane];
  out[i] = c0 * in[i] + c1 * nb;
}
