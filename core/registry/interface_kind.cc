#include "core/registry/interface_kind.h"

#include "teplug/sdk/iids.hpp"

namespace teplug::core {

std::optional<InterfaceKind> KindOfIid(const TeplugIID& iid) {
  if (sdk::SameIid(iid, sdk::kIidGemmV1)) return InterfaceKind::kGemm;
  if (sdk::SameIid(iid, sdk::kIidAttentionV1)) return InterfaceKind::kAttention;
  if (sdk::SameIid(iid, sdk::kIidQuantizerV1)) return InterfaceKind::kQuantizer;
  if (sdk::SameIid(iid, sdk::kIidCollectiveV1)) return InterfaceKind::kCollective;
  return std::nullopt;
}

TeplugIID IidOfKind(InterfaceKind kind) {
  switch (kind) {
    case InterfaceKind::kGemm: return sdk::kIidGemmV1;
    case InterfaceKind::kAttention: return sdk::kIidAttentionV1;
    case InterfaceKind::kQuantizer: return sdk::kIidQuantizerV1;
    case InterfaceKind::kCollective: return sdk::kIidCollectiveV1;
  }
  return sdk::kIidObject;
}

const char* InterfaceName(InterfaceKind kind) {
  switch (kind) {
    case InterfaceKind::kGemm: return "gemm";
    case InterfaceKind::kAttention: return "attention";
    case InterfaceKind::kQuantizer: return "quantizer";
    case InterfaceKind::kCollective: return "collective";
  }
  return "unknown";
}

std::optional<InterfaceKind> ParseInterfaceName(absl::string_view name) {
  for (int k = 0; k < kNumInterfaceKinds; ++k) {
    if (name == InterfaceName(static_cast<InterfaceKind>(k))) return static_cast<InterfaceKind>(k);
  }
  return std::nullopt;
}

const char* InterfaceDisplayName(InterfaceKind kind) {
  switch (kind) {
    case InterfaceKind::kGemm: return "IGemm/1";
    case InterfaceKind::kAttention: return "IAttention/1";
    case InterfaceKind::kQuantizer: return "IQuantizer/1";
    case InterfaceKind::kCollective: return "ICollective/1";
  }
  return "unknown";
}

}  // namespace teplug::core
