// Plugins that load cleanly and then misbehave when called (call_time_plugin.cc),
// ranked first, with the "wide" fake provider behind them: through the
// kernel's dispatching objects (keyed per call, and prepared for the call)
// every call returns either success from the
// fallback or a host-made error the caller can read and destroy, strict mode
// returns the error, and the process survives.
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "gtest/gtest.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

using testing::FakePlugin;
using testing::GemmCall;
using testing::IsolatedOptions;
using testing::kWide;
using testing::LogCapture;
using testing::Runfile;

std::string CallTimePlugin(const std::string& c) { return Runfile("tests/hostile/libteplug_call_" + c + ".so"); }

std::unique_ptr<Kernel> MakeKernel(std::vector<std::string> plugins, LogCapture* log, bool strict = false) {
  KernelOptions o = IsolatedOptions(std::move(plugins), strict ? "log_level: \"warn\"\nstrict: true\n" : "");
  o.log_sink = log->sink();
  auto k = Kernel::Create(std::move(o));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

// What an error said; the error is destroyed here with its own destroy,
// which must exist (the host made it).
struct Said {
  bool error = false;
  int32_t code = TEPLUG_OK;
  std::string message;
};
Said Consume(TeplugError* e) {
  Said s;
  if (e == nullptr) return s;
  s.error = true;
  EXPECT_EQ(e->struct_size, sizeof(TeplugError));
  EXPECT_NE(e->message, nullptr);
  EXPECT_NE(e->destroy, nullptr) << "an error handed to the caller must be destroyable";
  s.code = e->code;
  if (e->message != nullptr) s.message = e->message;
  if (e->destroy != nullptr) e->destroy(e);
  return s;
}

// The two dispatching objects a call can go through: the one QueryInterface
// returns (keyed per call) and one prepared for the call (Kernel::Prepare),
// whose calls skip the key and must keep the same boundary.
enum class Path { kDispatched, kPrepared };

Said CallGemm(const Kernel& k, GemmCall& c, Path path = Path::kDispatched) {
  if (path == Path::kPrepared) {
    absl::StatusOr<sdk::Ref<TeplugGemmV1>> gemm = k.Prepare<TeplugGemmV1>(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args());
    EXPECT_TRUE(gemm.ok()) << gemm.status();
    if (!gemm.ok()) return Said{true, TEPLUG_INTERNAL, std::string(gemm.status().message())};
    return Consume((*gemm)->vtbl->gemm(gemm->get(), c.args()));
  }
  auto gemm = k.Query<TeplugGemmV1>(sdk::kIidGemmV1);
  EXPECT_TRUE(gemm);
  return Consume(gemm->vtbl->gemm(gemm.get(), c.args()));
}

// Tests of GEMM calls, run through both paths.
class CallTimeGemmTest : public ::testing::TestWithParam<Path> {};
INSTANTIATE_TEST_SUITE_P(Paths, CallTimeGemmTest, ::testing::Values(Path::kDispatched, Path::kPrepared),
                         [](const ::testing::TestParamInfo<Path>& i) {
                           return i.param == Path::kPrepared ? "Prepared" : "Dispatched";
                         });

// The first line of a message (the rest is the decision record).
std::string FirstLine(const std::string& m) { return m.substr(0, m.find('\n')); }

// Each case's broken call, and what the host says about it.
struct Case {
  const char* name;
  int32_t code;          // of the error strict mode returns
  const char* expected;  // in that error's first line
};
const Case kFallbackCases[] = {
    {"null_destroy", TEPLUG_UNSUPPORTED,
     "call_null_destroy/gemm returned unsupported from gemm: cannot, and no destroy [the plugin's error object had "
     "no destroy function and was abandoned]"},
    {"null_message", TEPLUG_UNSUPPORTED,
     "call_null_message/gemm returned unsupported from gemm: (no message: the error's message was NULL)"},
    {"control_message", TEPLUG_UNSUPPORTED,
     "call_control_message/gemm returned unsupported from gemm: no\\x0aWARN teplug: plugin other "
     "refused\\x1b[2J\\xff"},
    {"throw_gemm", TEPLUG_INTERNAL, "C++ exception escaped call_throw_gemm/gemm gemm: gemm exploded"},
    {"throw_non_std", TEPLUG_INTERNAL, "C++ exception escaped call_throw_non_std/gemm gemm: (not a std::exception)"},
};

TEST_P(CallTimeGemmTest, MalformedErrorsAndExceptionsFallBackWithOneWarning) {
  for (const Case& c : kFallbackCases) {
    SCOPED_TRACE(c.name);
    LogCapture log;
    auto k = MakeKernel({CallTimePlugin(c.name), FakePlugin("wide")}, &log);
    ASSERT_TRUE(k);
    for (int i = 0; i < 3; ++i) {
      GemmCall g;
      Said s = CallGemm(*k, g, GetParam());
      EXPECT_FALSE(s.error) << s.message;
      EXPECT_EQ(g.OutputMarker(), kWide) << "served by the fallback";
    }
    EXPECT_EQ(log.Count(std::string(c.expected) + " (serving "), 1) << log.All();
    EXPECT_EQ(log.Count("falling back to wide/gemm"), 1) << log.All();
    // No plugin text starts a line of its own.
    EXPECT_EQ(log.Count("\n"), 0) << log.All();
  }
}

TEST_P(CallTimeGemmTest, StrictModeReturnsAHostMadeError) {
  for (const Case& c : kFallbackCases) {
    SCOPED_TRACE(c.name);
    LogCapture log;
    auto k = MakeKernel({CallTimePlugin(c.name), FakePlugin("wide")}, &log, /*strict=*/true);
    ASSERT_TRUE(k);
    GemmCall g;
    Said s = CallGemm(*k, g, GetParam());
    ASSERT_TRUE(s.error);
    EXPECT_EQ(s.code, c.code);
    EXPECT_EQ(FirstLine(s.message), c.expected);
    EXPECT_NE(s.message.find("strict mode"), std::string::npos) << s.message;
    EXPECT_NE(g.OutputMarker(), kWide) << "no fallback in strict mode";
  }
}

TEST_P(CallTimeGemmTest, WithoutAFallbackTheCallerGetsTheHostMadeError) {
  for (const Case& c : kFallbackCases) {
    SCOPED_TRACE(c.name);
    LogCapture log;
    auto k = MakeKernel({CallTimePlugin(c.name)}, &log);
    ASSERT_TRUE(k);
    GemmCall g;
    Said s = CallGemm(*k, g, GetParam());
    ASSERT_TRUE(s.error);
    EXPECT_EQ(s.code, c.code);
    EXPECT_EQ(FirstLine(s.message), c.expected);
    EXPECT_NE(s.message.find("no further candidate"), std::string::npos) << s.message;
  }
}

// An implementation that let an exception escape is skipped for that
// signature from then on: the next call does not reach it (it would throw
// again and the error would be its exception), with or without strict mode.
TEST_P(CallTimeGemmTest, AnImplementationThatThrewIsSkippedForTheSignature) {
  for (bool strict : {false, true}) {
    SCOPED_TRACE(strict ? "strict" : "not strict");
    LogCapture log;
    auto k = MakeKernel({CallTimePlugin("throw_gemm")}, &log, strict);
    ASSERT_TRUE(k);
    // One set of buffers for every call: the signature keys the buffers'
    // alignment, so this is one signature for sure.
    GemmCall g;
    Said s = CallGemm(*k, g, GetParam());
    ASSERT_TRUE(s.error);
    EXPECT_EQ(FirstLine(s.message), "C++ exception escaped call_throw_gemm/gemm gemm: gemm exploded");
    EXPECT_NE(s.message.find("call_throw_gemm/gemm is skipped for this signature from now on"), std::string::npos)
        << s.message;
    for (int i = 0; i < 2; ++i) {
      Said later = CallGemm(*k, g, GetParam());
      ASSERT_TRUE(later.error);
      EXPECT_EQ(later.code, TEPLUG_INTERNAL);
      EXPECT_EQ(later.message.find("gemm exploded"), std::string::npos) << "called again: " << later.message;
      EXPECT_NE(later.message.find("call_throw_gemm/gemm let a C++ exception escape an earlier call of this "
                                   "signature and is skipped for it"),
                std::string::npos)
          << later.message;
      EXPECT_NE(later.message.find(strict ? "strict mode" : "no other candidate is left"), std::string::npos)
          << later.message;
    }
    // Another signature is decided (and called) afresh.
    GemmCall other(/*alpha=*/1.f, /*m=*/5);
    EXPECT_EQ(FirstLine(CallGemm(*k, other, GetParam()).message),
              "C++ exception escaped call_throw_gemm/gemm gemm: gemm exploded");
  }
}

// In strict mode the first choice serves or nothing does, even when a
// fallback exists and the first choice is skipped as broken.
TEST_P(CallTimeGemmTest, StrictModeDoesNotFallBackPastASkippedImplementation) {
  LogCapture log;
  auto k = MakeKernel({CallTimePlugin("throw_gemm"), FakePlugin("wide")}, &log, /*strict=*/true);
  ASSERT_TRUE(k);
  GemmCall g;  // one set of buffers: one signature
  ASSERT_TRUE(CallGemm(*k, g, GetParam()).error);
  g.ClearOutput();
  Said later = CallGemm(*k, g, GetParam());
  ASSERT_TRUE(later.error);
  EXPECT_NE(later.message.find("is skipped for it"), std::string::npos) << later.message;
  EXPECT_NE(g.OutputMarker(), kWide) << "no fallback in strict mode";
}

// release is plugin code too: an exception escaping it (the host releases
// while loading and when the kernel goes) is one ERROR line on stderr, and
// the process goes on.
TEST(CallTimeBoundaryTest, ThrowingReleaseIsReportedNotFatal) {
  ::testing::internal::CaptureStderr();
  {
    LogCapture log;
    auto k = MakeKernel({CallTimePlugin("throw_release")}, &log);
    ASSERT_TRUE(k);
    GemmCall g;
    EXPECT_FALSE(CallGemm(*k, g).error);
  }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("teplug ERROR: C++ exception escaped implementation \"gemm\" (IGemm/1) release: release "
                     "exploded; the reference is counted as released\n"),
            std::string::npos)
      << err;
}

// A returned code the host does not know reads as INTERNAL, which (like any
// returned error other than UNSUPPORTED/UNAVAILABLE) is the op's answer: no
// fallback.
TEST_P(CallTimeGemmTest, UnknownCodeIsInternalNamingTheNumber) {
  LogCapture log;
  auto k = MakeKernel({CallTimePlugin("bad_code"), FakePlugin("wide")}, &log);
  ASSERT_TRUE(k);
  GemmCall g;
  Said s = CallGemm(*k, g, GetParam());
  ASSERT_TRUE(s.error);
  EXPECT_EQ(s.code, TEPLUG_INTERNAL);
  EXPECT_EQ(s.message,
            "call_bad_code/gemm returned unknown code 77 (treated as internal) from gemm: code from the future");
  EXPECT_NE(g.OutputMarker(), kWide);
}

// A supports() that throws is a refusal with the exception as its reason.
TEST_P(CallTimeGemmTest, ThrowingSupportsIsARefusalWithItsReason) {
  for (bool strict : {false, true}) {
    LogCapture log;
    auto k = MakeKernel({CallTimePlugin("throw_supports"), FakePlugin("wide")}, &log, strict);
    ASSERT_TRUE(k);
    GemmCall g;
    Said s = CallGemm(*k, g, GetParam());
    EXPECT_FALSE(s.error) << s.message;
    EXPECT_EQ(g.OutputMarker(), kWide);
    absl::StatusOr<DecisionRecord> r = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, g.args());
    ASSERT_TRUE(r.ok()) << r.status();
    const CandidateVerdict* refused = nullptr;
    for (const CandidateVerdict& v : r->candidates) {
      if (v.implementation() == "call_throw_supports/gemm") refused = &v;
    }
    ASSERT_NE(refused, nullptr) << r->Format();
    EXPECT_EQ(refused->verdict, Verdict::kRejected);
    EXPECT_EQ(refused->stage, Stage::kSupports);
    EXPECT_EQ(r->Reason(*refused), "C++ exception escaped call_throw_supports/gemm supports: supports exploded");
    EXPECT_EQ(log.Count("C++ exception escaped call_throw_supports/gemm supports: supports exploded (asked about"), 1)
        << log.All();

    // The dispatcher's own supports() answers through the same decision.
    auto gemm = k->Query<TeplugGemmV1>(sdk::kIidGemmV1);
    char reason[256] = {0};
    EXPECT_EQ(gemm->vtbl->supports(reinterpret_cast<TeplugObject*>(gemm.get()), TEPLUG_OP_GEMM, g.args(), reason,
                                   sizeof reason),
              1);
  }
}

TEST(CallTimeBoundaryTest, ThrowingWorkspaceSizeIsSkippedUnlessStrict) {
  {
    LogCapture log;
    auto k = MakeKernel({CallTimePlugin("throw_workspace"), FakePlugin("wide")}, &log);
    ASSERT_TRUE(k);
    auto gemm = k->Query<TeplugGemmV1>(sdk::kIidGemmV1);
    GemmCall g;
    size_t bytes = 1;
    Said s = Consume(gemm->vtbl->workspace_size(gemm.get(), g.args(), &bytes));
    EXPECT_FALSE(s.error) << s.message;
    EXPECT_EQ(bytes, 0u) << "wide's gemm workspace (none); the throwing candidate is not counted";
    EXPECT_EQ(log.Count("C++ exception escaped call_throw_workspace/gemm workspace_size: workspace_size exploded"), 1)
        << log.All();
  }
  for (bool strict : {true, false}) {
    LogCapture log;
    auto k = strict ? MakeKernel({CallTimePlugin("throw_workspace"), FakePlugin("wide")}, &log, true)
                    : MakeKernel({CallTimePlugin("throw_workspace")}, &log);
    ASSERT_TRUE(k);
    auto gemm = k->Query<TeplugGemmV1>(sdk::kIidGemmV1);
    GemmCall g;
    size_t bytes = 0;
    Said s = Consume(gemm->vtbl->workspace_size(gemm.get(), g.args(), &bytes));
    ASSERT_TRUE(s.error) << (strict ? "strict" : "alone");
    EXPECT_EQ(s.code, TEPLUG_INTERNAL);
    EXPECT_EQ(s.message, "C++ exception escaped call_throw_workspace/gemm workspace_size: workspace_size exploded");
  }
}

// A plugin that kept its entry's `host` and logs through it at call time
// reaches the host's logger with the path it was given, not the loader's
// dead stack frame.
TEST_P(CallTimeGemmTest, AKeptHostApiStaysSafeToUse) {
  LogCapture log;
  const std::string plugin = CallTimePlugin("kept_host");
  auto k = MakeKernel({plugin}, &log);
  ASSERT_TRUE(k);
  GemmCall c;
  EXPECT_FALSE(CallGemm(*k, c, GetParam()).error);
  char resolved[PATH_MAX];
  ASSERT_NE(realpath(plugin.c_str(), resolved), nullptr);
  EXPECT_EQ(log.Count(std::string("WARN: plugin call_kept_host: ") + resolved), 1) << log.All();
}

// Collectives never fall back (the communicator binds one implementation),
// so every misbehaving call comes back as a host-made error.
TEST(CallTimeBoundaryTest, CollectiveCallsReturnHostMadeErrors) {
  LogCapture log;
  auto k = MakeKernel({CallTimePlugin("comm_create_throws")}, &log);
  ASSERT_TRUE(k);
  auto coll = k->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  ASSERT_TRUE(coll);
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.rank = 0;
  create.world_size = 1;
  TeplugCommunicator* comm = nullptr;
  Said s = Consume(coll->vtbl->comm_create(coll.get(), &create, &comm));
  EXPECT_EQ(s.code, TEPLUG_INTERNAL);
  EXPECT_EQ(s.message, "C++ exception escaped call_comm_create_throws/collective comm_create: comm_create exploded");
  EXPECT_EQ(comm, nullptr);

  // Success without a communicator is not one: the caller gets an error, not
  // a handle wrapping NULL.
  k = MakeKernel({CallTimePlugin("comm_create_null")}, &log);
  ASSERT_TRUE(k);
  coll = k->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  ASSERT_TRUE(coll);
  s = Consume(coll->vtbl->comm_create(coll.get(), &create, &comm));
  EXPECT_EQ(s.code, TEPLUG_INTERNAL);
  EXPECT_EQ(s.message,
            "call_comm_create_null/collective returned success from comm_create but wrote no communicator "
            "(*out is NULL)");
  EXPECT_EQ(comm, nullptr);

  k = MakeKernel({CallTimePlugin("collective")}, &log);
  ASSERT_TRUE(k);
  coll = k->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
  ASSERT_TRUE(coll);
  ASSERT_FALSE(Consume(coll->vtbl->comm_create(coll.get(), &create, &comm)).error);
  ASSERT_NE(comm, nullptr);

  std::vector<float> data(4, 1.f);
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = data.data();
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = 1;
  t.shape[0] = 4;
  TeplugCollectiveArgs args = sdk::Versioned<TeplugCollectiveArgs>();
  args.comm = comm;
  args.send = &t;
  args.recv = &t;
  args.reduce_op = TEPLUG_REDUCE_SUM;
  s = Consume(coll->vtbl->run(coll.get(), TEPLUG_OP_ALL_REDUCE, &args));
  EXPECT_EQ(s.code, TEPLUG_INTERNAL);
  EXPECT_EQ(s.message, "C++ exception escaped call_collective/collective run: run exploded");

  s = Consume(coll->vtbl->group_start(coll.get(), comm));
  EXPECT_EQ(s.code, TEPLUG_UNAVAILABLE);
  EXPECT_EQ(s.message,
            "call_collective/collective returned unavailable from group_start: (no message: the error's message was "
            "NULL) [the plugin's error object had no destroy function and was abandoned]");

  s = Consume(coll->vtbl->group_end(coll.get(), comm));
  EXPECT_EQ(s.code, TEPLUG_INTERNAL);
  EXPECT_EQ(s.message,
            "call_collective/collective returned unknown code 77 (treated as internal) from group_end: group\\x0aend");

  s = Consume(coll->vtbl->comm_destroy(coll.get(), comm));
  EXPECT_EQ(s.code, TEPLUG_INTERNAL);
  EXPECT_EQ(s.message, "C++ exception escaped call_collective/collective comm_destroy: comm_destroy exploded");
}

}  // namespace
}  // namespace teplug::core
