// Shared host utilities of the CUDA microbenchmarks (see mb_host.h).
#include <chrono>
#include <cstring>

#include "mb_host.h"

namespace mb {

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
      return true;
    default:
      return false;
  }
}

void check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e == cudaSuccess) return;
  const bool sticky = is_sticky(e);
  if (!sticky) (void)cudaGetLastError();  // clear a non-sticky error so the next call is clean
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s: %s (%s) at %s:%d", expr, cudaGetErrorName(e), cudaGetErrorString(e), file, line);
  throw CudaError(buf, sticky);
}

std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\r':
        o += "\\r";
        break;
      case '\t':
        o += "\\t";
        break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

std::string jnum(double v) {
  if (!std::isfinite(v)) return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

JObj& JObj::num(const std::string& k, double v) {
  return raw(k, jnum(v));
}
JObj& JObj::str(const std::string& k, const std::string& v) {
  return raw(k, jstr(v));
}
JObj& JObj::raw(const std::string& k, const std::string& json) {
  if (!body.empty()) body += ",";
  body += jstr(k) + ":" + json;
  return *this;
}

double percentile(std::vector<double> v, double p) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  const double f = pos - static_cast<double>(lo);
  return v[lo] * (1.0 - f) + v[hi] * f;
}

double median(std::vector<double> v) {
  return percentile(std::move(v), 50.0);
}

double Context::mhz() const {
  if (sm_mhz > 0) return sm_mhz;
  if (clock_khz > 0) return clock_khz / 1000.0;
  return 1980.0;
}

void Context::sync() {
  MB_CHECK(cudaStreamSynchronize(stream));
}

void Context::flush_l2() {
  if (!flush_buf) return;
  launch_bw_read(stream, flush_buf, flush_sink, flush_bytes / 16, static_cast<unsigned>(sm_count * 8));
}

float Context::time_ms(const std::function<void()>& enqueue) {
  MB_CHECK(cudaEventRecord(ev0, stream));
  enqueue();
  MB_CHECK(cudaEventRecord(ev1, stream));
  MB_CHECK(cudaEventSynchronize(ev1));
  float ms = 0;
  MB_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
  return ms;
}

float Context::time_ms_queued(const std::function<void()>& enqueue, double spin_us) {
  launch_spin_ns(stream, static_cast<unsigned long long>(spin_us * 1000.0));
  return time_ms(enqueue);
}

void emit_result(const std::string& name, const std::string& unit, const std::vector<double>& samples,
                 const JObj& params) {
  std::string s = "[";
  for (std::size_t i = 0; i < samples.size(); ++i) s += (i ? "," : "") + jnum(samples[i]);
  s += "]";
  JObj o;
  o.str("name", name).str("unit", unit).raw("samples", s).raw("params", params.dump());
  std::printf("@@RESULT %s\n", o.dump().c_str());
  std::printf("   %-40s %12s %s  (n=%zu)\n", name.c_str(), jnum(median(samples)).c_str(), unit.c_str(), samples.size());
  std::fflush(stdout);
}

void emit_error(const Context& ctx, const std::string& bench, const std::string& what) {
  JObj o;
  o.str("group", ctx.group).str("bench", bench).str("error", what);
  std::printf("@@ERROR %s\n", o.dump().c_str());
  std::fflush(stdout);
}

void guarded(Context& ctx, const std::string& bench, const std::function<void()>& body) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    body();
  } catch (const CudaError& e) {
    if (e.sticky) throw;
    emit_error(ctx, bench, e.what());
  } catch (const std::exception& e) {
    emit_error(ctx, bench, e.what());
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("   [%s: %.2f s]\n", bench.c_str(), s);
  std::fflush(stdout);
}

int reps(const Context& ctx, int wanted) {
  int r = wanted > 0 ? wanted : ctx.opt.reps;
  if (ctx.opt.quick) r = std::min(r, 20);
  return std::max(r, 20);
}

unsigned long long calibrate_work(Context& ctx, unsigned long long n0, unsigned long long n_max,
                                  const std::function<float(unsigned long long)>& run) {
  const double target = ctx.opt.target_ms;
  auto clamp = [&](double x) {
    return static_cast<unsigned long long>(std::max(1.0, std::min(x, static_cast<double>(n_max))));
  };
  unsigned long long n = clamp(static_cast<double>(n0));
  run(n);  // warm-up: module load, clocks, caches
  for (int i = 0; i < 10; ++i) {
    const float ms = run(n);
    if (n >= n_max) return n_max;
    if (ms >= 0.5 * target) return clamp(static_cast<double>(n) * target / ms);
    // Measurable: jump proportionally and check again (launch overhead makes the jump short).
    n = ms > 0.05 ? clamp(static_cast<double>(n) * target / ms) : clamp(static_cast<double>(n) * 8.0);
  }
  return n;
}

DevBuf::DevBuf(std::size_t b, bool zero) : bytes(b) {
  MB_CHECK(cudaMalloc(&p, b));
  if (zero) {
    // cudaMemset is asynchronous and on the legacy stream: finish it before any timed launch.
    MB_CHECK(cudaMemset(p, 0, b));
    MB_CHECK(cudaDeviceSynchronize());
  }
}

DevBuf::~DevBuf() {
  if (p) (void)cudaFree(p);
}

std::vector<unsigned long long> DevBuf::u64(std::size_t n) const {
  std::vector<unsigned long long> v(n);
  MB_CHECK(cudaMemcpy(v.data(), p, n * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  return v;
}

std::map<unsigned, SmSpan> sm_spans(const std::vector<unsigned long long>& rec, unsigned grid) {
  std::map<unsigned, std::pair<unsigned long long, unsigned long long>> mm;
  std::map<unsigned, int> count;
  for (unsigned b = 0; b < grid; ++b) {
    const unsigned long long t0 = rec[3ull * b], t1 = rec[3ull * b + 1];
    const unsigned sm = static_cast<unsigned>(rec[3ull * b + 2]);
    auto it = mm.find(sm);
    if (it == mm.end()) {
      mm[sm] = {t0, t1};
    } else {
      it->second.first = std::min(it->second.first, t0);
      it->second.second = std::max(it->second.second, t1);
    }
    count[sm]++;
  }
  std::map<unsigned, SmSpan> out;
  for (auto& [sm, t] : mm) out[sm] = SmSpan{static_cast<double>(t.second - t.first), count[sm]};
  return out;
}

}  // namespace mb
