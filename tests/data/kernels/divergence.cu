// Control flow the reconvergence stack must get right: nested divergence, loops with
// per-thread trip counts, early exit, and warp votes after reconvergence.
extern "C" __global__ void diverge(int* out) {
  int t = threadIdx.x;
  int v = 0;
  if (t & 1) {
    if (t & 2) v = 3; else v = 1;
  } else {
    for (int k = 0; k < (t % 7); ++k) v += k;
  }
  if (t == 5) return;                               // an early exit of one lane
  unsigned full = __activemask();                   // everyone but lane 5 is back together
  out[t] = v * 1000 + __popc(full);
}
