// The shared-memory matrix operands of wgmma (sm_90a) and tcgen05.mma (sm_100a): the canonical
// layouts of the PTX ISA's "Shared Memory Matrix Layout" (core matrices of 8 rows x 16 bytes, or
// swizzled rows of 32/64/128 bytes), K-major or MN-major, and the element encodings the two share.
// The descriptors differ between the two (their decode functions live with each instruction); what
// a decoded descriptor means does not.
#pragma once

#include <cstdint>
#include <cstring>

#include "base/float16.h"
#include "base/float_format.h"
#include "sim/functional/ptx_impl.h"

namespace kernsim::sim {

// One operand's descriptor, decoded.
struct SmemMatrix {
  std::uint32_t start = 0, lbo = 0, sbo = 0;
  std::uint32_t width = 16;  // bytes of a row of the swizzle atom: 16 (none), 32, 64, 128
  std::uint32_t base_offset = 0;
};

namespace matrix_smem {

inline int elem_bytes(Ty t) {
  return t == Ty::F16 || t == Ty::BF16 ? 2 : t == Ty::TF32 ? 4 : 1;
}

// Byte address of the element at row `mn` (M for A, N for B) and column k of a matrix whose
// elements are `eb` bytes. K-major: a row's K elements are contiguous (within a core matrix of
// 16 bytes, or a swizzle row of W bytes); MN-major: a K index's M/N elements are.
inline std::uint32_t element_address(const SmemMatrix& s, bool mn_major, int mn, int k, int eb) {
  const std::uint32_t W = s.width;
  std::uint32_t off;
  if (!mn_major) {
    const std::uint32_t kb = static_cast<std::uint32_t>(k * eb), r = static_cast<std::uint32_t>(mn);
    // no swizzle: core matrices 8 rows x 16 bytes, LBO to the next along K, SBO to the next 8 rows;
    // swizzled: rows of W bytes (one wgmma's 32 bytes of K never leave one), SBO to the next 8 rows
    off = W == 16 ? (r % 8) * 16 + (r / 8) * s.sbo + (kb / 16) * s.lbo + kb % 16 : (r % 8) * W + (r / 8) * s.sbo + kb;
  } else {
    const std::uint32_t mb = static_cast<std::uint32_t>(mn * eb), kk = static_cast<std::uint32_t>(k);
    // no swizzle: core matrices 8 K-rows x 16 bytes of M/N, LBO to the next 8 K-rows, SBO to the next
    // 16 bytes of M/N; swizzled: K-rows of W bytes, SBO to the next 8 K-rows, LBO to the next W bytes
    off = W == 16 ? (kk % 8) * 16 + (kk / 8) * s.lbo + (mb / 16) * s.sbo + mb % 16
                  : (kk % 8) * W + (kk / 8) * s.sbo + (mb / W) * s.lbo + mb % W;
  }
  std::uint32_t a = s.start + off;
  if (W != 16) a ^= ((a >> 7) & (W / 16 - 1)) << 4;
  return a;
}

// The bits of an fp6/fp4 element of .kind::f8f6f4 or ::mxf8f6f4 whose byte position (as if the
// elements were 8-bit) is shared-memory byte `a`: such elements are packed at the start of the
// 16-byte unit that holds `a` (16 elements of 6 or 4 bits, the lower element in the lower bits,
// then 4 or 8 bytes of padding: PTX ISA "Packing format used for matrix A and B by .kind::mxf8f6f4
// in Shared Memory", the layout tcgen05.cp's .b6x16_p32/.b4x16_p64 sources and the TMA's
// 16U6_ALIGN16B/16U4_ALIGN16B types share). `smem` holds at least a's unit.
inline std::uint32_t padded_subbyte(const std::uint8_t* smem, std::uint32_t a, int bits) {
  const std::uint32_t i = a % 16, bit = i * static_cast<std::uint32_t>(bits);
  std::uint32_t word = 0;
  std::memcpy(&word, smem + (a - i) + bit / 8, bit % 8 + static_cast<std::uint32_t>(bits) > 8 ? 2 : 1);
  return (word >> (bit % 8)) & ((1u << bits) - 1);
}

inline double elem_value(std::uint32_t bits, Ty t) {
  switch (t) {
    case Ty::F16:
      return half_to_float(static_cast<std::uint16_t>(bits));
    case Ty::BF16:
      return bf16_to_float(static_cast<std::uint16_t>(bits));
    case Ty::TF32:
      return from32<float>(bits & 0xffffe000u);
    case Ty::E4M3:
      return decode_format(bits & 0xff, FloatFormat::E4M3);
    case Ty::E5M2:
      return decode_format(bits & 0xff, FloatFormat::E5M2);
    case Ty::S8:
      return static_cast<std::int8_t>(bits);
    case Ty::U8:
      return static_cast<std::uint8_t>(bits);
    case Ty::E2M3:
      return decode_mx(bits & 0x3f, MxFormat::E2M3);
    case Ty::E3M2:
      return decode_mx(bits & 0x3f, MxFormat::E3M2);
    case Ty::E2M1:
      return decode_mx(bits & 0xf, MxFormat::E2M1);
    default:
      return 0;
  }
}

}  // namespace matrix_smem
}  // namespace kernsim::sim
