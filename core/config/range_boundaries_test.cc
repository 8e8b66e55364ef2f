// Every range in the config at its boundaries: validation of a rule's
// head_dim and seq_len ranges (equal bounds, bounds one apart either way,
// zero and minus one), and matching, where both bounds are inclusive (a value
// equal to a bound matches, one past it does not). Far-apart bounds alone let
// an off-by-one through; these cases do not.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/config/config_loader.h"
#include "core/config/config_snapshot.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::IsEmpty;

const char* const kRangeFields[] = {"head_dim", "seq_len"};

// Problem lines of a rule whose match is `<field> { <range> }`.
std::vector<std::string> RangeProblems(const std::string& field, const std::string& range) {
  auto loaded = ParseConfigText(absl::StrCat("rules { name: \"r\" deny: \"x\" match { ", field, " { ", range, " } } }"),
                                "t");
  if (loaded.ok()) return {};
  return absl::StrSplit(loaded.status().message(), '\n');
}

TEST(RangeBoundariesTest, EqualBoundsAreAValidRange) {
  for (const char* field : kRangeFields) {
    EXPECT_THAT(RangeProblems(field, "min: 64 max: 64"), IsEmpty()) << field;
    EXPECT_THAT(RangeProblems(field, "min: 0 max: 0"), IsEmpty()) << field;
  }
}

TEST(RangeBoundariesTest, MinOneBelowMaxIsValid) {
  for (const char* field : kRangeFields) {
    EXPECT_THAT(RangeProblems(field, "min: 63 max: 64"), IsEmpty()) << field;
  }
}

TEST(RangeBoundariesTest, MinOneAboveMaxIsInverted) {
  for (const char* field : kRangeFields) {
    EXPECT_THAT(RangeProblems(field, "min: 65 max: 64"),
                ElementsAre(EndsWith(absl::StrCat(": rules[0].match.", field,
                                         ": inverted range: min 65 is greater than max 64"))))
        << field;
    EXPECT_THAT(RangeProblems(field, "min: 1 max: 0"),
                ElementsAre(EndsWith(absl::StrCat(": rules[0].match.", field,
                                         ": inverted range: min 1 is greater than max 0"))))
        << field;
  }
}

TEST(RangeBoundariesTest, ZeroIsAValidBoundAndMinusOneIsNot) {
  for (const char* field : kRangeFields) {
    EXPECT_THAT(RangeProblems(field, "min: 0"), IsEmpty()) << field;
    EXPECT_THAT(RangeProblems(field, "max: 0"), IsEmpty()) << field;
    EXPECT_THAT(RangeProblems(field, "min: -1"),
                ElementsAre(EndsWith(absl::StrCat(": rules[0].match.", field,
                                         ".min: negative bound -1; must be >= 0"))))
        << field;
    EXPECT_THAT(RangeProblems(field, "max: -1"),
                ElementsAre(EndsWith(absl::StrCat(": rules[0].match.", field,
                                         ".max: negative bound -1; must be >= 0"))))
        << field;
  }
}

TEST(RangeBoundariesTest, OneSidedRangesAreValidAndAnEmptyOneIsNot) {
  for (const char* field : kRangeFields) {
    EXPECT_THAT(RangeProblems(field, "min: 7"), IsEmpty()) << field;
    EXPECT_THAT(RangeProblems(field, "max: 7"), IsEmpty()) << field;
    EXPECT_THAT(RangeProblems(field, ""),
                ElementsAre(EndsWith(absl::StrCat(": rules[0].match.", field,
                                         ": empty range: set min, max or both (inclusive bounds)"))))
        << field;
  }
}

// Whether a rule with `field { range }` matches an op whose field is `value`.
bool Matches(const std::string& field, const std::string& range, int64_t value) {
  auto loaded = ParseConfigText(absl::StrCat("rules { name: \"r\" deny: \"x\" match { ", field, " { ", range, " } } }"),
                                "t");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return false;
  auto snapshot = ConfigSnapshot::Create(*std::move(loaded), 1);
  OpFacts facts;
  facts.interface_name = "attention";
  facts.op = "forward";
  facts.AddInteger(field, value);
  return !snapshot->Evaluate(facts).matched().empty();
}

TEST(RangeBoundariesTest, BothBoundsAreInclusive) {
  for (const char* field : kRangeFields) {
    const std::string range = "min: 64 max: 128";
    EXPECT_FALSE(Matches(field, range, 63)) << field;
    EXPECT_TRUE(Matches(field, range, 64)) << field;
    EXPECT_TRUE(Matches(field, range, 65)) << field;
    EXPECT_TRUE(Matches(field, range, 127)) << field;
    EXPECT_TRUE(Matches(field, range, 128)) << field;
    EXPECT_FALSE(Matches(field, range, 129)) << field;
  }
}

TEST(RangeBoundariesTest, ASingleValueRangeMatchesOnlyThatValue) {
  for (const char* field : kRangeFields) {
    EXPECT_FALSE(Matches(field, "min: 96 max: 96", 95)) << field;
    EXPECT_TRUE(Matches(field, "min: 96 max: 96", 96)) << field;
    EXPECT_FALSE(Matches(field, "min: 96 max: 96", 97)) << field;
  }
}

TEST(RangeBoundariesTest, OneSidedRangesAreOpenOnTheOtherSide) {
  for (const char* field : kRangeFields) {
    EXPECT_FALSE(Matches(field, "min: 64", 63)) << field;
    EXPECT_TRUE(Matches(field, "min: 64", 64)) << field;
    EXPECT_TRUE(Matches(field, "min: 64", 1 << 30)) << field;
    EXPECT_TRUE(Matches(field, "max: 64", 0)) << field;
    EXPECT_TRUE(Matches(field, "max: 64", 64)) << field;
    EXPECT_FALSE(Matches(field, "max: 64", 65)) << field;
  }
}

// -1 means "not applicable": no range matches it, not even one from 0.
TEST(RangeBoundariesTest, AnInapplicableValueMatchesNoRange) {
  for (const char* field : kRangeFields) {
    EXPECT_TRUE(Matches(field, "min: 0", 0)) << field;
    EXPECT_FALSE(Matches(field, "min: 0", -1)) << field;
    EXPECT_FALSE(Matches(field, "max: 64", -1)) << field;
  }
}

}  // namespace
}  // namespace teplug::config
