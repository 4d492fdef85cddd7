// The PTX passes that approximate what ptxas does to a kernel's schedule: load hoisting within
// basic blocks, and the loads of loops ptxas unrolled (Inst::batch), which must leave pointer
// chases alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"
#include "test_util.h"

namespace kernsim {
namespace {

namespace P = isa::ptx;

P::Program decode(const std::string& body, const std::string& regs) {
  const std::string text = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 a, .param .u64 b)\n{\n" + regs +
                           "\n" + body + "\n}\n";
  auto ast = P::parse_module(text, "test.ptx");
  return P::decode_kernel(ast, "k", text, "test.ptx");
}

int index_of(const P::Program& p, P::Op op, int nth = 0) {
  for (std::size_t i = 0; i < p.insts.size(); ++i)
    if (p.insts[i].op == op && nth-- == 0) return static_cast<int>(i);
  return -1;
}

template <class F> int index_where(const P::Program& p, F f, int nth) {
  for (std::size_t i = 0; i < p.insts.size(); ++i)
    if (f(p.insts[i]) && nth-- == 0) return static_cast<int>(i);
  return -1;
}

TEST(HoistLoads, MovesALoadAboveArithmeticItDoesNotNeed) {
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.global.f32 %f1, [%rd1];
    add.f32 %f2, %f1, %f1;
    mul.f32 %f3, %f2, %f2;
    ld.global.f32 %f4, [%rd1+4];
    add.f32 %f5, %f3, %f4;
    ret;)", ".reg .b64 %rd<4>;\n.reg .f32 %f<8>;");
  // the second global load no longer waits behind the add/mul that use the first one
  EXPECT_LT(index_of(p, P::Op::Ld, 2), index_of(p, P::Op::Add, 0));
}

TEST(HoistLoads, NeverCrossesAStoreOrADependency) {
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.global.f32 %f1, [%rd1];
    st.global.f32 [%rd1+8], %f1;
    ld.global.f32 %f2, [%rd1+8];
    add.s64 %rd2, %rd1, 16;
    ld.global.f32 %f3, [%rd2];
    ret;)", ".reg .b64 %rd<4>;\n.reg .f32 %f<8>;");
  EXPECT_GT(index_of(p, P::Op::Ld, 2), index_of(p, P::Op::St)) << "a load may read what the store wrote";
  EXPECT_GT(index_of(p, P::Op::Ld, 3), index_of(p, P::Op::Add)) << "its address comes from the add";
}

TEST(HoistLoads, AGlobalLoadPassesStoresToLocalAndSharedMemoryOnly) {
  // clang's PTX of hgemm_mma_tn (grown set): a tile loaded to registers goes through a local
  // array; ptxas's SASS issues all the LDGs before the first STL/STS
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.global.b64 %rd3, [%rd1];
    st.local.b64 [%rd2], %rd3;
    ld.global.b64 %rd4, [%rd1+8];
    st.shared.b64 [%rd2], %rd4;
    ld.global.b64 %rd5, [%rd1+16];
    ld.shared.b64 %rd6, [%rd2+8];
    st.global.b64 [%rd1+64], %rd5;
    ld.global.b64 %rd7, [%rd1+24];
    st.shared.b64 [%rd2+16], %rd7;
    ld.b64 %rd8, [%rd1+32];
    ret;)", ".reg .b64 %rd<9>;");
  auto load_of = [&](int nth) { return index_where(p, [](const P::Inst& in) { return in.op == P::Op::Ld && in.space == P::Space::Global; }, nth); };
  const int st_local = index_where(p, [](const P::Inst& in) { return in.op == P::Op::St && in.space == P::Space::Local; }, 0);
  const int st_shared = index_where(p, [](const P::Inst& in) { return in.op == P::Op::St && in.space == P::Space::Shared; }, 0);
  const int st_global = index_where(p, [](const P::Inst& in) { return in.op == P::Op::St && in.space == P::Space::Global; }, 0);
  const int ld_shared = index_where(p, [](const P::Inst& in) { return in.op == P::Op::Ld && in.space == P::Space::Shared; }, 0);
  const int ld_generic = index_where(p, [](const P::Inst& in) { return in.op == P::Op::Ld && in.space == P::Space::Generic; }, 0);
  EXPECT_LT(load_of(1), st_local) << "the second global load issues before the local store";
  EXPECT_LT(load_of(2), st_local) << "the third passes the local and the shared store";
  EXPECT_GT(ld_shared, st_shared) << "a shared load may read what the shared store wrote";
  EXPECT_GT(load_of(3), st_global) << "a global load never passes a global store";
  EXPECT_GT(ld_generic, st_global) << "nor a generic load any store";
  EXPECT_GT(ld_generic, index_where(p, [](const P::Inst& in) { return in.op == P::Op::St && in.space == P::Space::Shared; }, 1));
}

TEST(MergeSharedLoads, AlignedConsecutiveSharedLoadsBecomeOneVectorLoad) {
  // clang's PTX of `float4 a = *(float4*)&As[k][ty * 4]` (sgemm_f4_64 of the grown set): four
  // ld.shared.b32 from a base that is the 16-byte-aligned array plus tid * 16; ptxas emits one
  // LDS.128. The same loads from a base only known 4-byte aligned stay four (ptxas: four LDS).
  const std::string regs = ".reg .b32 %r<20>;\n.reg .b64 %rd<8>;\n.shared .align 16 .b8 As[2048];";
  auto p = decode(R"(
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mul.wide.u32 %rd1, %r2, 4;
    mov.b64 %rd2, As;
    add.s64 %rd3, %rd2, %rd1;
    ld.shared.b32 %r3, [%rd3];
    ld.shared.b32 %r4, [%rd3+4];
    ld.shared.b32 %r5, [%rd3+8];
    ld.shared.b32 %r6, [%rd3+12];
    ld.shared.b32 %r7, [%rd3+256];
    ld.shared.b32 %r8, [%rd3+260];
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd2, %rd4;
    ld.shared.b32 %r9, [%rd5];
    ld.shared.b32 %r10, [%rd5+4];
    ld.shared.b32 %r11, [%rd5+8];
    ld.shared.b32 %r12, [%rd5+12];
    add.s32 %r13, %r3, %r6;
    add.s32 %r14, %r7, %r8;
    add.s32 %r15, %r9, %r12;
    ret;)", regs);
  std::vector<int> vecs;
  for (const auto& in : p.insts)
    if (in.op == P::Op::Ld && in.space == P::Space::Shared) vecs.push_back(in.vec);
  std::sort(vecs.begin(), vecs.end());
  EXPECT_EQ(vecs, (std::vector<int>{1, 1, 1, 1, 2, 4})) << "one .v4, one .v2 (8 bytes), and four from the 4-byte-aligned base";
  const int v4 = index_where(p, [](const P::Inst& in) { return in.op == P::Op::Ld && in.vec == 4; }, 0);
  ASSERT_GE(v4, 0);
  const P::Inst& sum = p.insts[static_cast<std::size_t>(index_where(p, [](const P::Inst& in) { return in.op == P::Op::Add && in.type == P::Ty::S32; }, 0))];  // add.s32 %r13, %r3, %r6
  EXPECT_EQ(p.dst(p.insts[static_cast<std::size_t>(v4)], 0), p.src(sum, 0));
  EXPECT_EQ(p.dst(p.insts[static_cast<std::size_t>(v4)], 3), p.src(sum, 1)) << "its fourth element is what the fourth scalar load wrote";
}

TEST(IfConvertLoads, ABoundsCheckedLoadBecomesPredicatedAndIssuesWithTheNextOne) {
  // clang's PTX of `As[k][r] = ok ? A[i] : 0; Bs[k][c] = ok2 ? B[j] : 0;` (sgemm_regblock and
  // sgemm_tiled): each load in its own then-part; ptxas's SASS has both as predicated LDGs
  // issued before the first STS. A then-part holding a store keeps its branch.
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 100;
    setp.ge.u32 %p2, %r1, 200;
    mov.b32 %r2, 0;
    @%p1 bra $L1;
    ld.global.b32 %r2, [%rd1];
  $L1:
    st.shared.b32 [%rd2], %r2;
    mov.b32 %r3, 0;
    @%p2 bra $L2;
    add.s64 %rd3, %rd1, 4096;
    ld.global.b32 %r3, [%rd3];
  $L2:
    st.shared.b32 [%rd2+4], %r3;
    @%p2 bra $L3;
    st.global.b32 [%rd1], %r3;
  $L3:
    ret;)", ".reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;");
  auto global_load = [](int nth) { return [nth](const P::Program& q) {
    return index_where(q, [](const P::Inst& in) { return in.op == P::Op::Ld && in.space == P::Space::Global; }, nth); }; };
  const int ld0 = global_load(0)(p), ld1 = global_load(1)(p);
  const int sts = index_where(p, [](const P::Inst& in) { return in.op == P::Op::St && in.space == P::Space::Shared; }, 0);
  ASSERT_GE(ld1, 0);
  EXPECT_LT(ld1, sts) << "the second load issues before the first shared store";
  EXPECT_TRUE(p.insts[static_cast<std::size_t>(ld0)].guard_neg) << "guarded by !p1: it ran where the branch fell through";
  const P::Reg g1 = p.insts[static_cast<std::size_t>(ld1)].guard;
  EXPECT_TRUE(g1.bank == P::Bank::Pred && !(g1 == p.insts[static_cast<std::size_t>(ld0)].guard)) << "the second is guarded by !p2";
  int branches = 0;
  for (const auto& in : p.insts) branches += in.op == P::Op::Bra;
  EXPECT_EQ(branches, 1) << "only the branch around the global store is left";
}

TEST(HoistLoads, TakesTheAddressArithmeticOfALoadAlong) {
  // the naive SGEMM's loop body as clang emits it: each B address is computed after the FMA that
  // uses the previous B load; ptxas issues every load of the body before the first FFMA
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    mov.f32 %f3, 0f00000000;
    ld.global.nc.f32 %f1, [%rd1];
    ld.global.nc.f32 %f2, [%rd2];
    fma.rn.f32 %f3, %f1, %f2, %f3;
    add.s64 %rd3, %rd2, 4096;
    ld.global.nc.f32 %f4, [%rd3];
    fma.rn.f32 %f3, %f1, %f4, %f3;
    st.global.f32 [%rd1], %f3;
    ret;)", ".reg .b64 %rd<4>;\n.reg .f32 %f<8>;");
  const int first_fma = index_of(p, P::Op::Fma, 0);
  const int b1 = index_where(p, [](const P::Inst& in) { return in.op == P::Op::Ld && in.space == P::Space::Global; }, 2);
  EXPECT_LT(b1, first_fma) << "every global load of the body issues before the first FMA";
  EXPECT_LT(index_of(p, P::Op::Add, 0), b1) << "the address of the last one is still computed before it";
}

TEST(HoistLoads, AddressArithmeticStopsAtWhatReadsTheRegisterItOverwrites) {
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.global.f32 %f1, [%rd1];
    add.f32 %f2, %f1, %f1;
    add.s64 %rd1, %rd1, 4;
    ld.global.f32 %f3, [%rd1];
    add.f32 %f4, %f2, %f3;
    ld.param.u64 %rd2, [b];
    st.global.f32 [%rd2], %f4;
    add.s64 %rd2, %rd2, 4;
    ld.global.f32 %f5, [%rd2];
    st.global.f32 [%rd2], %f5;
    ret;)", ".reg .b64 %rd<4>;\n.reg .f32 %f<8>;");
  auto int_add = [](const P::Inst& in) { return in.op == P::Op::Add && in.type == P::Ty::S64; };
  auto float_add = [](const P::Inst& in) { return in.op == P::Op::Add && in.type == P::Ty::F32; };
  auto global_load = [](const P::Inst& in) { return in.op == P::Op::Ld && in.space == P::Space::Global; };
  EXPECT_GT(index_where(p, int_add, 0), index_where(p, global_load, 0)) << "the first load reads %rd1 before the add overwrites it";
  EXPECT_LT(index_where(p, global_load, 1), index_where(p, float_add, 0)) << "the second load and its add pass the float add";
  EXPECT_LT(index_where(p, int_add, 0), index_where(p, float_add, 0));
  EXPECT_GT(index_where(p, int_add, 1), index_of(p, P::Op::St, 0)) << "address arithmetic never crosses a store";
}

bool folded(const P::Program& p, P::Op op, int nth) {
  return (p.insts[static_cast<std::size_t>(index_of(p, op, nth))].flags & P::kFoldedModifier) != 0;
}

// switch_ops as clang writes it: the loads every case reads above the switch's range check, which
// ptxas issues after it (its default case reads none of them).
TEST(SinkLoads, ALoadOnlyTheThenPartReadsMovesBelowTheBranch) {
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.global.nc.u32 %r2, [%rd1];
    ld.global.nc.u32 %r3, [%rd1+4];
    ld.global.nc.u32 %r8, [%rd2];
    mov.b32 %r10, 0;
    setp.gt.u32 %p2, %r8, 6;
    @%p2 bra $L10;
    add.s32 %r10, %r2, %r3;
    st.global.u32 [%rd2+8], %r10;
  $L10:
    st.global.u32 [%rd2], %r10;
    ret;)",
                  ".reg .b64 %rd<3>;\n.reg .b32 %r<11>;\n.reg .pred %p<3>;");
  // (the then-part holds a store, as switch_ops' holds its brx.idx: ptxas does not predicate it)
  const int bra = index_of(p, P::Op::Bra);
  auto loads_global = [](const P::Inst& in) { return in.op == P::Op::Ld && in.space == P::Space::Global; };
  ASSERT_GE(bra, 0);
  EXPECT_LT(index_where(p, loads_global, 0), bra) << "the case number's load stays: the branch reads it";
  EXPECT_EQ(index_where(p, loads_global, 1), bra + 1);
  EXPECT_EQ(index_where(p, loads_global, 2), bra + 2);
  EXPECT_EQ(p.insts[static_cast<std::size_t>(bra)].target, index_of(p, P::Op::St, 1)) << "the branch still goes to the join";
  EXPECT_EQ(p.insts[static_cast<std::size_t>(bra)].reconv, index_of(p, P::Op::St, 1));
}

TEST(SinkLoads, ALoadReadAfterTheJoinOrAThenPartEnteredElsewhereStays) {
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.global.nc.u32 %r2, [%rd1];
    ld.global.nc.u32 %r8, [%rd2];
    mov.b32 %r10, 0;
    setp.gt.u32 %p2, %r8, 6;
    @%p2 bra $L10;
    add.s32 %r10, %r2, 1;
  $L10:
    add.s32 %r10, %r10, %r2;
    ld.global.nc.u32 %r3, [%rd1+4];
    setp.gt.u32 %p1, %r8, 3;
    @%p1 bra $L11;
    setp.gt.u32 %p2, %r8, 5;
    @%p2 bra $L12;
  $L11:
    add.s32 %r10, %r10, %r3;
  $L12:
    st.global.u32 [%rd2], %r10;
    ret;)",
                  ".reg .b64 %rd<3>;\n.reg .b32 %r<11>;\n.reg .pred %p<3>;");
  auto loads_global = [](const P::Inst& in) { return in.op == P::Op::Ld && in.space == P::Space::Global; };
  EXPECT_LT(index_where(p, loads_global, 0), index_of(p, P::Op::Bra, 0)) << "%r2 is read after the join too";
  EXPECT_LT(index_where(p, loads_global, 2), index_of(p, P::Op::Bra, 1)) << "$L11 is reached from the first branch too";
}

// collatz_steps' loop as clang writes it: ptxas makes `and.b32; setp.ne 0` one LOP3 writing a
// predicate and folds `and.pred` into the comparisons before the branch (ISETP ... BRA P0, P1).
TEST(FoldPredicateLogic, ALogicalTestAndAPredicateAndAreFoldedIntoTheirProducers) {
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.global.u32 %r10, [%rd1];
    ld.param.u32 %r2, [b];
    mov.b32 %r11, 0;
  $L1:
    and.b32 %r7, %r10, 1;
    setp.ne.b32 %p5, %r7, 0;
    mad.lo.s32 %r8, %r10, 3, 1;
    shr.u32 %r9, %r10, 1;
    selp.b32 %r10, %r8, %r9, %p5;
    add.s32 %r11, %r11, 1;
    setp.gt.u32 %p6, %r10, 1;
    setp.lt.u32 %p7, %r11, %r2;
    and.pred %p8, %p6, %p7;
    @%p8 bra $L1;
    st.global.u32 [%rd1], %r11;
    ret;)",
                  ".reg .b64 %rd<2>;\n.reg .b32 %r<12>;\n.reg .pred %p<9>;");
  EXPECT_TRUE(folded(p, P::Op::Setp, 0)) << "setp.ne of an and.b32 against 0";
  EXPECT_TRUE(folded(p, P::Op::And, 1)) << "and.pred of a setp's result";
  EXPECT_FALSE(folded(p, P::Op::And, 0)) << "the and.b32 itself is the LOP3";
  EXPECT_FALSE(folded(p, P::Op::Setp, 1));
  EXPECT_FALSE(folded(p, P::Op::Setp, 2));
  EXPECT_FALSE(folded(p, P::Op::Selp, 0));
}

TEST(FoldPredicateLogic, AValueReadTwiceOrProducedInAnotherBlockIsKept) {
  auto p = decode(R"(
    ld.param.u64 %rd1, [a];
    ld.global.u32 %r1, [%rd1];
    setp.gt.u32 %p1, %r1, 1;
    and.b32 %r2, %r1, 6;
    setp.ne.b32 %p2, %r2, 0;
    @%p1 bra $L1;
    and.pred %p3, %p1, %p2;
    selp.b32 %r3, 1, 2, %p3;
    st.global.u32 [%rd1], %r3;
  $L1:
    and.b32 %r4, %r1, 1;
    setp.ne.b32 %p4, %r4, 0;
    selp.b32 %r5, 1, 2, %p4;
    st.global.u32 [%rd1+4], %r5;
    st.global.u32 [%rd1+8], %r4;
    setp.ne.b32 %p5, %r5, 0;
    selp.b32 %r6, 1, 2, %p5;
    st.global.u32 [%rd1+12], %r6;
    ret;)",
                  ".reg .b64 %rd<2>;\n.reg .b32 %r<7>;\n.reg .pred %p<6>;");
  EXPECT_TRUE(folded(p, P::Op::Setp, 1)) << "and.b32 then setp.ne 0 in one block: a LOP3 writing %p2";
  EXPECT_FALSE(folded(p, P::Op::And, 1)) << "%p1 is read by the branch too, and %p2 comes from the block before";
  EXPECT_FALSE(folded(p, P::Op::Setp, 2)) << "%r4 is stored too: the LOP3 must write it";
  EXPECT_FALSE(folded(p, P::Op::Setp, 3)) << "selp is no logical op";
}

// scan_blelloch's up-sweep step as clang writes it (`if (tid < d) temp[bi] += temp[ai];` in a loop
// with a barrier): ptxas predicates the body (@!P LDS, LDS, IADD3, STS; ncu counts every warp
// issuing it) and emits no branch around it, nor the body's jump back to the loop's latch.
TEST(IfConvert, AShortSharedMemoryBodyIsPredicatedAndItsBranchesFolded) {
  auto p = decode(R"(
    mov.u32 %r1, %tid.x;
    mov.b32 %r2, 512;
    mov.b64 %rd1, s;
    bra.uni $L2;
  $L1:
    shr.u32 %r2, %r2, 1;
    setp.eq.b32 %p2, %r2, 0;
    @%p2 bra $L3;
  $L2:
    bar.sync 0;
    setp.ge.u32 %p1, %r1, %r2;
    @%p1 bra $L1;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    ld.shared.u32 %r3, [%rd3];
    ld.shared.u32 %r4, [%rd3+4];
    add.s32 %r5, %r4, %r3;
    st.shared.u32 [%rd3+4], %r5;
    bra.uni $L1;
  $L3:
    ret;)",
                  ".reg .b64 %rd<4>;\n.reg .b32 %r<6>;\n.reg .pred %p<3>;\n.shared .align 4 .b8 s[4096];");
  const int bra = index_of(p, P::Op::Ld, 0) - 3;  // the skip: mul.wide and add.s64 stand between it and the first load
  ASSERT_GE(bra, 0);
  ASSERT_EQ(p.insts[static_cast<std::size_t>(bra)].op, P::Op::Bra);
  const P::Inst& b = p.insts[static_cast<std::size_t>(bra)];
  EXPECT_TRUE(b.flags & P::kFoldedModifier) << "no branch around the body";
  EXPECT_EQ(b.guard.bank, P::Bank::None) << "every lane goes on into the body";
  EXPECT_EQ(b.target, bra + 1);
  int guarded = 0;
  for (int k = bra + 1; k <= bra + 6; ++k) {
    const P::Inst& in = p.insts[static_cast<std::size_t>(k)];
    EXPECT_NE(in.guard.bank, P::Bank::None) << "body instruction " << k - bra;
    EXPECT_TRUE(in.guard_neg) << "on where %p1 (the skip) is false";
    guarded += in.guard.bank != P::Bank::None;
  }
  EXPECT_EQ(guarded, 6);
  const P::Inst& back = p.insts[static_cast<std::size_t>(bra + 7)];
  EXPECT_EQ(back.op, P::Op::Bra);
  EXPECT_TRUE(back.flags & P::kFoldedModifier) << "the body's jump to the latch is the loop's layout, no instruction";
  EXPECT_EQ(back.guard.bank, P::Bank::None);
}

// reduce_shuffle_f32's `if (lane == 0) warp_sums[warp] = v;` as clang lays it out (the body after
// a jump over it: `@p bra T; bra.uni J; T: body; J:`): ptxas 13.0's SASS has `@!P0 STS` and no
// branch, as for the other layout; the body runs where p holds.
TEST(IfConvert, ASharedBodyLaidOutAfterAJumpIsPredicatedOnTheBranchCondition) {
  auto p = decode(R"(
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    shr.u32 %r3, %r1, 5;
    setp.eq.b32 %p1, %r2, 0;
    mov.b64 %rd1, s;
    @%p1 bra $L1;
    bra.uni $L2;
  $L1:
    mul.wide.u32 %rd2, %r3, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.shared.b32 [%rd3], %r1;
  $L2:
    bar.sync 0;
    ret;)",
                  ".reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n.shared .align 4 .b8 s[128];");
  int live_branches = 0;
  for (const auto& in : p.insts) live_branches += in.op == P::Op::Bra && !(in.flags & P::kFoldedModifier);
  EXPECT_EQ(live_branches, 0) << "neither the conditional branch nor the jump over the body is a machine instruction";
  const int st = index_of(p, P::Op::St);
  ASSERT_GE(st, 2);
  for (int k = st - 2; k <= st; ++k) {
    const P::Inst& in = p.insts[static_cast<std::size_t>(k)];
    EXPECT_EQ(in.guard.bank, P::Bank::Pred) << "body instruction " << k;
    EXPECT_FALSE(in.guard_neg) << "on where %p1 holds: the branch jumped into the body";
  }
}

TEST(IfConvert, BodiesWithGlobalAccessesBarriersOtherEntriesOrManyInstructionsKeepTheirBranch) {
  auto branches_kept = [](const std::string& body, const std::string& regs) {
    auto p = decode(body, regs);
    int kept = 0;
    for (const auto& in : p.insts) kept += in.op == P::Op::Bra && in.guard.bank != P::Bank::None && !(in.flags & P::kFoldedModifier);
    return kept;
  };
  const std::string regs = ".reg .b64 %rd<4>;\n.reg .b32 %r<20>;\n.reg .pred %p<3>;\n.shared .align 4 .b8 s[4096];";
  const std::string head = "ld.param.u64 %rd1, [a];\n mov.u32 %r1, %tid.x;\n mov.b64 %rd2, s;\n setp.ge.u32 %p1, %r1, 16;\n @%p1 bra $L1;\n";
  EXPECT_EQ(branches_kept(head + "ld.global.u32 %r2, [%rd1];\n st.shared.u32 [%rd2], %r2;\n$L1:\n ret;", regs), 1) << "a global load";
  EXPECT_EQ(branches_kept(head + "ld.shared.u32 %r2, [%rd2];\n st.global.u32 [%rd1], %r2;\n$L1:\n ret;", regs), 1) << "a global store";
  EXPECT_EQ(branches_kept(head + "ld.shared.u32 %r2, [%rd2];\n bar.sync 0;\n st.shared.u32 [%rd2+4], %r2;\n$L1:\n ret;", regs), 1)
      << "a barrier";
  EXPECT_EQ(branches_kept(head + "ld.shared.u32 %r2, [%rd2];\n setp.eq.u32 %p1, %r2, 0;\n st.shared.u32 [%rd2+4], %r2;\n$L1:\n ret;", regs), 1)
      << "the body writes the skip's predicate";
  EXPECT_EQ(branches_kept(head + "ld.shared.u32 %r2, [%rd2];\n$L2:\n st.shared.u32 [%rd2+4], %r2;\n$L1:\n setp.eq.u32 %p2, %r1, 3;\n @%p2 bra $L2;\n ret;",
                          regs),
            2)
      << "the body is entered at $L2 too";
  std::string many;
  for (int k = 2; k < 15; ++k) many += "add.s32 %r" + std::to_string(k) + ", %r1, " + std::to_string(k) + ";\n";
  EXPECT_EQ(branches_kept(head + many + "st.shared.u32 [%rd2], %r14;\n$L1:\n ret;", regs), 1) << "14 instructions";
  EXPECT_EQ(branches_kept(head + "add.s32 %r2, %r1, 1;\n st.shared.u32 [%rd2], %r2;\n$L1:\n ret;", regs), 0) << "the short shared body is converted";
}

const char* kLoops = R"(
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    mov.u32 %r1, 0;
    mov.f32 %f1, 0f00000000;
  $L1:
    ld.global.f32 %f2, [%rd1];
    add.f32 %f1, %f1, %f2;
    add.s64 %rd1, %rd1, 4;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, 100;
    @%p1 bra $L1;
    mov.u32 %r1, 0;
  $L2:
    ld.global.u64 %rd2, [%rd2];
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, 100;
    @%p1 bra $L2;
    st.global.f32 [%rd2], %f1;
    ret;)";
const char* kLoopRegs = ".reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n.reg .b32 %r<4>;\n.reg .pred %p<2>;";

TEST(UnrolledLoads, StreamingLoadIsBatchedPointerChaseIsNot) {
  auto p = decode(kLoops, kLoopRegs);
  // SASS: the first loop unrolled by 4 (4 loads), the chase by 4 too (4 dependent loads)
  EXPECT_EQ(P::mark_unrolled_loads(p, {4, 4}), 2);
  const P::Inst& stream = p.insts[static_cast<std::size_t>(index_of(p, P::Op::Ld, 2))];
  const P::Inst& chase = p.insts[static_cast<std::size_t>(index_of(p, P::Op::Ld, 3))];
  EXPECT_EQ(stream.batch, 4);
  EXPECT_EQ(chase.batch, 1) << "each address is the previous load's value";
  EXPECT_EQ(p.n_batch_slots, 1);
}

TEST(UnrolledLoads, SassLoopsAreMatchedByLoadWidthNotOnlyByOrder) {
  auto p = decode(kLoops, kLoopRegs);
  // ptxas laid the chase loop out first: it is unrolled by 4 (4 loads of 8 bytes), the stream
  // loop (one 4-byte load) is not. In order alone the stream loop would take the 4-load loop.
  EXPECT_EQ(P::mark_unrolled_loads(p, {4, 1}, {32, 4}), 1) << "the chase loop is the unrolled one";
  for (const auto& in : p.insts) EXPECT_EQ(in.batch, 1) << "stream not unrolled; the chase stays serial";
  auto q = decode(kLoops, kLoopRegs);
  // the stream loop unrolled by 4 (16 bytes), laid out after the chase (one 8-byte load)
  EXPECT_EQ(P::mark_unrolled_loads(q, {1, 4}, {8, 16}), 1);
  EXPECT_EQ(q.insts[static_cast<std::size_t>(index_of(q, P::Op::Ld, 2))].batch, 4);
}

TEST(UnrolledLoads, NotUnrolledMeansNoBatch) {
  auto p = decode(kLoops, kLoopRegs);
  EXPECT_EQ(P::mark_unrolled_loads(p, {1, 1}), 0);
  EXPECT_EQ(P::mark_unrolled_loads(p, {}), 0) << "no SASS: nothing assumed";
  for (const auto& in : p.insts) EXPECT_EQ(in.batch, 1);
}

}  // namespace
}  // namespace kernsim
