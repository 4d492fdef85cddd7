// 3-D stencils through shared memory, written for the H200 validation set (issue 17).
// Grids are nx x ny x nz floats, x fastest. Points within the stencil's radius of a face are
// copied from in to out; interior points get the stencil.
//  - st7_march: 7-point (c0 * centre + c1 * six neighbours). Block (32, 8); each block owns a
//    32 x 8 column and marches along z: the current plane with a one-point halo in shared memory,
//    the planes below and above in registers. Grid (nx/32, ny/8). nx % 32 == ny % 8 == 0.
//  - st7_tile3d: the same stencil, block (32, 4, 4), a (34 x 6 x 6) tile with halo loaded into
//    shared memory, one output per thread. Grid (nx/32, ny/4, nz/4).
//  - st27_tile3d: 27-point box (c0 * centre + c1 * 6 faces + c2 * 12 edges + c3 * 8 corners) with
//    the same 3-D tile.
//  - st13_march: 13-point star of radius 2 (c0, c1 for distance 1, c2 for distance 2) marching
//    along z with a radius-2 halo plane in shared memory and four planes in registers.

#define IDX(x, y, z) (((size_t)(z) * ny + (y)) * nx + (x))

extern "C" __global__ void st7_march(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                                     float c0, float c1) {
  __shared__ float t[8 + 2][32 + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * 32 + tx, y = blockIdx.y * 8 + ty;
  float below = in[IDX(x, y, 0)];
  float cur = in[IDX(x, y, 1)];
  out[IDX(x, y, 0)] = below;
  for (int z = 1; z < nz - 1; ++z) {
    float above = in[IDX(x, y, z + 1)];
    t[ty + 1][tx + 1] = cur;
    if (tx == 0) t[ty + 1][0] = x > 0 ? in[IDX(x - 1, y, z)] : 0.0f;
    if (tx == 31) t[ty + 1][33] = x < nx - 1 ? in[IDX(x + 1, y, z)] : 0.0f;
    if (ty == 0) t[0][tx + 1] = y > 0 ? in[IDX(x, y - 1, z)] : 0.0f;
    if (ty == 7) t[9][tx + 1] = y < ny - 1 ? in[IDX(x, y + 1, z)] : 0.0f;
    __syncthreads();
    float r = cur;
    if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1)
      r = c0 * cur + c1 * (t[ty + 1][tx] + t[ty + 1][tx + 2] + t[ty][tx + 1] + t[ty + 2][tx + 1] + below + above);
    out[IDX(x, y, z)] = r;
    __syncthreads();
    below = cur;
    cur = above;
  }
  out[IDX(x, y, nz - 1)] = cur;
}

// Loads the (32 + 2) x (4 + 2) x (4 + 2) tile around the block, zero outside the grid.
__device__ __forceinline__ void load_tile3d(float (&t)[6][6][34], const float* __restrict__ in, int nx, int ny, int nz,
                                            int x0, int y0, int z0) {
  const int tid = threadIdx.x + 32 * (threadIdx.y + 4 * threadIdx.z);
  for (int k = tid; k < 6 * 6 * 34; k += 512) {
    int lx = k % 34, ly = (k / 34) % 6, lz = k / (34 * 6);
    int gx = x0 + lx - 1, gy = y0 + ly - 1, gz = z0 + lz - 1;
    t[lz][ly][lx] = (gx >= 0 && gx < nx && gy >= 0 && gy < ny && gz >= 0 && gz < nz) ? in[IDX(gx, gy, gz)] : 0.0f;
  }
}

extern "C" __global__ void st7_tile3d(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                                      float c0, float c1) {
  __shared__ float t[6][6][34];
  const int x0 = blockIdx.x * 32, y0 = blockIdx.y * 4, z0 = blockIdx.z * 4;
  load_tile3d(t, in, nx, ny, nz, x0, y0, z0);
  __syncthreads();
  const int lx = threadIdx.x + 1, ly = threadIdx.y + 1, lz = threadIdx.z + 1;
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y, z = z0 + threadIdx.z;
  float cur = t[lz][ly][lx];
  float r = cur;
  if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1)
    r = c0 * cur + c1 * (t[lz][ly][lx - 1] + t[lz][ly][lx + 1] + t[lz][ly - 1][lx] + t[lz][ly + 1][lx] +
                         t[lz - 1][ly][lx] + t[lz + 1][ly][lx]);
  out[IDX(x, y, z)] = r;
}

extern "C" __global__ void st27_tile3d(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                                       float c0, float c1, float c2, float c3) {
  __shared__ float t[6][6][34];
  const int x0 = blockIdx.x * 32, y0 = blockIdx.y * 4, z0 = blockIdx.z * 4;
  load_tile3d(t, in, nx, ny, nz, x0, y0, z0);
  __syncthreads();
  const int lx = threadIdx.x + 1, ly = threadIdx.y + 1, lz = threadIdx.z + 1;
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y, z = z0 + threadIdx.z;
  float r = t[lz][ly][lx];
  if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1) {
    float faces = 0.0f, edges = 0.0f, corners = 0.0f;
#pragma unroll
    for (int dz = -1; dz <= 1; ++dz)
#pragma unroll
      for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) {
          int d = (dx != 0) + (dy != 0) + (dz != 0);
          float v = t[lz + dz][ly + dy][lx + dx];
          if (d == 1) faces += v;
          if (d == 2) edges += v;
          if (d == 3) corners += v;
        }
    r = c0 * r + c1 * faces + c2 * edges + c3 * corners;
  }
  out[IDX(x, y, z)] = r;
}

extern "C" __global__ void st13_march(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                                      float c0, float c1, float c2) {
  __shared__ float t[8 + 4][32 + 4];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * 32 + tx, y = blockIdx.y * 8 + ty;
  float m2 = in[IDX(x, y, 0)], m1 = in[IDX(x, y, 1)], cur = in[IDX(x, y, 2)], p1 = in[IDX(x, y, 3)];
  out[IDX(x, y, 0)] = m2;
  out[IDX(x, y, 1)] = m1;
  const bool inner = x >= 2 && x < nx - 2 && y >= 2 && y < ny - 2;
  for (int z = 2; z < nz - 2; ++z) {
    float p2 = in[IDX(x, y, z + 2)];
    t[ty + 2][tx + 2] = cur;
    if (tx < 2) t[ty + 2][tx] = x >= 2 ? in[IDX(x - 2, y, z)] : 0.0f;
    if (tx >= 30) t[ty + 2][tx + 4] = x + 2 < nx ? in[IDX(x + 2, y, z)] : 0.0f;
    if (ty < 2) t[ty][tx + 2] = y >= 2 ? in[IDX(x, y - 2, z)] : 0.0f;
    if (ty >= 6) t[ty + 4][tx + 2] = y + 2 < ny ? in[IDX(x, y + 2, z)] : 0.0f;
    __syncthreads();
    float r = cur;
    if (inner)
      r = c0 * cur +
          c1 * (t[ty + 2][tx + 1] + t[ty + 2][tx + 3] + t[ty + 1][tx + 2] + t[ty + 3][tx + 2] + m1 + p1) +
          c2 * (t[ty + 2][tx] + t[ty + 2][tx + 4] + t[ty][tx + 2] + t[ty + 4][tx + 2] + m2 + p2);
    out[IDX(x, y, z)] = r;
    __syncthreads();
    m2 = m1;
    m1 = cur;
    cur = p1;
    p1 = p2;
  }
  out[IDX(x, y, nz - 2)] = cur;
  out[IDX(x, y, nz - 1)] = p1;
}
