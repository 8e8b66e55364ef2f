#include "plugins/cpu/provider/cpu_entry.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "plugins/cpu/collective/gloo_collective.h"
#include "plugins/cpu/provider/attention_provider.h"
#include "plugins/cpu/provider/capabilities.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "plugins/cpu/provider/quantizer_provider.h"
#include "plugins/cpu/provider/thread_budget.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"

namespace teplug::cpu::provider {
namespace {

void RegisterCpuImplementations(sdk::Registrar& r) {
  // A malformed budget refuses the provider, naming where it came from and
  // the value, rather than silently running on every core.
  const absl::StatusOr<int> threads = CpuThreadBudget(std::getenv(kCpuThreadsVariable), r.Option(kCpuThreadsOption));
  if (!threads.ok()) throw sdk::InvalidArgument(std::string(threads.status().message()));
  r.Register(sdk::kIidGemmV1,
             sdk::MakeGemm(std::make_unique<CpuGemm>(kGemmPlanCacheCapacity, *threads)),
             CpuGemmCaps(), kCpuGemmName, kCpuPriority);
  r.Register(sdk::kIidAttentionV1, sdk::MakeAttention(std::make_unique<CpuAttention>(*threads)),
             CpuAttentionCaps(), kCpuAttentionName, kCpuPriority);
  r.Register(sdk::kIidCollectiveV1, sdk::MakeCollective(collective::NewGlooCollective()),
             collective::GlooCollectiveCaps(), kCpuCollectiveName, kCpuCollectivePriority);
  r.Register(sdk::kIidQuantizerV1, sdk::MakeQuantizer(std::make_unique<CpuQuantizer>(*threads)),
             CpuQuantizerCaps(r.host().abi_max), kCpuQuantizerName, kCpuPriority);
}

}  // namespace
}  // namespace teplug::cpu::provider

TeplugError* teplug_cpu_entry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  using namespace teplug::cpu::provider;  // NOLINT(build/namespaces): names above
  return teplug::sdk::RunPluginEntry(host, info, kCpuName, kCpuVendor, kCpuVersion,
                                     TEPLUG_ABI_VERSION_MAJOR_FIRST, TEPLUG_ABI_VERSION_CURRENT,
                                     RegisterCpuImplementations);
}
