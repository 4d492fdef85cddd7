// The state of kernsim's CUDA runtime stand-in for PyTorch extensions (libkernsim_rt.so, one per
// process): the registry of host allocations that play device memory, the CPU allocator that
// fills it, kernel registrations, the launch callback into Python, streams, events and the
// simulated clock. The CUDA API names themselves live in cudart_api.cpp, which is linked into
// every extension (-Bsymbolic) so that the real libcudart PyTorch loads never answers them.
// Everything here is reached through the plain C functions below (ks_*); Python calls them with
// ctypes. See docs/kernelbench.md.

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::uintptr_t, std::size_t> allocs;  // base -> bytes
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: frees may come during interpreter exit
  return *r;
}

bool g_fill = false;  // fill new allocations with 0xFF bytes (NaN for every float type)

void register_range(void* p, std::size_t n) {
  if (!p) return;
  std::lock_guard<std::mutex> l(registry().mu);
  registry().allocs[reinterpret_cast<std::uintptr_t>(p)] = n;
}
void unregister_range(void* p) {
  std::lock_guard<std::mutex> l(registry().mu);
  registry().allocs.erase(reinterpret_cast<std::uintptr_t>(p));
}

// Wraps PyTorch's CPU allocator: every CPU tensor's storage is registered (so that a raw
// pointer a kernel receives maps to its allocation) and, while filling is on, prefilled with NaN.
// The DataPtr's context is its data and its deleter one function (raw_deleter), as PyTorch's
// raw_allocate/raw_deallocate require (CPU kernels such as GELU's use them for scratch); the
// inner allocator's DataPtr is kept by address until then.
std::mutex& held_mu() {
  static std::mutex m;
  return m;
}
std::unordered_map<void*, c10::DataPtr>& held() {
  static std::unordered_map<void*, c10::DataPtr> h;
  return h;
}
void delete_by_ptr(void* p) {
  c10::DataPtr inner;  // freed when this returns
  {
    std::lock_guard<std::mutex> l(held_mu());
    auto it = held().find(p);
    if (it == held().end()) return;
    inner = std::move(it->second);
    held().erase(it);
  }
  unregister_range(p);
}

class RegisteringAllocator final : public c10::Allocator {
 public:
  explicit RegisteringAllocator(c10::Allocator* inner) : inner_(inner) {}
  c10::DataPtr allocate(std::size_t n) override {
    c10::DataPtr d = inner_->allocate(n);
    void* p = d.get();
    if (!p) return d;
    if (g_fill) std::memset(p, 0xFF, n);
    register_range(p, n);
    {
      std::lock_guard<std::mutex> l(held_mu());
      held().emplace(p, std::move(d));
    }
    return c10::DataPtr(p, p, &delete_by_ptr, c10::Device(c10::DeviceType::CPU));
  }
  c10::DeleterFnPtr raw_deleter() const override { return &delete_by_ptr; }
  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

 private:
  c10::Allocator* inner_;
};

struct Kernel {
  std::string module, name;
};
std::mutex g_mu;
std::unordered_map<const void*, Kernel> g_kernels;

using LaunchFn = int (*)(const char* module, const char* kernel, const unsigned* dims6, std::size_t shmem, void* stream,
                         void** args);
LaunchFn g_launch = nullptr;

struct Config {
  unsigned dims[6];
  std::size_t shmem;
  void* stream;
};
thread_local std::vector<Config> t_configs;

int g_last_error = 0, g_sticky = 0;
std::string g_error_message;

// streams: launches counted per stream and how many of them the legacy default stream (0) has
// joined through an event wait or a synchronisation
struct Stream {
  long launches = 0, joined = 0;
};
std::map<void*, Stream> g_streams;
struct Event {
  void* stream = nullptr;
  long launches = 0;
  double time_us = 0;
  bool recorded = false;
};
std::map<void*, Event> g_events;
double g_clock_us = 0;
std::uintptr_t g_next_handle = 0x1000;

std::map<std::string, long long> g_props;
std::string g_device_name = "kernsim";

}  // namespace

extern "C" {

int ks_install_allocator() {
  static RegisteringAllocator* a = nullptr;
  if (a) return 0;
  a = new RegisteringAllocator(c10::GetCPUAllocator());
  c10::SetCPUAllocator(a, /*priority=*/UINT8_MAX);
  return c10::GetCPUAllocator() == a ? 0 : 1;
}
void ks_set_fill(int on) {
  g_fill = on != 0;
}
int ks_get_fill() {
  return g_fill ? 1 : 0;
}
void ks_register(void* p, std::size_t n) {
  register_range(p, n);
}
void ks_unregister(void* p) {
  unregister_range(p);
}

// 1 when p lies in a registered allocation [base, base + size] (one past the end counts: an
// empty view's pointer), with its base and size
int ks_find(std::uintptr_t p, std::uintptr_t* base, std::size_t* size) {
  std::lock_guard<std::mutex> l(registry().mu);
  auto& m = registry().allocs;
  auto it = m.upper_bound(p);
  if (it == m.begin()) return 0;
  --it;
  if (p > it->first + it->second) return 0;
  *base = it->first;
  *size = it->second;
  return 1;
}
std::size_t ks_allocation_count() {
  std::lock_guard<std::mutex> l(registry().mu);
  return registry().allocs.size();
}

void* ks_malloc(std::size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, 256, n ? n : 1) != 0) return nullptr;
  if (g_fill) std::memset(p, 0xFF, n);
  register_range(p, n ? n : 1);
  return p;
}
int ks_free(void* p) {
  if (!p) return 0;
  std::uintptr_t b = 0;
  std::size_t s = 0;
  if (!ks_find(reinterpret_cast<std::uintptr_t>(p), &b, &s) || b != reinterpret_cast<std::uintptr_t>(p)) return 1;
  unregister_range(p);
  std::free(p);
  return 0;
}

void ks_register_function(const void* host_fn, const char* module, const char* name) {
  std::lock_guard<std::mutex> l(g_mu);
  g_kernels[host_fn] = Kernel{module, name};
}
void ks_set_launch_callback(LaunchFn f) {
  g_launch = f;
}

void ks_set_error(int code, const char* msg) {
  g_last_error = code;
  if (code) {
    g_sticky = code;
    g_error_message = msg ? msg : "";
  }
}
int ks_get_last_error(int clear) {
  int e = g_last_error;
  if (clear) g_last_error = 0;
  return e;
}
const char* ks_error_message() {
  return g_error_message.c_str();
}
void ks_clear_errors() {
  g_last_error = g_sticky = 0;
  g_error_message.clear();
}
int ks_sticky_error() {
  return g_sticky;
}

void ks_push_config(const unsigned* dims6, std::size_t shmem, void* stream) {
  Config c;
  std::memcpy(c.dims, dims6, sizeof c.dims);
  c.shmem = shmem;
  c.stream = stream;
  t_configs.push_back(c);
}
int ks_pop_config(unsigned* dims6, std::size_t* shmem, void** stream) {
  if (t_configs.empty()) return 1;
  const Config c = t_configs.back();
  t_configs.pop_back();
  std::memcpy(dims6, c.dims, sizeof c.dims);
  *shmem = c.shmem;
  *stream = c.stream;
  return 0;
}

// 0, or a cudaError_t value: 98 (cudaErrorInvalidDeviceFunction) for an unregistered function,
// 719 (cudaErrorLaunchFailure) when the simulation failed (the message says why)
int ks_launch(const void* host_fn, const unsigned* dims6, std::size_t shmem, void* stream, void** args) {
  Kernel k;
  {
    std::lock_guard<std::mutex> l(g_mu);
    auto it = g_kernels.find(host_fn);
    if (it == g_kernels.end()) {
      ks_set_error(98, "kernsim: cudaLaunchKernel of a function that no kernsim-built module registered");
      return 98;
    }
    k = it->second;
  }
  if (!g_launch) {
    ks_set_error(719, "kernsim: no launch callback installed (the extension was loaded outside kernsim.kernelbench)");
    return 719;
  }
  const int rc = g_launch(k.module.c_str(), k.name.c_str(), dims6, shmem, stream, args);
  if (rc) g_last_error = rc;
  return rc;
}

// streams and events
void* ks_stream_create() {
  void* s = reinterpret_cast<void*>(g_next_handle++);
  g_streams[s];
  return s;
}
int ks_stream_destroy(void* s) {
  return g_streams.erase(s) ? 0 : 1;
}
int ks_stream_known(void* s) {
  return s == nullptr || g_streams.count(s) ? 1 : 0;
}
void ks_note_launch(void* stream, double time_us) {
  g_streams[stream].launches++;
  if (stream == nullptr) g_streams[stream].joined = g_streams[stream].launches;
  g_clock_us += time_us;
}
double ks_clock_us() {
  return g_clock_us;
}
void* ks_event_create() {
  void* e = reinterpret_cast<void*>(g_next_handle++);
  g_events[e];
  return e;
}
int ks_event_destroy(void* e) {
  return g_events.erase(e) ? 0 : 1;
}
int ks_event_record(void* e, void* stream) {
  auto it = g_events.find(e);
  if (it == g_events.end()) return 1;
  it->second.stream = stream;
  it->second.launches = g_streams[stream].launches;
  it->second.time_us = g_clock_us;
  it->second.recorded = true;
  return 0;
}
// milliseconds between two recorded events on the simulated clock; -1 when one is not recorded
float ks_event_elapsed_ms(void* a, void* b) {
  auto ia = g_events.find(a), ib = g_events.find(b);
  if (ia == g_events.end() || ib == g_events.end() || !ia->second.recorded || !ib->second.recorded) return -1.0f;
  return static_cast<float>((ib->second.time_us - ia->second.time_us) / 1000.0);
}
int ks_stream_wait_event(void* stream, void* e) {
  auto it = g_events.find(e);
  if (it == g_events.end()) return 1;
  if (stream == nullptr && it->second.recorded) {
    Stream& s = g_streams[it->second.stream];
    if (it->second.launches > s.joined) s.joined = it->second.launches;
  }
  return 0;
}
void ks_event_synchronize(void* e) {
  auto it = g_events.find(e);
  if (it == g_events.end() || !it->second.recorded) return;
  Stream& s = g_streams[it->second.stream];
  if (it->second.launches > s.joined) s.joined = it->second.launches;
}
void ks_stream_synchronize(void* stream) {
  g_streams[stream].joined = g_streams[stream].launches;
}
void ks_device_synchronize() {
  for (auto& [h, s] : g_streams) s.joined = s.launches;
}
// launches on streams other than the default that nothing joined back to it
long ks_unjoined_launches() {
  long n = 0;
  for (auto& [h, s] : g_streams)
    if (h != nullptr) n += s.launches - s.joined;
  return n;
}
void ks_reset_streams() {
  for (auto& [h, s] : g_streams) s.launches = s.joined = 0;
}

// device properties (set from the device file by Python)
void ks_set_prop(const char* key, long long v) {
  g_props[key] = v;
}
long long ks_get_prop(const char* key) {
  auto it = g_props.find(key);
  return it == g_props.end() ? -1 : it->second;
}
void ks_set_device_name(const char* n) {
  g_device_name = n;
}
const char* ks_device_name() {
  return g_device_name.c_str();
}

}  // extern "C"
