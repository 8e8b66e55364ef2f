// The reference provider as the kernel sees it: linked in as the built-in
// "reference" (//plugins/reference:builtin) it serves every interface through
// the dispatching objects; the same provider as a plugin .so is refused as a
// duplicate name while the built-in is there, and loads and serves the same
// results when it is the only one.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug {
namespace {

using core::Kernel;
using core::KernelOptions;

// The plugin build of the provider, or "" (and the test fails) when the
// runfiles cannot be found.
std::string ReferencePlugin() {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> r(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  if (r == nullptr) {
    ADD_FAILURE() << "cannot find the runfiles: " << error;
    return "";
  }
  return r->Rlocation("teplug/plugins/reference/libteplug_reference.so");
}

KernelOptions Options(bool builtins, std::vector<std::string> plugins) {
  KernelOptions o;
  o.use_environment = false;
  o.load_builtins = builtins;
  o.plugin_paths = std::move(plugins);
  o.config_text = "log_level: \"error\"\n";
  return o;
}

TeplugTensor Matrix(std::vector<float>* s, int64_t r, int64_t c, std::mt19937* rng) {
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  s->resize(static_cast<size_t>(r * c));
  for (float& x : *s) x = dist(*rng);
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = s->data();
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = 2;
  t.shape[0] = r;
  t.shape[1] = c;
  return t;
}

// D = A(5x7) B(7x3) through the kernel; checked against fp64 in this test.
std::vector<float> GemmThrough(const Kernel& k) {
  std::mt19937 rng(7);
  std::vector<float> a, b, d;
  TeplugTensor ta = Matrix(&a, 5, 7, &rng), tb = Matrix(&b, 7, 3, &rng), td = Matrix(&d, 5, 3, &rng);
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = &ta;
  args.b = &tb;
  args.d = &td;
  args.alpha = 1.f;
  auto gemm = k.Query<TeplugGemmV1>(sdk::kIidGemmV1);
  sdk::OwnedError err(gemm->vtbl->gemm(gemm.get(), &args));
  EXPECT_TRUE(err.ok()) << err.message();
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) {
      double want = 0;
      for (int p = 0; p < 7; ++p) want += double(a[i * 7 + p]) * b[p * 3 + j];
      EXPECT_NEAR(d[i * 3 + j], want, 1e-6) << i << "," << j;
    }
  }
  return d;
}

TEST(ReferenceThroughKernelTest, BuiltInServesEveryInterface) {
  auto k = Kernel::Create(Options(true, {}));
  ASSERT_TRUE(k.ok()) << k.status();
  auto providers = (*k)->ListProviders();
  ASSERT_EQ(providers.size(), 1u);
  EXPECT_EQ(providers[0].name, "reference");
  EXPECT_TRUE(providers[0].builtin);
  EXPECT_EQ(providers[0].implementations.size(), 4u) << "gemm, attention, quantizer, collective";
  GemmThrough(**k);
}

TEST(ReferenceThroughKernelTest, PluginCopyIsADuplicateBesideTheBuiltInAndIdenticalAlone) {
  const std::string plugin = ReferencePlugin();
  ASSERT_FALSE(plugin.empty());
  auto both = Kernel::Create(Options(true, {plugin}));
  ASSERT_TRUE(both.ok()) << both.status();
  int refused = 0;
  for (const auto& e : (*both)->LoadReport()) {
    if (!e.loaded) {
      ++refused;
      EXPECT_NE(e.reason.find("duplicate provider name \"reference\""), std::string::npos) << e.reason;
    }
  }
  EXPECT_EQ(refused, 1);
  auto plugin_only = Kernel::Create(Options(false, {plugin}));
  ASSERT_TRUE(plugin_only.ok()) << plugin_only.status();
  ASSERT_EQ((*plugin_only)->ListProviders().size(), 1u);
  EXPECT_FALSE((*plugin_only)->ListProviders()[0].builtin);
  EXPECT_EQ(GemmThrough(**plugin_only), GemmThrough(**both)) << "bitwise equal";
}

}  // namespace
}  // namespace teplug
