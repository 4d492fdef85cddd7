// Host side of the CUDA microbenchmarks: the pieces every group shares — error checks, event
// timing, the line protocol to run_cuda.py, the kernel registry used by spec replay, and the
// per-run context (device properties, options, scratch buffers).
//
// Protocol (stdout, one line each, parsed by run_cuda.py; everything else is free-form log):
//   @@INFO {json}                      device facts, once
//   @@GROUP_START name / @@GROUP_END name
//   @@RESULT {"name","unit","samples":[...],"params":{...}}   raw per-repetition values
//   @@ERROR {"group","bench","error"}  a benchmark failed; the group goes on
//   @@FATAL {"group","error"}          the CUDA context is unusable; the process exits 3
// run_cuda.py computes median and [p10, p90] from the samples.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mb {

// A CUDA call failed. `sticky` marks errors after which the context is unusable.
struct CudaError : std::runtime_error {
  bool sticky;
  CudaError(const std::string& what, bool s) : std::runtime_error(what), sticky(s) {}
};

bool is_sticky(cudaError_t e);
void check(cudaError_t e, const char* expr, const char* file, int line);
#define MB_CHECK(expr) ::mb::check((expr), #expr, __FILE__, __LINE__)
// After a <<<>>> launch: launch-configuration errors now, execution errors at the next sync.
#define MB_LAUNCHED() ::mb::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

// ---- JSON helpers (just enough for flat objects) ---------------------------------------------
std::string jstr(const std::string& s);  // quoted, escaped
std::string jnum(double v);              // %.9g, or null for NaN/inf
struct JObj {                            // builds {"k":v,...} in insertion order
  std::string body;
  JObj& num(const std::string& k, double v);
  JObj& str(const std::string& k, const std::string& v);
  JObj& raw(const std::string& k, const std::string& json);
  std::string dump() const { return "{" + body + "}"; }
};

// ---- statistics --------------------------------------------------------------------------------
double median(std::vector<double> v);
double percentile(std::vector<double> v, double p);  // p in [0, 100], linear interpolation

// ---- the run context ---------------------------------------------------------------------------
struct Options {
  bool quick = false;
  int reps = 30;           // repetitions per measurement (>= 20 enforced)
  double target_ms = 2.0;  // kernels with a work knob are scaled to run about this long
};

struct Context {
  Options opt;
  int device = 0;
  cudaDeviceProp prop{};
  int sm_count = 0;
  int clock_khz = 0;  // attribute cudaDevAttrClockRate (may be 0 on CUDA 13)
  double sm_mhz = 0;  // measured by the clock group (0 until then)
  std::size_t l2_bytes = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t ev0 = nullptr, ev1 = nullptr;
  void* flush_buf = nullptr;  // read to evict L2 (>= 4x L2)
  std::size_t flush_bytes = 0;
  unsigned* flush_sink = nullptr;
  std::string group;  // current group, for error lines

  double mhz() const;  // measured SM clock, else the attribute, else 1980 (H200 max)
  void flush_l2();     // streams flush_buf through L2 (a bw_read launch); not timed
  // Event time of whatever `enqueue` puts on `stream`, in ms.
  float time_ms(const std::function<void()>& enqueue);
  // Same, but a spin kernel of `spin_us` runs first so the timed work is queued on the GPU
  // before the first event fires: the result excludes host submission gaps.
  float time_ms_queued(const std::function<void()>& enqueue, double spin_us = 100.0);
  void sync();
};

// Reports, in the protocol above.
void emit_result(const std::string& name, const std::string& unit, const std::vector<double>& samples,
                 const JObj& params = JObj());
void emit_error(const Context& ctx, const std::string& bench, const std::string& what);

// Runs one benchmark; a non-sticky CudaError or std::exception becomes an @@ERROR line and the
// group goes on. Sticky errors propagate to main, which reports @@FATAL and exits.
void guarded(Context& ctx, const std::string& bench, const std::function<void()>& body);

// Repetition count after --quick/--reps, never below 20.
int reps(const Context& ctx, int wanted = 0);

// Scale a per-launch work count so that a launch takes about ctx.opt.target_ms: `run(n)` returns
// the launch's time in ms. Starts at n0, at most 6 doublings or one proportional jump.
unsigned long long calibrate_work(Context& ctx, unsigned long long n0, unsigned long long n_max,
                                  const std::function<float(unsigned long long)>& run);

// Device buffer that frees itself.
struct DevBuf {
  void* p = nullptr;
  std::size_t bytes = 0;
  DevBuf() = default;
  explicit DevBuf(std::size_t b, bool zero = true);
  ~DevBuf();
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf(DevBuf&& o) noexcept : p(o.p), bytes(o.bytes) {
    o.p = nullptr;
    o.bytes = 0;
  }
  DevBuf& operator=(DevBuf&& o) noexcept {
    if (this != &o) {
      if (p) (void)cudaFree(p);
      p = o.p;
      bytes = o.bytes;
      o.p = nullptr;
      o.bytes = 0;
    }
    return *this;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
  std::vector<unsigned long long> u64(std::size_t n) const;  // copies the first n u64 back
};

// Per-SM cycles from (t0, t1, smid) triples as written by the issue_/smem_bank/atom_shared kernels:
// for every SM the span max(t1) - min(t0) over its blocks, and how many blocks it ran.
struct SmSpan {
  double cycles;
  int blocks;
};
std::map<unsigned, SmSpan> sm_spans(const std::vector<unsigned long long>& rec, unsigned grid);

// ---- kernel registry for spec replay -----------------------------------------------------------
struct KernelEntry {
  const char* name;
  const void* fn;
};
void register_kernels(std::vector<KernelEntry>& out);  // all groups' kernels (main.cu)

// Group entry points (g_*.cu) and their registries.
void group_clock(Context&);
void group_latency(Context&);
void group_shared(Context&);
void group_alu(Context&);
void group_mma(Context&);
void group_bandwidth(Context&);
void group_atomics(Context&);
void group_launch(Context&);
void group_wgmma(Context&);
void group_tma(Context&);
void group_hsync(Context&);
void group_tclock(Context&);
void kernels_chase(std::vector<KernelEntry>&);
void kernels_shared(std::vector<KernelEntry>&);
void kernels_alu(std::vector<KernelEntry>&);
void kernels_mma(std::vector<KernelEntry>&);
void kernels_bw(std::vector<KernelEntry>&);
void kernels_atomics(std::vector<KernelEntry>&);
void kernels_launch(std::vector<KernelEntry>&);
void kernels_hopper(std::vector<KernelEntry>&);

// Cross-file launch helpers (kernels live in one translation unit each).
void launch_spin_ns(cudaStream_t s, unsigned long long ns, unsigned blocks = 1);
void launch_bw_read(cudaStream_t s, const void* buf, unsigned* out, unsigned long long n_vec, unsigned grid);

}  // namespace mb
