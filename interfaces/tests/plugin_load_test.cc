// Loads the README's example plugins (C99 and C++) through the documented
// entry point, exactly as a host does, and checks the whole contract: info,
// ABI negotiation, registration, query_interface, the supports hook, GEMM
// numerics against an fp64 computation in this test, and errors.
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "interfaces/tests/test_host.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace {

using bazel::tools::cpp::runfiles::Runfiles;
using teplug::testing::TestHost;

TeplugTensor Matrix(std::vector<float>& storage, int64_t rows, int64_t cols) {
  TeplugTensor t = teplug::sdk::Versioned<TeplugTensor>();
  storage.resize(static_cast<size_t>(rows * cols));
  t.data = storage.data();
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  return t;  // zero strides: contiguous
}

TeplugTensor Vector(std::vector<float>& storage, int64_t n) {
  TeplugTensor t = Matrix(storage, n, 1);
  t.rank = 1;
  t.shape[1] = 0;
  return t;
}

class ExamplePluginTest : public ::testing::TestWithParam<std::string> {
 protected:
  // Without runfiles there is no plugin to load: the test body does not run.
  void SetUp() override {
    std::string error;
    runfiles_.reset(Runfiles::CreateForTest(&error));
    ASSERT_NE(runfiles_, nullptr) << error;
  }
  // The example plugin named by the test parameter.
  std::string PluginPath() const {
    return runfiles_->Rlocation("teplug/interfaces/examples/libteplug_" + GetParam() + ".so");
  }

 private:
  std::unique_ptr<Runfiles> runfiles_;
};

TEST_P(ExamplePluginTest, LoadsAndDescribesItself) {
  TestHost host;
  teplug::sdk::OwnedError err = host.Load(PluginPath());
  ASSERT_TRUE(err.ok()) << err.message();
  EXPECT_EQ(std::string(host.info().name), GetParam());
  EXPECT_EQ(std::string(host.info().vendor), "teplug examples");
  EXPECT_EQ(host.info().abi_min, TEPLUG_ABI_VERSION_MAJOR_FIRST);
  EXPECT_EQ(host.info().abi_max, TEPLUG_ABI_VERSION_CURRENT);
  ASSERT_EQ(host.recorded.size(), 1u);
  const auto& r = host.recorded[0];
  EXPECT_TRUE(teplug::sdk::SameIid(r.desc.iid, teplug::sdk::kIidGemmV1));
  EXPECT_EQ(r.name, "naive-fp32");
  EXPECT_EQ(r.desc.priority, 10);
  TeplugGemmCaps caps;
  ASSERT_TRUE(teplug::sdk::ReadVersioned(static_cast<const TeplugGemmCaps*>(r.desc.capability),
                                         &caps, TEPLUG_STRUCT_SIZE(TeplugGemmCaps, max_dim)));
  EXPECT_EQ(caps.a_dtypes, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32));
  ASSERT_EQ(caps.num_devices, 1u);
  EXPECT_EQ(caps.devices[0].kind, TEPLUG_DEVICE_CPU);
  EXPECT_FALSE(host.log_lines.empty()) << "the examples log through the host";
}

TEST_P(ExamplePluginTest, QueryInterfaceAnswersItsOwnIidOnly) {
  TestHost host;
  ASSERT_TRUE(host.Load(PluginPath()).ok());
  auto& obj = host.recorded.at(0).object;
  auto gemm = obj.Query<TeplugGemmV1>(teplug::sdk::kIidGemmV1);
  ASSERT_TRUE(gemm);
  EXPECT_EQ(reinterpret_cast<void*>(gemm.get()), reinterpret_cast<void*>(obj.get()));
  EXPECT_FALSE(obj.Query<TeplugAttentionV1>(teplug::sdk::kIidAttentionV1));
  EXPECT_TRUE(obj.Query<TeplugObject>(teplug::sdk::kIidObject));
}

TEST_P(ExamplePluginTest, GemmMatchesFp64OnRandomInputs) {
  TestHost host;
  ASSERT_TRUE(host.Load(PluginPath()).ok());
  auto gemm = host.recorded.at(0).object.Query<TeplugGemmV1>(teplug::sdk::kIidGemmV1);
  ASSERT_TRUE(gemm);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  struct Shape { int64_t m, n, k; bool ta, tb, bias, accumulate; };
  for (Shape s : {Shape{3, 5, 7, false, false, false, false}, Shape{8, 4, 16, true, false, true, false},
                  Shape{5, 9, 3, false, true, false, true}, Shape{6, 6, 6, true, true, true, true}}) {
    std::vector<float> a, b, c, d, bias;
    TeplugTensor ta = s.ta ? Matrix(a, s.k, s.m) : Matrix(a, s.m, s.k);
    TeplugTensor tb = s.tb ? Matrix(b, s.n, s.k) : Matrix(b, s.k, s.n);
    TeplugTensor tc = Matrix(c, s.m, s.n), td = Matrix(d, s.m, s.n);
    TeplugTensor tbias = Vector(bias, s.n);
    for (auto* v : {&a, &b, &c, &d, &bias}) for (float& x : *v) x = dist(rng);
    const std::vector<float> d_before = d;
    TeplugGemmArgs args = teplug::sdk::Versioned<TeplugGemmArgs>();
    args.a = &ta;
    args.b = &tb;
    args.c = s.accumulate ? nullptr : &tc;
    args.d = &td;
    args.bias = s.bias ? &tbias : nullptr;
    args.trans_a = s.ta;
    args.trans_b = s.tb;
    args.alpha = 0.75f;
    args.beta = -0.5f;
    args.accumulate = s.accumulate;
    teplug::sdk::OwnedError err(gemm->vtbl->gemm(gemm.get(), &args));
    ASSERT_TRUE(err.ok()) << err.message();
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        double want = 0;
        for (int64_t p = 0; p < s.k; ++p) {
          double av = s.ta ? a[p * s.m + i] : a[i * s.k + p];
          double bv = s.tb ? b[j * s.k + p] : b[p * s.n + j];
          want += av * bv;
        }
        want *= 0.75;
        want += s.accumulate ? d_before[i * s.n + j] : -0.5 * c[i * s.n + j];
        if (s.bias) want += bias[j];
        // fp32 output of an fp64 sum: one rounding, |x| <= k+3.
        EXPECT_NEAR(d[i * s.n + j], want, 1e-6 * (s.k + 3)) << "i=" << i << " j=" << j;
      }
    }
  }
}

TEST_P(ExamplePluginTest, SupportsExplainsARefusal) {
  TestHost host;
  ASSERT_TRUE(host.Load(PluginPath()).ok());
  auto gemm = host.recorded.at(0).object.Query<TeplugGemmV1>(teplug::sdk::kIidGemmV1);
  TeplugGemmArgs args = teplug::sdk::Versioned<TeplugGemmArgs>();
  args.epilogue = TEPLUG_EPILOGUE_GELU;
  char reason[128] = "unset";
  EXPECT_EQ(gemm->vtbl->supports(reinterpret_cast<TeplugObject*>(gemm.get()), TEPLUG_OP_GEMM,
                                 &args, reason, sizeof reason),
            0);
  EXPECT_NE(std::string(reason).find("epilogue 1 not supported"), std::string::npos) << reason;
  args.epilogue = TEPLUG_EPILOGUE_NONE;
  EXPECT_NE(gemm->vtbl->supports(reinterpret_cast<TeplugObject*>(gemm.get()), TEPLUG_OP_GEMM,
                                 &args, reason, sizeof reason),
            0);
}

TEST_P(ExamplePluginTest, BadShapesAndShortStructsAreErrorsNotCrashes) {
  TestHost host;
  ASSERT_TRUE(host.Load(PluginPath()).ok());
  auto gemm = host.recorded.at(0).object.Query<TeplugGemmV1>(teplug::sdk::kIidGemmV1);
  std::vector<float> a, b, d;
  TeplugTensor ta = Matrix(a, 2, 3), tb = Matrix(b, 4, 5), td = Matrix(d, 2, 5);
  TeplugGemmArgs args = teplug::sdk::Versioned<TeplugGemmArgs>();
  args.a = &ta;
  args.b = &tb;
  args.d = &td;
  args.alpha = 1.f;
  teplug::sdk::OwnedError err(gemm->vtbl->gemm(gemm.get(), &args));
  EXPECT_EQ(err.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_NE(err.message().find("shape mismatch"), std::string::npos) << err.message();

  args.struct_size = TEPLUG_STRUCT_SIZE(TeplugGemmArgs, d);  // a writer from "before" v1.0
  err = teplug::sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), &args));
  EXPECT_EQ(err.code(), TEPLUG_ABI_MISMATCH) << err.message();

  // Every tensor the GEMM reads is checked, and GELU is refused even when the
  // caller skips `supports` (README 7.1).
  std::vector<float> b2, c, bias, c_wide, bias_long;
  TeplugTensor tb2 = Matrix(b2, 3, 5), tc = Matrix(c, 2, 5), tbias = Vector(bias, 5);
  TeplugTensor tc_wide = Matrix(c_wide, 2, 6), tbias_long = Vector(bias_long, 6);
  TeplugTensor tc_bf16 = tc, tbias_bf16 = tbias, td_gpu = td, ta_mixed = ta;
  tc_bf16.dtype = tbias_bf16.dtype = TEPLUG_DTYPE_BF16;
  TeplugDevice gpu = teplug::sdk::Versioned<TeplugDevice>();
  gpu.kind = TEPLUG_DEVICE_CUDA;
  td_gpu.device = &gpu;
  ta_mixed.strides[0] = 3;  // strides[1] stays 0
  args = teplug::sdk::Versioned<TeplugGemmArgs>();
  args.a = &ta;
  args.b = &tb2;
  args.c = &tc;
  args.d = &td;
  args.bias = &tbias;
  args.alpha = 1.f;
  err = teplug::sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), &args));
  ASSERT_TRUE(err.ok()) << err.message();
  auto with = [&args](auto change) {
    TeplugGemmArgs changed = args;
    change(changed);
    return changed;
  };
  struct Refusal {
    TeplugGemmArgs args;
    TeplugCode code;
    std::string message;
  };
  for (const Refusal& r : {
           Refusal{with([&](auto& x) { x.c = &tc_wide; }), TEPLUG_INVALID_ARGUMENT,
                   "shape mismatch: c axis 1 is 6, want 5"},
           Refusal{with([&](auto& x) { x.c = &tc_bf16; }), TEPLUG_UNSUPPORTED,
                   "c: only fp32 host tensors, not dtype 3"},
           Refusal{with([&](auto& x) { x.bias = &tbias_long; }), TEPLUG_INVALID_ARGUMENT,
                   "shape mismatch: bias axis 0 is 6, want 5"},
           Refusal{with([&](auto& x) { x.bias = &tbias_bf16; }), TEPLUG_UNSUPPORTED,
                   "bias: only fp32 host tensors, not dtype 3"},
           Refusal{with([&](auto& x) { x.d = &td_gpu; }), TEPLUG_UNSUPPORTED,
                   "d: only fp32 host tensors, not dtype 1 on device kind 2"},
           Refusal{with([&](auto& x) { x.a = &ta_mixed; }), TEPLUG_INVALID_ARGUMENT,
                   "a mixes zero and non-zero strides"},
           Refusal{with([](auto& x) { x.epilogue = TEPLUG_EPILOGUE_GELU; }), TEPLUG_UNSUPPORTED,
                   "epilogue 1 not supported"},
       }) {
    err = teplug::sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), &r.args));
    EXPECT_EQ(err.code(), r.code) << r.message << " / " << err.message();
    EXPECT_NE(err.message().find(r.message), std::string::npos) << err.message();
  }
  // With accumulate, C is D: a `c` that does not fit is ignored, not read.
  TeplugGemmArgs accumulate = with([&](auto& x) { x.c = &tc_wide; });
  accumulate.accumulate = 1;
  err = teplug::sdk::OwnedError(gemm->vtbl->gemm(gemm.get(), &accumulate));
  EXPECT_TRUE(err.ok()) << err.message();
}

TEST_P(ExamplePluginTest, RefusesAHostWithoutACommonAbiAndNamesBothRanges) {
  TestHost host(TEPLUG_ABI_VERSION(2, 0), TEPLUG_ABI_VERSION(2, 3));
  teplug::sdk::OwnedError err = host.Load(PluginPath());
  EXPECT_EQ(err.code(), TEPLUG_ABI_MISMATCH);
  EXPECT_NE(err.message().find("[1.0, 1.3]"), std::string::npos) << err.message();
  EXPECT_NE(err.message().find("[2.0, 2.3]"), std::string::npos) << err.message();
  EXPECT_TRUE(host.recorded.empty()) << "nothing may be registered after a refusal";
}

INSTANTIATE_TEST_SUITE_P(CAndCpp, ExamplePluginTest, ::testing::Values("minimal_c", "minimal_cpp"));

}  // namespace
