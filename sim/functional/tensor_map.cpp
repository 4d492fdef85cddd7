// Tensor maps: names, cuTensorMapEncodeTiled's validity rules, and kernsim's 128-byte encoding
// (tensor_map.h).
#include "sim/functional/tensor_map.h"

#include <cstring>

namespace kernsim::sim {

namespace {

constexpr std::uint32_t kMagic = 0x4d54534bu;  // "KSTM"

struct TypeName {
  const char* name;
  TmapType t;
  int bytes;
  bool is_float;
};
constexpr TypeName kTypes[] = {
    {"u8", TmapType::U8, 1, false},          {"u16", TmapType::U16, 2, false},       {"u32", TmapType::U32, 4, false},
    {"i32", TmapType::I32, 4, false},        {"u64", TmapType::U64, 8, false},       {"i64", TmapType::I64, 8, false},
    {"f16", TmapType::F16, 2, true},         {"f32", TmapType::F32, 4, true},        {"f64", TmapType::F64, 8, true},
    {"bf16", TmapType::BF16, 2, true},       {"f32_ftz", TmapType::F32Ftz, 4, true}, {"tf32", TmapType::TF32, 4, true},
    {"tf32_ftz", TmapType::TF32Ftz, 4, true}};

const TypeName& type_info(TmapType t) {
  return kTypes[static_cast<int>(t)];
}

std::string at(const char* field, int d) {
  return std::string(field) + "[" + std::to_string(d) + "]";
}

}  // namespace

int TensorMap::elem_bytes() const {
  return type_info(dtype).bytes;
}
bool TensorMap::is_float() const {
  return type_info(dtype).is_float;
}

std::uint64_t TensorMap::box_bytes() const {
  std::uint64_t n = static_cast<std::uint64_t>(elem_bytes());
  for (int d = 0; d < rank; ++d) n *= box_elems(d);
  return n;
}

std::uint32_t TensorMap::swizzle_span() const {
  return swizzle == TmapSwizzle::None ? 0 : 16u << static_cast<int>(swizzle);
}

std::uint64_t TensorMap::extent_bytes() const {
  std::uint64_t last = 0;
  for (int d = 0; d < rank; ++d) last += (dims[d] - 1) * strides[d];
  return last + static_cast<std::uint64_t>(elem_bytes());
}

std::optional<TmapType> tmap_type(const std::string& s) {
  for (const auto& t : kTypes)
    if (s == t.name) return t.t;
  return std::nullopt;
}

const char* tmap_type_names() {
  return "u8 u16 u32 i32 u64 i64 f16 f32 f64 bf16 f32_ftz tf32 tf32_ftz";
}

std::string check_tensor_map(const TensorMap& m) {
  if (m.rank < 1 || m.rank > TensorMap::kMaxRank)
    return "dims: rank " + std::to_string(m.rank) + " (1 to 5 dimensions)";
  if (m.interleave != TmapInterleave::None && m.rank < 3)
    return "interleave: an interleaved layout needs rank 3 or more";
  const std::uint64_t align = m.interleave == TmapInterleave::B32 ? 32 : 16;
  if (m.address % align) return "buffer: the global address must be " + std::to_string(align) + "-byte aligned";
  for (int d = 0; d < m.rank; ++d) {
    if (m.dims[d] == 0 || m.dims[d] > (1ull << 32)) return at("dims", d) + ": must be 1 to 2^32";
    if (m.box[d] == 0 || m.box[d] > 256)
      return at("box", d) + ": must be 1 to 256 (got " + std::to_string(m.box[d]) + ")";
    if (m.estride[d] == 0 || m.estride[d] > 8) return at("element_strides", d) + ": must be 1 to 8";
    if (d == 0) continue;
    const std::uint64_t s = m.strides[d];
    if (s % align)
      return at("strides_bytes", d - 1) + ": " + std::to_string(s) + " is not a multiple of " + std::to_string(align);
    if (s >= (1ull << 40)) return at("strides_bytes", d - 1) + ": must be below 2^40";
    // no ordering of the strides: the driver documents none, and ThunderKittens' swizzled maps
    // give the 128-byte swizzle span's index a stride below the row's (include/types/global/tma.cuh)
  }
  const std::uint64_t inner = std::uint64_t{m.box[0]} * static_cast<std::uint64_t>(m.elem_bytes());
  if (m.interleave == TmapInterleave::None && inner % 16)
    return "box[0]: the inner box dimension is " + std::to_string(inner) + " bytes, not a multiple of 16";
  if (m.interleave == TmapInterleave::None && m.swizzle != TmapSwizzle::None && inner > m.swizzle_span())
    return "box[0]: the inner box dimension is " + std::to_string(inner) + " bytes, more than the " +
           std::to_string(m.swizzle_span()) + "-byte swizzle span";
  if (m.interleave == TmapInterleave::B32 && m.swizzle != TmapSwizzle::B32)
    return "swizzle: a 32B interleave needs the 32B swizzle";
  if (m.oob == TmapOobFill::NanRequestZeroFma && !m.is_float())
    return "oob_fill: nan_request_zero_fma needs a floating-point dtype";
  return "";
}

std::array<std::uint8_t, TensorMap::kBytes> encode(const TensorMap& m) {
  std::array<std::uint8_t, TensorMap::kBytes> b{};
  std::memcpy(b.data(), &kMagic, 4);
  b[4] = static_cast<std::uint8_t>(m.rank);
  b[5] = static_cast<std::uint8_t>(m.dtype);
  b[6] = static_cast<std::uint8_t>(m.elem_bytes());
  b[7] = static_cast<std::uint8_t>(m.swizzle);
  b[8] = static_cast<std::uint8_t>(m.interleave);
  b[9] = static_cast<std::uint8_t>(m.promotion);
  b[10] = static_cast<std::uint8_t>(m.oob);
  std::memcpy(b.data() + 16, &m.address, 8);
  for (int d = 0; d < TensorMap::kMaxRank; ++d) {
    std::memcpy(b.data() + 24 + 8 * d, &m.dims[d], 8);
    if (d > 0) std::memcpy(b.data() + 64 + 8 * (d - 1), &m.strides[d], 8);
    std::memcpy(b.data() + 96 + 4 * d, &m.box[d], 4);
    b[116 + d] = static_cast<std::uint8_t>(m.estride[d]);
  }
  return b;
}

bool replace_field(std::uint8_t* b, isa::ptx::TmapField f, int ord, std::uint64_t v) {
  using F = isa::ptx::TmapField;
  std::memcpy(b, &kMagic, 4);
  const std::uint32_t v32 = static_cast<std::uint32_t>(v);
  switch (f) {
    case F::GlobalAddress:
      std::memcpy(b + 16, &v, 8);
      return true;
    case F::Rank:
      b[4] = static_cast<std::uint8_t>(v32 + 1);
      return true;
    case F::BoxDim:
      std::memcpy(b + 96 + 4 * ord, &v32, 4);
      return true;
    case F::GlobalDim: {
      const std::uint64_t d = v32;
      std::memcpy(b + 24 + 8 * ord, &d, 8);
      return true;
    }
    case F::GlobalStride:
      std::memcpy(b + 64 + 8 * ord, &v, 8);
      return true;
    case F::ElementStride:
      b[116 + ord] = static_cast<std::uint8_t>(v32);
      return true;
    case F::ElemType:
      b[5] = static_cast<std::uint8_t>(v32);
      if (v32 <= static_cast<std::uint32_t>(TmapType::TF32Ftz)) b[6] = static_cast<std::uint8_t>(kTypes[v32].bytes);
      return true;
    case F::InterleaveLayout:
      b[8] = static_cast<std::uint8_t>(v32);
      return true;
    case F::SwizzleMode:
      b[7] = static_cast<std::uint8_t>(v32);
      return true;
    case F::FillMode:
      b[10] = static_cast<std::uint8_t>(v32);
      return true;
    case F::SwizzleAtomicity:
      return false;
  }
  return false;
}

std::optional<TensorMap> decode_tensor_map(const std::uint8_t* b) {
  std::uint32_t magic;
  std::memcpy(&magic, b, 4);
  if (magic != kMagic || b[4] < 1 || b[4] > TensorMap::kMaxRank || b[5] > static_cast<int>(TmapType::TF32Ftz) ||
      b[7] > 3)
    return std::nullopt;
  TensorMap m;
  m.rank = b[4];
  m.dtype = static_cast<TmapType>(b[5]);
  m.swizzle = static_cast<TmapSwizzle>(b[7]);
  m.interleave = static_cast<TmapInterleave>(b[8]);
  m.promotion = static_cast<TmapPromotion>(b[9]);
  m.oob = static_cast<TmapOobFill>(b[10]);
  std::memcpy(&m.address, b + 16, 8);
  m.strides[0] = static_cast<std::uint64_t>(m.elem_bytes());
  for (int d = 0; d < TensorMap::kMaxRank; ++d) {
    std::memcpy(&m.dims[d], b + 24 + 8 * d, 8);
    if (d > 0) std::memcpy(&m.strides[d], b + 64 + 8 * (d - 1), 8);
    std::memcpy(&m.box[d], b + 96 + 4 * d, 4);
    m.estride[d] = b[116 + d];
  }
  return m;
}

}  // namespace kernsim::sim
