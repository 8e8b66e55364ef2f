// A plugin with 20,000 implementations loads completely: every one is
// listed once, in the load report and in the registry, and a call through
// the kernel is served. No timing is asserted (load_scaling_bench measures).
#include <set>
#include <string>

#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"

namespace teplug::core {
namespace {

constexpr size_t kImplementations = 20000;

TEST(LoadScalingTest, TwentyThousandImplementationsFromOnePluginAllLoad) {
  auto kernel = Kernel::Create(
      testing::IsolatedOptions({testing::Runfile("tests/bench/libteplug_bench_scale_20000.so")}));
  ASSERT_TRUE(kernel.ok()) << kernel.status();

  const std::vector<ProviderListing> providers = (*kernel)->ListProviders();
  ASSERT_EQ(providers.size(), 1u);
  std::set<std::string> names;
  for (const ImplementationListing& i : providers[0].implementations) names.insert(i.name);
  EXPECT_EQ(providers[0].implementations.size(), kImplementations);
  EXPECT_EQ(names.size(), kImplementations) << "an implementation is listed twice";
  EXPECT_EQ(names.count("bench_scale_20000/noop00"), 1u);
  EXPECT_EQ(names.count("bench_scale_20000/noop19999"), 1u);

  const std::vector<LoadReportEntry> report = (*kernel)->LoadReport();
  ASSERT_EQ(report.size(), 1u);
  EXPECT_TRUE(report[0].loaded) << report[0].reason;
  EXPECT_EQ(report[0].implementations.size(), kImplementations);

  testing::AttentionForwardCall call;
  auto attention = (*kernel)->Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
  ASSERT_NE(attention.get(), nullptr);
  sdk::OwnedError served(attention->vtbl->forward(attention.get(), call.args()));
  EXPECT_TRUE(served.ok()) << served.message();
}

}  // namespace
}  // namespace teplug::core
