// The names providers declared for vendor-defined device kinds and device
// vendor ids (TeplugPluginInfo.device_kind_names / vendor_names), merged over
// one kernel state's providers, and where the kernel uses them: the device
// spelling ops are described with (facts and summary), the config's
// device_kinds / vendors (numbers still work) and the warnings for config
// names no provider declares.
#ifndef TEPLUG_CORE_KERNEL_DEVICE_NAMES_H_
#define TEPLUG_CORE_KERNEL_DEVICE_NAMES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/config/validated_config.h"
#include "core/registry/implementation.h"
#include "core/select/decision_record.h"
#include "core/ops/device_spelling.h"
#include "core/ops/refusal.h"
#include "teplug/types.h"

namespace teplug::core {

class DeviceNames final : public DeviceSpelling, public ReasonSpelling {
 public:
  // Merges `provider`'s declarations. The first declaration of an id or a
  // name wins: a later provider naming the same id differently, or giving
  // the name to another id, is ignored for that entry, and one warning per
  // ignored entry names both providers.
  std::vector<std::string> Add(const Provider& provider);
  bool empty() const { return kinds_.empty() && vendors_.empty(); }

  // What a device kind or vendor id is called in facts, records and the
  // config: the declared name, else the ABI's spelling ("cpu",
  // "vendor1100"; "nvidia", "0x1da3", "" for any vendor). The kernel
  // describes ops with these (DeviceSpelling), so a summary's device label
  // reads "gaudi:0 (habana, arch 3)".
  std::string KindSpelling(int32_t kind) const override;
  std::string VendorSpelling(uint32_t vendor_id) const override;

  // The kind a config or command-line spelling means: a built-in name, a
  // declared name, or a vendor kind number ("1100" or "vendor1100");
  // nullopt when it is none of those.
  std::optional<int32_t> ResolveKind(absl::string_view text) const;
  // The same for vendors: "nvidia", "amd", "intel", a declared name
  // (case-insensitive, like config matching), or a hex id ("0x1da3").
  std::optional<uint32_t> ResolveVendor(absl::string_view text) const;
  // The declared names, "gaudi (1100)", for messages; "none" when empty.
  std::string DeclaredKindList() const;
  std::string DeclaredVendorList() const;

  // `text` with each whole word that is the ABI's spelling of a declared id
  // ("vendor1100", "0x1da3") replaced by its name: for the capability
  // summaries and the decision records' reasons (the kernel passes these
  // names to Decide as the record's spelling).
  std::string Rename(absl::string_view text) const override;

  // `config` with every rule's device_kinds / vendors entry that resolves
  // rewritten to its spelling in facts (KindSpelling / VendorSpelling), so a
  // rule written with a number matches an op on a named kind and the other
  // way round. Entries that do not resolve are left as written.
  config::ValidatedConfig Canonical(config::ValidatedConfig config) const;

  // "file:line:col: rules[0].match.device_kinds[1]: unknown device kind
  // \"gaudi\"; ..." for each config entry that does not resolve: errors in
  // `teplug validate`, warnings when a kernel starts.
  std::vector<std::string> UnknownNames(const config::ValidatedConfig& config) const;

 private:
  struct Declared {
    std::string name;
    std::string provider;  // who declared it first
  };
  absl::flat_hash_map<int32_t, Declared> kinds_;
  absl::flat_hash_map<std::string, int32_t> kind_ids_;
  absl::flat_hash_map<uint32_t, Declared> vendors_;
  absl::flat_hash_map<std::string, uint32_t> vendor_ids_;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_DEVICE_NAMES_H_
