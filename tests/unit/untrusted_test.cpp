// Untrusted kernels and inputs (issue 16): each reproduction of the issue as a regression test.
// Device values the models cannot hold, a launch spec nested 100,000 deep, a crafted code object,
// local memory and grids no simulation can hold, child processes that outlive or outgrow their
// bounds, sources that read host files, a global timer that gives the simulation away, a fault in
// a block that sampling never runs, and determinism at 1 and 2 threads. The kernels are PTX text
// written here (no clang needed).
#include <signal.h>
#include <sys/wait.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "api/launch_spec.h"
#include "api/run.h"
#include "base/files.h"
#include "base/process.h"
#include "device/loader.h"
#include "frontends/source_policy.h"
#include "isa/amdgcn/code_object.h"
#include "sim/functional/ptx_exec.h"
#include "test_util.h"

namespace kernsim {
namespace {

namespace fs = std::filesystem;
using test::expect_error;
using test::TempDir;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const char* kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64

// every thread writes out[global id]; the grid has one block more than the buffer holds
.visible .entry store_id(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}

// a chain: block i > 0 (thread 0) waits until flags[i] is set, then sets flags[i + 1]; run alone,
// a late block waits forever on a block that never ran
.visible .entry chain(.param .u64 flags)
{
  .reg .pred %p<3>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [flags];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mul.wide.u32 %rd2, %r2, 4;
  add.u64 %rd3, %rd1, %rd2;
  setp.eq.u32 %p2, %r2, 0;
  @%p2 bra SIGNAL;
WAIT:
  ld.volatile.global.u32 %r3, [%rd3];
  setp.eq.u32 %p2, %r3, 0;
  @%p2 bra WAIT;
SIGNAL:
  mov.u32 %r4, 1;
  st.volatile.global.u32 [%rd3+4], %r4;
DONE:
  ret;
}

// a 64 MiB local array per thread
.visible .entry big_local(.param .u64 out)
{
  .local .align 4 .b8 arr[67108864];
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  mov.u64 %rd1, arr;
  mov.u32 %r1, 7;
  st.local.u32 [%rd1], %r1;
  ret;
}

// thread 0 writes %globaltimer, %globaltimer_hi:lo and %clock64
.visible .entry timers(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u64 %rd2, %globaltimer;
  mov.u32 %r1, %globaltimer_lo;
  mov.u32 %r2, %globaltimer_hi;
  mov.u64 %rd3, %clock64;
  st.global.u64 [%rd1], %rd2;
  st.global.u32 [%rd1+8], %r1;
  st.global.u32 [%rd1+12], %r2;
  st.global.u64 [%rd1+16], %rd3;
  ret;
}
)";

fs::path kernel_dir() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("kernsim_untrusted_" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::ofstream(d / "untrusted.ptx") << kPtx;
    return d;
  }();
  return dir;
}

api::RunResult run_spec(const std::string& json, api::RunOptions opts = {}) {
  auto spec = api::parse_launch_spec_text(json, kernel_dir(), "test spec");
  return api::run_launch(spec, device::load_builtin_device("h200"), opts);
}

// ---- device files ----

TEST(Untrusted, NegativeZeroNanAndInfiniteDeviceValuesAreRejectedAtLoad) {
  TempDir t;
  auto file = [&](const std::string& name, const std::string& section, const std::string& key,
                  const std::string& value) {
    return t.write(name, "inherits: h200\n" + section + ":\n  " + key + ": {value: " + value +
                             ", source: a-b, confidence: estimated}\n");
  };
  expect_error([&] { device::load_device_file(file("neg.yaml", "sm", "count", "-4")); }, ErrorKind::DeviceFile,
               {"neg.yaml:3", "`sm.count`", "negative"});
  expect_error([&] { device::load_device_file(file("negbw.yaml", "dram", "bandwidth_gbps", "-1")); },
               ErrorKind::DeviceFile, {"negbw.yaml:3", "`dram.bandwidth_gbps`"});
  expect_error([&] { device::load_device_file(file("zero.yaml", "l2", "bytes", "0")); }, ErrorKind::DeviceFile,
               {"zero.yaml:3", "`l2.bytes`", "at least 1"});
  expect_error([&] { device::load_device_file(file("nan.yaml", "clocks", "core_mhz", ".nan")); }, ErrorKind::DeviceFile,
               {"nan.yaml:3", "`clocks.core_mhz`"});
  expect_error([&] { device::load_device_file(file("inf.yaml", "l2", "bytes_per_cycle", ".inf")); },
               ErrorKind::DeviceFile, {"inf.yaml:3", "`l2.bytes_per_cycle`", "finite"});
  expect_error([&] { device::load_device_file(file("ninf.yaml", "dram", "read_efficiency", "-.inf")); },
               ErrorKind::DeviceFile, {"ninf.yaml:3", "`dram.read_efficiency`"});
}

// ---- launch specs ----

TEST(Untrusted, JsonNested100000DeepIsRefusedWithoutOverflowingTheStack) {
  const int depth = 100000;
  const std::string arrays = std::string(depth, '[') + std::string(depth, ']');
  std::string objects;
  for (int i = 0; i < depth; ++i) objects += "{\"a\":";
  objects += "1" + std::string(depth, '}');
  for (const std::string& text :
       {arrays, objects, R"({"source": "x.ptx", "kernel": "k", "grid": 1, "block": 1, "args": )" + arrays + "}",
        R"({"source": "x.ptx", "kernel": "k", "grid": 1, "block": 1, "args": [], "notes": )" + objects + "}"})
    expect_error([&] { api::parse_launch_spec_text(text, kernel_dir(), "deep.json"); }, ErrorKind::LaunchSpec,
                 {"deep.json"});
  // unbalanced: the parser stops at the end of the text with a syntax error
  expect_error([&] { api::parse_launch_spec_text(std::string(depth, '['), kernel_dir(), "open.json"); },
               ErrorKind::LaunchSpec, {"open.json"});
}

// ---- code objects ----

// The seed code object of the fuzz corpus (tests/fuzz/corpus), with its kernel descriptor
// symbol moved to `addr`: the ELF64 symbol table is walked by hand.
std::vector<std::uint8_t> code_object_with_descriptor_at(std::uint64_t addr) {
  const std::string text =
      read_file(fs::path(KERNSIM_TEST_DATA) / ".." / "fuzz" / "corpus" / "code_object" / "isa_semantics.hsaco");
  std::vector<std::uint8_t> elf(text.begin(), text.end());
  auto u16 = [&](std::size_t o) {
    std::uint16_t v;
    std::memcpy(&v, elf.data() + o, 2);
    return v;
  };
  auto u32 = [&](std::size_t o) {
    std::uint32_t v;
    std::memcpy(&v, elf.data() + o, 4);
    return v;
  };
  auto u64 = [&](std::size_t o) {
    std::uint64_t v;
    std::memcpy(&v, elf.data() + o, 8);
    return v;
  };
  const std::uint64_t shoff = u64(0x28);
  const std::uint16_t shentsize = u16(0x3a), shnum = u16(0x3c);
  int moved = 0;
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::size_t sh = shoff + std::size_t{i} * shentsize;
    const std::uint32_t type = u32(sh + 4);
    if (type != 2 && type != 11) continue;  // SHT_SYMTAB, SHT_DYNSYM
    const std::size_t off = u64(sh + 0x18), size = u64(sh + 0x20), entsize = u64(sh + 0x38);
    const std::size_t strtab = u64(shoff + std::size_t{u32(sh + 0x28)} * shentsize + 0x18);
    for (std::size_t s = off; s + entsize <= off + size; s += entsize) {
      const std::string name(reinterpret_cast<const char*>(elf.data() + strtab + u32(s)));
      if (name.size() > 3 && name.compare(name.size() - 3, 3, ".kd") == 0) {
        std::memcpy(elf.data() + s + 8, &addr, 8);  // st_value
        ++moved;
      }
    }
  }
  EXPECT_GT(moved, 0) << "the seed code object has no kernel descriptor symbol";
  return elf;
}

TEST(Untrusted, CraftedCodeObjectWithADescriptorNearTwoToThe64IsRefused) {
  // the unmodified seed reads (the test below fails for the change, not for the file)
  const auto good = code_object_with_descriptor_at(0);
  (void)good;
  for (std::uint64_t addr : {~std::uint64_t{0} - 63, ~std::uint64_t{0} - 8, ~std::uint64_t{0}}) {
    const auto elf = code_object_with_descriptor_at(addr);
    expect_error([&] { isa::amdgcn::read_code_object(elf, "crafted.co"); }, ErrorKind::Parse,
                 {"crafted.co", ".kd`", "outside the loadable segments"});
  }
}

// ---- memory and grid size ----

TEST(Untrusted, HugeLocalArrayIsRefusedBeforeAllocationNamingTheSize) {
  const auto t0 = std::chrono::steady_clock::now();
  expect_error(
      [] {
        run_spec(R"({"source": "untrusted.ptx", "kernel": "big_local", "grid": 1024, "block": 256,
                                 "args": [{"buffer": "u32", "count": 1}]})");
      },
      ErrorKind::LaunchSpec, {"local memory", "67108864 bytes per thread", "dram.bytes"});
  // within the part's memory but not the host's: one block of 256 threads is 16 GiB
  api::RunOptions small;
  small.host_memory_limit_bytes = std::uint64_t{1} << 30;
  expect_error(
      [&] {
        run_spec(R"({"source": "untrusted.ptx", "kernel": "big_local", "grid": 1, "block": 256,
                                  "args": [{"buffer": "u32", "count": 1}]})",
                 small);
      },
      ErrorKind::LaunchSpec, {"local memory"});
  EXPECT_LT(seconds_since(t0), 10.0);
}

TEST(Untrusted, BuffersLargerThanThePartOrTheHostAreRefusedByName) {
  // three buffers of 60 GB (each within the spec reader's 64 GiB) exceed h200's 150 GB
  const std::string big = R"({"buffer": "f64", "count": 7500000000})";
  api::RunOptions roomy;  // a host with more memory than the part
  roomy.host_memory_limit_bytes = std::uint64_t{1} << 50;
  expect_error(
      [&] {
        run_spec(R"({"source": "untrusted.ptx", "kernel": "store_id", "grid": 1, "block": 32, "args": [)" + big + "," +
                     big + "," + big + "]}",
                 roomy);
      },
      ErrorKind::LaunchSpec, {"the buffers take 180000000000 bytes", "h200's memory", "dram.bytes"});
  api::RunOptions small;
  small.host_memory_limit_bytes = 1 << 20;
  expect_error(
      [&] {
        run_spec(R"({"source": "untrusted.ptx", "kernel": "store_id", "grid": 1, "block": 32,
                                  "args": [{"buffer": "u32", "count": 1000000}]})",
                 small);
      },
      ErrorKind::LaunchSpec, {"`args[0]`", "u32[1000000]", "4000000 bytes", "host memory limit"});
}

TEST(Untrusted, AbsurdGridIsRefusedWithinTenSeconds) {
  const auto t0 = std::chrono::steady_clock::now();
  expect_error(
      [] {
        run_spec(R"({"source": "untrusted.ptx", "kernel": "store_id", "grid": [2147483647, 65535, 1], "block": 32,
                                 "args": [{"buffer": "u32", "count": 1}]})");
      },
      ErrorKind::KernelFault, {"`grid`", "cannot finish within the instruction limit of 4000000000"});
  EXPECT_LT(seconds_since(t0), 10.0);
  // the limit is the one the launch runs under
  api::RunOptions o;
  o.max_instructions = 4;
  expect_error(
      [&] {
        run_spec(R"({"source": "untrusted.ptx", "kernel": "store_id", "grid": 5, "block": 32,
                                  "args": [{"buffer": "u32", "count": 1}]})",
                 o);
      },
      ErrorKind::KernelFault, {"5 blocks x 1 warps each", "instruction limit of 4 warp"});
}

// ---- child processes ----

TEST(Untrusted, ChildProcessIsStoppedAtItsWallTimeLimit) {
  ProcessLimits l;
  l.wall_time_s = 0.5;
  const auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_process({"/bin/sh", "-c", "sleep 30"}, l);
  EXPECT_LT(seconds_since(t0), 5.0);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
  EXPECT_THAT(r.err, ::testing::HasSubstr("child wall-time limit"));
  // a child that finishes in time is not touched
  ProcessResult ok = run_process({"/bin/sh", "-c", "echo hi"}, l);
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.out, "hi\n");
  EXPECT_FALSE(ok.timed_out);
}

TEST(Untrusted, ChildProcessRunsUnderAnAddressSpaceAndCpuLimit) {
  ProcessLimits l;
  l.wall_time_s = 30;
  l.memory_bytes = std::uint64_t{512} << 20;
  ProcessResult r = run_process({"/bin/sh", "-c", "ulimit -v; ulimit -t"}, l);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::to_string(512 * 1024) + "\n30\n");  // KiB, seconds
}

TEST(Untrusted, ChildProcessDiesWithItsParent) {
  TempDir t;
  const fs::path pidfile = t.path() / "child.pid";
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {  // the "kernsim" whose caller times it out: runs a child that would sleep
    run_process({"/bin/sh", "-c", "echo $$ > " + pidfile.string() + "; exec sleep 60"});
    _exit(0);
  }
  pid_t child = 0;
  for (int i = 0; i < 500 && child == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream in(pidfile);
    if (in >> child && child > 0) break;
    child = 0;
  }
  ASSERT_GT(child, 0) << "the child never started";
  ::kill(parent, SIGKILL);  // as an RL evaluator's timeout does
  ::waitpid(parent, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 300 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    gone = ::kill(child, 0) != 0;  // the orphan is reaped by init once killed
  }
  EXPECT_TRUE(gone) << "child " << child << " outlived its parent";
  if (!gone) ::kill(child, SIGKILL);
}

// ---- host isolation ----

TEST(Untrusted, SourcesThatReadHostFilesAreRefusedByName) {
  TempDir t;
  const fs::path src = t.write("k.cu", "");
  auto check = [&](const std::string& text, std::vector<std::string> flags = {}) {
    frontends::check_host_reads(src, text, flags, "c");
  };
  expect_error([&] { check("#include \"/etc/hostname\"\n"); }, ErrorKind::Compile,
               {"k.cu:1", "/etc/hostname", "absolute path"});
  expect_error([&] { check("// x\n  #  include </etc/passwd>\n"); }, ErrorKind::Compile, {"k.cu:2", "absolute path"});
  expect_error([&] { check("#include \"../../../../../../etc/hostname\"\n"); }, ErrorKind::Compile,
               {"k.cu:1", "resolves to /etc/hostname, outside the allowed directories"});
  expect_error([&] { check("#include <../../etc/hostname>\n"); }, ErrorKind::Compile,
               {"k.cu:1", "resolves to /etc/hostname, outside the allowed directories"});
  expect_error([&] { check("#define F \"/etc/hostname\"\n#include F\n"); }, ErrorKind::Compile,
               {"k.cu:2", "computed name"});
  expect_error([&] { check("const char d[] = {\n#embed \"data.bin\"\n};\n"); }, ErrorKind::Compile,
               {"k.cu:2", "#embed"});
  expect_error([&] { check("#\\\nembed \"x\"\n"); }, ErrorKind::Compile, {"#embed"});
  expect_error([&] { check("#if __has_embed(\"/etc/hostname\")\n#endif\n"); }, ErrorKind::Compile, {"__has_embed"});
  expect_error([&] { check("__global__ void k() { asm(\".inc\" \"bin \\\"/etc/hostname\\\"\"); }\n"); },
               ErrorKind::Compile, {"k.cu:1", ".incbin"});
  expect_error([&] { check("asm(\".INCBIN \\\"/etc/hostname\\\"\");\n"); }, ErrorKind::Compile, {".incbin"});
  expect_error(
      [&] { frontends::check_host_reads(t.path() / "k.s", "s_nop 0\n.incbin \"/etc/hostname\"\n", {}, "asm"); },
      ErrorKind::Compile, {"k.s:2", ".incbin"});
  // a header beside the source is read and checked too; a symlink out of the directory is refused
  t.write("inner.h", "#include \"/etc/hostname\"\n");
  expect_error([&] { check("#include \"inner.h\"\n"); }, ErrorKind::Compile, {"inner.h:1", "absolute path"});
  fs::create_symlink("/etc/hostname", t.path() / "host.h");
  expect_error([&] { check("#include \"host.h\"\n"); }, ErrorKind::Compile,
               {"host.h", "outside the allowed directories"});
  // allowed: headers beside the source, in -I directories (`..` inside them), system headers, comments
  TempDir inc;
  inc.write("sub/a.h", "#include \"../b.h\"\n");
  inc.write("b.h", "int b;\n");
  t.write("ok.h", "int ok;\n");
  check(
      "#include \"ok.h\"\n#include <cuda_fp16.h>\n#include <sub/a.h>\n// #include \"/etc/hostname\"\n/* #embed \"x\" "
      "*/\n",
      {"-I", inc.path().string()});
}

TEST(Untrusted, AHostFileIncludeIsRefusedBeforeTheCompilerRuns) {
  TempDir t;
  t.write("k.cu", "#include \"/etc/hostname\"\n__global__ void k(int* p) { *p = 1; }\n");
  t.write("k.json",
          R"({"source": "k.cu", "kernel": "k", "grid": 1, "block": 1, "args": [{"buffer": "i32", "count": 1}]})");
  auto spec = api::parse_launch_spec(t.path() / "k.json");
  std::string hostname;
  try {
    hostname = read_file("/etc/hostname");
  } catch (const Error&) {
  }
  try {
    api::run_launch(spec, device::load_builtin_device("h200"), {});
    ADD_FAILURE() << "a source including /etc/hostname ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Compile) << e.what();
    EXPECT_THAT(e.what(), ::testing::HasSubstr("/etc/hostname"));
    while (!hostname.empty() && (hostname.back() == '\n' || hostname.back() == ' ')) hostname.pop_back();
    if (hostname.size() > 3) {
      EXPECT_THAT(e.what(), ::testing::Not(::testing::HasSubstr(hostname))) << "the host file's content leaked";
    }
  }
}

// ---- a simulation that cannot be detected ----

TEST(Untrusted, GlobalTimerReadsARealisticEpochAndClock64SimulatedCycles) {
  api::RunOptions o;
  o.keep_outputs = true;
  auto r = run_spec(R"({"source": "untrusted.ptx", "kernel": "timers", "grid": 1, "block": 32,
                        "args": [{"buffer": "i64", "count": 3}]})",
                    o);
  ASSERT_EQ(r.outputs.size(), 1u);
  std::uint64_t v[3];
  std::memcpy(v, r.outputs[0].bytes.data(), sizeof v);
  // a real H100/H200 reads nanoseconds since 1970: 1.7e18 in late 2023, 2.0e18 in 2033
  EXPECT_GE(v[0], 1'600'000'000'000'000'000ull);
  EXPECT_LT(v[0], 2'000'000'000'000'000'000ull);
  // simulated time since the start: under a microsecond for this kernel
  EXPECT_LT(v[0] - sim::kGlobalTimerStartNs, 1000u);
  EXPECT_EQ(v[1] >> 32, v[0] >> 32) << "%globaltimer_hi is the high word of %globaltimer";
  EXPECT_GE(static_cast<std::uint32_t>(v[1]), static_cast<std::uint32_t>(v[0]));
  // %clock64: cycles of this launch, the same run after run
  EXPECT_GT(v[2], 0u);
  EXPECT_LT(v[2], 100000u);
  auto again = run_spec(R"({"source": "untrusted.ptx", "kernel": "timers", "grid": 1, "block": 32,
                            "args": [{"buffer": "i64", "count": 3}]})",
                        o);
  EXPECT_EQ(again.outputs[0].bytes, r.outputs[0].bytes) << "the timers are deterministic";
}

// ---- verdicts in sampled mode ----

// 65,537 blocks of 256 threads write out[global id]; the buffer holds 65,536 blocks' worth
const char* kOobGrid = R"({"source": "untrusted.ptx", "kernel": "store_id", "grid": 65537, "block": 256,
                           "args": [{"buffer": "u32", "count": 16777216}]})";

TEST(Untrusted, OutOfBoundsWriteInTheLastOf65537BlocksIsCaughtBySampledRunsToo) {
  // the sampled run times the first blocks and probes the grid's corners: block 65536 faults
  expect_error([&] { run_spec(kOobGrid); }, ErrorKind::KernelFault, {"store_id", "(65536,0,0)"});
}

TEST(Untrusted, SampledRunSaysWhichBlocksItChecked) {
  auto r = run_spec(R"({"source": "untrusted.ptx", "kernel": "store_id", "grid": 65536, "block": 256,
                        "args": [{"buffer": "u32", "count": 16777216}]})");
  const auto j = nlohmann::json::parse(r.report_json);
  EXPECT_FALSE(j["checked"]["all_ctas"].get<bool>());
  EXPECT_EQ(j["checked"]["ctas"].get<std::uint64_t>(), 65536u);
  EXPECT_LT(j["checked"]["ctas_run_to_completion"].get<std::uint64_t>(), 65536u);
  EXPECT_EQ(j["checked"]["corner_ctas_probed"].get<std::uint64_t>(), 1u) << "block 65535 (block 0 was timed)";
  EXPECT_EQ(j["checked"]["corner_ctas_open"].get<std::uint64_t>(), 0u);
  EXPECT_THAT(r.report_text, ::testing::HasSubstr("faults and endless loops in the others are not detected"));
}

TEST(Untrusted, ACornerBlockThatWaitsOnBlocksThatNeverRanIsOpenNotAFault) {
  // block 65535 alone spins on flags[65535], which block 65534 (never run) would set
  auto r = run_spec(R"({"source": "untrusted.ptx", "kernel": "chain", "grid": 65536, "block": 64,
                        "args": [{"buffer": "u32", "count": 65537}]})");
  EXPECT_GT(r.time_us, 0);
  const auto j = nlohmann::json::parse(r.report_json);
  EXPECT_EQ(j["checked"]["corner_ctas_probed"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["checked"]["corner_ctas_open"].get<std::uint64_t>(), 1u);
  EXPECT_THAT(r.report_text, ::testing::HasSubstr("1 corner blocks did not end alone"));
}

TEST(Untrusted, OutOfBoundsWriteInTheLastOf65537BlocksIsCaughtWhenEveryBlockIsChecked) {
  api::RunOptions o;
  o.check_all = true;
  expect_error([&] { run_spec(kOobGrid, o); }, ErrorKind::KernelFault, {"store_id", "(65536,0,0)"});
  // the same grid within the buffer: every block checked, no fault, a time
  auto r = run_spec(R"({"source": "untrusted.ptx", "kernel": "store_id", "grid": 65536, "block": 256,
                        "args": [{"buffer": "u32", "count": 16777216}]})",
                    o);
  EXPECT_GT(r.time_us, 0);
  EXPECT_TRUE(nlohmann::json::parse(r.report_json)["checked"]["all_ctas"].get<bool>());
}

// ---- determinism ----

// The same launch (input, seed) gives bit-identical times and outputs whether launches run on 1
// or 2 threads (as `kernsim validate --threads` and Python's score_many run them).
TEST(Untrusted, SameLaunchGivesBitIdenticalResultsAtOneAndTwoThreads) {
  const std::string spec = R"({"source": "untrusted.ptx", "kernel": "store_id", "grid": 4096, "block": 128, "seed": 7,
                               "args": [{"buffer": "u32", "count": 524288}]})";
  api::RunOptions o;
  o.keep_outputs = true;
  auto run_batch = [&](int threads) {
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    std::vector<api::RunResult> rs(4);
    tbb::parallel_for(0, 4, [&](int i) { rs[static_cast<std::size_t>(i)] = run_spec(spec, o); });
    return rs;
  };
  const auto one = run_batch(1), two = run_batch(2);
  for (const auto* batch : {&one, &two})
    for (const auto& r : *batch) {
      EXPECT_EQ(r.time_us, one[0].time_us);  // exact: bit-identical doubles
      EXPECT_EQ(r.cycles, one[0].cycles);
      ASSERT_EQ(r.outputs.size(), 1u);
      EXPECT_EQ(r.outputs[0].bytes, one[0].outputs[0].bytes);
    }
  // and the outputs are the kernel's: out[i] = i
  std::vector<std::uint32_t> out(524288);
  std::memcpy(out.data(), one[0].outputs[0].bytes.data(), out.size() * 4);
  for (std::uint32_t i = 0; i < out.size(); i += 4099) EXPECT_EQ(out[i], i);
}

}  // namespace
}  // namespace kernsim
