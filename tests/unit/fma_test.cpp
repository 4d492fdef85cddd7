// fma on a full warp (the FMA instruction where the CPU has it, sim/functional/ptx_alu.cpp) and on
// a partial one (libm) against std::fma computed here: every rounding mode, .ftz, subnormal
// inputs and results, infinities and NaN, f32 and f64. A PTX kernel loads each lane's a, b, c,
// computes the forms below and stores them; lanes 0-31 run whole, then lanes 0-30 only.
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"
#include "sim/functional/global_memory.h"
#include "sim/functional/ptx_exec.h"
#include "test_util.h"

namespace kernsim {
namespace {

// out[f][lane] for the forms (f32: rn, rz, rm, rp, rn.ftz; f64: rn, rz); a lane >= `lanes` skips
const char* kPtx = R"(.version 8.3
.target sm_90a
.address_size 64

.visible .entry fmas(.param .u64 in32, .param .u64 in64, .param .u64 out32, .param .u64 out64, .param .u32 lanes)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<12>;
  .reg .f64 %d<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [in32];
  ld.param.u64 %rd2, [in64];
  ld.param.u64 %rd3, [out32];
  ld.param.u64 %rd4, [out64];
  ld.param.u32 %r1, [lanes];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  cvta.to.global.u64 %rd4, %rd4;
  mov.u32 %r0, %tid.x;
  setp.ge.u32 %p1, %r0, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd5, %r0, 4;
  mul.wide.u32 %rd6, %r0, 8;
  add.s64 %rd1, %rd1, %rd5;
  add.s64 %rd3, %rd3, %rd5;
  add.s64 %rd2, %rd2, %rd6;
  add.s64 %rd4, %rd4, %rd6;
  ld.global.f32 %f1, [%rd1];
  ld.global.f32 %f2, [%rd1+128];
  ld.global.f32 %f3, [%rd1+256];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  fma.rz.f32 %f5, %f1, %f2, %f3;
  fma.rm.f32 %f6, %f1, %f2, %f3;
  fma.rp.f32 %f7, %f1, %f2, %f3;
  fma.rn.ftz.f32 %f8, %f1, %f2, %f3;
  st.global.f32 [%rd3], %f4;
  st.global.f32 [%rd3+128], %f5;
  st.global.f32 [%rd3+256], %f6;
  st.global.f32 [%rd3+384], %f7;
  st.global.f32 [%rd3+512], %f8;
  ld.global.f64 %d1, [%rd2];
  ld.global.f64 %d2, [%rd2+256];
  ld.global.f64 %d3, [%rd2+512];
  fma.rn.f64 %d4, %d1, %d2, %d3;
  fma.rz.f64 %d5, %d1, %d2, %d3;
  st.global.f64 [%rd4], %d4;
  st.global.f64 [%rd4+256], %d5;
DONE:
  ret;
}
)";

float ftz(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}

// std::fma in rounding mode `mode`; the barriers keep the compiler (which assumes the default
// mode) from moving the fma across fesetround or merging the calls of two modes
template <class T>
[[gnu::noinline]] T fma_in(int mode, T a, T b, T c) {
  const int old = std::fegetround();
  std::fesetround(mode);
  asm volatile("" : "+m"(a), "+m"(b), "+m"(c));
  T r = std::fma(a, b, c);
  asm volatile("" : "+m"(r));
  std::fesetround(old);
  return r;
}

template <class T, class U>
U bits(T v) {
  U u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

TEST(Fma, FullAndPartialWarpsRoundAsStdFmaInEveryModeWithFtzSubnormalsAndSpecials) {
  auto ast = isa::ptx::parse_module(kPtx, "fmas");
  const isa::ptx::Program prog = isa::ptx::decode_kernel(ast, "fmas", kPtx, "fmas");
  std::mt19937 rng(11);
  const float kMin = std::numeric_limits<float>::denorm_min(), kInf = std::numeric_limits<float>::infinity();
  for (int round = 0; round < 8; ++round) {
    std::vector<float> f(96);
    std::vector<double> d(96);
    for (int i = 0; i < 96; ++i) {
      // mostly ordinary values whose products round; some subnormal, tiny or special
      const std::uint32_t pick = rng() % 16;
      const float x = std::ldexp(static_cast<float>(rng() % 0xffffff + 1), static_cast<int>(rng() % 40) - 40);
      f[static_cast<std::size_t>(i)] = pick == 0   ? kMin * static_cast<float>(rng() % 1000 + 1)
                                       : pick == 1 ? kInf
                                       : pick == 2 ? std::numeric_limits<float>::quiet_NaN()
                                       : pick == 3 ? std::ldexp(x, -110)
                                                   : (rng() & 1 ? -x : x);
      d[static_cast<std::size_t>(i)] =
          std::ldexp(static_cast<double>(rng() % 0x1fffffffffffffull + 1), static_cast<int>(rng() % 80) - 80) *
          (rng() & 1 ? -1 : 1);
    }
    for (std::uint32_t lanes : {32u, 31u}) {
      sim::GlobalMemory mem;
      const std::uint64_t i32 = mem.allocate(96 * 4, "in32"), i64 = mem.allocate(96 * 8, "in64");
      const std::uint64_t o32 = mem.allocate(160 * 4, "out32"), o64 = mem.allocate(64 * 8, "out64");
      std::memcpy(mem.find(i32, 1)->data(), f.data(), 96 * 4);
      std::memcpy(mem.find(i64, 1)->data(), d.data(), 96 * 8);
      std::vector<std::uint8_t> params(40);
      std::memcpy(params.data(), &i32, 8);
      std::memcpy(params.data() + 8, &i64, 8);
      std::memcpy(params.data() + 16, &o32, 8);
      std::memcpy(params.data() + 24, &o64, 8);
      std::memcpy(params.data() + 32, &lanes, 4);
      sim::LaunchDims dims;
      dims.grid = {1, 1, 1};
      dims.block = {32, 1, 1};
      sim::map_program_statics(prog, mem);
      sim::ExecOptions o;
      o.kernel_name = "fmas";
      sim::PtxKernel kernel(prog, mem, dims, params, o);
      kernel.run_all();
      const auto* r32 = reinterpret_cast<const std::uint32_t*>(mem.find(o32, 1)->data());
      const auto* r64 = reinterpret_cast<const std::uint64_t*>(mem.find(o64, 1)->data());
      const int modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
      for (std::uint32_t l = 0; l < lanes; ++l) {
        const float a = f[l], b = f[32 + l], c = f[64 + l];
        for (int m = 0; m < 4; ++m) {
          const float want = fma_in(modes[m], a, b, c);
          if (std::isnan(want))
            EXPECT_TRUE(std::isnan(bits<std::uint32_t, float>(r32[m * 32 + l]))) << "lane " << l;
          else
            EXPECT_EQ(r32[m * 32 + l], (bits<float, std::uint32_t>(want))) << "f32 mode " << m << " lane " << l;
        }
        const float wz = ftz(fma_in(FE_TONEAREST, ftz(a), ftz(b), ftz(c)));
        if (std::isnan(wz))
          EXPECT_TRUE(std::isnan(bits<std::uint32_t, float>(r32[4 * 32 + l])));
        else
          EXPECT_EQ(r32[4 * 32 + l], (bits<float, std::uint32_t>(wz))) << "ftz lane " << l;
        const double da = d[l], db = d[32 + l], dc = d[64 + l];
        EXPECT_EQ(r64[l], (bits<double, std::uint64_t>(fma_in(FE_TONEAREST, da, db, dc)))) << "f64 rn lane " << l;
        EXPECT_EQ(r64[32 + l], (bits<double, std::uint64_t>(fma_in(FE_TOWARDZERO, da, db, dc)))) << "f64 rz lane " << l;
      }
    }
  }
}

}  // namespace
}  // namespace kernsim
