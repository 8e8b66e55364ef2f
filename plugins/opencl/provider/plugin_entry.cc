// The one exported symbol of libteplug_opencl.so. The provider is only ever a
// discovered plugin (never built in): a host without it has nothing
// OpenCL-specific.
//
// It registers "opencl" (vendor "teplug") with IDevice/1 "opencl", IGemm/1
// "clblast", IAttention/1 "attention" and IQuantizer/1 "opencl-quantizer" at
// priority 200, the convention's lowest vendor-optimised rank (reference 0,
// portable CPU 100, vendor-optimised 200-500).
#include <memory>

#include "plugins/opencl/attention/attention_provider.h"
#include "plugins/opencl/provider/capabilities.h"
#include "plugins/opencl/provider/gemm_provider.h"
#include "plugins/opencl/provider/opencl_device.h"
#include "plugins/opencl/quantize/quantizer_provider.h"
#include "teplug/plugin.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"

namespace {

constexpr int32_t kOpenClPriority = 200;

void RegisterOpenClImplementations(teplug::sdk::Registrar& r) {
  using namespace teplug::opencl::provider;  // NOLINT(build/namespaces): names above
  r.Register(teplug::sdk::kIidDeviceV1, teplug::sdk::MakeDevice(NewOpenClDevice()),
             OpenClDeviceCaps(), "opencl", kOpenClPriority);
  r.Register(teplug::sdk::kIidGemmV1, teplug::sdk::MakeGemm(std::make_unique<OpenClGemm>()),
             OpenClGemmCaps(), "clblast", kOpenClPriority);
  r.Register(
      teplug::sdk::kIidAttentionV1,
      teplug::sdk::MakeAttention(std::make_unique<teplug::opencl::attention::OpenClAttention>()),
      teplug::opencl::attention::OpenClAttentionCaps(), "attention", kOpenClPriority);
  r.Register(
      teplug::sdk::kIidQuantizerV1,
      teplug::sdk::MakeQuantizer(std::make_unique<teplug::opencl::quantize::OpenClQuantizer>()),
      OpenClQuantizerCaps(r.host().abi_max), "opencl-quantizer", kOpenClPriority);
}

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return teplug::sdk::RunPluginEntry(host, info, "opencl", "teplug", "0.1.0",
                                     TEPLUG_ABI_VERSION_MAJOR_FIRST, TEPLUG_ABI_VERSION_CURRENT,
                                     RegisterOpenClImplementations);
}
