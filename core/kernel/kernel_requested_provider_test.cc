// A provider requested by name (Kernel::Select/Explain with a provider, what
// `teplug run` does for its comparison with the reference) is exempt from
// config allow lists, and the decision record says which rule it was exempted
// from; deny lists and disabled providers still refuse it.
#include <string>

#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"

namespace teplug::core {
namespace {

using testing::FakePlugin;
using testing::GemmCall;
using testing::IsolatedOptions;
using testing::kFast;
using testing::kTwin;

std::unique_ptr<Kernel> MakeKernel(const std::string& config) {
  auto k = Kernel::Create(IsolatedOptions({FakePlugin("fast"), FakePlugin("twin")}, config));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

constexpr char kPinGemm[] =
    "rules { name: \"pin-gemm\" match { interfaces: \"gemm\" } allow: \"twin\" }\n";

TEST(KernelRequestedProviderTest, ARequestedProviderIsExemptFromAllowListsAndTheRecordSaysSo) {
  auto k = MakeKernel(kPinGemm);
  ASSERT_TRUE(k);
  GemmCall c;
  auto unnamed = k->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args());
  ASSERT_TRUE(unnamed.ok()) << unnamed.status();
  EXPECT_EQ(unnamed->implementation->QualifiedName(), "twin/gemm") << "the allow list applies";

  auto fast = k->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), "fast");
  ASSERT_TRUE(fast.ok()) << fast.status();
  EXPECT_EQ(fast->implementation->QualifiedName(), "fast/gemm");
  const DecisionRecord& rec = fast->decision->record();
  ASSERT_NE(rec.chosen(), nullptr);
  EXPECT_EQ(rec.Reason(*rec.chosen()),
            "priority 200 (the only candidate that accepts the op); allowed because requested "
            "explicitly (config rule \"pin-gemm\" (test.textproto:1) allows only twin)")
      << rec.Format();
  TeplugGemmV1* g = fast->as<TeplugGemmV1>();
  ASSERT_TRUE(sdk::OwnedError(g->vtbl->gemm(g, c.args())).ok());
  EXPECT_EQ(c.OutputMarker(), kFast);

  // A provider the allow list names gets no such remark.
  auto twin = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), "twin");
  ASSERT_TRUE(twin.ok()) << twin.status();
  EXPECT_EQ(twin->Reason(*twin->chosen()).find("requested explicitly"), std::string::npos)
      << twin->Format();
  GemmCall t;
  auto twin_selected = k->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, t.args(), "twin");
  ASSERT_TRUE(twin_selected.ok());
  TeplugGemmV1* tg = twin_selected->as<TeplugGemmV1>();
  ASSERT_TRUE(sdk::OwnedError(tg->vtbl->gemm(tg, t.args())).ok());
  EXPECT_EQ(t.OutputMarker(), kTwin);
}

TEST(KernelRequestedProviderTest, DenyListsAndDisabledProvidersStillRefuseARequestedProvider) {
  GemmCall c;
  auto denied =
      MakeKernel("rules { name: \"no-fast\" match { interfaces: \"gemm\" } deny: \"fast\" }\n");
  ASSERT_TRUE(denied);
  auto d = denied->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), "fast");
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(d.status().message().find("no provider named \"fast\" can serve"), std::string::npos)
      << d.status();
  EXPECT_NE(d.status().message().find("no-fast"), std::string::npos) << d.status();

  auto disabled = MakeKernel("providers { name: \"fast\" enabled: false }\n");
  ASSERT_TRUE(disabled);
  auto off = disabled->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args(), "fast");
  EXPECT_EQ(off.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(off.status().message().find("provider disabled in config"), std::string::npos)
      << off.status();
}

}  // namespace
}  // namespace teplug::core
