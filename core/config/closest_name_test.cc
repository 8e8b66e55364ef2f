// Tests of the edit distance and the "did you mean" suggestion.
#include "core/config/closest_name.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace teplug::config {
namespace {

TEST(EditDistanceTest, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(EditDistance("abc", ""), 3);
  EXPECT_EQ(EditDistance("dtype", "dtypes"), 1);
  EXPECT_EQ(EditDistance("seq_len", "seq_len"), 0);
  EXPECT_EQ(EditDistance("ab", "ba"), 2);  // a transposition is two edits
}

TEST(ClosestNameTest, OnlyPlausibleTyposAreSuggested) {
  const std::vector<absl::string_view> facts{"dtype", "layout", "mask_type", "head_dim", "seq_len"};
  EXPECT_EQ(ClosestName("seqlen", facts), "seq_len");
  EXPECT_EQ(ClosestName("headdim", facts), "head_dim");
  EXPECT_EQ(ClosestName("zzzzzzzz", facts), "");
  EXPECT_EQ(ClosestName("", facts), "");  // max(2, 0) edits: nothing here is that close
  EXPECT_EQ(ClosestName("dtype", facts), "dtype");
  // Ties go to the first candidate.
  EXPECT_EQ(ClosestName("ab", std::vector<std::string>{"ax", "ay"}), "ax");
}

TEST(ClosestNameTest, DidYouMeanQuotesTheSuggestionOrSaysNothing) {
  EXPECT_EQ(DidYouMean("refrence", {"reference", "cuda"}), " (did you mean \"reference\"?)");
  EXPECT_EQ(DidYouMean("nothing_alike", {"reference", "cuda"}), "");
}

}  // namespace
}  // namespace teplug::config
