// wgmma on sm_90a against a reference computed here: CUDA kernels with inline-asm
// wgmma.mma_async (generated per case, compiled by clang as kernsim's frontend does) copy
// shared-memory images of A and B that this file lays out (every swizzle mode, K- and MN-major,
// the PTX ISA's canonical layouts), run one or more wgmmas and write D's registers raw. The
// reference multiplies the same matrices here, in doubles, and maps each register to its row and
// column by the ISA's fragment figures. Values are small multiples of 1/2 (integers for s8/u8)
// whose sums are exact in every accumulator type, so D must match bit for bit whatever the order
// of summation; the element encodings are written out by hand (kEnc).
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "api/launch_spec.h"
#include "api/run.h"
#include "device/loader.h"
#include "mma_encodings.h"
#include "sim/timing/units/tensor_engine.h"
#include "test_util.h"

namespace kernsim {
namespace {

using sim::AsyncRequest;
using sim::CompletionObject;
using sim::TensorEngine;
using sim::wgmma_service_cycles;
using sim::WgmmaWork;
using test::expect_error;

// kVals, Enc, enc(), f16_value(): tests/unit/mma_encodings.h
using Enc = test::MmaEncoding;
constexpr const auto& kVals = test::kMmaVals;
constexpr const auto& kEnc = test::kMmaEncodings;
using test::f16_value;
const Enc* enc(const std::string& t) {
  return test::mma_encoding(t);
}
int type_bytes(const std::string& t) {
  return enc(t) ? enc(t)->bytes : 1;
}  // s8, u8

// f16 bits to a value, for D in f16 (hand-written: sign, 5-bit exponent, 10-bit mantissa)

struct Case {
  std::string name, ta = "f16", tb = "f16", td = "f32";
  int n = 64, ksteps = 2;
  bool rs = false;
  int swz_a = 1, swz_b = 1;  // descriptor modes: 0 none, 1 128B, 2 64B, 3 32B
  bool trans_a = false, trans_b = false, neg_a = false, neg_b = false;
  bool scale_d = true, scale_imm = false, satfinite = false;
  bool two_groups = false;  // k-step s accumulates into set s % 2, committed as two groups
  int k() const { return ta == "f16" || ta == "bf16" ? 16 : ta == "tf32" ? 8 : 32; }
  bool integer() const { return ta == "s8" || ta == "u8"; }
  int dregs() const { return td == "f16" ? n / 4 : n / 2; }
};

int width(int swz) {
  return swz == 0 ? 16 : swz == 1 ? 128 : swz == 2 ? 64 : 32;
}

// One operand in shared memory: R rows (M or N) by Kt columns, K-major or MN-major, in the
// canonical layout of its swizzle mode. offset() places an element; desc() is the descriptor of
// the k-step starting at column k0 (the image at shared offset `base`).
struct Layout {
  int R, Kt, eb, swz;
  bool mn_major;
  int W() const { return width(swz); }
  std::uint32_t swizzle(std::uint32_t o) const { return swz == 0 ? o : o ^ (((o >> 7) & (W() / 16 - 1)) << 4); }
  // K-major, swizzled: chunks of W bytes of K, each a tile of R rows of W bytes (8-row groups 8W apart);
  // K-major, none: 8x16-byte core matrices, the row group's K core matrices side by side (LBO 128,
  // SBO = the row group's bytes). MN-major, swizzled: chunks of W bytes of M/N, each Kt rows of W
  // bytes (LBO = the chunk, SBO = 8 rows); MN-major, none: core matrices of 8 K-rows x 16 bytes of
  // M/N, the M/N ones side by side (SBO 128), 8 K-rows apart by LBO = all of them.
  std::uint32_t lbo() const {
    if (!mn_major) return swz == 0 ? 128 : 16;
    return swz == 0 ? static_cast<std::uint32_t>(R * eb / 16 * 128) : static_cast<std::uint32_t>(Kt * W());
  }
  std::uint32_t sbo() const {
    if (!mn_major)
      return swz == 0 ? static_cast<std::uint32_t>(Kt * eb / 16 * 128) : static_cast<std::uint32_t>(8 * W());
    return swz == 0 ? 128 : static_cast<std::uint32_t>(8 * W());
  }
  std::uint32_t bytes() const {
    if (swz == 0) return static_cast<std::uint32_t>(R * Kt * eb);
    if (mn_major) return static_cast<std::uint32_t>((R * eb + W() - 1) / W() * Kt * W());
    return static_cast<std::uint32_t>((Kt * eb + W() - 1) / W() * R * W());
  }
  std::uint32_t offset(int r, int k) const {
    const std::uint32_t kb = static_cast<std::uint32_t>(k * eb), rb = static_cast<std::uint32_t>(r * eb);
    const std::uint32_t w = static_cast<std::uint32_t>(W());
    if (!mn_major) {
      if (swz == 0) return (r / 8) * sbo() + (kb / 16) * 128 + (r % 8) * 16 + kb % 16;
      return swizzle((kb / w) * static_cast<std::uint32_t>(R) * w + static_cast<std::uint32_t>(r) * w + kb % w);
    }
    if (swz == 0) return (k / 8) * lbo() + (rb / 16) * 128 + (k % 8) * 16 + rb % 16;
    return swizzle((rb / w) * lbo() + static_cast<std::uint32_t>(k) * w + rb % w);
  }
  std::uint32_t start(int k0) const {  // byte offset of the k-step at column k0
    const std::uint32_t kb = static_cast<std::uint32_t>(k0 * eb), w = static_cast<std::uint32_t>(W());
    if (!mn_major) return swz == 0 ? (kb / 16) * 128 : (kb / w) * static_cast<std::uint32_t>(R) * w + kb % w;
    return swz == 0 ? static_cast<std::uint32_t>(k0 / 8) * lbo() : static_cast<std::uint32_t>(k0) * w;
  }
  std::uint64_t desc_fields() const {  // LBO, SBO, mode (the start address is added in the kernel)
    return (std::uint64_t{lbo() >> 4} << 16) | (std::uint64_t{sbo() >> 4} << 32) | (std::uint64_t(swz) << 62);
  }
};

std::string hex64(std::uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << v << "ull";
  return o.str();
}

// The kernel of one case: copy the images to shared memory, load C (and A's registers), run the
// k-steps, wait, store D's registers in order (thread-major).
std::string kernel_source(const Case& c, const Layout& la, const Layout& lb, std::uint32_t b_off) {
  const bool f32 = c.td == "f32";
  const int nr = c.dregs(), sets = c.two_groups ? 2 : 1;
  std::ostringstream s;
  s << "extern \"C\" __global__ void __launch_bounds__(128) " << c.name
    << "(const uint4* a_img, const uint4* b_img, const unsigned* a_regs, const unsigned* c_in, unsigned* d_out) {\n"
    << "  extern __shared__ __align__(1024) uint4 smem[];\n"
    << "  for (int i = threadIdx.x; i < " << la.bytes() / 16 << "; i += 128) smem[i] = a_img[i];\n"
    << "  for (int i = threadIdx.x; i < " << lb.bytes() / 16 << "; i += 128) smem[" << b_off / 16
    << " + i] = b_img[i];\n"
    << "  __syncthreads();\n  asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
    << "  const unsigned base = (unsigned)__cvta_generic_to_shared(smem);\n"
    << "  const unsigned t = threadIdx.x;\n  const int scale = " << (c.scale_d ? 1 : 0) << ";\n";
  for (int set = 0; set < sets; ++set) {
    s << "  " << (f32 ? "float" : "unsigned") << " d" << set << "[" << nr << "];\n";
    s << "  for (int i = 0; i < " << nr << "; ++i) d" << set << "[i] = " << (f32 ? "__uint_as_float(" : "(") << "c_in[("
      << set << " * 128 + t) * " << nr << " + i]);\n";
  }
  s << "  asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n";
  const std::string mnemonic = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.n) + "k" + std::to_string(c.k()) +
                               (c.satfinite ? ".satfinite." : ".") + c.td + "." + c.ta + "." + c.tb;
  for (int st = 0; st < c.ksteps; ++st) {
    const int set = c.two_groups ? st % 2 : 0, k0 = st * c.k();
    std::ostringstream ops;
    for (int i = 0; i < nr; ++i) ops << (i ? "," : "") << "%" << i;
    const int ia = nr, ib = nr + (c.rs ? 4 : 1), isd = ib + 1;
    std::string a_op = "%" + std::to_string(ia);
    if (c.rs)
      a_op = "{%" + std::to_string(ia) + ",%" + std::to_string(ia + 1) + ",%" + std::to_string(ia + 2) + ",%" +
             std::to_string(ia + 3) + "}";
    std::ostringstream imms;
    if (!c.integer()) imms << ", " << (c.neg_a ? -1 : 1) << ", " << (c.neg_b ? -1 : 1);
    if (c.ta == "f16" || c.ta == "bf16") {
      if (!c.rs) imms << ", " << (c.trans_a ? 1 : 0);
      imms << ", " << (c.trans_b ? 1 : 0);
    }
    s << "  {\n";
    if (c.rs) {
      s << "    unsigned a[4];\n    for (int j = 0; j < 4; ++j) a[j] = a_regs[(" << st << " * 128 + t) * 4 + j];\n";
    } else {
      s << "    unsigned long long da = " << hex64(la.desc_fields()) << " | (((base + " << la.start(k0)
        << "u) & 0x3FFFF) >> 4);\n";
    }
    s << "    unsigned long long db = " << hex64(lb.desc_fields()) << " | (((base + " << b_off + lb.start(k0)
      << "u) & 0x3FFFF) >> 4);\n";
    s << "    const int sd = " << (st == 0 ? "scale" : "1") << ";  // scale-d: only the first k-step may drop C\n";
    s << "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" << isd << ", 0;\\n"
      << mnemonic << " {" << ops.str() << "}, " << a_op << ", %" << ib << ", "
      << (c.scale_imm ? std::to_string(c.scale_d || st > 0 ? 1 : 0) : "p") << imms.str() << ";\\n}\\n\"\n      : ";
    for (int i = 0; i < nr; ++i) s << (i ? ", " : "") << (f32 ? "\"+f\"" : "\"+r\"") << "(d" << set << "[" << i << "])";
    s << "\n      : ";
    if (c.rs)
      s << "\"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3])";
    else
      s << "\"l\"(da)";
    s << ", \"l\"(db), \"r\"(sd) : \"memory\");\n  }\n";
    if (c.two_groups || st == c.ksteps - 1)
      s << "  asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n";
  }
  for (int set = 0; set < sets; ++set) {
    s << "  asm volatile(\"wgmma.wait_group.sync.aligned " << sets - 1 - set << ";\" ::: \"memory\");\n";
    s << "  for (int i = 0; i < " << nr << "; ++i) d_out[(" << set << " * 128 + t) * " << nr
      << " + i] = " << (f32 ? "__float_as_uint(" : "(") << "d" << set << "[i]);\n";
  }
  s << "}\n";
  return s.str();
}

// Random matrices of the case's types (as values and as bits).
struct Mat {
  std::vector<double> v;
  std::vector<std::uint32_t> bits;
};
Mat random_matrix(const std::string& t, std::size_t count, std::mt19937& rng) {
  Mat m;
  for (std::size_t i = 0; i < count; ++i) {
    if (t == "s8" || t == "u8") {
      const int x = t == "s8" ? static_cast<int>(rng() % 16) - 8 : static_cast<int>(rng() % 16);
      m.v.push_back(x);
      m.bits.push_back(static_cast<std::uint32_t>(x) & 0xff);
    } else {
      const int idx = static_cast<int>(rng() % 6);
      const bool neg = rng() % 2;
      m.v.push_back(neg ? -kVals[idx] : kVals[idx]);
      m.bits.push_back(enc(t)->bits[idx] | (neg && idx ? enc(t)->sign : 0));
    }
  }
  return m;
}

// (row, column) of D value v of thread t (the ISA's m64nNk* accumulator figure)
void d_rc(int t, int v, int* row, int* col) {
  const int warp = t / 32, lane = t % 32;
  *row = 16 * warp + lane / 4 + 8 * ((v % 4) / 2);
  *col = 8 * (v / 4) + 2 * (lane % 4) + v % 2;
}
// (row, column within the k-step) of element e of A register j of thread t
void a_rc(const std::string& ta, int t, int j, int e, int* row, int* col) {
  const int warp = t / 32, lane = t % 32, eb = type_bytes(ta);
  *row = 16 * warp + lane / 4 + 8 * (j % 2);
  if (eb == 2)
    *col = 2 * (lane % 4) + e + 8 * (j / 2);
  else if (eb == 4)
    *col = lane % 4 + 4 * (j / 2);
  else
    *col = 4 * (lane % 4) + e + 16 * (j / 2);
}

std::filesystem::path case_dir() {
  static const std::filesystem::path d =
      std::filesystem::temp_directory_path() / ("kernsim_wgmma_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

template <class T>
void write_file(const std::filesystem::path& p, const std::vector<T>& v) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

void run_case(const Case& c) {
  SCOPED_TRACE(c.name);
  std::mt19937 rng(static_cast<std::uint32_t>(std::hash<std::string>{}(c.name)));
  const int K = c.k(), Kt = K * c.ksteps, N = c.n, nr = c.dregs(), sets = c.two_groups ? 2 : 1;
  const int ea = type_bytes(c.ta), ebb = type_bytes(c.tb);
  const Layout la{64, Kt, ea, c.swz_a, c.trans_a}, lb{N, Kt, ebb, c.swz_b, c.trans_b};
  const std::uint32_t b_off = (la.bytes() + 1023) / 1024 * 1024;
  Mat A = random_matrix(c.ta, static_cast<std::size_t>(64 * Kt), rng),
      B = random_matrix(c.tb, static_cast<std::size_t>(N * Kt), rng);
  std::vector<std::uint8_t> a_img(la.bytes(), 0), b_img(lb.bytes(), 0);
  auto place = [](std::vector<std::uint8_t>& img, const Layout& l, const Mat& m, int rows) {
    for (int r = 0; r < rows; ++r)
      for (int k = 0; k < l.Kt; ++k)
        std::memcpy(img.data() + l.offset(r, k), &m.bits[static_cast<std::size_t>(r * l.Kt + k)],
                    static_cast<std::size_t>(l.eb));
  };
  place(a_img, la, A, 64);
  place(b_img, lb, B, N);
  // A's registers per k-step, thread, register
  std::vector<std::uint32_t> a_regs(static_cast<std::size_t>(c.ksteps * 128 * 4), 0);
  for (int st = 0; st < c.ksteps; ++st)
    for (int t = 0; t < 128; ++t)
      for (int j = 0; j < 4; ++j)
        for (int e = 0; e < 4 / ea; ++e) {
          int r, col;
          a_rc(c.ta, t, j, e, &r, &col);
          a_regs[static_cast<std::size_t>((st * 128 + t) * 4 + j)] |=
              A.bits[static_cast<std::size_t>(r * Kt + st * K + col)] << (8 * ea * e);
        }
  // C: values per set, row, column; and its registers
  std::vector<double> C(static_cast<std::size_t>(sets * 64 * N));
  std::vector<std::uint32_t> c_in(static_cast<std::size_t>(sets * 128 * nr), 0);
  for (int set = 0; set < sets; ++set)
    for (int t = 0; t < 128; ++t)
      for (int v = 0; v < N / 2; ++v) {
        int r, col;
        d_rc(t, v, &r, &col);
        double x;
        std::uint32_t bits;
        if (c.td == "s32") {
          const std::int32_t i = c.satfinite ? 2147483000 - static_cast<std::int32_t>(rng() % 100)
                                             : static_cast<std::int32_t>(rng() % 2001) - 1000;
          x = i;
          bits = static_cast<std::uint32_t>(i);
        } else {
          const int idx = static_cast<int>(rng() % 6);
          x = (rng() % 2 ? -1 : 1) * kVals[idx];
          if (c.td == "f32") {
            float f = static_cast<float>(x);
            std::memcpy(&bits, &f, 4);
          } else
            bits = enc("f16")->bits[idx] | (x < 0 ? 0x8000u : 0u);
        }
        C[static_cast<std::size_t>((set * 64 + r) * N + col)] = x;
        const std::size_t slot = static_cast<std::size_t>((set * 128 + t) * nr + (c.td == "f16" ? v / 2 : v));
        c_in[slot] |= c.td == "f16" ? bits << (16 * (v % 2)) : bits;
      }
  const auto dir = case_dir() / c.name;
  std::filesystem::create_directories(dir);
  write_file(dir / "a.bin", a_img);
  write_file(dir / "b.bin", b_img);
  write_file(dir / "ar.bin", a_regs);
  write_file(dir / "c.bin", c_in);
  std::ofstream(dir / "k.cu") << kernel_source(c, la, lb, b_off);
  const std::string spec = R"({"source": "k.cu", "kernel": ")" + c.name +
                           R"(", "grid": 1, "block": 128, "dynamic_shared_bytes": )" +
                           std::to_string(b_off + lb.bytes()) + R"(, "args": [
      {"buffer": "u8", "count": )" +
                           std::to_string(a_img.size()) + R"(, "init": "file:a.bin"},
      {"buffer": "u8", "count": )" +
                           std::to_string(b_img.size()) + R"(, "init": "file:b.bin"},
      {"buffer": "u32", "count": )" +
                           std::to_string(a_regs.size()) + R"(, "init": "file:ar.bin"},
      {"buffer": "u32", "count": )" +
                           std::to_string(c_in.size()) + R"(, "init": "file:c.bin"},
      {"buffer": "u32", "count": )" +
                           std::to_string(c_in.size()) + R"(}]})";
  api::RunOptions opts;
  opts.keep_outputs = true;
  auto result =
      api::run_launch(api::parse_launch_spec_text(spec, dir, c.name), device::load_builtin_device("h200"), opts);
  std::vector<std::uint32_t> d(c_in.size());
  ASSERT_EQ(result.outputs.back().bytes.size(), d.size() * 4);
  std::memcpy(d.data(), result.outputs.back().bytes.data(), d.size() * 4);
  const double sa = c.neg_a ? -1 : 1, sb = c.neg_b ? -1 : 1;
  int bad = 0;
  for (int set = 0; set < sets; ++set)
    for (int t = 0; t < 128; ++t)
      for (int v = 0; v < N / 2; ++v) {
        int r, col;
        d_rc(t, v, &r, &col);
        double want = c.scale_d ? C[static_cast<std::size_t>((set * 64 + r) * N + col)] : 0.0;
        for (int st = set; st < c.ksteps; st += sets)
          for (int k = st * K; k < (st + 1) * K; ++k)
            want += sa * A.v[static_cast<std::size_t>(r * Kt + k)] * sb * B.v[static_cast<std::size_t>(col * Kt + k)];
        const std::uint32_t reg = d[static_cast<std::size_t>((set * 128 + t) * nr + (c.td == "f16" ? v / 2 : v))];
        double got;
        if (c.td == "s32") {
          if (c.satfinite)
            want = std::min(want, 2147483647.0);
          else
            want = static_cast<double>(
                static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::int64_t>(want))));
          got = static_cast<std::int32_t>(reg);
        } else if (c.td == "f16") {
          got = f16_value((reg >> (16 * (v % 2))) & 0xffff);
        } else {
          float f;
          std::memcpy(&f, &reg, 4);
          got = f;
        }
        if (got != want && ++bad <= 5)
          ADD_FAILURE() << c.name << ": D[" << r << "][" << col << "] (set " << set << ", thread " << t << ", value "
                        << v << ") = " << got << ", want " << want;
      }
  EXPECT_EQ(bad, 0);
}

Case mk(std::string name, std::string ta, std::string tb, std::string td, int n) {
  Case c;
  c.name = std::move(name);
  c.ta = std::move(ta);
  c.tb = std::move(tb);
  c.td = std::move(td);
  c.n = n;
  return c;
}

TEST(Wgmma, F16F32SwizzleNone) {
  Case c = mk("f16_f32_n8_none", "f16", "f16", "f32", 8);
  c.swz_a = c.swz_b = 0;
  run_case(c);
}
TEST(Wgmma, F16F32Swizzle128) {
  run_case(mk("f16_f32_n64_sw128", "f16", "f16", "f32", 64));
}
TEST(Wgmma, F16F16Swizzle64And32) {
  Case c = mk("f16_f16_n128_sw64_sw32", "f16", "f16", "f16", 128);
  c.swz_a = 2;
  c.swz_b = 3;
  run_case(c);
}
TEST(Wgmma, Bf16N256FullTile) {
  Case c = mk("bf16_f32_n256_sw128", "bf16", "bf16", "f32", 256);
  c.ksteps = 4;  // K = 64: the 128-byte rows of one swizzle tile
  run_case(c);
}
TEST(Wgmma, Bf16RegistersTransposedB) {
  Case c = mk("bf16_rs_transb_sw64", "bf16", "bf16", "f32", 64);
  c.rs = true;
  c.swz_b = 2;
  c.trans_b = true;
  run_case(c);
}
TEST(Wgmma, F16TransposedBothSwizzles) {
  for (int sa : {0, 1, 2, 3}) {
    Case c = mk("f16_trans_sw" + std::to_string(sa), "f16", "f16", "f32", 64);
    c.trans_a = c.trans_b = true;
    c.swz_a = sa;
    c.swz_b = (sa + 1) % 4;
    run_case(c);
  }
}
TEST(Wgmma, ScaleDZeroAndNegateA) {
  Case c = mk("f16_scaled0_nega_n128", "f16", "f16", "f32", 128);
  c.scale_d = false;
  c.neg_a = true;
  c.trans_a = true;
  c.swz_a = 3;
  run_case(c);
}
TEST(Wgmma, ScaleDImmediateNegateBRegisters) {
  Case c = mk("f16_rs_imm_scale_negb_n16", "f16", "f16", "f16", 16);
  c.rs = true;
  c.scale_imm = true;
  c.neg_b = true;
  run_case(c);
  c.name = "f16_rs_imm_scale0_n16";
  c.scale_d = false;
  run_case(c);
}
TEST(Wgmma, Tf32) {
  run_case(mk("tf32_n64_sw128", "tf32", "tf32", "f32", 64));
  Case c = mk("tf32_rs_n32_sw32", "tf32", "tf32", "f32", 32);
  c.rs = true;
  c.swz_b = 3;
  run_case(c);
}
TEST(Wgmma, Fp8MixedFormats) {
  run_case(mk("e4m3_e5m2_f32_n64", "e4m3", "e5m2", "f32", 64));
  Case c = mk("e5m2_e4m3_f16_rs_n96", "e5m2", "e4m3", "f16", 96);
  c.rs = true;
  c.swz_b = 2;
  c.neg_a = true;
  run_case(c);
}
TEST(Wgmma, Integer) {
  Case c = mk("s8_u8_n48", "s8", "u8", "s32", 48);
  c.swz_b = 3;
  run_case(c);
  c = mk("u8_s8_rs_n256_none_satfinite", "u8", "s8", "s32", 256);
  c.rs = true;
  c.swz_b = 0;
  c.satfinite = true;
  run_case(c);
  c = mk("s8_s8_n24_none", "s8", "s8", "s32", 24);
  c.swz_a = c.swz_b = 0;
  run_case(c);
}
TEST(Wgmma, TwoGroupsInFlight) {
  Case c = mk("f16_two_groups", "f16", "f16", "f32", 64);
  c.two_groups = true;
  c.ksteps = 4;
  run_case(c);
}

// Two groups in flight: group 1 reads A from X, group 2 from Y (B common). After wait_group 1
// (and a barrier, so every warp's group 1 is done) the kernel overwrites X, which the ISA allows;
// group 2 is waited for after. D1 = 16 x 1 x 1 and D2 = 16 x 2 x 1 only if wait_group 1 performed
// group 1 (and only it) before X changed.
const char* kTwoGroupsPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry k(.param .u64 out)
{
 .reg .pred %p<2>;
 .reg .f32 %f<8>;
 .reg .b32 %r<8>;
 .reg .b64 %rd<8>;
 mov.u32 %r1, %tid.x;
 mov.u32 %r5, smem;
 mov.u32 %r2, %r1;
$L_fill:
 shl.b32 %r3, %r2, 2;
 setp.lt.u32 %p1, %r3, 2048;
 selp.b32 %r4, 0x3C003C00, 0x40004000, %p1;
 setp.ge.u32 %p1, %r3, 4096;
 selp.b32 %r4, 0x3C003C00, %r4, %p1;
 add.u32 %r6, %r5, %r3;
 st.shared.u32 [%r6], %r4;
 add.u32 %r2, %r2, 128;
 setp.lt.u32 %p1, %r2, 1088;
 @%p1 bra $L_fill;
 bar.sync 0;
 cvt.u64.u32 %rd1, %r5;
 shr.u64 %rd1, %rd1, 4;
 or.b64 %rd1, %rd1, 0x0000001000080000;
 add.s64 %rd2, %rd1, 128;
 add.s64 %rd3, %rd1, 256;
 mov.f32 %f0, 0f00000000;
 mov.f32 %f1, 0f00000000;
 mov.f32 %f2, 0f00000000;
 mov.f32 %f3, 0f00000000;
 mov.f32 %f4, 0f00000000;
 mov.f32 %f5, 0f00000000;
 mov.f32 %f6, 0f00000000;
 mov.f32 %f7, 0f00000000;
 wgmma.fence.sync.aligned;
 wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0,%f1,%f2,%f3}, %rd1, %rd3, 0, 1, 1, 0, 0;
 wgmma.commit_group.sync.aligned;
 wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f4,%f5,%f6,%f7}, %rd2, %rd3, 0, 1, 1, 0, 0;
 wgmma.commit_group.sync.aligned;
 wgmma.wait_group.sync.aligned 1;
 bar.sync 0;
 mov.u32 %r2, %r1;
$L_zero:
 shl.b32 %r3, %r2, 2;
 add.u32 %r6, %r5, %r3;
 st.shared.u32 [%r6], 0;
 add.u32 %r2, %r2, 128;
 setp.lt.u32 %p1, %r2, 512;
 @%p1 bra $L_zero;
 wgmma.wait_group.sync.aligned 0;
 ld.param.u64 %rd4, [out];
 cvta.to.global.u64 %rd4, %rd4;
 mul.wide.u32 %rd5, %r1, 32;
 add.s64 %rd4, %rd4, %rd5;
 st.global.v4.f32 [%rd4], {%f0, %f1, %f2, %f3};
 st.global.v4.f32 [%rd4+16], {%f4, %f5, %f6, %f7};
 ret;
}
)";

TEST(Wgmma, WaitGroupOnePerformsTheOlderGroupOnly) {
  const auto dir = case_dir() / "two_groups_ptx";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "k.ptx") << kTwoGroupsPtx;
  api::RunOptions o;
  o.keep_outputs = true;
  auto spec = api::parse_launch_spec_text(
      R"({"source": "k.ptx", "kernel": "k", "grid": 1, "block": 128, "dynamic_shared_bytes": 4352,
                                              "args": [{"buffer": "f32", "count": 1024}]})",
      dir, "test");
  auto r = api::run_launch(spec, device::load_builtin_device("h200"), o);
  std::vector<float> d(1024);
  std::memcpy(d.data(), r.outputs[0].bytes.data(), 4096);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 8; ++i)
      ASSERT_EQ(d[static_cast<std::size_t>(t * 8 + i)], i < 4 ? 16.0f : 32.0f) << "thread " << t << " value " << i;
}

// ---- decode errors and what stops with its name ----------------------------------------------

std::string one_inst_ptx(const std::string& body) {
  return ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n .reg .b32 %r<200>;\n .reg .b64 "
         "%rd<4>;\n"
         " .reg .pred %p<2>;\n" +
         body + "\n ret;\n}\n";
}

api::RunResult run_ptx(const std::string& body, int block = 128) {
  const auto dir = case_dir() / "ptx";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "k.ptx") << one_inst_ptx(body);
  auto spec = api::parse_launch_spec_text(R"({"source": "k.ptx", "kernel": "k", "grid": 1, "block": )" +
                                              std::to_string(block) + R"(, "dynamic_shared_bytes": 1024, "args": []})",
                                          dir, "test");
  return api::run_launch(spec, device::load_builtin_device("h200"), {});
}

std::string dlist(int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) s += (i ? ",%r" : "%r") + std::to_string(i);
  return s + "}";
}

TEST(Wgmma, IllegalShapesAndTypesAreNamed) {
  expect_error([] { run_ptx(" wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 " + dlist(20) + ", %rd1, %rd2, 1;"); },
               ErrorKind::Parse, {"m64n40k32", "not legal for .s8", "steps of 16"});
  expect_error(
      [] {
        run_ptx(" wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 " + dlist(2) + ", %rd1, %rd2, 1, 1, 1, 0, 0;");
      },
      ErrorKind::Parse, {".f16.bf16.bf16", "not a type combination"});
  expect_error(
      [] {
        run_ptx(" wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + dlist(3) + ", %rd1, %rd2, 1, 1, 1, 0, 0;");
      },
      ErrorKind::Parse, {"D has 3 registers", "needs 4"});
  expect_error(
      [] {
        run_ptx(" wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + dlist(4) + ", %rd1, %rd2, 1, 2, 1, 0, 0;");
      },
      ErrorKind::Parse, {"imm-scale", "1 or -1"});
}

TEST(Wgmma, SparseAndBaseOffsetStopWithTheirNames) {
  expect_error(
      [] {
        run_ptx(" wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + dlist(4) +
                ", %rd1, %rd2, %r100, 0, 1, 1, 1, 0, 0;");
      },
      ErrorKind::Unsupported, {"sparse wgmma"});
  // a 128B-swizzled B with base offset 1 (bits 49-51)
  expect_error(
      [] {
        run_ptx(
            " mov.b64 %rd1, 0;\n mov.b64 %rd2, 0x4002000000000000;\n wgmma.fence.sync.aligned;\n"
            " wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " +
            dlist(4) +
            ", %rd1, %rd2, 1, 1, 1, 0, 0;\n"
            " wgmma.commit_group.sync.aligned;\n wgmma.wait_group.sync.aligned 0;");
      },
      ErrorKind::Unsupported, {"non-zero base offset"});
}

TEST(Wgmma, NeedsAWholeWarpgroup) {
  expect_error(
      [] {
        run_ptx(" mov.b64 %rd1, 0;\n wgmma.fence.sync.aligned;\n wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " +
                    dlist(4) + ", %rd1, %rd1, 1, 1, 1, 0, 0;",
                64);
      },
      ErrorKind::KernelFault, {"whole warpgroup"});
}

// ---- timing: the SM's tensor engine ---------------------------------------------------------

// One warpgroup issues `reps` wgmma m64nNk16 (f16 -> f32) chained on one accumulator, one group
// each, a wait at the end; A from shared memory or registers.
// read_acc: each iteration also adds the accumulator's first register into another (Triton's
// fp8 promotion reads its wgmma accumulator so, with no wgmma.wait_group before the read).
std::string wgmma_loop_ptx(int n, int reps, bool rs, bool read_acc = false) {
  std::ostringstream s;
  s << ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
    << " .reg .pred %p<2>;\n .reg .f32 %f<" << n / 2 << ">;\n .reg .f32 %g<2>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n"
    << " mov.b64 %rd1, 0;\n mov.u32 %r1, 0;\n mov.f32 %g0, 0f00000000;\n";
  // A's registers (RS) come from shared memory: with constant moves ptxas serializes the loop's
  // wgmmas ("insufficient register resources", C7511/C7512), which kernsim then honours
  s << " ld.shared.v4.b32 {%r4,%r5,%r6,%r7}, [%rd1];\n";
  for (int i = 0; i < n / 2; ++i) s << " mov.f32 %f" << i << ", 0f00000000;\n";
  s << " wgmma.fence.sync.aligned;\n$L_loop:\n wgmma.mma_async.sync.aligned.m64n" << n << "k16.f32.f16.f16 {";
  for (int i = 0; i < n / 2; ++i) s << (i ? "," : "") << "%f" << i;
  s << "}, " << (rs ? "{%r4,%r5,%r6,%r7}" : "%rd1") << ", %rd1, 1, 1, 1" << (rs ? "" : ", 0") << ", 0;\n"
    << " wgmma.commit_group.sync.aligned;\n"
    << (read_acc ? " add.f32 %g0, %g0, %f0;\n" : "") << " add.u32 %r1, %r1, 1;\n setp.lt.u32 %p1, %r1, " << reps
    << ";\n @%p1 bra $L_loop;\n"
    << " wgmma.wait_group.sync.aligned 0;\n ld.param.u64 %rd2, [out];\n cvta.to.global.u64 %rd2, %rd2;\n mov.u32 %r2, "
       "%tid.x;\n"
    << " mul.wide.u32 %rd3, %r2, 4;\n add.s64 %rd2, %rd2, %rd3;\n add.f32 %g0, %g0, %f0;\n st.global.f32 [%rd2], %g0;\n"
    << " ret;\n}\n";
  return s.str();
}

api::RunResult run_loop(int n, int reps, bool rs, const device::DeviceSpec& dev, int grid = 1, bool read_acc = false) {
  const auto dir = case_dir() / ("loop_" + std::to_string(n) + "_" + std::to_string(reps) + (rs ? "_rs" : "_ss") +
                                 "_g" + std::to_string(grid) + (read_acc ? "_read" : ""));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "k.ptx") << wgmma_loop_ptx(n, reps, rs, read_acc);
  auto spec = api::parse_launch_spec_text(R"({"source": "k.ptx", "kernel": "k", "grid": )" + std::to_string(grid) +
                                              R"(, "block": 128, "dynamic_shared_bytes": 4096,
                                              "args": [{"buffer": "f32", "count": )" +
                                              std::to_string(128 * grid) + "}]}",
                                          dir, "test");
  api::RunOptions o;
  o.full = true;
  return api::run_launch(spec, dev, o);
}

double loop_cycles(int n, int reps, bool rs) {
  return run_loop(n, reps, rs, device::load_builtin_device("h200")).cycles;
}

// A kernel that issues wgmma runs at clocks.wgmma_mhz (the SM clock under the wgmma engine's
// load, measured on the H200), not at clocks.tensor_mhz (mma.sync's); without the key, at the latter.
TEST(WgmmaTiming, AWgmmaKernelRunsAtTheWgmmaClock) {
  auto dev = device::load_builtin_device("h200");
  dev.clocks.wgmma_idle_mhz = dev.clocks.wgmma_full_mhz = 0;  // no load line: the constant clock
  ASSERT_GT(dev.clocks.wgmma_mhz, 0);
  ASSERT_NE(dev.clocks.wgmma_mhz, dev.clocks.tensor_mhz);
  const api::RunResult r = run_loop(64, 16, false, dev);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.report_json)["clock_mhz"].get<double>(), dev.clocks.wgmma_mhz);
  EXPECT_NEAR(r.time_us, r.cycles / dev.clocks.wgmma_mhz + dev.launch.overhead_us, 1e-6);
  dev.clocks.wgmma_mhz = 0;
  const api::RunResult old = run_loop(64, 16, false, dev);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(old.report_json)["clock_mhz"].get<double>(), dev.clocks.tensor_mhz);
  EXPECT_NEAR(old.cycles, r.cycles,
              0.01 * r.cycles);  // the same work in cycles (HBM's latency, fixed in ns, moves a little)
}

// With clocks.wgmma_idle_mhz/wgmma_full_mhz the clock falls with the launch's tensor load: the
// engines' busy share of every SM of the part. One CTA of a wgmma loop keeps 131 SMs idle and runs
// near the idle end; 132 CTAs load the whole part about 132 times as much and run near the full
// end. The loop's engine-bound time moves with the clock: its cycles stay what the constant clock
// gives, its time is those cycles at the new clock.
TEST(WgmmaTiming, TheClockFallsWithTheTensorLoad) {
  auto dev = device::load_builtin_device("h200");
  dev.clocks.wgmma_idle_mhz = 1900;
  dev.clocks.wgmma_full_mhz = 1500;
  auto report = [](const api::RunResult& r) { return nlohmann::json::parse(r.report_json); };
  const api::RunResult one = run_loop(256, 32, false, dev, 1), all = run_loop(256, 32, false, dev, 132);
  const double b1 = report(one)["tensor_busy_fraction"].get<double>(),
               b132 = report(all)["tensor_busy_fraction"].get<double>();
  EXPECT_GT(b132, 0.5);
  EXPECT_NEAR(b132 / b1, 132.0, 132.0 * 0.2) << "the load counts every SM of the part";
  const double c1 = report(one)["clock_mhz"].get<double>(), c132 = report(all)["clock_mhz"].get<double>();
  EXPECT_NEAR(c1, 1900 - 400 * b1, 1e-6);
  EXPECT_NEAR(c132, 1900 - 400 * b132, 1e-6);
  EXPECT_LT(c132, c1 - 200);
  EXPECT_NEAR(one.time_us, one.cycles / c1 + dev.launch.overhead_us, 1e-6);
  auto flat = dev;
  flat.clocks.wgmma_idle_mhz = flat.clocks.wgmma_full_mhz = 0;
  const api::RunResult same = run_loop(256, 32, false, flat, 1);
  EXPECT_NEAR(one.cycles, same.cycles, 0.03 * same.cycles) << "an engine-bound loop keeps its cycles";
  EXPECT_LT(one.time_us, same.time_us) << "and runs them at the faster clock of a part that is hardly loaded";
}

TEST(WgmmaTiming, EachWgmmaCostsItsFlopsAtTheEnginesRateAndScalesWithN) {
  const auto dev = device::load_builtin_device("h200");
  const int reps = 48;
  double prev = 0;
  for (int n : {64, 128, 256}) {
    // the cost of `reps` more wgmmas: the engine serves 2*64*N*16 FLOP each at its f16 rate
    const double per = (loop_cycles(n, 2 * reps, false) - loop_cycles(n, reps, false)) / reps;
    const double engine = 2.0 * 64 * n * 16 / dev.sm.wgmma_flops_per_cycle_f16;
    EXPECT_NEAR(per, engine, 0.1 * engine) << "N " << n;
    if (prev > 0) EXPECT_NEAR(per / prev, 2.0, 0.2) << "N " << n << " against N / 2";
    prev = per;
  }
}

TEST(WgmmaTiming, AFromSharedMemoryCostsMoreThanFromRegistersWhenTheSharedPortLimits) {
  // m64n32k16: computing takes 2*16*32*16/rate per warp; with A in shared memory its quarter
  // (16x16 f16) and a quarter of B come through the shared-memory port, with A in registers only B
  const auto dev = device::load_builtin_device("h200");
  const double port = static_cast<double>(dev.shared.banks) * dev.shared.bank_width_bytes;
  const double compute = 2.0 * 16 * 32 * 16 / dev.sm.wgmma_flops_per_cycle_f16;
  const double ss = 4 * std::max(compute, (16 * 16 * 2 + 32 * 16 * 2 / 4.0) / port);
  const double rs = 4 * std::max(compute, (32 * 16 * 2 / 4.0) / port);
  ASSERT_GT(ss, rs * 1.2) << "the device's numbers should make this shape port-bound with A in shared memory";
  const int reps = 64;
  const double per_ss = (loop_cycles(32, 2 * reps, false) - loop_cycles(32, reps, false)) / reps;
  const double per_rs = (loop_cycles(32, 2 * reps, true) - loop_cycles(32, reps, true)) / reps;
  EXPECT_NEAR(per_ss, ss, 0.15 * ss);
  EXPECT_NEAR(per_rs, rs, 0.15 * rs);
  EXPECT_GT(per_ss, per_rs);
}

// A read of a wgmma's accumulator before any wgmma.wait_group waits for the wgmma to complete
// (ptxas injects that wait: its C7517 note), so the loop pays the wgmma's latency every
// iteration; the wgmmas chained on the accumulator alone do not (the engine serves them in order).
// ptxas also serializes such a loop's wgmmas (its C75xx note, read off its -v output when ptxas is
// there): each waits for the one before, which costs no more here, the read having waited already.
TEST(WgmmaTiming, AReadOfTheAccumulatorWithoutAWaitWaitsForTheWgmma) {
  const auto dev = device::load_builtin_device("h200");
  const int n = 64, reps = 32;
  auto per = [&](bool read) {
    const double a = run_loop(n, reps, false, dev, 1, read).cycles,
                 b = run_loop(n, 2 * reps, false, dev, 1, read).cycles;
    return (b - a) / reps;
  };
  const double service = 2.0 * 64 * n * 16 / dev.sm.wgmma_flops_per_cycle_f16;
  const double chained = per(false), read = per(true);
  EXPECT_NEAR(chained, service, 0.1 * service) << "chained on the accumulator only: the engine's service";
  // each warp's quarter completes a quarter-service apart (docs/wgmma.md), the first after a quarter
  EXPECT_GE(read, service / 4 + dev.sm.wgmma_latency_cycles) << "the read waits for the wgmma's completion";
  EXPECT_LT(read, service + dev.sm.wgmma_latency_cycles + 40) << "and little more (the loop's own instructions)";
}

// Two warpgroups issue one wgmma each, their warps' quarters arriving interleaved: the engine
// serves each wgmma whole when its first quarter arrives, and its four warps complete together.
TEST(WgmmaTiming, TheEngineServesAWarpgroupsWgmmaWholeAndItsWarpsCompleteTogether) {
  TensorEngine e(10, 4);
  std::vector<CompletionObject> done(8);
  std::vector<double> at(8);
  for (int k = 0; k < 8; ++k) {
    const int wg = k % 2, warp = 4 * wg + k / 2;  // wg0 q0, wg1 q0, wg0 q1, ...
    done[static_cast<std::size_t>(warp)].expect(0, 0);
    AsyncRequest r;
    r.issue = 100 + k;
    r.work_cycles = 8;
    r.target = &done[static_cast<std::size_t>(warp)];
    r.warp = warp;
    r.op_key = static_cast<std::uint64_t>(wg) + 1;
    at[static_cast<std::size_t>(warp)] = e.accept(r).done;
  }
  for (int w = 0; w < 4; ++w)
    EXPECT_DOUBLE_EQ(at[static_cast<std::size_t>(w)], 100 + 32 + 10) << "warpgroup 0, warp " << w;
  for (int w = 4; w < 8; ++w)
    EXPECT_DOUBLE_EQ(at[static_cast<std::size_t>(w)], 100 + 64 + 10) << "warpgroup 1, warp " << w;
  EXPECT_DOUBLE_EQ(done[5].ready_at(), 174);
  EXPECT_DOUBLE_EQ(e.busy_cycles(), 64);
}

TEST(WgmmaTiming, TheEngineServesInOrderAndCompletesOntoItsTarget) {
  TensorEngine e(10);
  CompletionObject a, b;
  a.expect(0, 0);
  b.expect(0, 0);
  AsyncRequest r;
  r.issue = 5;
  r.work_cycles = 32;
  r.target = &a;
  EXPECT_DOUBLE_EQ(e.accept(r).done, 5 + 32 + 10);
  r.issue = 6;  // behind the first: served after it
  r.target = &b;
  EXPECT_DOUBLE_EQ(e.accept(r).done, 5 + 32 + 32 + 10);
  EXPECT_DOUBLE_EQ(a.ready_at(), 47);
  EXPECT_DOUBLE_EQ(b.ready_at(), 79);
  WgmmaWork w{2.0 * 16 * 8 * 16, 16 * 16 * 2 + 8 * 16 * 2 / 4.0, 4096, 128};
  EXPECT_DOUBLE_EQ(wgmma_service_cycles(w), (512 + 64) / 128.0);  // port-bound
  w.smem_bytes = 64;
  EXPECT_DOUBLE_EQ(wgmma_service_cycles(w), 1.0);  // compute-bound
}

}  // namespace
}  // namespace kernsim
