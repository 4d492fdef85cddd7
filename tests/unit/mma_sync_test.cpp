// mma.sync on sm_90a against a reference computed here: one PTX kernel per shape and type loads
// each lane's A, B and C registers raw from a buffer laid out [register][lane], runs one
// mma.sync and stores D's registers the same way. The reference places every register element at
// its row and column by the PTX ISA's fragment figures for mma.m16n8k* (written out below,
// element by element), multiplies in doubles and encodes D. Values are small multiples of 1/2
// (integers for s8) whose sums are exact in every accumulator type, so D must match bit for bit
// whatever the order of summation; the operand encodings are tests/unit/mma_encodings.h's.
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "isa/ptx/decode.h"
#include "isa/ptx/parser.h"
#include "mma_encodings.h"
#include "sim/functional/global_memory.h"
#include "sim/functional/ptx_exec.h"
#include "test_util.h"

namespace kernsim {
namespace {

struct Case {
  const char* name;
  int k;
  std::string ta, tc;  // A/B element type; C/D type (f32, f16, s32)
  int na, nb, nc;      // registers of A, B, C (D has nc)
};

struct Coord {
  int row, col;
};

// The PTX ISA's fragment figures (g = lane / 4, t = lane % 4): element i of lane `lane`.
Coord a_elem(const Case& c, int lane, int i) {
  const int g = lane / 4, t = lane % 4;
  if (c.ta == "f16" || c.ta == "bf16") {
    const bool low_row = i == 0 || i == 1 || i == 4 || i == 5;  // a0,a1,a4,a5 (k8: a0,a1)
    return {low_row ? g : g + 8, t * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
  }
  if (c.ta == "tf32") return {(i == 0 || i == 2) ? g : g + 8, i < 2 ? t : t + 4};  // m16n8k8
  const bool low_row = i < 4 || (i >= 8 && i < 12);                                // 8-bit, k32
  return {low_row ? g : g + 8, t * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
}
Coord b_elem(const Case& c, int lane, int i) {
  const int g = lane / 4, t = lane % 4;
  if (c.ta == "f16" || c.ta == "bf16") return {t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
  if (c.ta == "tf32") return {i == 0 ? t : t + 4, g};
  return {t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};
}
Coord c_elem(int lane, int i) {
  const int g = lane / 4, t = lane % 4;
  return {i < 2 ? g : g + 8, t * 2 + (i & 1)};
}

int elem_bytes(const std::string& t) {
  if (t == "f16" || t == "bf16") return 2;
  if (t == "tf32") return 4;
  return 1;  // s8, e4m3
}

// f16 bits of a value that f16 holds exactly (0 or normal; the sums here are)
std::uint32_t f16_bits(double v) {
  if (v == 0) return 0;
  const std::uint32_t sign = v < 0 ? 0x8000 : 0;
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);  // v = m 2^e, m in [0.5, 1)
  return sign | static_cast<std::uint32_t>(e + 14) << 10 | (static_cast<std::uint32_t>(std::ldexp(m, 11)) & 0x3ff);
}

std::string ptx_of(const Case& c) {
  const bool fd = c.tc == "f32";
  const char* dt = fd ? ".f32" : c.tc == "s32" ? ".s32" : ".b32";
  std::ostringstream s;
  s << ".version 8.3\n.target sm_90a\n.address_size 64\n\n.visible .entry " << c.name
    << "(.param .u64 in, .param .u64 out)\n{\n  .reg .b32 %r<24>;\n  .reg " << dt << " %d<12>;\n  .reg .b64 %rd<6>;\n"
    << "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    << "  cvta.to.global.u64 %rd2, %rd2;\n  mov.u32 %r0, %tid.x;\n  mul.wide.u32 %rd3, %r0, 4;\n"
    << "  add.s64 %rd1, %rd1, %rd3;\n  add.s64 %rd2, %rd2, %rd3;\n";
  const int nab = c.na + c.nb;
  for (int r = 0; r < nab; ++r) s << "  ld.global.b32 %r" << r + 1 << ", [%rd1+" << r * 128 << "];\n";
  for (int r = 0; r < c.nc; ++r) s << "  ld.global" << dt << " %d" << r << ", [%rd1+" << (nab + r) * 128 << "];\n";
  auto list = [&](const char* p, int first, int n) {
    std::string l = "{";
    for (int r = 0; r < n; ++r) l += (r ? "," : "") + std::string(p) + std::to_string(first + r);
    return l + "}";
  };
  s << "  mma.sync.aligned.m16n8k" << c.k << ".row.col." << c.tc << "." << c.ta << "." << c.ta << "." << c.tc << " "
    << list("%d", c.nc, c.nc) << ", " << list("%r", 1, c.na) << ", " << list("%r", 1 + c.na, c.nb) << ", "
    << list("%d", 0, c.nc) << ";\n";
  for (int r = 0; r < c.nc; ++r) s << "  st.global" << dt << " [%rd2+" << r * 128 << "], %d" << c.nc + r << ";\n";
  s << "  ret;\n}\n";
  return s.str();
}

// Runs one case on random operands; checks every D register of every lane against the reference.
void check(const Case& c, unsigned seed) {
  const int M = 16, N = 8, K = c.k, eb = elem_bytes(c.ta), per = 4 / eb;
  const bool integer = c.ta == "s8";
  std::mt19937 rng(seed);
  std::vector<double> A(static_cast<std::size_t>(M * K)), B(static_cast<std::size_t>(K * N)),
      C(static_cast<std::size_t>(M * N));
  std::vector<std::uint32_t> in(static_cast<std::size_t>(32 * (c.na + c.nb + c.nc)), 0);
  // an element's value (index into kMmaVals, or an integer) and its bits
  auto element = [&](double& value) -> std::uint32_t {
    const bool neg = rng() & 1;
    if (integer) {
      const int v = static_cast<int>(rng() % 7) - 3;
      value = v;
      return static_cast<std::uint32_t>(static_cast<std::uint8_t>(static_cast<std::int8_t>(v)));
    }
    const std::size_t k = rng() % 6;
    value = neg ? -test::kMmaVals[k] : test::kMmaVals[k];
    const test::MmaEncoding* e = test::mma_encoding(c.ta);
    return e->bits[k] | (neg && k ? e->sign : 0);
  };
  for (int r = 0; r < c.na + c.nb; ++r) {
    const bool is_a = r < c.na;
    for (int lane = 0; lane < 32; ++lane) {
      std::uint32_t word = 0;
      for (int e = 0; e < per; ++e) {
        const int i = (is_a ? r : r - c.na) * per + e;
        const Coord at = is_a ? a_elem(c, lane, i) : b_elem(c, lane, i);
        double v = 0;
        word |= element(v) << (8 * eb * e);
        (is_a ? A[static_cast<std::size_t>(at.row * K + at.col)] : B[static_cast<std::size_t>(at.row * N + at.col)]) =
            v;
      }
      in[static_cast<std::size_t>(r * 32 + lane)] = word;
    }
  }
  const int cper = c.tc == "f16" ? 2 : 1;
  for (int r = 0; r < c.nc; ++r)
    for (int lane = 0; lane < 32; ++lane) {
      std::uint32_t word = 0;
      for (int e = 0; e < cper; ++e) {
        const Coord at = c_elem(lane, r * cper + e);
        const double v = static_cast<double>(static_cast<int>(rng() % 9) - 4) / (integer ? 1 : 2);
        C[static_cast<std::size_t>(at.row * N + at.col)] = v;
        if (c.tc == "f16")
          word |= f16_bits(v) << (16 * e);
        else if (integer)
          word = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
        else
          word = std::bit_cast<std::uint32_t>(static_cast<float>(v));
      }
      in[static_cast<std::size_t>((c.na + c.nb + r) * 32 + lane)] = word;
    }
  // run it
  const std::string text = ptx_of(c);
  auto ast = isa::ptx::parse_module(text, c.name);
  const isa::ptx::Program prog = isa::ptx::decode_kernel(ast, c.name, text, c.name);
  sim::GlobalMemory mem;
  const std::uint64_t din = mem.allocate(in.size() * 4, "in"), dout = mem.allocate(std::size_t{32} * 4 * c.nc, "out");
  std::memcpy(mem.find(din, 1)->data(), in.data(), in.size() * 4);
  std::vector<std::uint8_t> params(16);
  std::memcpy(params.data(), &din, 8);
  std::memcpy(params.data() + 8, &dout, 8);
  sim::LaunchDims dims;
  dims.grid = {1, 1, 1};
  dims.block = {32, 1, 1};
  sim::map_program_statics(prog, mem);
  sim::ExecOptions o;
  o.kernel_name = c.name;
  sim::PtxKernel kernel(prog, mem, dims, params, o);
  kernel.run_all();
  const auto* out = reinterpret_cast<const std::uint32_t*>(mem.find(dout, 1)->data());
  // the reference
  for (int r = 0; r < c.nc; ++r)
    for (int lane = 0; lane < 32; ++lane) {
      std::uint32_t want = 0;
      for (int e = 0; e < cper; ++e) {
        const Coord at = c_elem(lane, r * cper + e);
        double d = C[static_cast<std::size_t>(at.row * N + at.col)];
        for (int k = 0; k < K; ++k)
          d += A[static_cast<std::size_t>(at.row * K + k)] * B[static_cast<std::size_t>(k * N + at.col)];
        if (c.tc == "f16")
          want |= f16_bits(d) << (16 * e);
        else if (integer)
          want = static_cast<std::uint32_t>(static_cast<std::int32_t>(d));
        else
          want = std::bit_cast<std::uint32_t>(static_cast<float>(d));
      }
      EXPECT_EQ(out[r * 32 + lane], want) << c.name << " D register " << r << " lane " << lane;
    }
}

TEST(MmaSync, EveryFragmentElementLandsWhereThePtxIsaPlacesIt) {
  const Case cases[] = {
      {"mma_f16_k16", 16, "f16", "f32", 4, 2, 4},        {"mma_bf16_k16", 16, "bf16", "f32", 4, 2, 4},
      {"mma_f16_k8", 8, "f16", "f32", 2, 1, 4},          {"mma_f16_k8_f16acc", 8, "f16", "f16", 2, 1, 2},
      {"mma_f16_k16_f16acc", 16, "f16", "f16", 4, 2, 2}, {"mma_tf32_k8", 8, "tf32", "f32", 4, 2, 4},
      {"mma_s8_k32", 32, "s8", "s32", 4, 2, 4},          {"mma_e4m3_k32", 32, "e4m3", "f32", 4, 2, 4},
  };
  for (const Case& c : cases)
    for (unsigned seed = 1; seed <= 3; ++seed) check(c, seed);
}

}  // namespace
}  // namespace kernsim
