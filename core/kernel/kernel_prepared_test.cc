// Kernel::Prepare: a dispatching object that decided one op for one
// signature serves that op like the dispatching object does (same choice,
// fallback, strict mode, errors, served-by), follows plugin loads and config
// reloads, dispatches its other ops per call, refuses what cannot be
// prepared with the reason, and with check_prepared_calls refuses a call
// whose facts differ from the prepared ones.
#include <memory>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

using testing::AttentionForwardCall;
using testing::FakePlugin;
using testing::GemmCall;
using testing::IsolatedOptions;
using testing::kFast;
using testing::kWide;
using testing::LogCapture;

std::unique_ptr<Kernel> MakeKernel(KernelOptions o, LogCapture* log) {
  o.log_sink = log->sink();
  auto k = Kernel::Create(std::move(o));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

sdk::Ref<TeplugGemmV1> PrepareGemm(const Kernel& k, const GemmCall& c) {
  absl::StatusOr<sdk::Ref<TeplugGemmV1>> gemm = k.Prepare<TeplugGemmV1>(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args());
  EXPECT_TRUE(gemm.ok()) << gemm.status();
  return gemm.ok() ? *std::move(gemm) : sdk::Ref<TeplugGemmV1>();
}

sdk::OwnedError Call(TeplugGemmV1* gemm, GemmCall& c) { return sdk::OwnedError(gemm->vtbl->gemm(gemm, c.args())); }

KernelOptions FastAndWide() { return IsolatedOptions({FakePlugin("wide"), FakePlugin("fast")}); }

// A kernel and a GEMM object prepared for `prepared_with`'s facts.
struct PreparedGemm {
  explicit PreparedGemm(KernelOptions o = FastAndWide()) : kernel(MakeKernel(std::move(o), &log)) {
    if (kernel != nullptr) gemm = PrepareGemm(*kernel, prepared_with);
  }
  LogCapture log;
  std::unique_ptr<Kernel> kernel;
  GemmCall prepared_with;
  sdk::Ref<TeplugGemmV1> gemm;
};

TEST(KernelPreparedTest, ServesThePreparedChoiceForCallsWithNewDataAndRecordsIt) {
  PreparedGemm p;
  ASSERT_TRUE(p.gemm);
  ServedByRecorder served;
  for (uint32_t seed = 2; seed < 5; ++seed) {
    GemmCall c(1.f, 4, 4, 4, seed);  // new buffers and values (unchecked: served as prepared)
    ASSERT_TRUE(Call(p.gemm.get(), c).ok());
    EXPECT_EQ(c.OutputMarker(), kFast);
    EXPECT_EQ(served.last(), "fast/gemm");
  }
}

TEST(KernelPreparedTest, FallsBackAndReturnsErrorsAsTheDispatchingObjectDoes) {
  PreparedGemm p;
  ASSERT_TRUE(p.gemm);
  ServedByRecorder served;
  for (int i = 0; i < 2; ++i) {
    GemmCall busy(13.f);  // alpha is per call: the same signature; fast answers UNAVAILABLE
    ASSERT_TRUE(Call(p.gemm.get(), busy).ok());
    EXPECT_EQ(busy.OutputMarker(), kWide);
    EXPECT_EQ(served.last(), "wide/gemm");
  }
  EXPECT_EQ(p.log.Count("fast/gemm returned unavailable from gemm: fast: device busy (test) (serving gemm gemm "
                      "fp32[4,4] x fp32[4,4] -> fp32[4,4] M=4 N=4 K=4 on cpu:0); falling back to wide/gemm"),
            1)
      << p.log.All();
  GemmCall invalid(14.f);  // every fake: INVALID_ARGUMENT, the op's answer
  sdk::OwnedError e = Call(p.gemm.get(), invalid);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(e.message()), "fast/gemm returned invalid_argument from gemm: fast: alpha 14 is invalid (test)");
}

TEST(KernelPreparedTest, StrictModeDoesNotFallBack) {
  KernelOptions o = FastAndWide();
  o.strict = true;
  PreparedGemm p(std::move(o));
  ASSERT_TRUE(p.gemm);
  GemmCall busy(13.f);
  sdk::OwnedError e = Call(p.gemm.get(), busy);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.code(), TEPLUG_UNAVAILABLE);
  EXPECT_NE(std::string(e.message()).find("strict mode"), std::string::npos) << e.message();
  EXPECT_NE(busy.OutputMarker(), kWide);
}

TEST(KernelPreparedTest, FollowsConfigReloadsAndPluginLoads) {
  PreparedGemm p;
  ASSERT_TRUE(p.gemm);
  GemmCall c1;
  ASSERT_TRUE(Call(p.gemm.get(), c1).ok());
  EXPECT_EQ(c1.OutputMarker(), kFast);

  ASSERT_TRUE(p.kernel->ReloadConfigText("providers { name: \"fast\" enabled: false }\n", "reload.textproto").ok());
  for (int i = 0; i < 3; ++i) {  // the first call decides again, the next ones use the new binding
    GemmCall c;
    ASSERT_TRUE(Call(p.gemm.get(), c).ok());
    EXPECT_EQ(c.OutputMarker(), kWide) << "call " << i << " after the reload";
  }

  ASSERT_TRUE(p.kernel->ReloadConfigText("log_level: \"warn\"\n", "back.textproto").ok());
  GemmCall c2;
  ASSERT_TRUE(Call(p.gemm.get(), c2).ok());
  EXPECT_EQ(c2.OutputMarker(), kFast) << "fast is enabled again";

  // A plugin loaded later that ranks first for the op ("twin" ties with
  // wide, so deny fast again to let the load decide between the two).
  ASSERT_TRUE(p.kernel->ReloadConfigText("providers { name: \"fast\" enabled: false }\n", "again.textproto").ok());
  ASSERT_TRUE(p.kernel->LoadPlugin(FakePlugin("twin")).ok());
  ServedByRecorder served;
  GemmCall c3;
  ASSERT_TRUE(Call(p.gemm.get(), c3).ok());
  EXPECT_EQ(served.last(), "twin/gemm") << "ties break by name: twin before wide";
}

TEST(KernelPreparedTest, OtherOpsAndQueriesOfThePreparedObjectDispatchPerCall) {
  LogCapture log;
  auto k = MakeKernel(FastAndWide(), &log);
  ASSERT_TRUE(k);
  AttentionForwardCall prepared_with(64);
  absl::StatusOr<sdk::Ref<TeplugAttentionV1>> attention =
      k->Prepare<TeplugAttentionV1>(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, prepared_with.args());
  ASSERT_TRUE(attention.ok()) << attention.status();
  TeplugAttentionV1* a = attention->get();
  ASSERT_TRUE(sdk::OwnedError(a->vtbl->forward(a, prepared_with.args())).ok());
  EXPECT_EQ(prepared_with.OutputMarker(), kFast);

  // workspace_size and supports of the object are the dispatching object's.
  AttentionForwardCall wide_only(192);  // above fast's head_dim limit
  size_t bytes = 0;
  ASSERT_TRUE(sdk::OwnedError(a->vtbl->workspace_size(a, TEPLUG_OP_ATTENTION_FORWARD, wide_only.args(), &bytes)).ok());
  EXPECT_EQ(bytes, 4096u) << "wide's workspace: decided for these args, not the prepared ones";
  char reason[64] = {0};
  EXPECT_EQ(a->vtbl->supports(reinterpret_cast<TeplugObject*>(a), TEPLUG_OP_ATTENTION_FORWARD, wide_only.args(),
                              reason, sizeof reason),
            1);
  // Its other op (backward) is decided per call: nothing serves this one.
  TeplugAttentionBwdArgs bwd = sdk::Versioned<TeplugAttentionBwdArgs>();
  bwd.params = prepared_with.args()->params;
  sdk::OwnedError e(a->vtbl->backward(a, &bwd));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT) << e.message();
  EXPECT_NE(std::string(e.message()).find("TeplugAttentionBwdArgs.q"), std::string::npos) << e.message();
}

TEST(KernelPreparedTest, RefusesWhatCannotBePreparedWithTheReason) {
  LogCapture log;
  auto k = MakeKernel(FastAndWide(), &log);
  ASSERT_TRUE(k);
  GemmCall g;
  const TeplugIID unknown{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  auto r = k->PrepareObject(unknown, TEPLUG_OP_GEMM, g.args());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "unknown interface id");

  r = k->PrepareObject(sdk::kIidGemmV1, 77, g.args());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "op 77 is not an op of IGemm/1");

  r = k->PrepareObject(sdk::kIidGemmV1, TEPLUG_OP_GEMM, nullptr);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("TeplugGemmArgs"), std::string::npos) << r.status();

  AttentionForwardCall too_wide(512);  // above every fake's head_dim limit
  r = k->PrepareObject(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, too_wide.args());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("teplug: no provider can serve attention forward"), std::string::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("head_dim"), std::string::npos) << "the record says why: " << r.status();

  // Opening a device is decided once per context, not per call.
  TeplugDevice host = sdk::Versioned<TeplugDevice>();
  host.kind = TEPLUG_DEVICE_CPU;
  TeplugDeviceOpenArgs open = sdk::Versioned<TeplugDeviceOpenArgs>();
  open.device = &host;
  r = k->PrepareObject(sdk::kIidDeviceV1, TEPLUG_DEVICE_OP_OPEN, &open);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("IDevice/1 open cannot be prepared: it is not decided per call"),
            std::string::npos)
      << r.status();
}

TEST(KernelPreparedTest, CheckedCallsWithOtherFactsAreRefusedNamingBoth) {
  for (bool from_env : {false, true}) {
    SCOPED_TRACE(from_env ? "TEPLUG_CHECK_PREPARED=1" : "check_prepared_calls");
    KernelOptions o = FastAndWide();
    if (from_env) {
      o.use_environment = true;
      o.env = [](const char* name) -> std::optional<std::string> {
        if (std::string(name) == "TEPLUG_CHECK_PREPARED") return "1";
        return std::nullopt;
      };
    } else {
      o.check_prepared_calls = true;
    }
    PreparedGemm p(std::move(o));
    ASSERT_TRUE(p.gemm);
    TeplugGemmV1* gemm = p.gemm.get();
    GemmCall& prepared_with = p.prepared_with;
    // Another alpha (per call) and other values in the same buffers: the
    // same facts. (New buffers could differ in their alignment class, a fact.)
    prepared_with.mutable_args()->alpha = 13.f;
    EXPECT_TRUE(Call(gemm, prepared_with).ok());
    EXPECT_EQ(prepared_with.OutputMarker(), kWide) << "served, with fallback";

    GemmCall bigger(1.f, 8);
    bigger.ClearOutput();
    sdk::OwnedError e = Call(gemm, bigger);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(e.message()),
              "teplug: a dispatching object prepared for gemm gemm fp32[4,4] x fp32[4,4] -> fp32[4,4] M=4 N=4 K=4 "
              "on cpu:0 was called with gemm gemm fp32[8,4] x fp32[4,4] -> fp32[8,4] M=8 N=4 K=4 on cpu:0; a "
              "prepared object serves only calls with the facts it was prepared for (use the dispatching object, "
              "or prepare one per signature)");
    EXPECT_EQ(bigger.OutputMarker(), testing::kUnstamped) << "not called";

    // A difference the summary does not show: an explicitly strided A.
    GemmCall strided;
    TeplugTensor a = *strided.args()->a;
    a.strides[0] = 4;
    a.strides[1] = 1;
    strided.mutable_args()->a = &a;
    sdk::OwnedError s = Call(gemm, strided);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(std::string(s.message()).find("they differ in a keyed fact the summary does not show"),
              std::string::npos)
        << s.message();

    sdk::OwnedError m(gemm->vtbl->gemm(gemm, nullptr));
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.code(), TEPLUG_INVALID_ARGUMENT);
    EXPECT_NE(std::string(m.message()).find("was called with malformed args: "), std::string::npos) << m.message();
  }
}

TEST(KernelPreparedTest, AnUnreadableCheckSettingIsAWarning) {
  KernelOptions o = FastAndWide();
  o.use_environment = true;
  o.env = [](const char* name) -> std::optional<std::string> {
    if (std::string(name) == "TEPLUG_CHECK_PREPARED") return "yes";
    return std::nullopt;
  };
  PreparedGemm p(std::move(o));
  ASSERT_TRUE(p.gemm);
  EXPECT_EQ(p.log.Count("TEPLUG_CHECK_PREPARED=yes is neither 1 nor 0; prepared calls are checked as the options say"),
            1)
      << p.log.All();
  GemmCall bigger(1.f, 8);
  EXPECT_TRUE(Call(p.gemm.get(), bigger).ok()) << "unchecked: the prepared choice serves it";
}

}  // namespace
}  // namespace teplug::core
