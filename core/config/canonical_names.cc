#include "core/config/canonical_names.h"

#include <algorithm>

#include "absl/strings/str_join.h"

namespace teplug::config {

const std::vector<absl::string_view>& CanonicalDtypes() {
  static const auto* names = new std::vector<absl::string_view>{
      "fp32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "e8m0",
      "fp4_e2m1", "int8", "int32", "int64", "uint8"};
  return *names;
}

const std::vector<absl::string_view>& CanonicalLayouts() {
  static const auto* names = new std::vector<absl::string_view>{
      "sb3hd", "sbh3d", "sbhd_sb2hd", "sbhd_sbh2d", "sbhd_sbhd_sbhd",
      "bs3hd", "bsh3d", "bshd_bs2hd", "bshd_bsh2d", "bshd_bshd_bshd",
      "t3hd",  "th3d",  "thd_t2hd",   "thd_th2d",   "thd_thd_thd"};
  return *names;
}

const std::vector<absl::string_view>& CanonicalLayoutFormats() {
  static const auto* names =
      new std::vector<absl::string_view>{"sbhd", "bshd", "thd"};
  return *names;
}

absl::string_view LayoutFormat(absl::string_view layout) {
  if (!Contains(CanonicalLayouts(), layout)) return {};
  // Every canonical layout starts with the letters of its format's leading
  // dimensions: "sb" for sbhd, "bs" for bshd, "t" for thd.
  if (layout.substr(0, 2) == "sb") return "sbhd";
  if (layout.substr(0, 2) == "bs") return "bshd";
  return "thd";
}

const std::vector<absl::string_view>& CanonicalMaskTypes() {
  static const auto* names = new std::vector<absl::string_view>{
      "none",           "padding",
      "causal",         "padding_causal",
      "causal_bottom_right", "padding_causal_bottom_right"};
  return *names;
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
  static const auto* names =
      new std::vector<absl::string_view>{"cpu", "cuda", "opencl"};
  return *names;
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
