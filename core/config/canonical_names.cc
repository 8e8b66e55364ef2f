#include "core/config/canonical_names.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_join.h"
#include "teplug/sdk/names.hpp"

namespace teplug::config {

namespace {

// Names and views of them, kept for the life of the process.
struct NameTable {
  explicit NameTable(std::vector<std::string> n) : names(std::move(n)), views(names.begin(), names.end()) {}
  std::vector<std::string> names;
  std::vector<absl::string_view> views;
};

const std::vector<absl::string_view>& Views(std::vector<std::string> names) {
  return (new NameTable(std::move(names)))->views;  // never destroyed, like the other tables
}

}  // namespace

// The ABI's spellings (sdk/names.hpp), so config rules name exactly what the
// core puts in an op's facts.
const std::vector<absl::string_view>& CanonicalDtypes() {
  static const auto& names = Views(sdk::DTypeNames());
  return names;
}

const std::vector<absl::string_view>& CanonicalLayouts() {
  static const auto& names = Views(sdk::LayoutNames());
  return names;
}

const std::vector<absl::string_view>& CanonicalLayoutFormats() {
  static const auto* names =
      new std::vector<absl::string_view>{"sbhd", "bshd", "thd"};
  return *names;
}

absl::string_view LayoutFormat(absl::string_view layout) {
  int32_t value = 0;
  if (!sdk::ParseLayout(std::string(layout), &value)) return {};
  return sdk::LayoutFormat(value);
}

const std::vector<absl::string_view>& CanonicalMaskTypes() {
  static const auto& names = Views(sdk::MaskNames());
  return names;
}

const std::vector<absl::string_view>& CanonicalInterfaces() {
  static const auto* names = new std::vector<absl::string_view>{
      "attention", "gemm", "quantizer", "collective"};
  return *names;
}

const std::vector<absl::string_view>& CanonicalOps(absl::string_view interface_name) {
  static const auto* attention =
      new std::vector<absl::string_view>{"forward", "backward"};
  static const auto* gemm = new std::vector<absl::string_view>{"gemm"};
  static const auto* quantizer =
      new std::vector<absl::string_view>{"quantize", "dequantize"};
  static const auto* collective = new std::vector<absl::string_view>{
      "all_reduce", "all_gather", "reduce_scatter", "broadcast",
      "send",       "recv",       "barrier"};
  static const auto* none = new std::vector<absl::string_view>{};
  if (interface_name == "attention") return *attention;
  if (interface_name == "gemm") return *gemm;
  if (interface_name == "quantizer") return *quantizer;
  if (interface_name == "collective") return *collective;
  return *none;
}

const std::vector<absl::string_view>& AllCanonicalOps() {
  static const auto* names = [] {
    auto* all = new std::vector<absl::string_view>;
    for (absl::string_view interface_name : CanonicalInterfaces()) {
      const auto& ops = CanonicalOps(interface_name);
      all->insert(all->end(), ops.begin(), ops.end());
    }
    return all;
  }();
  return *names;
}

const std::vector<absl::string_view>& BuiltinDeviceKinds() {
  static const auto& names = Views(sdk::BuiltinDeviceKindNames());
  return names;
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

bool Contains(const std::vector<absl::string_view>& names, absl::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string JoinNames(const std::vector<absl::string_view>& names) {
  return absl::StrJoin(names, ", ");
}

}  // namespace teplug::config
