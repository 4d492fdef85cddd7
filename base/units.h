// Strong types for the quantities the simulator mixes: cycles, picoseconds, bytes, addresses.
//
// Adding Cycles to Picoseconds, or a ByteAddr to a ByteAddr, does not compile. Conversions
// between clock domains go through Frequency explicitly. The types are trivially copyable
// wrappers over integers so they cost nothing in hot loops.
#pragma once

#include <compare>
#include <cstdint>

namespace kernsim {

template <class Tag, class Rep = std::int64_t>
class Quantity {
 public:
  using rep = Rep;
  constexpr Quantity() = default;
  constexpr explicit Quantity(Rep v) : v_(v) {}
  constexpr Rep count() const { return v_; }
  constexpr auto operator<=>(const Quantity&) const = default;
  constexpr Quantity& operator+=(Quantity o) { v_ += o.v_; return *this; }
  constexpr Quantity& operator-=(Quantity o) { v_ -= o.v_; return *this; }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.v_ + b.v_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.v_ - b.v_); }
  friend constexpr Quantity operator*(Quantity a, Rep k) { return Quantity(a.v_ * k); }
  friend constexpr Quantity operator*(Rep k, Quantity a) { return Quantity(a.v_ * k); }
  friend constexpr Rep operator/(Quantity a, Quantity b) { return a.v_ / b.v_; }

 private:
  Rep v_ = 0;
};

struct CyclesTag {};
struct PicosecondsTag {};
struct BytesTag {};

using Cycles = Quantity<CyclesTag, std::int64_t>;
using Picoseconds = Quantity<PicosecondsTag, std::int64_t>;
using Bytes = Quantity<BytesTag, std::int64_t>;

// A byte address in one of the simulated address spaces. Differences are Bytes; sums of two
// addresses are not meaningful and do not compile.
class ByteAddr {
 public:
  constexpr ByteAddr() = default;
  constexpr explicit ByteAddr(std::uint64_t a) : a_(a) {}
  constexpr std::uint64_t value() const { return a_; }
  constexpr auto operator<=>(const ByteAddr&) const = default;
  friend constexpr ByteAddr operator+(ByteAddr a, Bytes b) { return ByteAddr(a.a_ + static_cast<std::uint64_t>(b.count())); }
  friend constexpr Bytes operator-(ByteAddr a, ByteAddr b) { return Bytes(static_cast<std::int64_t>(a.a_ - b.a_)); }

 private:
  std::uint64_t a_ = 0;
};

// A clock frequency; the only way to turn cycles into time.
class Frequency {
 public:
  constexpr Frequency() = default;
  static constexpr Frequency mhz(double m) { return Frequency(m * 1e6); }
  constexpr double hz() const { return hz_; }
  constexpr double mhz() const { return hz_ / 1e6; }
  constexpr double to_us(double cycles) const { return cycles / hz_ * 1e6; }
  constexpr double to_cycles_from_ns(double ns) const { return ns * 1e-9 * hz_; }

 private:
  constexpr explicit Frequency(double hz) : hz_(hz) {}
  double hz_ = 0;
};

}  // namespace kernsim
