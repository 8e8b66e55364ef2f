// Prints what a consumer sees of teplug, for tests/consumer/run.sh to check:
// the version through both the C++ and the C entry points, a kernel created
// with the built-in reference provider serving one GEMM through a dispatching
// object, and whether this workspace's own GoogleTest definition survived
// teplug_dependencies().
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "core/version.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace {

TeplugTensor Matrix(std::vector<float>* s, int64_t rows, int64_t cols, float first) {
  s->resize(static_cast<size_t>(rows * cols));
  for (size_t i = 0; i < s->size(); ++i) (*s)[i] = first + static_cast<float>(i);
  TeplugTensor t = teplug::sdk::Versioned<TeplugTensor>();
  t.data = s->data();
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  return t;
}

// D = A B with A 2x3 = [1..6], B 3x2 = [1..6]: D = [[22, 28], [49, 64]].
std::string GemmThroughKernel() {
  teplug::core::KernelOptions options;
  options.use_environment = false;
  options.config_text = "log_level: \"error\"\n";
  auto kernel = teplug::core::Kernel::Create(options);
  if (!kernel.ok()) return "kernel: " + std::string(kernel.status().message());
  std::string providers;
  for (const auto& p : (*kernel)->ListProviders()) providers += p.name;
  std::vector<float> a, b, d;
  TeplugTensor ta = Matrix(&a, 2, 3, 1), tb = Matrix(&b, 3, 2, 1), td = Matrix(&d, 2, 2, 0);
  TeplugGemmArgs args = teplug::sdk::Versioned<TeplugGemmArgs>();
  args.a = &ta;
  args.b = &tb;
  args.d = &td;
  args.alpha = 1.f;
  auto gemm = (*kernel)->Query<TeplugGemmV1>(teplug::sdk::kIidGemmV1);
  teplug::sdk::OwnedError err(gemm->vtbl->gemm(gemm.get(), &args));
  if (!err.ok()) return "gemm: " + err.message();
  const bool right = d[0] == 22.f && d[1] == 28.f && d[2] == 49.f && d[3] == 64.f;
  return "kernel: providers " + providers + "; gemm " + (right ? "correct" : "WRONG");
}

}  // namespace

int main() {
  const std::string cpp(teplug::VersionString());
  std::printf("cpp: %s\n", cpp.c_str());
  std::printf("c: %s\n", teplug_version());
  std::printf("%s\n", GemmThroughKernel().c_str());
#ifdef TEPLUG_CONSUMER_OWN_GOOGLETEST
  std::printf("googletest: consumer's own\n");
#else
  std::printf("googletest: replaced by teplug\n");
#endif
  return 0;
}
