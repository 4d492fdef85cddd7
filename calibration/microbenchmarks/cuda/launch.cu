// Launch overhead and CTA dispatch. Plain launches.
//
//   k_empty()            an empty kernel: event-timed single launches, back-to-back launches,
//                        and many tiny CTAs (e.g. 132*64 blocks of 32 threads) to infer the
//                        per-CTA dispatch cost from time(grid) = a + b * grid.
//   k_one_block(out)     one block that writes one word per thread.
//   cta_stamp(out)       thread 0 of every block writes [clock64 at entry, smid]; per SM the
//                        gaps between consecutive block starts (same SM clock) give the CTA
//                        launch interval in cycles when the grid is many waves of tiny blocks.
//   spin_ns(ns)          runner helper: one thread spins on %globaltimer for ns nanoseconds, so
//                        that the launches queued behind it are timed by the GPU alone.
//   clock_probe(out, ns) every block: thread 0 spins ns nanoseconds and records clock64 and
//                        globaltimer deltas: SM clock (MHz) = d_clock / d_ns * 1000.

#include "mb_helpers.cuh"  // mb_clock64, mb_globaltimer, mb_smid

extern "C" __global__ void k_empty() {}

extern "C" __global__ void k_one_block(unsigned* out) {
  out[threadIdx.x] = threadIdx.x;
}

extern "C" __global__ void cta_stamp(unsigned long long* out) {
  if (threadIdx.x == 0) {
    out[2ull * blockIdx.x + 0] = mb_clock64();
    out[2ull * blockIdx.x + 1] = mb_smid();
  }
}

extern "C" __global__ void spin_ns(unsigned long long ns) {
  if (threadIdx.x != 0) return;
  const unsigned long long g0 = mb_globaltimer();
  while (mb_globaltimer() - g0 < ns) {
  }
}

extern "C" __global__ void clock_probe(unsigned long long* out, unsigned long long ns) {
  if (threadIdx.x != 0) return;
  const unsigned long long g0 = mb_globaltimer();
  const unsigned long long c0 = mb_clock64();
  unsigned long long g1 = g0;
  while (g1 - g0 < ns) g1 = mb_globaltimer();
  const unsigned long long c1 = mb_clock64();
  out[3ull * blockIdx.x + 0] = c1 - c0;
  out[3ull * blockIdx.x + 1] = g1 - g0;
  out[3ull * blockIdx.x + 2] = mb_smid();
}
