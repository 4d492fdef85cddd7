// The address slice (isa::ptx::address_slice) and the functional runs that use it
// (PtxKernel::set_addresses_only): which instructions a warm-up may skip, and that skipping them
// leaves the instruction count and every global address of a run as they were.
#include "isa/ptx/address_slice.h"

#include <cstring>
#include <tuple>
#include <vector>

#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"
#include "sim/functional/global_memory.h"
#include "sim/functional/ptx_exec.h"
#include "test_util.h"

namespace kernsim {
namespace {

using isa::ptx::SliceRole;

// out[tid] = sum over k < n of a[tid + 64 k] * b[tid + 64 k] (64 threads); with `gather`, a is read at
// idx[tid + 64 k] instead (a loaded index decides an address).
std::string kernel(bool gather) {
  return std::string(R"(.version 8.3
.target sm_90a
.address_size 64

.visible .entry dot(.param .u64 pa, .param .u64 pb, .param .u64 pidx, .param .u64 pout, .param .u32 pn)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pidx];
  ld.param.u64 %rd4, [pout];
  ld.param.u32 %r1, [pn];
  mov.u32 %r0, %tid.x;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r2, 0;
LOOP:
  mad.lo.u32 %r3, %r2, 64, %r0;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.f32 %f3, [%rd6];
)") +
         (gather ? R"(  add.s64 %rd7, %rd3, %rd5;
  ld.global.u32 %r4, [%rd7];
  mul.wide.u32 %rd8, %r4, 4;
  add.s64 %rd9, %rd1, %rd8;
)"
                 : R"(  add.s64 %rd9, %rd1, %rd5;
)") + R"(  ld.global.f32 %f2, [%rd9];
  fma.rn.f32 %f1, %f2, %f3, %f1;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  mul.wide.u32 %rd10, %r0, 4;
  add.s64 %rd11, %rd4, %rd10;
  st.global.f32 [%rd11], %f1;
  ret;
}
)";
}

isa::ptx::Program program(const std::string& text) {
  auto ast = isa::ptx::parse_module(text, "dot");
  return isa::ptx::decode_kernel(ast, "dot", text, "dot");
}

SliceRole role_of(const isa::ptx::Program& p, const std::vector<SliceRole>& roles, isa::ptx::Op op, int nth = 0) {
  for (std::size_t i = 0; i < p.insts.size(); ++i)
    if (p.insts[i].op == op && nth-- == 0) return roles[i];
  ADD_FAILURE() << "no such instruction";
  return SliceRole::Execute;
}

TEST(AddressSlice, AProductNoAddressReadsIsSkippedAndItsLoadsAndStoreMoveNoData) {
  const isa::ptx::Program p = program(kernel(false));
  const std::vector<SliceRole> roles = isa::ptx::address_slice(p);
  ASSERT_EQ(roles.size(), p.insts.size());
  using isa::ptx::Op;
  EXPECT_EQ(role_of(p, roles, Op::Fma), SliceRole::Skip);
  EXPECT_EQ(role_of(p, roles, Op::Ld, 5), SliceRole::AddressesOnly) << "b";
  EXPECT_EQ(role_of(p, roles, Op::Ld, 6), SliceRole::AddressesOnly) << "a";
  EXPECT_EQ(role_of(p, roles, Op::St), SliceRole::AddressesOnly);
  EXPECT_EQ(role_of(p, roles, Op::Ld, 4), SliceRole::Execute) << "n: the loop's bound";
  EXPECT_EQ(role_of(p, roles, Op::Mad), SliceRole::Execute) << "the index";
  EXPECT_EQ(role_of(p, roles, Op::Setp), SliceRole::Execute);
  EXPECT_EQ(role_of(p, roles, Op::Bra), SliceRole::Execute);
}

TEST(AddressSlice, ALoadedIndexKeepsEveryGlobalStoreAndWhatItStores) {
  const isa::ptx::Program p = program(kernel(true));
  const std::vector<SliceRole> roles = isa::ptx::address_slice(p);
  ASSERT_EQ(roles.size(), p.insts.size());
  using isa::ptx::Op;
  EXPECT_EQ(role_of(p, roles, Op::Ld, 6), SliceRole::Execute) << "idx";
  // a store could write what a later idx load reads: it stores, and its value is computed
  EXPECT_EQ(role_of(p, roles, Op::St), SliceRole::Execute);
  EXPECT_EQ(role_of(p, roles, Op::Fma), SliceRole::Execute);
  EXPECT_EQ(role_of(p, roles, Op::Ld, 5), SliceRole::Execute);
}

// (pc, lanes, lane addresses) of every executed global access, warp by warp, and the count
std::tuple<std::vector<std::vector<std::uint64_t>>, std::uint64_t, float> run(const isa::ptx::Program& p,
                                                                              bool addresses_only) {
  sim::GlobalMemory mem;
  constexpr std::uint32_t kN = 5;
  const std::uint64_t a = mem.allocate(64 * 64 * kN * 4, "a"), b = mem.allocate(64 * kN * 4, "b");
  const std::uint64_t idx = mem.allocate(64 * kN * 4, "idx"), out = mem.allocate(64 * 4, "out");
  auto* pa = reinterpret_cast<float*>(mem.find(a, 1)->data());
  auto* pb = reinterpret_cast<float*>(mem.find(b, 1)->data());
  auto* pi = reinterpret_cast<std::uint32_t*>(mem.find(idx, 1)->data());
  for (std::uint32_t i = 0; i < 64 * kN; ++i) {
    pb[i] = 1.0f + static_cast<float>(i);
    pi[i] = (i * 2654435761u) % (64 * 64 * kN);
  }
  for (std::uint32_t i = 0; i < 64 * 64 * kN; ++i) pa[i] = 0.5f * static_cast<float>(i % 7);
  std::vector<std::uint8_t> params(36);
  for (int k = 0; k < 4; ++k)
    std::memcpy(params.data() + 8 * k, &std::array<std::uint64_t, 4>{a, b, idx, out}[static_cast<std::size_t>(k)], 8);
  std::memcpy(params.data() + 32, &kN, 4);
  sim::LaunchDims dims;
  dims.block = {64, 1, 1};
  sim::map_program_statics(p, mem);
  sim::ExecOptions o;
  o.kernel_name = "dot";
  sim::PtxKernel k(p, mem, dims, params, o);
  EXPECT_EQ(k.set_addresses_only(addresses_only), addresses_only);
  std::vector<std::vector<std::uint64_t>> accesses;
  auto cta = k.make_cta(0);
  for (int w = 0; w < cta->num_warps(); ++w)
    while (!cta->warp_done(w)) {
      const auto& in = p.insts[cta->next_pc(w)];
      const sim::StepInfo info = cta->step(w);
      if ((in.op != isa::ptx::Op::Ld && in.op != isa::ptx::Op::St) || in.space != isa::ptx::Space::Global) continue;
      std::vector<std::uint64_t> rec{info.pc, info.active};
      for (int l = 0; l < 32; ++l) rec.push_back(cta->lane_addresses(w)[l]);
      accesses.push_back(rec);
    }
  return {accesses, k.warp_instructions(), reinterpret_cast<float*>(mem.find(out, 1)->data())[3]};
}

TEST(AddressSlice, ARunOfTheSliceCountsAndAddressesAsTheFullRunAndWritesNothing) {
  for (bool gather : {false, true}) {
    const isa::ptx::Program p = program(kernel(gather));
    const auto [full, full_count, full_out] = run(p, false);
    const auto [sliced, sliced_count, sliced_out] = run(p, true);
    EXPECT_EQ(sliced_count, full_count) << gather;
    EXPECT_EQ(sliced, full) << gather;
    EXPECT_GT(full.size(), 5u * 2 * 2);
    EXPECT_NE(full_out, 0.0f);
    if (gather)
      EXPECT_EQ(sliced_out, full_out) << "a loaded index: everything runs";
    else
      EXPECT_EQ(sliced_out, 0.0f) << "the store moved no data";
  }
}

}  // namespace
}  // namespace kernsim
