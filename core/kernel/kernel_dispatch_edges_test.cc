// Dispatch paths the ordinary kernel tests do not take: a call whose args
// cannot be keyed for the decision cache (a device struct shorter than v1) is
// still decided and served, every time; the fallback warning has its exact
// shape (which implementation failed, with what, on which op, and where the
// call went instead); an unknown interface id is refused by Select and
// Explain with a reason.
#include <memory>
#include <string>
#include <vector>

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
using testing::LogCapture;

std::unique_ptr<Kernel> MakeKernel(std::vector<std::string> plugins, LogCapture* log) {
  KernelOptions o = IsolatedOptions(std::move(plugins));
  o.log_sink = log->sink();
  auto k = Kernel::Create(std::move(o));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

sdk::OwnedError CallGemm(const Kernel& k, GemmCall& c) {
  auto gemm = k.Query<TeplugGemmV1>(sdk::kIidGemmV1);
  EXPECT_TRUE(gemm);
  return sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), c.args()));
}

TEST(KernelDispatchEdgesTest, UnkeyableCallsAreDecidedAndServedEveryTime) {
  LogCapture log;
  auto k = MakeKernel({FakePlugin("fast")}, &log);
  ASSERT_TRUE(k);
  // Shorter than v1: selection treats it as the host, the cache cannot key it.
  TeplugDevice short_device{};
  short_device.struct_size = TEPLUG_STRUCT_SIZE(TeplugDevice, arch) - 1;
  TeplugTensor a = *GemmCall().args()->a;
  for (int i = 0; i < 3; ++i) {
    GemmCall c;
    a = *c.args()->a;
    a.device = &short_device;
    c.mutable_args()->a = &a;
    auto err = CallGemm(*k, c);
    ASSERT_TRUE(err.ok()) << err.message();
    EXPECT_EQ(c.OutputMarker(), testing::kFast);
  }
}

TEST(KernelDispatchEdgesTest, FallbackWarningNamesTheFailureTheOpAndTheNextImplementation) {
  LogCapture log;
  auto k = MakeKernel({FakePlugin("wide"), FakePlugin("fast")}, &log);
  ASSERT_TRUE(k);
  GemmCall c(13.f);  // fast answers UNAVAILABLE, wide serves
  auto err = CallGemm(*k, c);
  ASSERT_TRUE(err.ok()) << err.message();
  EXPECT_EQ(log.Count("fast/gemm returned unavailable from gemm: fast: device busy (test) (serving gemm gemm fp32[4,4] x "
                      "fp32[4,4] -> fp32[4,4] M=4 N=4 K=4 on cpu:0); falling back to wide/gemm"),
            1)
      << log.All();
}

TEST(KernelDispatchEdgesTest, AnUnknownInterfaceIdIsRefusedWithAReason) {
  LogCapture log;
  auto k = MakeKernel({FakePlugin("fast")}, &log);
  ASSERT_TRUE(k);
  const TeplugIID unknown{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  GemmCall c;
  auto rec = k->Explain(unknown, TEPLUG_OP_GEMM, c.args());
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(rec.status().message(), "unknown interface id");
  auto sel = k->Select(unknown, TEPLUG_OP_GEMM, c.args());
  ASSERT_FALSE(sel.ok());
  EXPECT_EQ(sel.status().message(), "unknown interface id");
}

}  // namespace
}  // namespace teplug::core
