#include "core/config/canonical_names.h"

#include <algorithm>

#include "absl/strings/str_join.h"
#include "teplug/sdk/names.hpp"

namespace teplug::config {

const std::vector<absl::string_view>& BuiltinDeviceKinds() {
  static const std::vector<std::string>* names =
      new std::vector<std::string>(sdk::BuiltinDeviceKindNames());
  static const std::vector<absl::string_view>* views =
      new std::vector<absl::string_view>(names->begin(), names->end());
  return *views;
}

bool IsValidDeviceKindSpelling(absl::string_view kind) {
  if (kind.empty()) return false;
  return std::all_of(kind.begin(), kind.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

const std::vector<absl::string_view>& CanonicalLogLevels() {
  static const auto* names =
      new std::vector<absl::string_view>{"error", "warn", "info", "debug"};
  return *names;
}

std::string JoinNames(const std::vector<absl::string_view>& names) {
  return absl::StrJoin(names, ", ");
}

}  // namespace teplug::config
