// "Did you mean" suggestions: the known name closest to a mistyped one.
#ifndef TEPLUG_CORE_CONFIG_CLOSEST_NAME_H_
#define TEPLUG_CORE_CONFIG_CLOSEST_NAME_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace teplug::config {

// Levenshtein distance: the fewest single-byte insertions, deletions and
// substitutions that turn `a` into `b`.
int EditDistance(absl::string_view a, absl::string_view b);

// The candidate closest to `word` by EditDistance when it is a plausible
// typo (at most max(2, |word|/3) edits away; the first of equally close
// candidates wins), else "". A candidate equal to `word` is returned as is.
std::string ClosestName(absl::string_view word, const std::vector<absl::string_view>& candidates);
std::string ClosestName(absl::string_view word, const std::vector<std::string>& candidates);

// " (did you mean \"X\"?)" for the closest candidate, or "" when none is close.
std::string DidYouMean(absl::string_view word, const std::vector<absl::string_view>& candidates);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_CLOSEST_NAME_H_
