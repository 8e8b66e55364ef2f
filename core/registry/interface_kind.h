// The four interfaces the core knows, and their canonical names.
#ifndef TEPLUG_CORE_REGISTRY_INTERFACE_KIND_H_
#define TEPLUG_CORE_REGISTRY_INTERFACE_KIND_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "teplug/abi_base.h"

namespace teplug::core {

enum class InterfaceKind { kGemm = 0, kAttention = 1, kQuantizer = 2, kCollective = 3 };
inline constexpr int kNumInterfaceKinds = 4;

// The kind of a v1 IID; nullopt for IIDs this core does not serve.
std::optional<InterfaceKind> KindOfIid(const TeplugIID& iid);
TeplugIID IidOfKind(InterfaceKind kind);
// "gemm", "attention", "quantizer", "collective": the names config files use.
const char* InterfaceName(InterfaceKind kind);
std::optional<InterfaceKind> ParseInterfaceName(absl::string_view name);
// "IGemm/1" ...: the names decision records and `teplug list` show.
const char* InterfaceDisplayName(InterfaceKind kind);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_REGISTRY_INTERFACE_KIND_H_
