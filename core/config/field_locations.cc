#include "core/config/field_locations.h"

#include <utility>

namespace teplug::config {

void FieldLocations::Record(std::string path, SourcePosition position) {
  positions_.emplace(std::move(path), position);
}

std::optional<SourcePosition> FieldLocations::Find(absl::string_view path) const {
  auto it = positions_.find(path);
  if (it == positions_.end()) return std::nullopt;
  return it->second;
}

SourcePosition FieldLocations::FindNearest(absl::string_view path) const {
  while (true) {
    if (auto found = Find(path)) return *found;
    if (path.empty()) return SourcePosition{};
    path = ParentFieldPath(path);
  }
}

absl::string_view ParentFieldPath(absl::string_view path) {
  if (!path.empty() && path.back() == ']') {
    return path.substr(0, path.rfind('['));
  }
  size_t dot = path.rfind('.');
  if (dot == absl::string_view::npos) return {};
  return path.substr(0, dot);
}

}  // namespace teplug::config
