// The C++ SDK's guarantees: exceptions become error statuses carrying their
// message (never crossing the C boundary, never dropped), errors are destroyed
// exactly once, references count correctly, a `supports` refusal always
// carries a reason, and RegisterIfServed skips only an interface the host does
// not serve.
#include <atomic>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "interfaces/tests/test_host.hpp"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/plugin.hpp"
#include "teplug/sdk/ref.hpp"

namespace {

using teplug::sdk::Guard;
using teplug::sdk::OwnedError;

TEST(SdkGuardTest, EachExceptionKindBecomesTheRightCodeWithItsMessage) {
  OwnedError e(Guard([] { throw teplug::sdk::Unsupported("no fp4 here"); }));
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_EQ(e.message(), "no fp4 here");
  e = OwnedError(Guard([] { throw std::bad_alloc(); }));
  EXPECT_EQ(e.code(), TEPLUG_OUT_OF_MEMORY);
  e = OwnedError(Guard([] { throw std::invalid_argument("k must be > 0"); }));
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(e.message(), "k must be > 0");
  e = OwnedError(Guard([] { throw std::runtime_error("cublas said 13"); }));
  EXPECT_EQ(e.code(), TEPLUG_INTERNAL);
  EXPECT_EQ(e.message(), "cublas said 13");
  e = OwnedError(Guard([] { throw 42; }));
  EXPECT_EQ(e.code(), TEPLUG_INTERNAL);
  EXPECT_NE(e.message().find("non-standard"), std::string::npos);
  e = OwnedError(Guard([] {}));
  EXPECT_TRUE(e.ok());
}

std::atomic<int> g_destroyed{0};
void CountingDestroy(TeplugError* e) {
  ++g_destroyed;
  delete e;
}

TEST(SdkOwnedErrorTest, DestroysExactlyOnceAndReleaseHandsOwnershipOver) {
  g_destroyed = 0;
  {
    OwnedError a(new TeplugError{sizeof(TeplugError), 99, 0, "from a newer peer", &CountingDestroy});
    EXPECT_EQ(a.code(), TEPLUG_INTERNAL) << "unknown codes read as internal";
    OwnedError b(std::move(a));
    EXPECT_TRUE(a.ok());
    EXPECT_EQ(b.message(), "from a newer peer");
  }
  EXPECT_EQ(g_destroyed.load(), 1);
  OwnedError c(new TeplugError{sizeof(TeplugError), TEPLUG_UNAVAILABLE, 0, "x", &CountingDestroy});
  TeplugError* raw = c.release();
  EXPECT_EQ(g_destroyed.load(), 1);
  raw->destroy(raw);
  EXPECT_EQ(g_destroyed.load(), 2);
  OwnedError d(new TeplugError{sizeof(TeplugError), TEPLUG_UNAVAILABLE, 0, "gone", &CountingDestroy});
  try {
    d.ThrowIfError();
    ADD_FAILURE() << "ThrowIfError must throw";
  } catch (const teplug::sdk::Exception& ex) {
    EXPECT_EQ(ex.code(), TEPLUG_UNAVAILABLE);
    EXPECT_STREQ(ex.what(), "gone");
  }
  EXPECT_EQ(g_destroyed.load(), 3);
}

class Tracked : public teplug::sdk::GemmImpl {
 public:
  explicit Tracked(bool* alive) : alive_(alive) { *alive_ = true; }
  ~Tracked() override { *alive_ = false; }
  bool Supports(const TeplugGemmArgs& args, std::string* reason) override {
    if (args.alpha < 0) throw std::runtime_error("negative alpha confuses me");
    if (args.alpha == 0) return false;  // forgets to give a reason
    if (args.alpha > 100) {
      *reason = std::string(300, 'r');
      return false;
    }
    return true;
  }
  void Gemm(const TeplugGemmArgs&) override { throw teplug::sdk::Unavailable("device lost"); }

 private:
  bool* alive_;
};

TEST(SdkObjectTest, ReferenceCountingFreesAtZero) {
  bool alive = false;
  TeplugGemmV1* raw = teplug::sdk::MakeGemm(std::make_unique<Tracked>(&alive));
  ASSERT_TRUE(alive);
  {
    auto ref = teplug::sdk::Ref<TeplugGemmV1>::Adopt(raw);
    auto copy = ref;
    auto as_object = ref.Query<TeplugObject>(teplug::sdk::kIidObject);
    EXPECT_TRUE(as_object);
    EXPECT_FALSE(ref.Query<TeplugQuantizerV1>(teplug::sdk::kIidQuantizerV1));
    EXPECT_TRUE(alive);
  }
  EXPECT_FALSE(alive) << "last reference released: implementation destroyed";
}

TEST(SdkObjectTest, MethodExceptionsAndSupportsRefusalsCrossAsStatusAndReason) {
  bool alive = false;
  auto gemm = teplug::sdk::Ref<TeplugGemmV1>::Adopt(
      teplug::sdk::MakeGemm(std::make_unique<Tracked>(&alive)));
  TeplugGemmArgs args = teplug::sdk::Versioned<TeplugGemmArgs>();
  args.alpha = 1;
  OwnedError e(gemm->vtbl->gemm(gemm.get(), &args));
  EXPECT_EQ(e.code(), TEPLUG_UNAVAILABLE);
  EXPECT_EQ(e.message(), "device lost");

  auto* self = reinterpret_cast<TeplugObject*>(gemm.get());
  char reason[64];
  EXPECT_EQ(gemm->vtbl->supports(self, TEPLUG_OP_GEMM, &args, reason, sizeof reason), 1);
  args.alpha = 0;
  EXPECT_EQ(gemm->vtbl->supports(self, TEPLUG_OP_GEMM, &args, reason, sizeof reason), 0);
  EXPECT_NE(std::string(reason).find("no reason given"), std::string::npos) << reason;
  args.alpha = -1;
  EXPECT_EQ(gemm->vtbl->supports(self, TEPLUG_OP_GEMM, &args, reason, sizeof reason), 0);
  EXPECT_NE(std::string(reason).find("negative alpha"), std::string::npos) << reason;
  args.alpha = 1000;
  EXPECT_EQ(gemm->vtbl->supports(self, TEPLUG_OP_GEMM, &args, reason, sizeof reason), 0);
  EXPECT_EQ(std::string(reason).size(), sizeof reason - 1) << "truncated, NUL-terminated";
  EXPECT_EQ(gemm->vtbl->supports(self, TEPLUG_OP_QUANTIZE, &args, reason, sizeof reason), 0);
}

// A plugin offering IGemm/2 (unknown to a v1 host) beside IGemm/1.
constexpr TeplugIID kIidGemmV2 = {0x7465706c75670001ull, 0x67656d6d00000002ull};
const TeplugGemmCaps kAnyCaps = teplug::sdk::Versioned<TeplugGemmCaps>();
bool g_v2_alive = false, g_v1_alive = false;
bool g_v2_served = true;

template <void (*RegisterFn)(teplug::sdk::Registrar&)>
TeplugError* EntryOf(const TeplugHostApi* host, TeplugPluginInfo* info) {
  return teplug::sdk::RunPluginEntry(host, info, "sdk_test", "teplug tests", "1.0.0",
                                     TEPLUG_ABI_VERSION_CURRENT, TEPLUG_ABI_VERSION_CURRENT,
                                     RegisterFn);
}

void RegisterV2IfServedThenV1(teplug::sdk::Registrar& r) {
  g_v2_served = r.RegisterIfServed(
      kIidGemmV2, teplug::sdk::MakeGemm(std::make_unique<Tracked>(&g_v2_alive)), &kAnyCaps,
      "gemm-v2", 10);
  EXPECT_TRUE(r.RegisterIfServed(teplug::sdk::kIidGemmV1,
                                 teplug::sdk::MakeGemm(std::make_unique<Tracked>(&g_v1_alive)),
                                 &kAnyCaps, "gemm-v1", 10));
}
void RegisterV2(teplug::sdk::Registrar& r) {
  r.Register(kIidGemmV2, teplug::sdk::MakeGemm(std::make_unique<Tracked>(&g_v2_alive)),
             &kAnyCaps, "gemm-v2", 10);
}
void RegisterV1IfServedWithoutCaps(teplug::sdk::Registrar& r) {
  r.RegisterIfServed(teplug::sdk::kIidGemmV1,
                     teplug::sdk::MakeGemm(std::make_unique<Tracked>(&g_v1_alive)), nullptr,
                     "gemm-v1", 10);
}

TEST(SdkRegistrarTest, RegisterIfServedSkipsAnInterfaceTheHostDoesNotServe) {
  teplug::testing::TestHost host;
  OwnedError e = host.Run(&EntryOf<&RegisterV2IfServedThenV1>);
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_FALSE(g_v2_served);
  EXPECT_FALSE(g_v2_alive) << "the skipped object's reference was released";
  ASSERT_EQ(host.recorded.size(), 1u);
  EXPECT_EQ(host.recorded[0].name, "gemm-v1");
  EXPECT_TRUE(g_v1_alive) << "the host holds the registered object";
}

TEST(SdkRegistrarTest, RegisterStillThrowsTheUnsupportedInterface) {
  teplug::testing::TestHost host;
  OwnedError e = host.Run(&EntryOf<&RegisterV2>);
  EXPECT_EQ(e.code(), TEPLUG_UNSUPPORTED);
  EXPECT_NE(e.message().find("unknown interface id"), std::string::npos) << e.message();
  EXPECT_TRUE(host.recorded.empty());
  EXPECT_FALSE(g_v2_alive);
}

TEST(SdkRegistrarTest, RegisterIfServedThrowsEveryOtherRefusal) {
  teplug::testing::TestHost host;
  OwnedError e = host.Run(&EntryOf<&RegisterV1IfServedWithoutCaps>);
  EXPECT_EQ(e.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(e.message().find("capability"), std::string::npos) << e.message();
  EXPECT_TRUE(host.recorded.empty());
  EXPECT_FALSE(g_v1_alive);
}

// An INorm implementation recording which method the table routed to.
class RecordingNorm : public teplug::sdk::NormImpl {
 public:
  explicit RecordingNorm(std::string* calls) : calls_(calls) {}
  bool SupportsBackward(const TeplugNormBwdArgs& args, std::string* reason) override {
    if (args.norm_type == TEPLUG_NORM_RMSNORM) return true;
    *reason = "backward here is RMSNorm only";
    return false;
  }
  size_t ForwardWorkspaceSize(const TeplugNormFwdArgs& args) override {
    return static_cast<size_t>(args.norm_type) + 16;
  }
  void Forward(const TeplugNormFwdArgs& args) override {
    *calls_ += "forward(eps=" + std::to_string(args.epsilon) + ")";
  }
  void Backward(const TeplugNormBwdArgs& args) override {
    *calls_ += "backward(type=" + std::to_string(args.norm_type) + ")";
  }

 private:
  std::string* calls_;
};

TEST(SdkNormTest, TableRoutesTheInterfaceLocalOpsAndChecksStructSize) {
  std::string calls;
  auto norm = teplug::sdk::Ref<TeplugNormV1>::Adopt(
      teplug::sdk::MakeNorm(std::make_unique<RecordingNorm>(&calls)));
  EXPECT_TRUE(norm.Query<TeplugNormV1>(teplug::sdk::kIidNormV1));
  EXPECT_FALSE(norm.Query<TeplugNormV1>(teplug::sdk::kIidAttentionV1));
  TeplugNormFwdArgs fwd = teplug::sdk::Versioned<TeplugNormFwdArgs>();
  fwd.norm_type = TEPLUG_NORM_RMSNORM;
  fwd.epsilon = 0.5f;
  TeplugNormBwdArgs bwd = teplug::sdk::Versioned<TeplugNormBwdArgs>();
  bwd.norm_type = TEPLUG_NORM_LAYERNORM;

  EXPECT_EQ(OwnedError(norm->vtbl->forward(norm.get(), &fwd)).code(), TEPLUG_OK);
  EXPECT_EQ(OwnedError(norm->vtbl->backward(norm.get(), &bwd)).code(), TEPLUG_OK);
  EXPECT_EQ(calls, "forward(eps=0.500000)backward(type=0)");

  size_t bytes = 0;
  EXPECT_EQ(OwnedError(norm->vtbl->workspace_size(norm.get(), TEPLUG_NORM_OP_FORWARD, &fwd,
                                                  &bytes)).code(), TEPLUG_OK);
  EXPECT_EQ(bytes, 17u);
  OwnedError wrong_op(norm->vtbl->workspace_size(norm.get(), TEPLUG_OP_GEMM + 2, &fwd, &bytes));
  EXPECT_EQ(wrong_op.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(wrong_op.message().find("is not an op of INorm"), std::string::npos)
      << wrong_op.message();

  auto* self = reinterpret_cast<TeplugObject*>(norm.get());
  char reason[128];
  EXPECT_EQ(norm->vtbl->supports(self, TEPLUG_NORM_OP_FORWARD, &fwd, reason, sizeof reason), 1);
  EXPECT_EQ(norm->vtbl->supports(self, TEPLUG_NORM_OP_BACKWARD, &bwd, reason, sizeof reason), 0);
  EXPECT_STREQ(reason, "backward here is RMSNorm only");
  EXPECT_EQ(norm->vtbl->supports(self, 7, &fwd, reason, sizeof reason), 0);
  EXPECT_NE(std::string(reason).find("INorm serves only"), std::string::npos) << reason;

  fwd.struct_size = TEPLUG_STRUCT_SIZE(TeplugNormFwdArgs, rsigma);  // an older, shorter struct
  OwnedError short_args(norm->vtbl->forward(norm.get(), &fwd));
  EXPECT_EQ(short_args.code(), TEPLUG_ABI_MISMATCH);
  EXPECT_NE(short_args.message().find("TeplugNormFwdArgs.struct_size"), std::string::npos)
      << short_args.message();
}

// What SupportsForward was given: the struct's address, its struct_size and
// one field.
class SeeingAttention : public teplug::sdk::AttentionImpl {
 public:
  bool SupportsForward(const TeplugAttentionFwdArgs& args, std::string*) override {
    seen = &args;
    seen_size = args.struct_size;
    seen_workspace_size = args.workspace_size;
    return true;
  }
  void Forward(const TeplugAttentionFwdArgs&) override {}
  void Backward(const TeplugAttentionBwdArgs&) override {}

  const TeplugAttentionFwdArgs* seen = nullptr;
  size_t seen_size = 0;
  size_t seen_workspace_size = 0;
};

TEST(SdkAttentionTest, SupportsReadsAnExactStructInPlaceAndCopiesOthers) {
  auto* impl = new SeeingAttention;
  auto attention = teplug::sdk::Ref<TeplugAttentionV1>::Adopt(
      teplug::sdk::MakeAttention(std::unique_ptr<teplug::sdk::AttentionImpl>(impl)));
  auto* self = reinterpret_cast<TeplugObject*>(attention.get());
  char reason[128];
  // A newer caller's struct: longer than this SDK's, trailing bytes unknown to it.
  struct Newer {
    TeplugAttentionFwdArgs v1;
    uint64_t appended;
  } newer{};
  TeplugAttentionFwdArgs& args = newer.v1;
  args = teplug::sdk::Versioned<TeplugAttentionFwdArgs>();
  args.workspace_size = 4096;
  auto ask = [&] {
    return attention->vtbl->supports(self, TEPLUG_OP_ATTENTION_FORWARD, &args, reason,
                                     sizeof reason);
  };

  ASSERT_EQ(ask(), 1);
  EXPECT_EQ(impl->seen, &args) << "a struct of this SDK's size is read where it is";
  EXPECT_EQ(impl->seen_size, sizeof(TeplugAttentionFwdArgs));
  EXPECT_EQ(impl->seen_workspace_size, 4096u);

  args.struct_size = sizeof newer;
  ASSERT_EQ(ask(), 1);
  EXPECT_NE(impl->seen, &args) << "a longer struct is read from a copy";
  EXPECT_EQ(impl->seen_size, sizeof(TeplugAttentionFwdArgs))
      << "struct_size capped at what the SDK knows";
  EXPECT_EQ(impl->seen_workspace_size, 4096u);

  args.struct_size = TEPLUG_STRUCT_SIZE(TeplugAttentionFwdArgs, workspace_size);  // older than v1
  impl->seen = nullptr;
  EXPECT_EQ(ask(), 0);
  EXPECT_EQ(impl->seen, nullptr);
  EXPECT_NE(std::string(reason).find("TeplugAttentionFwdArgs.struct_size"), std::string::npos)
      << reason;
}

TEST(SdkNamesTest, NormNamesRoundTrip) {
  EXPECT_STREQ(teplug::sdk::IidName(teplug::sdk::kIidNormV1), "INorm/1");
  EXPECT_EQ(teplug::sdk::NormTypeNames(), (std::vector<std::string>{"layernorm", "rmsnorm"}));
  for (int32_t t = 0; t < TEPLUG_NORM_TYPE_COUNT_; ++t) {
    int32_t back = -1;
    ASSERT_TRUE(teplug::sdk::ParseNormType(teplug::sdk::NormTypeName(t), &back)) << t;
    EXPECT_EQ(back, t);
  }
  int32_t out = 0;
  EXPECT_FALSE(teplug::sdk::ParseNormType("layer_norm", &out));
  EXPECT_STREQ(teplug::sdk::NormTypeName(TEPLUG_NORM_TYPE_COUNT_), "unknown");
}

const TeplugNamedId kGaudi[] = {{1100, "gaudi"}};
const TeplugNamedId kHabana[] = {{0x1da3, "habana"}};
void DeclareNamesAndRegister(teplug::sdk::Registrar& r) {
  EXPECT_TRUE(r.DeclareNames(kGaudi, kHabana));
  r.Register(teplug::sdk::kIidGemmV1, teplug::sdk::MakeGemm(std::make_unique<Tracked>(&g_v1_alive)),
             &kAnyCaps, "gemm-v1", 10);
}

TEST(SdkRegistrarTest, DeclareNamesFillsTheInfoFields) {
  teplug::testing::TestHost host;
  OwnedError e = host.Run(&EntryOf<&DeclareNamesAndRegister>);
  ASSERT_TRUE(e.ok()) << e.message();
  const TeplugPluginInfo& info = host.info();
  ASSERT_EQ(info.device_kind_name_count, 1u);
  EXPECT_EQ(info.device_kind_names, kGaudi);
  ASSERT_EQ(info.vendor_name_count, 1u);
  EXPECT_EQ(info.vendor_names, kHabana);
}

TEST(SdkRegistrarTest, DeclareNamesWritesNothingPastAnOlderInfo) {
  TeplugPluginInfo info = teplug::sdk::Versioned<TeplugPluginInfo>();
  info.struct_size = TEPLUG_STRUCT_SIZE(TeplugPluginInfo, abi_max);
  const TeplugHostApi api = teplug::sdk::Versioned<TeplugHostApi>();
  teplug::sdk::Registrar r(&api, &info);
  EXPECT_FALSE(r.DeclareNames(kGaudi, kHabana));
  EXPECT_EQ(info.device_kind_names, nullptr);
  EXPECT_EQ(info.vendor_name_count, 0u);
}

TEST(SdkNamesTest, NamesRoundTripAndUnknownsAreRejected) {
  for (int32_t d = TEPLUG_DTYPE_FP32; d < TEPLUG_DTYPE_COUNT_; ++d) {
    int32_t back = -1;
    ASSERT_TRUE(teplug::sdk::ParseDType(teplug::sdk::DTypeName(d), &back)) << d;
    EXPECT_EQ(back, d);
  }
  for (int32_t l = 0; l < TEPLUG_LAYOUT_COUNT_; ++l) {
    int32_t back = -1;
    ASSERT_TRUE(teplug::sdk::ParseLayout(teplug::sdk::LayoutName(l), &back));
    EXPECT_EQ(back, l);
  }
  EXPECT_STREQ(teplug::sdk::LayoutFormat(TEPLUG_LAYOUT_THD_T2HD), "thd");
  EXPECT_STREQ(teplug::sdk::LayoutFormat(TEPLUG_LAYOUT_BSH3D), "bshd");
  EXPECT_STREQ(teplug::sdk::MaskName(TEPLUG_MASK_CAUSAL_BOTTOM_RIGHT), "causal_bottom_right");
  int32_t out = 0;
  EXPECT_FALSE(teplug::sdk::ParseDType("fp8", &out));
  EXPECT_FALSE(teplug::sdk::ParseDType("invalid", &out));
  EXPECT_STREQ(teplug::sdk::DTypeName(77), "unknown");
  EXPECT_EQ(teplug::sdk::DTypeBits(TEPLUG_DTYPE_FP4_E2M1), 4);
}

}  // namespace
