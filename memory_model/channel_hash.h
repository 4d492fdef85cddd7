// kernsim::mem::ChannelHash — which channel of a cache or memory with interleaved channels serves a
// line. A policy: the device file names it (l2.channel_hash), so a what-if can compare them.
//
//   interleave  line index modulo the channel count: consecutive lines in consecutive channels,
//               and every power-of-two stride of channels x line bytes or more on one channel;
//   xor         the line index's bits folded by exclusive-or in groups of log2(channels) before
//               the modulo, as GPUs hash channel selection so that matrix rows of a power-of-two
//               stride spread over the channels (strides that defeat the fold still collide).
// The hardware's exact functions are not published; the device file says which one it assumes.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include "base/error.h"

namespace kernsim::mem {

class ChannelHash {
 public:
  enum class Kind : std::uint8_t { Interleave, Xor };
  ChannelHash() = default;
  explicit ChannelHash(Kind k) : kind_(k) {}
  int operator()(std::uint64_t line_index, int channels) const {
    const auto n = static_cast<std::uint64_t>(channels);
    if (kind_ == Kind::Xor && std::has_single_bit(n) && n > 1) {
      const int bits = std::countr_zero(n);
      std::uint64_t h = 0;
      for (std::uint64_t x = line_index; x; x >>= bits) h ^= x;
      return static_cast<int>(h & (n - 1));
    }
    return static_cast<int>(line_index % n);
  }

 private:
  Kind kind_ = Kind::Interleave;
};

// The policy a device file names; anything else is an error naming the file and key.
inline ChannelHash channel_hash(const std::string& name, const std::string& file) {
  if (name == "interleave") return ChannelHash(ChannelHash::Kind::Interleave);
  if (name == "xor") return ChannelHash(ChannelHash::Kind::Xor);
  throw Error(ErrorKind::DeviceFile, file + ": key `l2.channel_hash`: `" + name + "` is not one of interleave, xor");
}

}  // namespace kernsim::mem
