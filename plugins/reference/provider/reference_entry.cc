#include "plugins/reference/provider/reference_entry.h"

#include "plugins/reference/provider/attention_provider.h"
#include "plugins/reference/provider/capabilities.h"
#include "plugins/reference/provider/collective_provider.h"
#include "plugins/reference/provider/device_provider.h"
#include "plugins/reference/provider/gemm_provider.h"
#include "plugins/reference/provider/norm_provider.h"
#include "plugins/reference/provider/quantizer_provider.h"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/plugin.hpp"

namespace teplug::reference::provider {
namespace {

void RegisterReferenceImplementations(sdk::Registrar& r) {
  r.Register(sdk::kIidGemmV1, sdk::MakeGemm(NewReferenceGemm()), ReferenceGemmCaps(), "gemm",
             kReferencePriority);
  r.Register(sdk::kIidAttentionV1, sdk::MakeAttention(NewReferenceAttention()),
             ReferenceAttentionCaps(), "attention", kReferencePriority);
  r.Register(sdk::kIidQuantizerV1, sdk::MakeQuantizer(NewReferenceQuantizer()),
             ReferenceQuantizerCaps(r.host().abi_max), "quantizer", kReferencePriority);
  r.Register(sdk::kIidCollectiveV1, sdk::MakeCollective(NewReferenceCollective()),
             ReferenceCollectiveCaps(), "collective", kReferencePriority);
  // A host older than INorm/1 or IDevice/1 skips them and still loads the
  // other four.
  r.RegisterIfServed(sdk::kIidNormV1, sdk::MakeNorm(NewReferenceNorm()),
                     ReferenceNormCaps(r.host().abi_max), "norm", kReferencePriority);
  r.RegisterIfServed(sdk::kIidDeviceV1, sdk::MakeDevice(NewReferenceDevice()), ReferenceDeviceCaps(),
                     "cpu", kReferencePriority);
}

}  // namespace
}  // namespace teplug::reference::provider

TeplugError* teplug_reference_entry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  using namespace teplug::reference::provider;  // NOLINT(build/namespaces): names above
  return teplug::sdk::RunPluginEntry(host, info, kReferenceName, kReferenceVendor,
                                     kReferenceVersion, TEPLUG_ABI_VERSION_MAJOR_FIRST,
                                     TEPLUG_ABI_VERSION_CURRENT, RegisterReferenceImplementations);
}
