// Canonical vocabulary of the config file: the names a rule may match on.
//
// These tables are the single place the loader checks names against. Dtypes,
// layouts, masks and device kinds are the ABI's own spellings, taken from
// teplug/sdk/names.hpp (the names the core gives an op's facts), so the two
// cannot drift apart.
#ifndef TEPLUG_CORE_CONFIG_CANONICAL_NAMES_H_
#define TEPLUG_CORE_CONFIG_CANONICAL_NAMES_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

namespace teplug::config {

// Element types: fp32 fp16 bf16 fp8_e4m3 fp8_e5m2 e8m0 fp4_e2m1 int8 int32
// int64 uint8.
const std::vector<absl::string_view>& CanonicalDtypes();

// The 15 TransformerEngine QKV layouts (sb3hd ... thd_thd_thd).
const std::vector<absl::string_view>& CanonicalLayouts();

// The three layout formats: sbhd, bshd, thd.
const std::vector<absl::string_view>& CanonicalLayoutFormats();

// The format a layout belongs to ("bshd_bs2hd" -> "bshd"), or an empty view
// when `layout` is not a canonical layout.
absl::string_view LayoutFormat(absl::string_view layout);

// Attention mask types: none padding causal padding_causal
// causal_bottom_right padding_causal_bottom_right.
const std::vector<absl::string_view>& CanonicalMaskTypes();

// Interface names: attention gemm quantizer collective.
const std::vector<absl::string_view>& CanonicalInterfaces();

// Ops of one interface (empty when the interface is unknown).
const std::vector<absl::string_view>& CanonicalOps(absl::string_view interface_name);

// Every op of every interface, in interface order.
const std::vector<absl::string_view>& AllCanonicalOps();

// The built-in device kinds (cpu cuda opencl). Vendors may add kinds; see
// IsValidDeviceKindSpelling.
const std::vector<absl::string_view>& BuiltinDeviceKinds();

// True when `kind` is a plausible device-kind name: non-empty, [a-z0-9_]+.
bool IsValidDeviceKindSpelling(absl::string_view kind);

// Log levels accepted in log_level: error warn info debug.
const std::vector<absl::string_view>& CanonicalLogLevels();

// True when `name` is one of `names`.
bool Contains(const std::vector<absl::string_view>& names, absl::string_view name);

// "a, b, c": used in error messages that list the allowed set.
std::string JoinNames(const std::vector<absl::string_view>& names);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_CANONICAL_NAMES_H_
