// The names a provider declares for vendor-defined device kinds and for
// device vendor ids (TeplugPluginInfo.device_kind_names / vendor_names), and
// the spelling rules they share with the config and the CLI.
#ifndef TEPLUG_CORE_LOADER_DECLARED_NAMES_H_
#define TEPLUG_CORE_LOADER_DECLARED_NAMES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "teplug/plugin.h"

namespace teplug::core {

// At most this many entries in each array.
inline constexpr uint32_t kMaxDeclaredNames = 32;
// At most this many bytes in a declared name.
inline constexpr size_t kMaxDeclaredNameLength = 31;

// [a-z][a-z0-9_]{0,30}, and not "vendor<digits>" (the spelling of an
// unnamed vendor kind).
bool IsValidDeclaredName(absl::string_view name);
// "any", "cpu", "cuda", "opencl": names the ABI gives kinds itself.
bool IsBuiltinDeviceKindName(absl::string_view name);
// "any", "nvidia", "amd", "intel" (TEPLUG_VENDOR_*), and whether `id` is one
// of those ids.
bool IsBuiltinVendorName(absl::string_view name);
bool IsBuiltinVendorId(uint32_t id);

struct DeclaredNames {
  std::vector<std::pair<int32_t, std::string>> device_kinds;
  std::vector<std::pair<uint32_t, std::string>> vendors;
};

// Reads the declarations from `info` (only the fields its struct_size holds;
// none when it predates them) and checks them: counts, non-NULL arrays and
// names, spelling, ranges (kinds >= TEPLUG_DEVICE_VENDOR_BASE, vendor ids
// non-zero and not built-in), no built-in name, one name per id and one id per
// name. InvalidArgument names the entry, e.g.
// `TeplugPluginInfo.device_kind_names[1] {1100, "cpu"}: "cpu" is a built-in
// device kind name`. Names in messages are escaped.
absl::Status ReadDeclaredNames(const TeplugPluginInfo& info, DeclaredNames* out);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_DECLARED_NAMES_H_
