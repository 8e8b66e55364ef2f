// Checks Philox4x32-10 against the published known-answer vectors of
// Random123 (tests/kat_vectors, the three "philox4x32 10" lines: counter words,
// key words, expected output words, all hexadecimal).
#include "plugins/reference/kernels/philox.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace teplug {
namespace reference {
namespace {

struct KnownAnswer {
  Philox4x32Block counter;
  Philox4x32Key key;
  Philox4x32Block expected;
};

// Random123 kat_vectors, lines "philox4x32 10 ...".
constexpr KnownAnswer kKnownAnswers[] = {
    {{{0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u}},
     {{0x00000000u, 0x00000000u}},
     {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}}},
    {{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
     {{0xffffffffu, 0xffffffffu}},
     {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}}},
    // The pi-digit vector: counter and key are the first hex digits of pi.
    {{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
     {{0xa4093822u, 0x299f31d0u}},
     {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}}},
};

TEST(Philox4x32_10Test, MatchesRandom123KnownAnswerVectors) {
  for (const KnownAnswer& kat : kKnownAnswers) {
    const Philox4x32Block got = Philox4x32_10(kat.counter, kat.key);
    for (int w = 0; w < 4; ++w) {
      EXPECT_EQ(got.word[w], kat.expected.word[w])
          << "word " << w << " for counter " << std::hex << kat.counter.word[0]
          << " key " << kat.key.word[0];
    }
  }
}

// The definition is usable at compile time (what a device kernel needs).
TEST(Philox4x32_10Test, IsConstexpr) {
  constexpr Philox4x32Block got =
      Philox4x32_10(kKnownAnswers[2].counter, kKnownAnswers[2].key);
  static_assert(got.word[0] == 0xd16cfe09u, "Philox4x32-10 pi vector, word 0");
  static_assert(got.word[3] == 0x24126ea1u, "Philox4x32-10 pi vector, word 3");
  EXPECT_EQ(got.word[1], 0x94fdccebu);
}

// Ten rounds matter: nine rounds give a different block for the zero vector.
TEST(Philox4x32_10Test, RoundCountIsTen) {
  Philox4x32Key key{{0, 0}};
  Philox4x32Block x = Philox4x32Round(Philox4x32Block{{0, 0, 0, 0}}, key);
  for (int round = 1; round < 9; ++round) {
    key = Philox4x32BumpKey(key);
    x = Philox4x32Round(x, key);
  }
  EXPECT_NE(x.word[0], kKnownAnswers[0].expected.word[0]);
  key = Philox4x32BumpKey(key);
  x = Philox4x32Round(x, key);
  EXPECT_EQ(x.word[0], kKnownAnswers[0].expected.word[0]);
}

}  // namespace
}  // namespace reference
}  // namespace teplug
