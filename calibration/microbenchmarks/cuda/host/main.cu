// mb_host: runs the CUDA microbenchmark groups and replays launch specs on a real GPU, printing
// the line protocol of mb_host.h. run_cuda.py builds and drives it; it is not meant to be run by
// hand, but can be:
//
//   mb_host [--groups clock,latency,...] [--quick] [--reps N] [--target-ms X] [--sm-mhz X]
//           [--specs FILE]          replay the specs listed in FILE (group `specs`)
//   mb_host --list-kernels          print the registered kernel names (no GPU needed)
//   mb_host --parse-specs FILE      parse FILE and print each launch's argument layout (no GPU)
//
// Spec lines (written by run_cuda.py from the JSON launch specs):
//   SPEC <id> <kernel> <gx> <gy> <gz> <bx> <by> <bz> <dyn_smem> <seed> <nargs> <arg>...
//   arg = s:<type>:<value>                      scalar, type i32 u32 i64 u64 f32 f64
//       | b:<type>:<count>:<init>               buffer, type f32 f16 bf16 f64 i32 u32 i64 u8,
//                                               init zeros | iota | uniform | randint:LO:HI
// Buffers are initialised as kernsim does (api/launch_spec.cpp: counter-based splitmix64).
#include <cstring>
#include <fstream>
#include <sstream>

#include "mb_host.h"

namespace mb {

void register_kernels(std::vector<KernelEntry>& k) {
  kernels_chase(k);
  kernels_shared(k);
  kernels_alu(k);
  kernels_mma(k);
  kernels_bw(k);
  kernels_atomics(k);
  kernels_launch(k);
  kernels_hopper(k);
}

namespace {

// ---- launch-spec replay ---------------------------------------------------------------------

struct SpecArg {
  bool buffer = false;
  std::string type;
  std::string value;             // scalar text
  unsigned long long count = 0;  // buffer
  std::string init = "zeros";
};

struct Spec {
  std::string id, kernel;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned long long smem = 0, seed = 0;
  std::vector<SpecArg> args;
};

std::size_t elem_size(const std::string& t) {
  if (t == "f32" || t == "i32" || t == "u32") return 4;
  if (t == "f64" || t == "i64" || t == "u64") return 8;
  if (t == "f16" || t == "bf16") return 2;
  if (t == "u8") return 1;
  throw std::runtime_error("unknown type `" + t + "`");
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<Spec> parse_specs(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open spec list " + file);
  std::vector<Spec> specs;
  std::string line;
  int ln = 0;
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string tag;
    Spec s;
    std::size_t nargs = 0;
    ss >> tag >> s.id >> s.kernel >> s.grid[0] >> s.grid[1] >> s.grid[2] >> s.block[0] >> s.block[1] >> s.block[2] >>
        s.smem >> s.seed >> nargs;
    if (!ss || tag != "SPEC") throw std::runtime_error(file + ":" + std::to_string(ln) + ": bad SPEC line");
    for (std::size_t i = 0; i < nargs; ++i) {
      std::string tok;
      if (!(ss >> tok)) throw std::runtime_error(file + ":" + std::to_string(ln) + ": missing argument");
      auto f = split(tok, ':');
      SpecArg a;
      if (f.size() >= 3 && f[0] == "s") {
        a.type = f[1];
        a.value = f[2];
      } else if (f.size() >= 4 && f[0] == "b") {
        a.buffer = true;
        a.type = f[1];
        a.count = std::stoull(f[2]);
        a.init = f[3];
        for (std::size_t j = 4; j < f.size(); ++j) a.init += ":" + f[j];
      } else {
        throw std::runtime_error(file + ":" + std::to_string(ln) + ": bad argument `" + tok + "`");
      }
      (void)elem_size(a.type);
      s.args.push_back(a);
    }
    specs.push_back(s);
  }
  return specs;
}

// Scalar bytes as the kernel parameter expects them.
std::vector<unsigned char> scalar_bytes(const SpecArg& a) {
  std::vector<unsigned char> b(elem_size(a.type));
  if (a.type == "f32") {
    const float v = std::stof(a.value);
    std::memcpy(b.data(), &v, 4);
  } else if (a.type == "f64") {
    const double v = std::stod(a.value);
    std::memcpy(b.data(), &v, 8);
  } else if (a.type == "i32") {
    const int v = static_cast<int>(std::stoll(a.value));
    std::memcpy(b.data(), &v, 4);
  } else if (a.type == "u32") {
    const unsigned v = static_cast<unsigned>(std::stoull(a.value));
    std::memcpy(b.data(), &v, 4);
  } else if (a.type == "i64") {
    const long long v = std::stoll(a.value);
    std::memcpy(b.data(), &v, 8);
  } else if (a.type == "u64") {
    const unsigned long long v = std::stoull(a.value);
    std::memcpy(b.data(), &v, 8);
  } else {
    throw std::runtime_error("scalar type `" + a.type + "` not allowed");
  }
  return b;
}

unsigned long long splitmix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
unsigned long long counter_random(unsigned long long seed, unsigned long long stream, unsigned long long i) {
  return splitmix64(splitmix64(seed ^ splitmix64(stream + 0x632be59bd9b4e019ull)) + i);
}

unsigned short f2h(float f) {  // round-to-nearest-even float -> half bits (no NaN inputs here)
  unsigned u;
  std::memcpy(&u, &f, 4);
  const unsigned sign = (u >> 16) & 0x8000u;
  int e = static_cast<int>((u >> 23) & 0xff) - 127 + 15;
  unsigned m = u & 0x7fffffu;
  if (e >= 31) return static_cast<unsigned short>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return static_cast<unsigned short>(sign);
    m |= 0x800000u;
    const int shift = 14 - e;
    unsigned h = m >> shift;
    const unsigned rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<unsigned short>(sign | h);
  }
  unsigned h = (static_cast<unsigned>(e) << 10) | (m >> 13);
  const unsigned rem = m & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<unsigned short>(sign | h);
}
unsigned short f2bf(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<unsigned short>(u >> 16);
}

// Initial bytes of buffer `idx` (its position in the argument list), kernsim semantics.
std::vector<unsigned char> init_bytes(const SpecArg& a, unsigned long long seed, std::size_t idx) {
  const std::size_t es = elem_size(a.type);
  std::vector<unsigned char> out(a.count * es, 0);
  if (a.init == "zeros") return out;
  const bool is_float = a.type == "f32" || a.type == "f64" || a.type == "f16" || a.type == "bf16";
  auto store = [&](std::size_t i, double v, long long iv, bool integral) {
    unsigned char* p = out.data() + i * es;
    if (a.type == "f32") {
      const float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
    } else if (a.type == "f64") {
      std::memcpy(p, &v, 8);
    } else if (a.type == "f16") {
      const unsigned short h = f2h(static_cast<float>(v));
      std::memcpy(p, &h, 2);
    } else if (a.type == "bf16") {
      const unsigned short h = f2bf(static_cast<float>(v));
      std::memcpy(p, &h, 2);
    } else {
      const long long x = integral ? iv : static_cast<long long>(v);
      std::memcpy(p, &x, es);  // little-endian truncation to the element size
    }
  };
  if (a.init == "iota") {
    for (std::size_t i = 0; i < a.count; ++i) store(i, static_cast<double>(i), static_cast<long long>(i), true);
  } else if (a.init == "uniform") {
    for (std::size_t i = 0; i < a.count; ++i) {
      const unsigned long long r = counter_random(seed, idx, i);
      if (is_float) {
        store(i, static_cast<double>(r >> 40) / 8388608.0 - 1.0, 0, false);
      } else {
        const long long v = (a.type == "u8" || a.type == "u32") ? static_cast<long long>(r & 0xff)
                                                                : static_cast<long long>(r & 0xff) - 128;
        store(i, 0, v, true);
      }
    }
  } else if (a.init.rfind("randint:", 0) == 0) {
    auto f = split(a.init, ':');
    if (f.size() != 3) throw std::runtime_error("bad init `" + a.init + "`");
    const long long lo = std::stoll(f[1]), hi = std::stoll(f[2]);
    const unsigned long long span = static_cast<unsigned long long>(hi - lo) + 1;
    for (std::size_t i = 0; i < a.count; ++i) {
      const unsigned long long r = counter_random(seed, idx, i);
      const long long v = lo + static_cast<long long>(span == 0 ? r : r % span);
      store(i, static_cast<double>(v), v, true);
    }
  } else {
    throw std::runtime_error("init `" + a.init + "` not supported by the replay");
  }
  return out;
}

const void* find_kernel(const std::string& name) {
  static std::vector<KernelEntry> reg;
  if (reg.empty()) register_kernels(reg);
  for (const auto& e : reg)
    if (name == e.name) return e.fn;
  return nullptr;
}

void print_layout(const Spec& s) {
  std::printf("PARSED %s %s grid=%u,%u,%u block=%u,%u,%u smem=%llu registered=%d args=", s.id.c_str(), s.kernel.c_str(),
              s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1], s.block[2], s.smem,
              find_kernel(s.kernel) ? 1 : 0);
  for (std::size_t i = 0; i < s.args.size(); ++i) {
    const auto& a = s.args[i];
    if (a.buffer) {
      const auto bytes = init_bytes(a, s.seed, i);
      unsigned long long h = 1469598103934665603ull;  // FNV-1a of the initial bytes (first 1 MiB)
      for (std::size_t j = 0; j < bytes.size() && j < (1u << 20); ++j) h = (h ^ bytes[j]) * 1099511628211ull;
      std::printf("%sptr8[%s x %llu, %zu B, fnv=%016llx]", i ? "," : "", a.type.c_str(), a.count, bytes.size(), h);
    } else {
      const auto b = scalar_bytes(a);
      std::printf("%s%s%zu[", i ? "," : "", a.type.c_str(), b.size());
      for (unsigned char c : b) std::printf("%02x", c);
      std::printf("]");
    }
  }
  std::printf("\n");
}

void group_specs(Context& ctx, const std::string& file) {
  std::vector<Spec> specs;
  guarded(ctx, "parse", [&] { specs = parse_specs(file); });
  for (const Spec& s : specs) {
    guarded(ctx, "spec." + s.id, [&] {
      const void* fn = find_kernel(s.kernel);
      if (!fn) throw std::runtime_error("kernel `" + s.kernel + "` is not registered in mb_host");
      std::vector<DevBuf> bufs;
      std::vector<std::vector<unsigned char>> storage(s.args.size());
      std::vector<void*> argv(s.args.size());
      double bytes_total = 0;
      for (std::size_t i = 0; i < s.args.size(); ++i) {
        const auto& a = s.args[i];
        if (a.buffer) {
          const std::size_t nb = a.count * elem_size(a.type);
          bufs.emplace_back(nb, a.init == "zeros");
          if (a.init != "zeros") {
            const auto init = init_bytes(a, s.seed, i);
            MB_CHECK(cudaMemcpy(bufs.back().p, init.data(), nb, cudaMemcpyHostToDevice));
          }
          storage[i].resize(sizeof(void*));
          void* p = bufs.back().p;
          std::memcpy(storage[i].data(), &p, sizeof p);
          bytes_total += static_cast<double>(nb);
        } else {
          storage[i] = scalar_bytes(a);
        }
        argv[i] = storage[i].data();
      }
      if (s.smem > 48 * 1024)
        MB_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(s.smem)));
      const dim3 g(s.grid[0], s.grid[1], s.grid[2]), b(s.block[0], s.block[1], s.block[2]);
      auto launch = [&] {
        MB_CHECK(cudaLaunchKernel(fn, g, b, argv.empty() ? nullptr : argv.data(), static_cast<std::size_t>(s.smem),
                                  ctx.stream));
      };
      launch();  // warm-up (module load); buffers are not re-initialised between launches
      ctx.sync();
      std::vector<double> us_v, us_q;
      for (int r = 0; r < reps(ctx); ++r) {
        ctx.flush_l2();
        us_v.push_back(1000.0 * ctx.time_ms(launch));
      }
      for (int r = 0; r < reps(ctx); ++r) {
        ctx.flush_l2();
        us_q.push_back(1000.0 * ctx.time_ms_queued(launch));
      }
      // Small 64-bit integer buffers (the latency kernels' out[]: cycles, steps, ...) after the last launch.
      JObj dumps;
      std::size_t bi = 0;
      for (std::size_t i = 0; i < s.args.size(); ++i) {
        if (!s.args[i].buffer) continue;
        const DevBuf& d = bufs[bi++];
        if ((s.args[i].type != "i64" && s.args[i].type != "u64") || s.args[i].count > 16) continue;
        auto v = d.u64(s.args[i].count);
        std::string arr = "[";
        for (std::size_t j = 0; j < v.size(); ++j) arr += (j ? "," : "") + std::to_string(v[j]);
        dumps.raw("arg" + std::to_string(i), arr + "]");
      }
      emit_result("spec." + s.id, "us", us_v,
                  JObj()
                      .raw("final_u64_buffers", dumps.dump())
                      .str("kernel", s.kernel)
                      .raw("grid", "[" + std::to_string(s.grid[0]) + "," + std::to_string(s.grid[1]) + "," +
                                       std::to_string(s.grid[2]) + "]")
                      .raw("block", "[" + std::to_string(s.block[0]) + "," + std::to_string(s.block[1]) + "," +
                                        std::to_string(s.block[2]) + "]")
                      .num("buffer_bytes", bytes_total)
                      .num("queued_us", median(us_q))
                      .num("sm_mhz", ctx.mhz())
                      .str("formula",
                           "event time of one launch after an L2 flush (cold caches, as kernsim "
                           "assumes); queued_us: the same queued behind a spin kernel"));
    });
  }
}

// ---- the run ---------------------------------------------------------------------------------

struct Args {
  std::vector<std::string> groups = {"clock",   "latency", "shared", "alu", "mma",   "bandwidth",
                                     "atomics", "launch",  "wgmma",  "tma", "hsync", "tclock"};
  Options opt;
  double sm_mhz = 0;
  std::string specs;
  bool list = false;
  std::string parse;
};

[[noreturn]] void usage(const std::string& msg) {
  std::fprintf(stderr, "mb_host: %s\n", msg.c_str());
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage(s + " needs a value");
      return argv[++i];
    };
    if (s == "--groups")
      a.groups = split(val(), ',');
    else if (s == "--quick")
      a.opt.quick = true;
    else if (s == "--reps")
      a.opt.reps = std::stoi(val());
    else if (s == "--target-ms")
      a.opt.target_ms = std::stod(val());
    else if (s == "--sm-mhz")
      a.sm_mhz = std::stod(val());
    else if (s == "--specs")
      a.specs = val();
    else if (s == "--list-kernels")
      a.list = true;
    else if (s == "--parse-specs")
      a.parse = val();
    else
      usage("unknown option " + s);
  }
  return a;
}

void emit_info(const Context& c) {
  int drv = 0, rt = 0;
  (void)cudaDriverGetVersion(&drv);
  (void)cudaRuntimeGetVersion(&rt);
  int mem_khz = 0, bus = 0, max_blocks = 0;
  (void)cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, c.device);
  (void)cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, c.device);
  (void)cudaDeviceGetAttribute(&max_blocks, cudaDevAttrMaxBlocksPerMultiprocessor, c.device);
  (void)cudaGetLastError();
  char pci[64] = {0};
  (void)cudaDeviceGetPCIBusId(pci, sizeof pci, c.device);
  (void)cudaGetLastError();
  JObj o;
  o.str("name", c.prop.name)
      .raw("compute_capability", "\"" + std::to_string(c.prop.major) + "." + std::to_string(c.prop.minor) + "\"")
      .num("sm_count", c.sm_count)
      .num("clock_rate_khz_attr", c.clock_khz)
      .num("memory_clock_khz_attr", mem_khz)
      .num("memory_bus_width_bits", bus)
      .num("l2_bytes", static_cast<double>(c.l2_bytes))
      .num("persisting_l2_max_bytes", c.prop.persistingL2CacheMaxSize)
      .num("total_global_mem_bytes", static_cast<double>(c.prop.totalGlobalMem))
      .num("shared_per_sm_bytes", static_cast<double>(c.prop.sharedMemPerMultiprocessor))
      .num("shared_per_block_optin_bytes", static_cast<double>(c.prop.sharedMemPerBlockOptin))
      .num("regs_per_sm", c.prop.regsPerMultiprocessor)
      .num("max_threads_per_sm", c.prop.maxThreadsPerMultiProcessor)
      .num("max_blocks_per_sm", max_blocks)
      .num("ecc_enabled", c.prop.ECCEnabled)
      .num("driver_version", drv)
      .num("runtime_version", rt)
      .str("pci_bus_id", pci);
  std::printf("@@INFO %s\n", o.dump().c_str());
  std::fflush(stdout);
}

int run(const Args& a) {
  Context ctx;
  ctx.opt = a.opt;
  ctx.sm_mhz = a.sm_mhz;
  try {
    int n = 0;
    MB_CHECK(cudaGetDeviceCount(&n));
    if (n < 1) throw CudaError("no CUDA device", true);
    MB_CHECK(cudaSetDevice(0));
    MB_CHECK(cudaGetDeviceProperties(&ctx.prop, 0));
    ctx.sm_count = ctx.prop.multiProcessorCount;
    ctx.l2_bytes = static_cast<std::size_t>(ctx.prop.l2CacheSize);
    (void)cudaDeviceGetAttribute(&ctx.clock_khz, cudaDevAttrClockRate, 0);
    (void)cudaGetLastError();
    MB_CHECK(cudaStreamCreate(&ctx.stream));  // blocking: ordered after legacy-stream memsets/copies
    MB_CHECK(cudaEventCreate(&ctx.ev0));
    MB_CHECK(cudaEventCreate(&ctx.ev1));
    ctx.flush_bytes = std::max<std::size_t>(4 * ctx.l2_bytes, 256u << 20);
    MB_CHECK(cudaMalloc(&ctx.flush_buf, ctx.flush_bytes));
    MB_CHECK(cudaMemset(ctx.flush_buf, 0, ctx.flush_bytes));
    MB_CHECK(cudaMalloc(reinterpret_cast<void**>(&ctx.flush_sink), 64));
    MB_CHECK(cudaDeviceSynchronize());
  } catch (const std::exception& e) {
    JObj o;
    o.str("group", "init").str("error", e.what());
    std::printf("@@FATAL %s\n", o.dump().c_str());
    return 3;
  }
  emit_info(ctx);
  for (const std::string& g : a.groups) {
    ctx.group = g;
    std::printf("@@GROUP_START %s\n", g.c_str());
    std::fflush(stdout);
    try {
      if (g == "clock")
        group_clock(ctx);
      else if (g == "latency")
        group_latency(ctx);
      else if (g == "shared")
        group_shared(ctx);
      else if (g == "alu")
        group_alu(ctx);
      else if (g == "mma")
        group_mma(ctx);
      else if (g == "bandwidth")
        group_bandwidth(ctx);
      else if (g == "atomics")
        group_atomics(ctx);
      else if (g == "launch")
        group_launch(ctx);
      else if (g == "wgmma")
        group_wgmma(ctx);
      else if (g == "tma")
        group_tma(ctx);
      else if (g == "hsync")
        group_hsync(ctx);
      else if (g == "tclock")
        group_tclock(ctx);
      else if (g == "specs") {
        if (a.specs.empty())
          emit_error(ctx, "specs", "no --specs file given");
        else
          group_specs(ctx, a.specs);
      } else
        emit_error(ctx, g, "unknown group");
      // A sticky error from the last asynchronous launch surfaces here.
      MB_CHECK(cudaDeviceSynchronize());
    } catch (const std::exception& e) {
      JObj o;
      o.str("group", g).str("error", e.what());
      std::printf("@@FATAL %s\n", o.dump().c_str());
      std::fflush(stdout);
      return 3;
    }
    std::printf("@@GROUP_END %s\n", g.c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace mb

int main(int argc, char** argv) {
  const mb::Args a = mb::parse_args(argc, argv);
  if (a.list) {
    std::vector<mb::KernelEntry> k;
    mb::register_kernels(k);
    for (const auto& e : k) std::printf("%s\n", e.name);
    return 0;
  }
  if (!a.parse.empty()) {
    try {
      for (const auto& s : mb::parse_specs(a.parse)) mb::print_layout(s);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mb_host: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  return mb::run(a);
}
