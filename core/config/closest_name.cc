#include "core/config/closest_name.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace teplug::config {
namespace {

template <class Names>
std::string Closest(absl::string_view word, const Names& candidates) {
  std::string best;
  int best_distance = std::max<int>(2, static_cast<int>(word.size()) / 3) + 1;
  for (const auto& candidate : candidates) {
    const int distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = std::string(candidate);
    }
  }
  return best;
}

}  // namespace

int EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<int> previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string ClosestName(absl::string_view word, const std::vector<absl::string_view>& candidates) {
  return Closest(word, candidates);
}

std::string ClosestName(absl::string_view word, const std::vector<std::string>& candidates) {
  return Closest(word, candidates);
}

std::string DidYouMean(absl::string_view word, const std::vector<absl::string_view>& candidates) {
  const std::string closest = ClosestName(word, candidates);
  return closest.empty() ? std::string() : absl::StrCat(" (did you mean \"", closest, "\"?)");
}

}  // namespace teplug::config
