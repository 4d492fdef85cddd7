// Base utilities: hashing, half/bfloat conversions, counter-based randoms.
#include <cmath>
#include <limits>

#include "base/float16.h"
#include "base/hash.h"
#include "base/random.h"
#include "test_util.h"

namespace kernsim {

TEST(Sha256, MatchesFipsTestVectors) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, FieldsAreDelimited) {
  EXPECT_NE(Sha256().field("ab").field("c").hex(), Sha256().field("a").field("bc").hex());
}

TEST(Half, ConvertsExactValuesAndRoundsToNearestEven) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);              // rounds up to infinity
  EXPECT_EQ(float_to_half(5.9604644775390625e-08f), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3c00);      // tie -> even
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048), 0x3c02);      // tie -> even (up)
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::numeric_limits<float>::quiet_NaN()))));
  for (std::uint32_t h = 0; h < 0x7c00; ++h) EXPECT_EQ(float_to_half(half_to_float(static_cast<std::uint16_t>(h))), h);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3f808000)), 0x3f80);  // tie, even stays
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3f818000)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(float_to_bf16(bits_to_float(0x3f808001)), 0x3f81);
}

TEST(CounterRandom, IsDeterministicAndInRange) {
  for (std::uint64_t i = 0; i < 10000; ++i) {
    float u = counter_uniform(7, 3, i);
    EXPECT_GE(u, -1.0f);
    EXPECT_LT(u, 1.0f);
    EXPECT_EQ(u, counter_uniform(7, 3, i));
  }
  EXPECT_NE(counter_uniform(7, 3, 0), counter_uniform(7, 4, 0));
}

}  // namespace kernsim
