#include "plugins/cpu/provider/cpu_entry.h"

#include <memory>

#include "plugins/cpu/provider/capabilities.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"

namespace teplug::cpu::provider {
namespace {

void RegisterCpuImplementations(sdk::Registrar& r) {
  r.Register(sdk::kIidGemmV1, sdk::MakeGemm(std::make_unique<CpuGemm>()), CpuGemmCaps(),
             kCpuGemmName, kCpuPriority);
}

}  // namespace
}  // namespace teplug::cpu::provider

TeplugError* teplug_cpu_entry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  using namespace teplug::cpu::provider;  // NOLINT(build/namespaces): names above
  return teplug::sdk::RunPluginEntry(host, info, kCpuName, kCpuVendor, kCpuVersion,
                                     TEPLUG_ABI_VERSION_MAJOR_FIRST, TEPLUG_ABI_VERSION_CURRENT,
                                     RegisterCpuImplementations);
}
