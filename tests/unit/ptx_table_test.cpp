// The PTX opcode table (isa/ptx/ops.def) and what is derived from it: every Op has its row and
// its mnemonic finds it again; decode takes the pipe, the machine-instruction count and the state
// space from the row; fence-like, FLOPs, the second pipe and the tensor scale the timing model
// reads per instruction.
#include <gtest/gtest.h>

#include <cstring>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "isa/ptx/decode.h"
#include "isa/ptx/ops.h"
#include "isa/ptx/parser.h"
#include "sim/functional/ptx_exec.h"
#include "test_util.h"

namespace kernsim {
namespace {

namespace P = isa::ptx;
using isa::Unit;

const char* kRegs = ".reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n.reg .f32 %f<16>;\n.reg .f64 %fd<8>;\n.reg .pred %p<8>;\n.reg .b16 %h<8>;";

P::Program decode(const std::string& body) {
  const std::string text = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 a, .param .u32 b)\n{\n" +
                           std::string(kRegs) + "\n" + body + "\n}\n";
  auto ast = P::parse_module(text, "test.ptx");
  return P::decode_kernel(ast, "k", text, "test.ptx");
}

// Runs `body` in every thread of one block of `threads`; the body leaves each thread's result in
// %r9 and may branch to $DONE; %r8 holds the u32 parameter b. Returns the results by thread.
std::vector<std::uint32_t> run(const std::string& body, int threads, std::uint32_t b = 0, sim::ExecOptions eo = {}) {
  const std::string text = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 a, .param .u32 b)\n{\n" +
                           std::string(kRegs) + R"(
    ld.param.u64 %rd14, [a];
    ld.param.u32 %r8, [b];
    mov.u32 %r14, %tid.x;
    mul.wide.u32 %rd15, %r14, 4;
    add.s64 %rd14, %rd14, %rd15;
    mov.u32 %r9, 0xdead;
)" + body + R"(
  $DONE:
    st.global.u32 [%rd14], %r9;
    ret;
}
)";
  auto ast = P::parse_module(text, "test.ptx");
  const P::Program prog = P::decode_kernel(ast, "k", text, "test.ptx");
  sim::GlobalMemory mem;
  const std::uint64_t out = mem.allocate(static_cast<std::uint64_t>(threads) * 4, "out");
  std::vector<std::uint8_t> params(12, 0);
  std::memcpy(params.data(), &out, 8);
  std::memcpy(params.data() + 8, &b, 4);
  sim::LaunchDims dims;
  dims.block = {static_cast<std::uint32_t>(threads), 1, 1};
  sim::PtxKernel kernel(prog, mem, dims, params, eo);
  kernel.run_all();
  std::vector<std::uint32_t> v(static_cast<std::size_t>(threads));
  std::memcpy(v.data(), mem.find(out, 1)->data(), v.size() * 4);
  return v;
}

// The first instruction of a one-instruction body.
P::Inst one(const std::string& line) { return decode(line + "\nret;").insts[0]; }

TEST(PtxTable, EveryOpHasItsOwnRowAndItsMnemonicFindsItAgain) {
  ASSERT_EQ(P::num_ops(), static_cast<int>(P::Op::Unsupported) + 1);
  for (int i = 0; i < P::num_ops(); ++i) {
    const P::Op op = static_cast<P::Op>(i);
    const P::OpInfo& r = P::op_info(op);
    EXPECT_EQ(r.op, op) << "row " << i;
    EXPECT_STREQ(P::to_string(op), r.mnemonic);
    if (r.form == P::Form::Derived) {
      EXPECT_EQ(P::find_mnemonic(r.mnemonic), nullptr) << r.mnemonic << " is reached through another row";
      continue;
    }
    const P::Mnemonic* m = P::find_mnemonic(r.mnemonic);
    ASSERT_NE(m, nullptr) << r.mnemonic;
    EXPECT_EQ(m->op, op) << r.mnemonic;
    EXPECT_EQ(m->form, r.form) << r.mnemonic;
  }
}

const P::Mnemonic* find(const std::vector<std::string>& parts) { return P::find_mnemonic(parts); }

TEST(PtxTable, TheLongestLeadingPartsSelectTheRow) {
  EXPECT_EQ(find({"bar", "warp", "sync"})->op, P::Op::BarWarp);
  EXPECT_EQ(find({"bar", "sync"})->op, P::Op::Bar);
  EXPECT_EQ(find({"cp", "async", "wait_all"})->op, P::Op::CpAsyncWait);
  EXPECT_EQ(find({"cp", "async", "ca", "shared", "global"})->op, P::Op::CpAsync);
  EXPECT_EQ(find({"addc", "cc", "u32"})->flags, P::kCarryIn);
  EXPECT_EQ(find({"cp", "async", "bulk", "shared::cluster", "global"})->op, P::Op::BulkCopy);
  EXPECT_EQ(find({"cp", "async", "bulk", "tensor", "2d", "shared::cluster"})->op, P::Op::TensorCopy);
  EXPECT_EQ(find({"cp", "reduce", "async", "bulk", "tensor", "1d"})->op, P::Op::TensorReduce) << "five leading parts";
  EXPECT_EQ(find({"mbarrier", "try_wait", "parity"})->op, P::Op::MbarTryWait);
  EXPECT_EQ(find({"tensormap", "replace", "tile", "rank"})->op, P::Op::TensormapReplace);
  const P::Mnemonic* tmap = find({"tensormap", "other"});
  ASSERT_NE(tmap, nullptr);
  EXPECT_NE(tmap->unsupported, nullptr) << "known, not implemented";
  EXPECT_EQ(find({"tex", "1d"}), nullptr);
  EXPECT_EQ(find({"cp"}), nullptr);
}

TEST(PtxTable, StoresBarriersAndBranchesAreFenceLikeArithmeticIsNot) {
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    add.s32 %r1, %r2, %r3;
    st.global.u32 [%rd1], %r1;
    bar.sync 0;
    atom.global.add.u32 %r4, [%rd1], 1;
    membar.gl;
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra $L;
    mov.u32 %r5, %clock;
    fma.rn.f32 %f1, %f2, %f3, %f4;
  $L:
    ret;)");
  auto fence = [&](P::Op op) {
    for (const auto& in : p.insts)
      if (in.op == op) return P::fence_like(in);
    ADD_FAILURE() << "no " << P::to_string(op);
    return false;
  };
  EXPECT_TRUE(fence(P::Op::St));
  EXPECT_TRUE(fence(P::Op::Bar));
  EXPECT_TRUE(fence(P::Op::Atom));
  EXPECT_TRUE(fence(P::Op::Membar));
  EXPECT_TRUE(fence(P::Op::Bra));
  EXPECT_TRUE(fence(P::Op::Ret));
  EXPECT_TRUE(fence(P::Op::Mov)) << "a clock read";
  EXPECT_FALSE(fence(P::Op::Add));
  EXPECT_FALSE(fence(P::Op::Fma));
  EXPECT_FALSE(fence(P::Op::Setp));
  EXPECT_FALSE(fence(P::Op::Ld));
}

TEST(PtxTable, FlopsCountAnFmaTwicePackedHalvesTwiceAgainAndMatricesByShape) {
  EXPECT_EQ(P::flops(one("fma.rn.f32 %f1, %f2, %f3, %f4;"), 32), 64);
  EXPECT_EQ(P::flops(one("fma.rn.f16x2 %r1, %r2, %r3, %r4;"), 32), 128);
  EXPECT_EQ(P::flops(one("mad.rn.f32 %f1, %f2, %f3, %f4;"), 32), 64) << "mad.f32 is an fma";
  EXPECT_EQ(P::flops(one("fma.rn.f32 %f1, %f2, %f3, %f4;"), 5), 10) << "only the active lanes";
  EXPECT_EQ(P::flops(one("add.f32 %f1, %f2, %f3;"), 32), 32);
  EXPECT_EQ(P::flops(one("add.s32 %r1, %r2, %r3;"), 32), 0) << "integer adds are no FLOPs";
  EXPECT_EQ(P::flops(one("mad.lo.s32 %r1, %r2, %r3, %r4;"), 32), 0);
  EXPECT_EQ(P::flops(one("st.global.f32 [%rd1], %f1;"), 32), 0);
  const P::Inst mma = one("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};");
  EXPECT_EQ(P::flops(mma, 32), 2 * 16 * 8 * 16);
  EXPECT_EQ(P::flops(mma, 7), 2 * 16 * 8 * 16) << "a warp-wide instruction";
  EXPECT_EQ(mma.unit, Unit::TensorF16);
  EXPECT_EQ(P::matrix_scale(mma), 1) << "m16n8k16 is the f16 pipe's reference";
  const P::Inst tf32 = one("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};");
  EXPECT_EQ(tf32.unit, Unit::TensorTf32);
  const P::Inst half = one("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r5}, {%f5,%f6,%f7,%f8};");
  EXPECT_EQ(P::matrix_scale(half), 0.5);
}

TEST(PtxTable, TheTypeSelectsThePipeAndTheMachineInstructionCount) {
  EXPECT_EQ(one("add.f32 %f1, %f2, %f3;").unit, Unit::Fp32);
  EXPECT_EQ(one("add.s32 %r1, %r2, %r3;").unit, Unit::IntAlu);
  EXPECT_EQ(one("add.f64 %fd1, %fd2, %fd3;").unit, Unit::Fp64);
  EXPECT_EQ(one("add.f16x2 %r1, %r2, %r3;").unit, Unit::Fp16);
  EXPECT_EQ(one("add.s64 %rd1, %rd2, %rd3;").weight, 2);
  EXPECT_EQ(one("min.f32 %f1, %f2, %f3;").unit, Unit::IntAlu) << "FMNMX is on the ALU pipe";
  EXPECT_EQ(one("min.f64 %fd1, %fd2, %fd3;").unit, Unit::Fp64);
  EXPECT_EQ(one("rcp.approx.f32 %f1, %f2;").unit, Unit::Sfu);
  const P::Inst rcp = one("rcp.rn.f32 %f1, %f2;");
  EXPECT_EQ(rcp.unit, Unit::Fp32);
  EXPECT_EQ(rcp.weight, 8);
  EXPECT_EQ(one("div.s64 %rd1, %rd2, %rd3;").weight, 40);
  EXPECT_EQ(one("setp.lt.f64 %p1, %fd1, %fd2;").unit, Unit::Fp64);
  EXPECT_EQ(one("setp.lt.s64 %p1, %rd1, %rd2;").weight, 2);
  EXPECT_EQ(one("set.lt.u32.f32 %r1, %f1, %f2;").unit, Unit::Fp32) << "set compares its second type";
  EXPECT_EQ(one("cvt.rn.f32.f64 %f1, %fd1;").unit, Unit::Fp64);
  EXPECT_EQ(one("cvt.u64.u32 %rd1, %r1;").unit, Unit::IntAlu);
  EXPECT_EQ(one("ld.global.u32 %r1, [%rd1];").unit, Unit::Mem);
  EXPECT_EQ(one("ld.global.u32 %r1, [%rd1];").space, P::Space::Global);
  EXPECT_EQ(one("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r2];").space, P::Space::Shared);
}

TEST(PtxTable, OnlyNarrowIntegerAddsAndMovesMayTakeTheFmaPipe) {
  EXPECT_EQ(P::alt_unit(one("add.s32 %r1, %r2, %r3;")), Unit::IntMul);
  EXPECT_EQ(P::alt_unit(one("mov.u32 %r1, %r2;")), Unit::IntMul);
  EXPECT_EQ(P::alt_unit(one("add.s64 %rd1, %rd2, %rd3;")), std::nullopt);
  EXPECT_EQ(P::alt_unit(one("add.f32 %f1, %f2, %f3;")), std::nullopt);
  EXPECT_EQ(P::alt_unit(one("and.b32 %r1, %r2, %r3;")), std::nullopt);
  EXPECT_EQ(P::pipe_group(Unit::IntMul), P::PipeGroup::Fma);
  EXPECT_EQ(P::pipe_group(Unit::IntAlu), P::PipeGroup::Alu);
  EXPECT_EQ(P::pipe_group(Unit::Sfu), P::PipeGroup::None);
}

TEST(PtxTable, TheTimingDescriptorAgreesWithTheQueries) {
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    add.s32 %r1, %r2, %r3;
    fma.rn.f16x2 %r4, %r1, %r2, %r3;
    sin.approx.f32 %f1, %f2;
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};
    ret;)");
  const auto descs = P::timing_descs(p);
  ASSERT_EQ(descs.size(), p.insts.size());
  for (std::size_t i = 0; i < descs.size(); ++i) {
    const P::Inst& in = p.insts[i];
    const P::TimingDesc& d = descs[i];
    EXPECT_EQ(d.unit, in.unit) << i;
    for (int lanes : {1, 17, 32}) EXPECT_EQ(d.flops_per_lane * lanes + d.flops_per_inst, P::flops(in, lanes)) << i;
    EXPECT_EQ(d.matrix_scale, P::matrix_scale(in)) << i;
    EXPECT_EQ(d.alt_unit >= 0, P::alt_unit(in).has_value()) << i;
    EXPECT_EQ(d.range_reduced, (in.flags & P::kRangeReduced) != 0) << i;
  }
  for (const auto& in : p.insts)
    if (in.op == P::Op::Sin) EXPECT_TRUE(in.flags & P::kRangeReduced) << "the range-reduction pass ran";
}

TEST(PtxTable, APredicateImmediateIsTrueWhenNotZero) {
  // PTX and ptxas take any integer; Triton writes mov.pred %p, -1
  const auto v = run(R"(
    mov.pred %p1, -1;
    mov.pred %p2, 2;
    mov.pred %p3, 0;
    mov.pred %p4, 1;
    selp.u32 %r1, 1, 0, %p1;
    selp.u32 %r2, 2, 0, %p2;
    selp.u32 %r3, 4, 0, %p3;
    selp.u32 %r4, 8, 0, %p4;
    or.b32 %r9, %r1, %r2;
    or.b32 %r9, %r9, %r3;
    or.b32 %r9, %r9, %r4;)", 32);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(v[static_cast<std::size_t>(t)], 1u + 2u + 8u) << "thread " << t;
}

// 16-bit and/or/xor compute on both operands (Triton packs mask bits with selp/shl/or/and.b16):
// the result once came out as the first operand.
TEST(PtxTable, SixteenBitLogicUsesBothOperands) {
  const auto v = run(R"(
    setp.lt.u32 %p1, %r14, 100;
    selp.b16 %h1, -1, 0, %p1;
    shl.b16 %h2, %h1, 3;
    selp.b16 %h3, 1, 0, %p1;
    or.b16 %h4, %h2, %h3;
    and.b16 %h5, %h4, 3;
    xor.b16 %h6, %h2, %h1;
    cvt.u32.u16 %r1, %h4;
    cvt.u32.u16 %r2, %h5;
    cvt.u32.u16 %r3, %h6;
    shl.b32 %r1, %r1, 8;
    shl.b32 %r3, %r3, 4;
    or.b32 %r9, %r1, %r2;
    or.b32 %r9, %r9, %r3;)", 32);
  // or: 0xfff8 | 1 = 0xfff9; and: 0xfff9 & 3 = 1; xor: 0xfff8 ^ 0xffff = 7
  for (int t = 0; t < 32; ++t) EXPECT_EQ(v[static_cast<std::size_t>(t)], (0xfff9u << 8) | 1u | (7u << 4)) << "thread " << t;
}

// elect.sync d|p, membermask among the lanes a branch left active: lanes 0, 4, 8, ... of each
// warp skip it; the result is leader lane id + 1000 in the leader.
const char* kElect = R"(
    and.b32 %r1, %r14, 3;
    setp.eq.u32 %p2, %r1, 0;
    @%p2 bra $DONE;
    elect.sync %r5|%p1, %r8;
    selp.u32 %r6, 1000, 0, %p1;
    add.u32 %r9, %r5, %r6;)";

// setmaxnreg changes a warpgroup's register allocation, not a value: the registers keep what
// they hold; an operand outside 24..256 or not a multiple of 8 is a fault.
TEST(PtxTable, SetmaxnregKeepsTheRegistersAndChecksItsCount) {
  const P::Inst e = one("setmaxnreg.inc.sync.aligned.u32 232;");
  EXPECT_EQ(e.op, P::Op::Setmaxnreg);
  EXPECT_EQ(e.unit, Unit::Nop);
  const auto out = run(R"(
    add.u32 %r9, %r14, 7;
    setmaxnreg.dec.sync.aligned.u32 40;
    setmaxnreg.inc.sync.aligned.u32 232;
    add.u32 %r9, %r9, 1;)", 128);
  for (int t = 0; t < 128; ++t) EXPECT_EQ(out[static_cast<std::size_t>(t)], static_cast<std::uint32_t>(t + 8)) << "thread " << t;
  EXPECT_THROW(run("setmaxnreg.inc.sync.aligned.u32 236;", 128), Error);
  EXPECT_THROW(run("setmaxnreg.dec.sync.aligned.u32 16;", 128), Error);
}

// movmatrix.sync.aligned.m8n8.trans.b16 transposes the 8x8 b16 matrix a warp holds as mma
// fragments (lane t: row t/4, columns 2(t%4) and 2(t%4)+1, low half first). Each element here is
// 16 row + column, so the transpose's element (r, c) must read 16 c + r.
TEST(PtxTable, MovmatrixTransposesTheWarpsEightByEightMatrix) {
  const P::Inst e = one("movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;");
  EXPECT_EQ(e.op, P::Op::Movmatrix);
  EXPECT_EQ(e.unit, Unit::Sync);
  const auto out = run(R"(
    shr.u32 %r1, %r14, 2;
    and.b32 %r2, %r14, 3;
    shl.b32 %r2, %r2, 1;
    shl.b32 %r3, %r1, 4;
    add.u32 %r3, %r3, %r2;
    add.u32 %r4, %r3, 1;
    shl.b32 %r4, %r4, 16;
    or.b32 %r5, %r3, %r4;
    movmatrix.sync.aligned.m8n8.trans.b16 %r9, %r5;)", 32);
  for (int t = 0; t < 32; ++t) {
    const std::uint32_t r = static_cast<std::uint32_t>(t / 4), c = static_cast<std::uint32_t>(2 * (t % 4));
    EXPECT_EQ(out[static_cast<std::size_t>(t)], (16 * c + r) | (16 * (c + 1) + r) << 16) << "lane " << t;
  }
}

TEST(PtxTable, ElectSyncElectsTheLowestActiveLaneOfTheMask) {
  const P::Inst e = one("elect.sync %r1|%p1, 0xffffffff;");
  EXPECT_EQ(e.op, P::Op::ElectSync);
  EXPECT_EQ(e.unit, Unit::Sync);
  EXPECT_EQ(e.ndst, 2);
  const auto all = run(kElect, 64, 0xffffffffu);
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32;
    const std::uint32_t want = lane % 4 == 0 ? 0xdeadu : lane == 1 ? 1001u : 1u;  // lane 0 is not active: lane 1 leads
    EXPECT_EQ(all[static_cast<std::size_t>(t)], want) << "thread " << t;
  }
  // membermask without lanes 0-3: lane 5 is the lowest active member
  const auto upper = run(kElect, 32, 0xfffffff0u);
  for (int t = 4; t < 32; ++t)
    EXPECT_EQ(upper[static_cast<std::size_t>(t)], t % 4 == 0 ? 0xdeadu : t == 5 ? 1005u : 5u) << "thread " << t;
  // a sparse mask: lanes 8 (inactive), 10 and 30; and the sink destination
  const auto sparse = run(R"(
    and.b32 %r1, %r14, 3;
    setp.eq.u32 %p2, %r1, 0;
    @%p2 bra $DONE;
    elect.sync _|%p1, %r8;
    selp.u32 %r9, 1, 0, %p1;)", 32, (1u << 8) | (1u << 10) | (1u << 30));
  for (int t = 0; t < 32; ++t)
    EXPECT_EQ(sparse[static_cast<std::size_t>(t)], t % 4 == 0 ? 0xdeadu : t == 10 ? 1u : 0u) << "thread " << t;
}

TEST(PtxTable, NwarpidIsTheDevicesWarpSlotsPerSm) {
  sim::ExecOptions eo;
  eo.max_warps_per_sm = 48;
  const auto v = run("mov.u32 %r9, %nwarpid;", 32, 0, eo);
  EXPECT_EQ(v[0], 48u);
  EXPECT_EQ(v[31], 48u);
  // through a launch: the device file's sm.max_warps
  test::TempDir dir;
  dir.write("nwarpid.ptx", R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry nwarpid(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %nwarpid;
  st.global.u32 [%rd1], %r1;
  ret;
}
)");
  auto spec = api::parse_launch_spec_text(R"({"source": "nwarpid.ptx", "kernel": "nwarpid", "grid": 1, "block": 1,
                                              "args": [{"buffer": "u32", "count": 1}]})", dir.path(), "test spec");
  device::DeviceSpec dev = device::load_builtin_device("h200");
  dev.sm.max_warps = 40;
  api::RunOptions opts;
  opts.full = true;
  opts.keep_outputs = true;
  const api::RunResult r = api::run_launch(spec, dev, opts);
  ASSERT_EQ(r.outputs.size(), 1u);
  std::uint32_t got = 0;
  std::memcpy(&got, r.outputs[0].bytes.data(), 4);
  EXPECT_EQ(got, 40u);
}

// Dynamic shared memory follows every static, function-scope ones included, at the extern array's
// alignment: Triton/CUTLASS-style kernels put an mbarrier in a function-scope .shared variable and
// their swizzled tiles in a 1024-byte-aligned extern array (the two overlapped before).
TEST(PtxDecode, DynamicSharedMemoryFollowsFunctionScopeStaticsAtItsAlignment) {
  const std::string text = R"(.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 slot;
  mov.u32 %r1, smem;
  mov.u32 %r2, bar;
  mov.u32 %r3, slot;
  ret;
}
)";
  auto ast = P::parse_module(text, "test.ptx");
  const P::Program p = P::decode_kernel(ast, "k", text, "test.ptx");
  EXPECT_EQ(p.static_shared_bytes, 12u);
  EXPECT_EQ(p.dynamic_shared_offset, 1024u) << "the extern array's 1024-byte alignment after 12 static bytes";
  std::uint64_t smem = 0;
  for (const P::Symbol& s : p.symbols)
    if (s.name == "smem") smem = s.addr;
  EXPECT_EQ(smem, 1024u);
}

}  // namespace
}  // namespace kernsim
