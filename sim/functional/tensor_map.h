// kernsim::sim::TensorMap — a tiled tensor map (CUtensorMap of cuTensorMapEncodeTiled) as kernsim
// encodes it into the 128-byte kernel parameter a TMA instruction reads (`.param .align 64 .b8
// map[128]`, __grid_constant__). The encoding is kernsim's own (the driver's is opaque); it only
// round-trips inside kernsim (docs/launch_spec.md, "Tensor maps"):
//   0  u32 magic "KSTM"   4 u8 rank   5 u8 dtype   6 u8 element bytes   7 u8 swizzle
//   8  u8 interleave      9 u8 L2 promotion        10 u8 OOB fill       11-15 zero
//   16 u64 global address                          24 u64 dims[5] (innermost first)
//   64 u64 strides_bytes[4] (of dims 1..4)         96 u32 box[5]        116 u8 element_strides[5]
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/ptx/program.h"

namespace kernsim::sim {

enum class TmapType : std::uint8_t { U8, U16, U32, I32, U64, I64, F16, F32, F64, BF16, F32Ftz, TF32, TF32Ftz };
enum class TmapSwizzle : std::uint8_t { None, B32, B64, B128 };
enum class TmapInterleave : std::uint8_t { None, B16, B32 };
enum class TmapPromotion : std::uint8_t { None, B64, B128, B256 };
enum class TmapOobFill : std::uint8_t { Zero, NanRequestZeroFma };

struct TensorMap {
  static constexpr int kMaxRank = 5;
  static constexpr std::size_t kBytes = 128;
  int rank = 0;
  TmapType dtype = TmapType::F32;
  TmapSwizzle swizzle = TmapSwizzle::None;
  TmapInterleave interleave = TmapInterleave::None;
  TmapPromotion promotion = TmapPromotion::None;
  TmapOobFill oob = TmapOobFill::Zero;
  std::uint64_t address = 0;
  std::array<std::uint64_t, kMaxRank> dims{};     // elements per dimension, innermost first
  std::array<std::uint64_t, kMaxRank> strides{};  // bytes between consecutive indices; strides[0] = element bytes
  std::array<std::uint32_t, kMaxRank> box{};
  std::array<std::uint32_t, kMaxRank> estride{};  // element strides (traversal steps)

  int elem_bytes() const;
  bool is_float() const;
  // elements the box holds per dimension (ceil(box / element stride)) and in all
  std::uint32_t box_elems(int d) const { return (box[d] + estride[d] - 1) / estride[d]; }
  std::uint64_t box_bytes() const;
  std::uint32_t swizzle_span() const;  // 0, 32, 64, 128 bytes
  // The last byte of global memory an element of the tensor may occupy, + 1, from `address`.
  std::uint64_t extent_bytes() const;
};

// Names as the launch spec writes them (dtype "bf16", swizzle "128B", ...); nullopt if unknown.
std::optional<TmapType> tmap_type(const std::string& s);
const char* tmap_type_names();  // "u8 u16 ..." for messages

// cuTensorMapEncodeTiled's rules: the first broken one, naming the field (`dims`, `box[1]`, ...),
// or an empty string.
std::string check_tensor_map(const TensorMap& m);

std::array<std::uint8_t, TensorMap::kBytes> encode(const TensorMap& m);
// nullopt when the bytes are no kernsim tensor map (not one kernsim built: a driver's map, a copy
// gone wrong).
std::optional<TensorMap> decode_tensor_map(const std::uint8_t* bytes);

// tensormap.replace: sets one field of the 128-byte map at `bytes` (and marks it a kernsim map, so
// that a zeroed object a kernel fills field by field becomes one). The values are the PTX
// instruction's: rank - 1, the CUtensorMapDataType / swizzle / interleave / fill enums, and the
// plain extents, strides and address. Returns false for a field kernsim's maps do not hold
// (swizzle_atomicity, sm_100).
bool replace_field(std::uint8_t* bytes, isa::ptx::TmapField f, int ord, std::uint64_t v);

// The shared-memory byte offset the hardware's swizzle moves the 16-byte chunk of `offset` to:
// 32B swaps bit 4 with bit 7's XOR, 64B bits 4-5 with 7-8, 128B bits 4-6 with 7-9.
inline std::uint64_t swizzle_offset(std::uint64_t offset, TmapSwizzle s) {
  const int bits = static_cast<int>(s);  // 0, 1, 2, 3
  if (!bits) return offset;
  const std::uint64_t mask = ((1ull << bits) - 1) << 4;
  return offset ^ ((offset >> 3) & mask);
}

}  // namespace kernsim::sim
