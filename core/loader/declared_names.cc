#include "core/loader/declared_names.h"

#include <cstring>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/log/untrusted_text.h"
#include "teplug/types.h"

namespace teplug::core {
namespace {

// One array of TeplugPluginInfo: which one, how ids are checked and what a
// built-in name is for it.
struct ArraySpec {
  const char* field;  // "device_kind_names"
  const char* what;   // "device kind"
  bool hex_ids;       // vendor ids read as 0x1da3
  bool (*id_ok)(int64_t id, std::string* why);
  bool (*builtin_name)(absl::string_view name);
};

bool KindIdOk(int64_t id, std::string* why) {
  if (id >= TEPLUG_DEVICE_VENDOR_BASE && id <= std::numeric_limits<int32_t>::max()) return true;
  *why = absl::StrCat("a vendor-defined device kind must be ", TEPLUG_DEVICE_VENDOR_BASE, " to ",
                      std::numeric_limits<int32_t>::max());
  return false;
}

bool VendorIdOk(int64_t id, std::string* why) {
  if (id < 1 || id > std::numeric_limits<uint32_t>::max()) {
    *why = "a vendor id must be 1 to 4294967295";
    return false;
  }
  if (IsBuiltinVendorId(static_cast<uint32_t>(id))) {
    *why = "the id already has a built-in name";
    return false;
  }
  return true;
}

template <class Id>
absl::Status ReadArray(const ArraySpec& spec, const TeplugNamedId* entries, uint32_t count,
                       std::vector<std::pair<Id, std::string>>* out) {
  if (count == 0) return absl::OkStatus();
  const std::string field = absl::StrCat("TeplugPluginInfo.", spec.field);
  if (count > kMaxDeclaredNames) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", count, " entries, at most ", kMaxDeclaredNames));
  }
  if (entries == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(field, " is NULL with a count of ", count));
  }
  absl::flat_hash_map<int64_t, std::string> name_of;
  absl::flat_hash_map<std::string, int64_t> id_of;
  for (uint32_t i = 0; i < count; ++i) {
    const TeplugNamedId& e = entries[i];
    const std::string at =
        absl::StrCat(field, "[", i, "] {",
                     spec.hex_ids ? absl::StrCat("0x", absl::Hex(e.id)) : absl::StrCat(e.id), ", ");
    if (e.name == nullptr)
      return absl::InvalidArgumentError(absl::StrCat(at, "NULL}: the name is NULL"));
    const size_t length = strnlen(e.name, kMaxDeclaredNameLength + 1);
    const std::string name(e.name, length);
    const std::string shown = absl::StrCat(at, "\"", EscapeUntrustedText(name),
                                           length > kMaxDeclaredNameLength ? "...\"}" : "\"}");
    std::string why;
    if (!IsValidDeclaredName(name)) {
      why = absl::StrCat("a ", spec.what,
                         " name must match [a-z][a-z0-9_]{0,30} and not be vendor<digits>");
    } else if (spec.builtin_name(name)) {
      why = absl::StrCat("\"", name, "\" is a built-in ", spec.what, " name");
    } else if (spec.id_ok(e.id, &why)) {
      auto [named, new_id] = name_of.emplace(e.id, name);
      auto [numbered, new_name] = id_of.emplace(name, e.id);
      if (new_id && new_name) {
        out->emplace_back(static_cast<Id>(e.id), name);
        continue;
      }
      if (named->second == name && numbered->second == e.id) continue;  // listed twice alike
      why = named->second != name ? absl::StrCat("id ", e.id, " is already named \"", named->second,
                                                 "\" by this provider")
                                  : absl::StrCat("\"", name, "\" already names id ",
                                                 numbered->second, " in this provider");
    }
    return absl::InvalidArgumentError(absl::StrCat(shown, ": ", why));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsValidDeclaredName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxDeclaredNameLength) return false;
  if (!(name[0] >= 'a' && name[0] <= 'z')) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  if (absl::StartsWith(name, "vendor") && name.size() > 6) {
    bool digits = true;
    for (char c : name.substr(6))
      digits = digits && absl::ascii_isdigit(static_cast<unsigned char>(c));
    if (digits) return false;
  }
  return true;
}

bool IsBuiltinDeviceKindName(absl::string_view name) {
  return name == "any" || name == "cpu" || name == "cuda" || name == "opencl";
}

bool IsBuiltinVendorName(absl::string_view name) {
  return name == "any" || name == "nvidia" || name == "amd" || name == "intel";
}

bool IsBuiltinVendorId(uint32_t id) {
  return id == TEPLUG_VENDOR_NVIDIA || id == TEPLUG_VENDOR_AMD || id == TEPLUG_VENDOR_INTEL;
}

absl::Status ReadDeclaredNames(const TeplugPluginInfo& info, DeclaredNames* out) {
  if (info.struct_size < TEPLUG_STRUCT_SIZE(TeplugPluginInfo, vendor_names)) return absl::OkStatus();
  static constexpr ArraySpec kKinds{"device_kind_names", "device kind", false, KindIdOk,
                                    IsBuiltinDeviceKindName};
  static constexpr ArraySpec kVendors{"vendor_names", "vendor", true, VendorIdOk,
                                      IsBuiltinVendorName};
  absl::Status s =
      ReadArray(kKinds, info.device_kind_names, info.device_kind_name_count, &out->device_kinds);
  if (!s.ok()) return s;
  return ReadArray(kVendors, info.vendor_names, info.vendor_name_count, &out->vendors);
}

}  // namespace teplug::core
