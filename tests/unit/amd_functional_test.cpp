// The AMD functional simulator through the library: faults stop the kernel with errors that name
// kernel, instruction, address, work-item and buffer, and write nothing; every accepted input kind
// (.hip, .s, .hsaco from clang, .ll) runs; the decoder and executor agree with the ISA on the
// instructions whose semantics are easy to get subtly wrong (DPP, SDWA, swizzles, 64-bit shifts,
// exec-mask manipulation).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include "api/launch_spec.h"
#include "api/run.h"
#include "base/process.h"
#include "device/loader.h"
#include "frontends/compile.h"
#include "isa/amdgcn/code_object.h"
#include "isa/amdgcn/program.h"
#include "sim/functional/amd_exec.h"
#include "sim/functional/amd_float.h"
#include "base/float_format.h"
#include "test_util.h"

namespace kernsim {
namespace {

using test::expect_error;

const std::string kData = KERNSIM_TEST_DATA;
const std::string kAmd = kData + "/amd";
const std::string kHip = std::string(KERNSIM_TEST_DATA) + "/../kernels/hip";

// Runs a launch spec on an AMD part and returns the output buffers. The AMD timing model does not
// exist yet, so run_launch stops with NotImplemented after the functional run: the outputs come
// from the dump directory.
std::vector<std::vector<std::uint8_t>> run_amd(const std::string& json, const std::string& dir, const std::string& arch = "mi300x",
                                               std::uint64_t max_instructions = 0) {
  auto spec = api::parse_launch_spec_text(json, dir, "test spec");
  test::TempDir dumps;
  api::RunOptions opts;
  opts.full = true;
  opts.dump_dir = dumps.path();
  opts.max_instructions = max_instructions;
  try {
    api::run_launch(spec, device::load_builtin_device(arch), opts);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::NotImplemented) throw;
    EXPECT_THAT(e.what(), ::testing::HasSubstr("AMD CU timing model"));
  }
  std::vector<std::vector<std::uint8_t>> out;
  for (std::size_t i = 0; i < spec.args.size(); ++i) {
    std::ifstream f(dumps.path() / ("arg" + std::to_string(i) + ".out.bin"), std::ios::binary);
    out.emplace_back((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }
  return out;
}

template <class T>
std::vector<T> as(const std::vector<std::uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

// ---------------------------------------------------------------------------------------------
// errors

TEST(AmdFunctional, OutOfBoundsWriteNamesKernelInstructionWorkItemAndBuffer) {
  expect_error([] { run_amd(R"({"source": "faults.hip", "kernel": "oob_write", "grid": 1, "block": 128,
                                "args": [{"buffer": "f32", "count": 100}, {"type": "i32", "value": 128}]})", kAmd); },
               ErrorKind::KernelFault,
               {"kernel `oob_write`", "global_store_dword", "workgroup (0,0,0) work-item (100,0,0)", "out of bounds",
                "past the end of arg0 (f32[100])"});
}

TEST(AmdFunctional, OutOfBoundsReadNamesTheOffendingWorkItem) {
  expect_error([] { run_amd(R"({"source": "faults.hip", "kernel": "oob_read_one", "grid": 2, "block": 64,
                                "args": [{"buffer": "f32", "count": 128}, {"buffer": "f32", "count": 128}, {"type": "i32", "value": 128}]})",
                            kAmd); },
               ErrorKind::KernelFault, {"workgroup (0,0,0) work-item (5,0,0)", "global_load_dword", "4-byte read", "arg0 (f32[128])"});
}

TEST(AmdFunctional, NullPointerIsNamed) {
  expect_error([] { run_amd(R"({"source": "faults.hip", "kernel": "null_deref", "grid": 1, "block": 64,
                                "args": [{"type": "u64", "value": 0}, {"buffer": "f32", "count": 64}]})", kAmd); },
               ErrorKind::KernelFault, {"null pointer read", "work-item (0,0,0)"});
}

TEST(AmdFunctional, LdsOutOfBoundsIsAFault) {
  expect_error([] { run_amd(R"({"source": "faults.hip", "kernel": "lds_oob", "grid": 1, "block": 64,
                                "args": [{"buffer": "i32", "count": 64, "init": "iota"}, {"buffer": "f32", "count": 64}]})", kAmd);
                    run_amd(R"({"source": "faults.hip", "kernel": "lds_oob", "grid": 1, "block": 64,
                                "args": [{"buffer": "i32", "count": 64, "init": "randint:64:70"}, {"buffer": "f32", "count": 64}]})", kAmd); },
               ErrorKind::KernelFault, {"LDS read", "outside the workgroup's 256 bytes of LDS", "ds_read"});
}

TEST(AmdFunctional, EndlessKernelStopsAtTheInstructionLimit) {
  // 2000 instructions come before the endless-loop watch has seen the loop repeat
  expect_error([] { run_amd(R"({"source": "faults.hip", "kernel": "endless", "grid": 1, "block": 64,
                                "args": [{"buffer": "i32", "count": 1}]})", kAmd, "mi300x", 2000); },
               ErrorKind::KernelFault, {"kernel `endless`", "instruction limit of 2000", "--max-instructions"});
}

TEST(AmdFunctional, AWaveSpinningOnAFlagNothingWritesIsANamedEndlessLoop) {
  // well before the default limit of 4e9 instructions: the wave's state repeats and nothing stores
  for (const char* arch : {"mi300x", "mi355x"})
    expect_error([&] { run_amd(R"({"source": "faults.hip", "kernel": "spin_on_flag", "grid": 1, "block": 64,
                                   "args": [{"buffer": "i32", "count": 1}]})", kAmd, arch); },
                 ErrorKind::KernelFault,
                 {"kernel `spin_on_flag`", "workgroup (0,0,0) wave 0: endless loop at", "the loop from", "it waits on address",
                  "+ 0), which nothing writes"});
}

TEST(AmdFunctional, AWaveSpinningUntilAnotherWaveOfItsWorkgroupWritesEnds) {
  // wave 0 spins on an LDS flag that wave 3 sets after its own long loop: the watch suspects
  // wave 0, lets the other waves run, and sees wave 3's progress, so it is no endless loop
  const auto bufs = run_amd(R"({"source": "faults.hip", "kernel": "wait_for_last_wave", "grid": 1, "block": 256,
                                "args": [{"buffer": "i32", "count": 256}, {"type": "i32", "value": 100000}]})", kAmd);
  const auto* out = reinterpret_cast<const std::int32_t*>(bufs.at(0).data());
  EXPECT_EQ(out[0], 100000) << "wave 0 read the flag wave 3 wrote after its loop";
  EXPECT_EQ(out[255], 100000);
}

TEST(AmdFunctional, UnknownInstructionIsNamedWithItsAddress) {
  for (const char* arch : {"mi300x", "mi355x"})
    expect_error([&] { run_amd(R"({"source": "unknown_inst.s", "kernel": "uses_format_load", "grid": 1, "block": 64,
                                   "args": [{"buffer": "f32", "count": 64}]})", kAmd, arch); },
                 ErrorKind::Unsupported,
                 {"kernel `uses_format_load`", "buffer_load_format_x v1, v0, s[4:7], 0 idxen", "at 0x", "(uses_format_load+0x",
                  "kernsim does not implement"});
}

TEST(AmdFunctional, FaultingStoreWritesNothing) {
  // Lanes 0-47 of the wave's store are in bounds, 48-63 are not: the instruction faults before any
  // lane writes, so the buffer keeps its initial zeros.
  auto spec = api::parse_launch_spec_text(R"({"source": "faults.hip", "kernel": "oob_write", "grid": 1, "block": 64,
                                               "args": [{"buffer": "f32", "count": 48}, {"type": "i32", "value": 64}]})",
                                          kAmd, "spec");
  test::TempDir dumps;
  api::RunOptions opts;
  opts.dump_dir = dumps.path();
  EXPECT_THROW(api::run_launch(spec, device::load_builtin_device("mi300x"), opts), Error);
  EXPECT_FALSE(std::filesystem::exists(dumps.path() / "arg0.out.bin"));
  // and directly: the executor leaves device memory untouched
  frontends::CompileOptions co;
  co.target = "gfx942";
  auto mod = frontends::compile(kAmd + "/faults.hip", co);
  auto code = std::make_shared<const isa::amdgcn::CodeObject>(isa::amdgcn::read_code_object(mod.binary, "faults.hip"));
  auto prog = isa::amdgcn::decode(code, "faults.hip");
  sim::GlobalMemory mem;
  const std::uint64_t base = sim::map_code_object(*code, mem, "faults.hip");
  const std::uint64_t out = mem.allocate(48 * 4, "out");
  std::vector<std::uint8_t> args(16, 0);
  std::memcpy(args.data(), &out, 8);
  const int n = 64;
  std::memcpy(args.data() + 8, &n, 4);
  sim::LaunchDims dims;
  dims.block = {64, 1, 1};
  sim::AmdKernel k(prog, *code->find("oob_write"), mem, base, dims, args, {});
  EXPECT_THROW(k.run_all(), Error);
  const std::uint8_t* data = mem.find(out, 1)->data();
  for (int i = 0; i < 48 * 4; ++i) ASSERT_EQ(data[i], 0) << "byte " << i << " was written";
}

TEST(AmdLaunchChecks, ArgumentsAreCheckedAgainstTheCodeObjectMetadata) {
  expect_error([] { run_amd(R"({"source": "faults.hip", "kernel": "oob_write", "grid": 1, "block": 64,
                                "args": [{"buffer": "f32", "count": 64}]})", kAmd); },
               ErrorKind::LaunchSpec, {"`args`", "takes 2 parameters (pointer, 4-byte value)", "gives 1"});
  expect_error([] { run_amd(R"({"source": "faults.hip", "kernel": "oob_write", "grid": 1, "block": 64,
                                "args": [{"buffer": "f32", "count": 64}, {"type": "f64", "value": 1}]})", kAmd); },
               ErrorKind::LaunchSpec, {"`args[1]`", "has 8 bytes", "4-byte value"});
  expect_error([] { run_amd(R"({"source": "faults.hip", "kernel": "oob_write", "grid": 1, "block": 64,
                                "args": [{"type": "i32", "value": 0}, {"type": "i32", "value": 1}]})", kAmd); },
               ErrorKind::LaunchSpec, {"`args[0]`", "pointer takes a buffer or a 64-bit integer address"});
}

TEST(AmdLaunchChecks, SourcesAndTargetsMustMatch) {
  expect_error([] {
    auto spec = api::parse_launch_spec_text(R"({"source": "faults.hip", "kernel": "oob_write", "grid": 1, "block": 64,
                                                 "args": [{"buffer": "f32", "count": 64}, {"type": "i32", "value": 1}]})",
                                            kAmd, "spec");
    api::run_launch(spec, device::load_builtin_device("h200"), {});
  }, ErrorKind::Compile, {"faults.hip", "AMD source", "sm_90a", "mi300x (gfx942)"});
  // a CUDA source on an AMD part is ported (docs/cuda_on_amd.md), no longer refused
}

TEST(AmdLaunchChecks, CompileErrorsShowClangDiagnostics) {
  test::TempDir t;
  t.write("bad.hip", "#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = undefined_thing; }\n");
  expect_error([&] { run_amd(R"({"source": "bad.hip", "kernel": "k", "grid": 1, "block": 64, "args": [{"buffer": "i32", "count": 1}]})",
                             t.path().string()); },
               ErrorKind::Compile, {"bad.hip", "undefined_thing", "gfx942"});
}

// ---------------------------------------------------------------------------------------------
// input kinds

constexpr const char* kCopySpec = R"({"source": "%s", "kernel": "copy_f32", "grid": 3, "block": 64,
  "args": [{"buffer": "f32", "count": 170, "init": "uniform"}, {"buffer": "f32", "count": 170}, {"type": "i32", "value": 170}]})";

std::string copy_spec(const std::string& source) {
  char b[512];
  std::snprintf(b, sizeof b, kCopySpec, source.c_str());
  return b;
}

void expect_copied(const std::vector<std::vector<std::uint8_t>>& out) {
  ASSERT_EQ(out.size(), 3u);
  ASSERT_EQ(out[0].size(), 170u * 4);
  EXPECT_EQ(out[0], out[1]) << "copy_f32 did not copy its input";
}

TEST(AmdInputs, HipSourceRunsOnBothTargets) {
  for (const char* arch : {"mi300x", "mi355x"}) expect_copied(run_amd(copy_spec(kHip + "/stream.hip"), kHip, arch));
}

TEST(AmdInputs, AssemblyFromClangRuns) {
  // clang -S output, the form users hand-edit: kernel descriptors and metadata as directives
  test::TempDir t;
  for (const char* gfx : {"gfx942", "gfx950"}) {
    const std::string s = (t.path() / (std::string("stream.") + gfx + ".s")).string();
    ProcessResult r = run_process({"clang++-22", "-x", "hip", std::string("--offload-arch=") + gfx, "--cuda-device-only", "-nogpuinc",
                                   "-nogpulib", "-O3", "-S", "-I", kData + "/../../frontends/hip_include", "-include",
                                   "__kernsim_hip_prelude.h", kHip + "/stream.hip", "-o", s});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_copied(run_amd(copy_spec(s), t.path().string(), std::string(gfx) == "gfx942" ? "mi300x" : "mi355x"));
  }
}

TEST(AmdInputs, CodeObjectFromClangRuns) {
  // a code object as hipcc or Triton hands it over (.hsaco / .co)
  test::TempDir t;
  const std::string co = (t.path() / "stream.co").string();
  ProcessResult r = run_process({"clang++-22", "-x", "hip", "--offload-arch=gfx942", "--cuda-device-only", "--no-gpu-bundle-output",
                                 "-nogpuinc", "-nogpulib", "-O3", "-c", "-I", kData + "/../../frontends/hip_include", "-include",
                                 "__kernsim_hip_prelude.h", kHip + "/stream.hip", "-o", co});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_copied(run_amd(copy_spec(co), t.path().string(), "mi300x"));
  std::filesystem::copy_file(co, t.path() / "stream.hsaco");
  expect_copied(run_amd(copy_spec((t.path() / "stream.hsaco").string()), t.path().string(), "mi300x"));
  // a gfx942 code object does not run on gfx950
  expect_error([&] { run_amd(copy_spec(co), t.path().string(), "mi355x"); }, ErrorKind::Compile,
               {"code object for gfx942", "gfx950"});
}

TEST(AmdInputs, LlvmIrRuns) {
  test::TempDir t;
  const std::string ll = (t.path() / "stream.ll").string();
  ProcessResult r = run_process({"clang++-22", "-x", "hip", "--offload-arch=gfx950", "--cuda-device-only", "-nogpuinc", "-nogpulib",
                                 "-O1", "-S", "-emit-llvm", "-I", kData + "/../../frontends/hip_include", "-include",
                                 "__kernsim_hip_prelude.h", kHip + "/stream.hip", "-o", ll});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_copied(run_amd(copy_spec(ll), t.path().string(), "mi355x"));
}

TEST(AmdInputs, CacheNoticesAnEditedHeader) {
  test::TempDir t;
  auto write = [&](const char* name, const std::string& text) { std::ofstream(t.path() / name) << text; };
  write("k.hip", "#include <hip/hip_runtime.h>\n#include \"val.h\"\n"
                 "extern \"C\" __global__ void k(int* o) { o[threadIdx.x] = VAL; }\n");
  write("val.h", "#define VAL 3\n");
  const std::string spec = R"({"source": "k.hip", "kernel": "k", "grid": 1, "block": 64, "args": [{"buffer": "i32", "count": 64}]})";
  frontends::CompileOptions co;
  co.target = "gfx942";
  EXPECT_FALSE(frontends::compile(t.path() / "k.hip", co).from_cache);
  EXPECT_TRUE(frontends::compile(t.path() / "k.hip", co).from_cache);
  EXPECT_EQ(as<std::int32_t>(run_amd(spec, t.path().string())[0])[5], 3);
  write("val.h", "#define VAL 40\n");
  EXPECT_FALSE(frontends::compile(t.path() / "k.hip", co).from_cache) << "a cached module outlived an edit of its header";
  EXPECT_EQ(as<std::int32_t>(run_amd(spec, t.path().string())[0])[5], 40);
}

TEST(AmdInputs, WholeTranslationUnitListsTemplateInstantiations) {
  frontends::CompileOptions co;
  co.target = "gfx950";
  auto m = frontends::compile(kHip + "/template.hip", co);
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kind, frontends::IsaKind::Amdgcn);
  std::vector<std::string> names;
  for (const auto& k : m.kernels) {
    names.push_back(k.demangled);
    EXPECT_EQ(k.resources.source, "code object metadata");
    EXPECT_GT(k.resources.registers, 0);
    EXPECT_GT(k.resources.static_shared, 0);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"void block_sum_t<float, 256>(float const*, float*, int)",
                                             "void block_sum_t<int, 128>(int const*, int*, int)"}));
  EXPECT_TRUE(frontends::compile(kHip + "/template.hip", co).from_cache);
}

// ---------------------------------------------------------------------------------------------
// instruction semantics (hand-written assembly, expected values from the ISA definitions)

TEST(AmdSemantics, LaneOperationsMatchTheIsa) {
  for (const char* arch : {"mi300x", "mi355x"}) {
    auto out = run_amd(R"({"source": "isa_semantics.s", "kernel": "lane_ops", "grid": 1, "block": 64,
                           "args": [{"buffer": "u32", "count": 1024}]})", kAmd, arch);
    auto r = as<std::uint32_t>(out[0]);
    ASSERT_EQ(r.size(), 1024u);
    for (std::uint32_t l = 0; l < 64; ++l) {
      const std::uint32_t* o = &r[l * 16];
      const std::uint32_t v = l * 3 + 1;  // each lane's input value
      auto val = [](std::uint32_t lane) { return lane * 3 + 1; };
      EXPECT_EQ(o[0], val((l & ~3u) | ((l & 3) ^ 1))) << "quad_perm:[1,0,3,2] lane " << l;
      EXPECT_EQ(o[1], (l & 15) >= 1 ? val(l - 1) : 0u) << "row_shr:1 bound_ctrl lane " << l;
      EXPECT_EQ(o[2], (l >> 4) ? val(((l >> 4) << 4) - 1) : 7u) << "row_bcast:15, row 0 keeps its old value, lane " << l;
      EXPECT_EQ(o[3], val((l & ~15u) | (15 - (l & 15)))) << "row_mirror lane " << l;
      EXPECT_EQ(o[4], (v >> 8) & 0xff) << "SDWA src0_sel:BYTE_1 lane " << l;
      EXPECT_EQ(o[5], (0xabcd0000u) | (v & 0xffff)) << "SDWA dst_sel:WORD_0 preserve lane " << l;
      EXPECT_EQ(o[6], val(l ^ 5)) << "ds_swizzle xor 5 lane " << l;
      EXPECT_EQ(o[7], val((63 - l))) << "ds_bpermute reversed lane " << l;
      EXPECT_EQ(o[8], val(17)) << "v_readlane 17 lane " << l;
      EXPECT_EQ(o[9], l == 40 ? 0x1234u : v) << "v_writelane 40 lane " << l;
      EXPECT_EQ(o[10], l) << "v_mbcnt lane " << l;
      EXPECT_EQ(o[11], (l & 1) ? v : 0xdeadu) << "exec mask from v_cmp + s_and_saveexec lane " << l;
      const std::uint64_t sh = (std::uint64_t{v} << 32 | 0x80000001u) >> (l & 63);
      EXPECT_EQ(o[12], static_cast<std::uint32_t>(sh)) << "v_lshrrev_b64 lane " << l;
      EXPECT_EQ(o[13], (v & 0x00ff00ffu) | 0x11001100u) << "v_perm_b32 lane " << l;
      EXPECT_EQ(o[14], (v >> 2) & 0x1f) << "v_bfe_u32 lane " << l;
      EXPECT_EQ(o[15], 12u) << "s_add_u32 carry into s_addc_u32 (5 + 6 + 1) lane " << l;
    }
  }
}

TEST(AmdSemantics, ScratchAddressingFormsAndVgprIndexing) {
  for (const char* arch : {"mi300x", "mi355x"}) {
    auto out = run_amd(R"({"source": "isa_semantics.s", "kernel": "scratch_idx_ops", "grid": 1, "block": 64,
                           "args": [{"buffer": "u32", "count": 512}]})", kAmd, arch);
    auto r = as<std::uint32_t>(out[0]);
    ASSERT_EQ(r.size(), 512u);
    for (std::uint32_t l = 0; l < 64; ++l) {
      const std::uint32_t* o = &r[l * 8];
      const std::uint32_t v = l * 3 + 1;
      EXPECT_EQ(o[0], v) << "scratch_store_dword vaddr, vdata, off then load, lane " << l;
      EXPECT_EQ(o[1], v + 100) << "scratch_store_dwordx2 vaddr, vdata, saddr offset:4 (low dword) lane " << l;
      EXPECT_EQ(o[2], v + 200) << "scratch_store_dwordx2 vaddr, vdata, saddr offset:4 (high dword) lane " << l;
      EXPECT_EQ(o[3], 3000 + l) << "gpr_idx(SRC0) index 2: v_mov v14, v10 reads v12, lane " << l;
      EXPECT_EQ(o[4], v) << "gpr_idx(DST) index 1: v_mov v10, v1 writes v11, lane " << l;
      EXPECT_EQ(o[5], 4000 + l + v) << "s_set_gpr_idx_idx 3: src0 v10 -> v13, src1 not indexed, lane " << l;
      EXPECT_EQ(o[6], 1000 + l) << "v10 untouched by the indexed write, lane " << l;
      EXPECT_EQ(o[7], 5000 - (1000 + l)) << "s_set_gpr_idx_mode gpr_idx(SRC1): v7 -> v10, lane " << l;
    }
  }
}

TEST(AmdSemantics, Fp8ConversionsFollowEachPartsFormat) {
  // v_cvt_pk_fp8_f32 writes FNUZ e4m3 on gfx942 and OCP e4m3 on gfx950; the same float gives
  // different bytes (bias 8 vs 7), and converting back gives the float again.
  for (const char* arch : {"mi300x", "mi355x"}) {
    auto out = run_amd(R"({"source": "isa_semantics.s", "kernel": "fp8_ops", "grid": 1, "block": 64,
                           "args": [{"buffer": "u32", "count": 192}]})", kAmd, arch);
    auto r = as<std::uint32_t>(out[0]);
    const bool ocp = std::string(arch) == "mi355x";
    for (int l = 0; l < 64; ++l) {
      // lane l converts 1.5 and -3.0: e4m3 1.5 = 0 (bias) 100; -3.0 = 1 exponent(bias+1) 100
      const std::uint32_t b15 = ocp ? 0x3cu : 0x44u, bm3 = ocp ? 0xc4u : 0xccu;
      EXPECT_EQ(r[l * 3] & 0xffffu, b15 | (bm3 << 8)) << arch << " lane " << l;
      float f0, f1;
      std::memcpy(&f0, &r[l * 3 + 1], 4);
      std::memcpy(&f1, &r[l * 3 + 2], 4);
      EXPECT_EQ(f0, 1.5f) << arch;
      EXPECT_EQ(f1, -3.0f) << arch;
    }
  }
}

TEST(AmdInputs, RocmVectorClassesHalfMathAndFp8PairsCompute) {
  // tests/data/amd/rocm_types.hip: each lane writes 16 floats; every value is recomputed here
  auto bf16 = [](float f) {  // round to nearest even
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    b = (b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u;
    std::memcpy(&f, &b, 4);
    return f;
  };
  for (const char* arch : {"mi300x", "mi355x"}) {
    auto out = run_amd(R"({"source": "rocm_types.hip", "kernel": "rocm_types", "grid": 1, "block": 64,
                           "args": [{"buffer": "f32", "count": 64, "init": "uniform"}, {"buffer": "f32", "count": 1024}]})",
                       kAmd, arch);
    const auto in = as<float>(out[0]), r = as<float>(out[1]);
    ASSERT_EQ(r.size(), 1024u);
    for (int l = 0; l < 64; ++l) {
      const float x = in[l], *o = &r[16 * l];
      EXPECT_EQ(o[0], 2.0f * l + 3) << "int4(a, b, c, d) lane " << l;
      EXPECT_EQ(o[1], 7.0f * l) << "int2 from a braced argument lane " << l;
      EXPECT_NEAR(o[2], 2 * x + 1 - 1 / x, 1e-5 * (1 + std::fabs(1 / x))) << "float4 operators lane " << l;
      EXPECT_NEAR(o[3], 7.0f - 1.0f / 3, 1e-6) << l;
      EXPECT_EQ(o[4], 1.0f) << "Native_vec_ through .data and back, lane " << l;
      EXPECT_EQ(o[5], 1.0f) << "operator== lane " << l;
      EXPECT_EQ(o[6], bf16(std::exp2(bf16(x)))) << "h2exp2 on __hip_bfloat162 lane " << l;
      EXPECT_EQ(o[7], bf16(std::fabs(x))) << "__habs2 lane " << l;
      EXPECT_EQ(o[8], std::max(bf16(-x), 0.0f)) << "__hmax2 lane " << l;
      EXPECT_NEAR(o[9], std::log2(x + 2.0f), 2e-3) << "hlog2 on __half lane " << l;
      EXPECT_NEAR(o[10], x, std::max(std::fabs(x) / 16, 1.0f / 1024)) << "__hip_fp8x4_e4m3 element 0 lane " << l;
      EXPECT_EQ(o[11], 448.0f) << "e4m3's largest finite value, lane " << l;
      EXPECT_EQ(o[12], 448.0f) << "1000 saturates, lane " << l;
      EXPECT_EQ(o[14], float(0x28bc)) << "__hip_fp8x2_e4m3 bytes: -1.5 (0xbc) low, 0.25 (0x28) high, lane " << l;
      EXPECT_EQ(o[15], -1.5f) << l;
    }
  }
}

TEST(AmdSemantics, BufferLoadToLdsWritesEachLanesBytesAtM0PlusOffsetPlusLaneSlot) {
  // buffer_load_* lds and global_load_lds_* (tests/data/amd/lds_dma.hip).
  // src holds 0, 1, 2, ... (iota); lane t loads SIZE bytes at byte t * SIZE (+ offset) into LDS at
  // byte 256 (M0) + offset + t * (SIZE <= 4 ? 4 : 16); lanes past num_records write zeros; every
  // other LDS word keeps the pattern 0xa5a50000 + word index
  struct Case {
    const char* arch;
    const char* kernel;
    std::uint32_t size, offset, src_bytes;
  };
  for (const Case& c : {Case{"mi300x", "dma_dword", 4, 0, 200}, Case{"mi355x", "dma_dword", 4, 0, 200},
                        Case{"mi355x", "dma_dword_offset", 4, 32, 200}, Case{"mi355x", "dma_dwordx4", 16, 0, 1000},
                        // global_load_lds_*: every lane in range (the test's src_bytes covers them all)
                        Case{"mi300x", "global_dma_dword", 4, 0, 4096}, Case{"mi355x", "global_dma_dwordx4", 16, 0, 4096}}) {
    char json[512];
    std::snprintf(json, sizeof json, R"({"source": "lds_dma.hip", "kernel": "%s", "grid": 1, "block": 128, "args": [
        {"buffer": "u32", "count": 1024, "init": "iota"}, {"type": "u32", "value": %u},
        {"buffer": "u32", "count": 2048}]})",
                  c.kernel, c.src_bytes);
    auto out = as<std::uint32_t>(run_amd(json, kAmd, c.arch)[2]);
    ASSERT_EQ(out.size(), 2048u) << c.kernel;
    std::vector<std::uint32_t> want(2048);
    for (std::uint32_t i = 0; i < 2048; ++i) want[i] = 0xa5a50000u + i;
    const std::uint32_t slot = c.size <= 4 ? 4 : 16;
    for (std::uint32_t t = 0; t < 64; ++t) {
      const std::uint32_t g = t * c.size + c.offset;  // byte in src
      const bool in_range = g + c.size <= c.src_bytes;
      for (std::uint32_t k = 0; k < c.size / 4; ++k)
        want[(256 + c.offset + t * slot) / 4 + k] = in_range ? g / 4 + k : 0u;
    }
    for (std::uint32_t i = 0; i < 2048; ++i)
      ASSERT_EQ(out[i], want[i]) << c.arch << " " << c.kernel << " LDS word " << i;
  }
}

TEST(AmdSemantics, Gfx950TransposingLdsReadAndPermlaneSwapsMoveLanesAsDocumented) {
  // tests/data/amd/gfx950_lanes.hip. ds_read_b64_tr_b16: lane k reads the 4 values at element
  // 4 * src(k), src(k) = 5k mod 64; in each 16-lane row, lane j gets element j mod 4 of lane
  // 4e + j / 4's read as its element e. permlane16_swap: odd rows of vdst trade with even rows of
  // vsrc; permlane32_swap: lanes 32-63 of vdst with lanes 0-31 of vsrc.
  auto out = as<std::uint32_t>(run_amd(R"({"source": "gfx950_lanes.hip", "kernel": "gfx950_lanes", "grid": 1, "block": 64,
                                           "args": [{"buffer": "u32", "count": 512}]})",
                                       kAmd, "mi355x")[0]);
  ASSERT_EQ(out.size(), 512u);
  for (std::uint32_t l = 0; l < 64; ++l) {
    const std::uint32_t* o = &out[8 * l];
    const std::uint32_t row = l & ~15u, j = l & 15u;
    for (std::uint32_t e = 0; e < 4; ++e) {
      const std::uint32_t k = row + 4 * e + j / 4;  // the lane whose read it is
      EXPECT_EQ(o[e], 4 * ((5 * k) & 63) + j % 4) << "ds_read_b64_tr_b16 lane " << l << " element " << e;
    }
    const bool odd_row = (l >> 4) & 1;
    EXPECT_EQ(o[4], odd_row ? 2000 + l - 16 : 1000 + l) << "permlane16_swap vdst lane " << l;
    EXPECT_EQ(o[5], odd_row ? 2000 + l : 1000 + l + 16) << "permlane16_swap vsrc lane " << l;
    EXPECT_EQ(o[6], l >= 32 ? 2000 + l - 32 : 1000 + l) << "permlane32_swap vdst lane " << l;
    EXPECT_EQ(o[7], l >= 32 ? 2000 + l : 1000 + l + 32) << "permlane32_swap vsrc lane " << l;
  }
}

// ---------------------------------------------------------------------------------------------
// MFMA shapes: every dense shape and input type, single- and multi-block, against a plain matrix
// product (small integers: exact in f16, bf16, fp8, bf8, i8)

TEST(AmdMfma, EveryShapeMultipliesItsBlocks) {
  struct Shape {
    const char* kernel;
    int m, n, k, blocks;
    int arch;  // 0 both, 1 gfx942 only, 2 gfx950 only
  };
  const Shape shapes[] = {
      {"f32_32x32x1", 32, 32, 1, 2, 0},     {"f32_16x16x1", 16, 16, 1, 4, 0},     {"f32_4x4x1", 4, 4, 1, 16, 0},
      {"f32_32x32x2", 32, 32, 2, 1, 0},     {"f32_16x16x4", 16, 16, 4, 1, 0},     {"f16_32x32x4", 32, 32, 4, 2, 0},
      {"f16_16x16x4", 16, 16, 4, 4, 0},     {"f16_4x4x4", 4, 4, 4, 16, 0},        {"f16_32x32x8", 32, 32, 8, 1, 0},
      {"f16_16x16x16", 16, 16, 16, 1, 0},   {"bf16_32x32x4", 32, 32, 4, 2, 0},    {"bf16_16x16x4", 16, 16, 4, 4, 0},
      {"bf16_4x4x4", 4, 4, 4, 16, 0},       {"bf16_32x32x8", 32, 32, 8, 1, 0},    {"bf16_16x16x16", 16, 16, 16, 1, 0},
      {"i8_32x32x4", 32, 32, 4, 2, 0},      {"i8_16x16x4", 16, 16, 4, 4, 0},      {"i8_4x4x4", 4, 4, 4, 16, 0},
      {"fp8_16x16x32", 16, 16, 32, 1, 0},   {"bf8_fp8_16x16x32", 16, 16, 32, 1, 0}, {"fp8_bf8_16x16x32", 16, 16, 32, 1, 0},
      {"bf8_32x32x16", 32, 32, 16, 1, 0},   {"f64_16x16x4", 16, 16, 4, 1, 0},     {"i8_32x32x16", 32, 32, 16, 1, 1},
      {"i8_16x16x32", 16, 16, 32, 1, 1},    {"f16_16x16x32", 16, 16, 32, 1, 2},   {"f16_32x32x16", 32, 32, 16, 1, 2},
      {"bf16_16x16x32", 16, 16, 32, 1, 2},  {"bf16_32x32x16", 32, 32, 16, 1, 2},  {"i8_16x16x64", 16, 16, 64, 1, 2},
      {"i8_32x32x32", 32, 32, 32, 1, 2},
  };
  for (int a = 1; a <= 2; ++a) {
    const char* arch = a == 1 ? "mi300x" : "mi355x";
    for (const Shape& sh : shapes) {
      if (sh.arch && sh.arch != a) continue;
      const int na = sh.blocks * sh.m * sh.k, nb = sh.blocks * sh.k * sh.n, nd = sh.blocks * sh.m * sh.n;
      char spec[512];
      std::snprintf(spec, sizeof spec,
                    R"({"source": "mfma_shapes.hip", "kernel": "%s", "grid": 1, "block": 64, "args": [
                       {"buffer": "f32", "count": %d, "init": "randint:-3:3"}, {"buffer": "f32", "count": %d, "init": "randint:-3:3"},
                       {"buffer": "f32", "count": %d}]})",
                    sh.kernel, na, nb, nd);
      auto out = run_amd(spec, kAmd, arch);
      auto A = as<float>(out[0]), B = as<float>(out[1]), D = as<float>(out[2]);
      ASSERT_EQ(D.size(), static_cast<std::size_t>(nd)) << sh.kernel;
      int bad = 0;
      for (int b = 0; b < sh.blocks; ++b)
        for (int i = 0; i < sh.m; ++i)
          for (int j = 0; j < sh.n; ++j) {
            float want = 0;
            for (int k = 0; k < sh.k; ++k) want += A[(b * sh.m + i) * sh.k + k] * B[(b * sh.k + k) * sh.n + j];
            const float got = D[(b * sh.m + i) * sh.n + j];
            if (got != want && bad++ < 3)
              ADD_FAILURE() << arch << " " << sh.kernel << " block " << b << " D[" << i << "][" << j << "] = " << got << ", want " << want;
          }
    }
  }
}

TEST(AmdMfma, BlockScaledF8F6F4MultipliesScaledBlocks) {
  // gfx950: fp4, fp6, bf6, fp8, bf8 operands with one E8M0 scale per lane (32 elements), the scale
  // byte chosen by op_sel / op_sel_hi
  struct Shape {
    const char* kernel;
    int m, n, k;
  };
  const Shape shapes[] = {{"scaled_fp4_fp4_16x16x128", 16, 16, 128},
                          {"scaled_fp6_bf6_16x16x128", 16, 16, 128},
                          {"scaled_fp8_bf8_32x32x64", 32, 32, 64},
                          {"scaled_fp4_fp6_32x32x64", 32, 32, 64}};
  for (const Shape& sh : shapes) {
    char spec[512];
    std::snprintf(spec, sizeof spec,
                  R"({"source": "mfma_shapes.hip", "kernel": "%s", "grid": 1, "block": 64, "args": [
                     {"buffer": "f32", "count": %d, "init": "randint:-3:3"}, {"buffer": "f32", "count": %d, "init": "randint:-3:3"},
                     {"buffer": "f32", "count": %d}]})",
                  sh.kernel, sh.m * sh.k, sh.k * sh.n, sh.m * sh.n);
    auto out = run_amd(spec, kAmd, "mi355x");
    auto A = as<float>(out[0]), B = as<float>(out[1]), D = as<float>(out[2]);
    auto scale = [](int row_or_col, int k) { return std::ldexp(1.0f, (row_or_col + k / 32) % 3 - 1); };
    int bad = 0;
    for (int i = 0; i < sh.m; ++i)
      for (int j = 0; j < sh.n; ++j) {
        float want = 0;
        for (int k = 0; k < sh.k; ++k) want += A[i * sh.k + k] * scale(i, k) * B[k * sh.n + j] * scale(j, k);
        if (D[i * sh.n + j] != want && bad++ < 3)
          ADD_FAILURE() << sh.kernel << " D[" << i << "][" << j << "] = " << D[i * sh.n + j] << ", want " << want;
      }
  }
}

// ---------------------------------------------------------------------------------------------
// the stepping interface a timing model drives

TEST(AmdStepping, StepReportsLanesSpacesAddressesAndBarriers) {
  frontends::CompileOptions co;
  co.target = "gfx942";
  auto mod = frontends::compile(kHip + "/reduce.hip", co);
  auto code = std::make_shared<const isa::amdgcn::CodeObject>(isa::amdgcn::read_code_object(mod.binary, "reduce.hip"));
  auto prog = isa::amdgcn::decode(code, "reduce.hip");
  sim::GlobalMemory mem;
  const std::uint64_t base = sim::map_code_object(*code, mem, "reduce.hip");
  const int n = 1000;
  const std::uint64_t in = mem.allocate(n * 4, "in"), out = mem.allocate(4 * 4, "partial");
  float* x = reinterpret_cast<float*>(mem.find(in, 1)->data());
  for (int i = 0; i < n; ++i) x[i] = 1.0f;
  std::vector<std::uint8_t> args(20, 0);
  std::memcpy(args.data(), &in, 8);
  std::memcpy(args.data() + 8, &out, 8);
  std::memcpy(args.data() + 16, &n, 4);
  sim::LaunchDims dims;
  dims.grid = {2, 1, 1};
  dims.block = {256, 1, 1};  // 4 waves, a shared-memory tree with barriers
  sim::AmdKernel k(prog, *code->find("reduce_shared_f32"), mem, base, dims, args, {});
  auto wg = k.make_workgroup(1);
  ASSERT_EQ(wg->num_waves(), 4);
  int waits = 0, releases = 0, global_loads = 0, lds_ops = 0;
  while (!wg->done()) {
    bool progress = false;
    for (int w = 0; w < wg->num_waves(); ++w) {  // round robin, one instruction at a time
      if (wg->wave_done(w) || wg->wave_waiting(w)) continue;
      const std::uint32_t pc = wg->next_pc(w);
      const sim::AmdStepInfo s = wg->step(w);
      progress = true;
      EXPECT_EQ(s.pc, pc);
      const isa::amdgcn::Inst& inst = prog.insts[s.pc];
      if (s.kind == sim::AmdStepInfo::Kind::BarrierWait) ++waits;
      if (s.released_barrier) ++releases;
      if (inst.op == isa::amdgcn::Op::vmem && inst.mem.kind == isa::amdgcn::MemKind::Load && s.active) {
        ++global_loads;
        EXPECT_EQ(s.spaces, sim::AmdStepInfo::kGlobal);
        const int lane = std::countr_zero(s.active);
        const std::uint64_t a = wg->lane_addresses(w)[lane];
        EXPECT_GE(a, in);
        EXPECT_LT(a, in + n * 4);
      }
      if (inst.op == isa::amdgcn::Op::ds) {
        ++lds_ops;
        EXPECT_EQ(s.spaces, sim::AmdStepInfo::kLds);
      }
    }
    ASSERT_TRUE(progress) << "every wave waits: a barrier that never completes";
  }
  EXPECT_GT(global_loads, 0);
  EXPECT_GT(lds_ops, 0);
  EXPECT_GT(waits, 0);
  EXPECT_EQ(releases, 9) << "one release per __syncthreads: after the store and after each of 8 tree levels";
  // workgroup 1 summed in[512 .. 999]: 488 ones
  const float* part = reinterpret_cast<const float*>(mem.find(out, 1)->data());
  EXPECT_EQ(part[1], 488.0f);
}

// ---------------------------------------------------------------------------------------------
// memory spaces

// The memory-space kernels of memory_spaces.hip, from `source` (the .hip itself or a code object).
void expect_memory_spaces(const std::string& source, const std::string& dir, const char* arch, const std::string& what) {
  auto spec = [&](const char* kernel, int grid, int block, const char* type_in, int n_in, const char* type_out) {
    return std::string(R"({"source": ")") + source + R"(", "kernel": ")" + kernel + R"(", "grid": )" + std::to_string(grid) +
           R"(, "block": )" + std::to_string(block) + R"(, "args": [{"buffer": ")" + type_in + R"(", "count": )" +
           std::to_string(n_in) + R"(, "init": "iota"}, {"buffer": ")" + type_out + R"(", "count": )" +
           std::to_string(grid * block) + "}]}";
  };
  // a dynamically indexed private array lives in scratch (scratch_store/scratch_load)
  auto a = as<float>(run_amd(spec("scratch_array", 2, 128, "i32", 256, "f32"), dir, arch)[1]);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(a[i], static_cast<float>((i % 40) * 3 + i)) << what << " work-item " << i;
  // one function reads global memory and LDS through flat pointers (the shared aperture)
  auto f = as<float>(run_amd(spec("flat_lds_global", 2, 128, "f32", 258, "f32"), dir, arch)[1]);
  for (int i = 0; i < 256; ++i) {
    const int t = i % 128;
    ASSERT_EQ(f[i], static_cast<float>(3 * i + 3 + 10 * (3 * t + 3))) << what << " work-item " << i;
  }
  // recursion: a dynamic stack in scratch
  auto r = as<std::int32_t>(run_amd(spec("recursive_fib", 1, 64, "i32", 64, "i32"), dir, arch)[1]);
  int fib[12] = {0, 1};
  for (int k = 2; k < 12; ++k) fib[k] = fib[k - 1] + fib[k - 2];
  for (int i = 0; i < 64; ++i) ASSERT_EQ(r[i], fib[i % 12]) << what << " work-item " << i;
}

TEST(AmdMemorySpaces, ScratchArraysFlatPointersAndRecursionWork) {
  for (const char* arch : {"mi300x", "mi355x"}) expect_memory_spaces("memory_spaces.hip", kAmd, arch, arch);
}

TEST(AmdMemorySpaces, UnoptimizedCodeRuns) {
  // -O0 code: every value goes through scratch (all addressing forms), SGPRs spill to VGPR lanes,
  // VGPRs to AGPRs, and device functions are real calls with a stack
  test::TempDir t;
  for (const char* gfx : {"gfx942", "gfx950"}) {
    frontends::CompileOptions co;
    co.target = gfx;
    co.extra_flags = {"-O0"};
    const auto m = frontends::compile_amd(kAmd + "/memory_spaces.hip", co);
    const std::string path = (t.path() / (std::string("memory_spaces_O0.") + gfx + ".co")).string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(m.binary.data()),
                                                 static_cast<std::streamsize>(m.binary.size()));
    expect_memory_spaces(path, t.path().string(), std::string(gfx) == "gfx942" ? "mi300x" : "mi355x", std::string(gfx) + " -O0");
  }
}

TEST(AmdFloat, Fma32IsCorrectlyRounded) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> bits;
  auto check = [](float a, float b, float c) {
    const float want = std::fma(a, b, c), got = sim::amd::fma32(a, b, c);
    if (std::isnan(want)) EXPECT_TRUE(std::isnan(got));
    else EXPECT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want)) << a << " * " << b << " + " << c;
  };
  for (int i = 0; i < 200000; ++i) {
    // random bit patterns, and products that nearly cancel the addend (the hard cases)
    const float a = std::bit_cast<float>(bits(rng)), b = std::bit_cast<float>(bits(rng)), c = std::bit_cast<float>(bits(rng));
    check(a, b, c);
    const float x = std::ldexp(1.0f + static_cast<float>(bits(rng) & 0xffff) / 65536.0f, static_cast<int>(bits(rng) % 40) - 20);
    const float y = std::ldexp(1.0f + static_cast<float>(bits(rng) & 0xffff) / 65536.0f, static_cast<int>(bits(rng) % 40) - 20);
    check(x, y, -x * y);
    check(x, y, std::nextafter(-x * y, 0.0f));
    check(x, -y, std::ldexp(x * y, -30));
  }
  check(1e-30f, 1e-30f, 1e-45f);  // subnormal results
  check(3.0f, 1.0f / 3.0f, -1.0f);
}

TEST(AmdFloat, Fp8EncodingsMatchTheFormats) {
  using sim::amd::fp8_decode;
  using sim::amd::fp8_encode;
  using sim::amd::fp8_format;
  // OCP e4m3 and e5m2 (gfx950) against kernsim's shared float-format rounding
  for (std::uint32_t c = 0; c < 256; ++c) {
    const float e4 = fp8_decode(c, fp8_format(true, false)), e5 = fp8_decode(c, fp8_format(true, true));
    const double r4 = decode_format(c, FloatFormat::E4M3), r5 = decode_format(c, FloatFormat::E5M2);
    if (std::isnan(r4)) {
      EXPECT_TRUE(std::isnan(e4)) << c;
    } else {
      EXPECT_EQ(e4, static_cast<float>(r4)) << c;
    }
    if (std::isnan(r5)) {
      EXPECT_TRUE(std::isnan(e5)) << c;
    } else {
      EXPECT_EQ(e5, static_cast<float>(r5)) << c;
    }
    // FNUZ (gfx942): the same bits with one more exponent bias (half the OCP value), 0x80 is the NaN
    const float f4 = fp8_decode(c, fp8_format(false, false));
    if (c == 0x80) {
      EXPECT_TRUE(std::isnan(f4));
    } else if (!std::isnan(e4)) {
      EXPECT_EQ(f4, e4 / 2) << c;
    }
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-500.f, 500.f);
  for (int i = 0; i < 100000; ++i) {
    const float x = i % 2 ? u(rng) : u(rng) / 4096.0f;
    EXPECT_EQ(fp8_encode(x, fp8_format(true, false), true), round_to_format(x, FloatFormat::E4M3, RoundMode::NearestEven, true)) << x;
    EXPECT_EQ(fp8_encode(x, fp8_format(true, true), false), round_to_format(x, FloatFormat::E5M2, RoundMode::NearestEven, false)) << x;
    // FNUZ e4m3 of x has the bits of OCP e4m3 of 2x (one more exponent bias), where both are finite
    if (std::fabs(x) <= 224.0f && x != 0) {
      const std::uint32_t ocp = fp8_encode(2 * x, fp8_format(true, false), true);
      EXPECT_EQ(fp8_encode(x, fp8_format(false, false), true), ocp == 0x80 ? 0u : ocp) << x << " (FNUZ has no -0)";
    }
  }
}

}  // namespace
}  // namespace kernsim
