// INorm/1 end to end: the built-in reference serves LayerNorm and RMSNorm
// through the kernel's dispatching object, Select and Explain name it with
// the op's summary, refusals come from the capability descriptor through the
// interface's core module, and the results match what this test computes
// itself (a two-pass mean/variance in long double, written independently of
// the provider's Welford kernel) on random inputs.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug {
namespace {

using ::testing::HasSubstr;

core::KernelOptions Options() {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = "log_level: \"error\"\n";
  return o;
}

TeplugTensor Fp32(std::vector<float>* storage, std::vector<int64_t> shape) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  storage->resize(static_cast<size_t>(n));
  t.data = storage->data();
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
  return t;
}

// One [rows, hidden] problem with random, non-zero-mean inputs.
struct Problem {
  Problem(int32_t norm_type, int64_t rows, int64_t hidden, bool zero_centered, uint32_t seed)
      : rows(rows), hidden(hidden) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-2.f, 3.f);
    x = Fp32(&xs, {rows, hidden});
    gamma = Fp32(&gs, {hidden});
    beta = Fp32(&bs, {hidden});
    y = Fp32(&ys, {rows, hidden});
    mu = Fp32(&mus, {rows});
    rsigma = Fp32(&rs, {rows});
    for (auto* v : {&xs, &gs, &bs}) {
      for (float& e : *v) e = dist(rng);
    }
    args = sdk::Versioned<TeplugNormFwdArgs>();
    args.norm_type = norm_type;
    args.zero_centered_gamma = zero_centered;
    args.epsilon = 1e-5f;
    args.x = &x;
    args.gamma = &gamma;
    args.beta = norm_type == TEPLUG_NORM_LAYERNORM ? &beta : nullptr;
    args.y = &y;
    args.mu = norm_type == TEPLUG_NORM_LAYERNORM ? &mu : nullptr;
    args.rsigma = &rsigma;
  }
  // y as this test computes it.
  std::vector<double> Expected() const {
    std::vector<double> out(static_cast<size_t>(rows * hidden));
    const bool ln = args.norm_type == TEPLUG_NORM_LAYERNORM;
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = xs.data() + r * hidden;
      long double mean = 0, square = 0;
      for (int64_t i = 0; i < hidden; ++i) mean += row[i];
      mean /= hidden;
      for (int64_t i = 0; i < hidden; ++i) {
        const long double c = ln ? row[i] - mean : row[i];
        square += c * c;
      }
      const long double inv = 1.0L / std::sqrt(square / hidden + args.epsilon);
      for (int64_t i = 0; i < hidden; ++i) {
        const long double g = gs[i] + (args.zero_centered_gamma ? 1.0L : 0.0L);
        const long double c = ln ? row[i] - mean : row[i];
        out[r * hidden + i] = static_cast<double>(c * inv * g + (ln ? bs[i] : 0.0L));
      }
    }
    return out;
  }
  int64_t rows, hidden;
  std::vector<float> xs, gs, bs, ys, mus, rs;
  TeplugTensor x, gamma, beta, y, mu, rsigma;
  TeplugNormFwdArgs args;
};

TEST(NormThroughKernelTest, DispatchingObjectServesLayerNormAndRmsNorm) {
  auto k = core::Kernel::Create(Options());
  ASSERT_TRUE(k.ok()) << k.status();
  auto norm = (*k)->Query<TeplugNormV1>(sdk::kIidNormV1);
  ASSERT_TRUE(norm) << "the kernel serves INorm/1";
  uint32_t seed = 7;
  for (int32_t type : {TEPLUG_NORM_LAYERNORM, TEPLUG_NORM_RMSNORM}) {
    for (bool zero_centered : {false, true}) {
      SCOPED_TRACE(testing::Message() << "norm_type " << type << " zero_centered " << zero_centered);
      Problem p(type, 5, 96, zero_centered, seed++);
      sdk::OwnedError err(norm->vtbl->forward(norm.get(), &p.args));
      ASSERT_FALSE(err) << err.message();
      const std::vector<double> want = p.Expected();
      for (size_t i = 0; i < want.size(); ++i) {
        // fp32 output of an fp64 computation: one rounding, plus the
        // oracle's different summation order.
        ASSERT_NEAR(p.ys[i], want[i], 4e-6 * (1 + std::fabs(want[i]))) << "element " << i;
      }
    }
  }
}

TEST(NormThroughKernelTest, SelectAndExplainNameTheReferenceWithTheOpSummary) {
  auto k = core::Kernel::Create(Options());
  ASSERT_TRUE(k.ok()) << k.status();
  Problem p(TEPLUG_NORM_RMSNORM, 4, 64, true, 1);
  auto selection = (*k)->Select(sdk::kIidNormV1, TEPLUG_NORM_OP_FORWARD, &p.args);
  ASSERT_TRUE(selection.ok()) << selection.status();
  EXPECT_EQ(selection->implementation->QualifiedName(), "reference/norm");
  const std::string record = selection->record().Format();
  EXPECT_THAT(record, HasSubstr("INorm/1 norm forward rmsnorm fp32[4,64] hidden=64 zero_centered_gamma on cpu:0"));
  EXPECT_EQ(core::Kernel::OpNumber(sdk::kIidNormV1, "backward"), TEPLUG_NORM_OP_BACKWARD);
  EXPECT_EQ(core::Kernel::OpNumber(sdk::kIidNormV1, "quantize"), std::nullopt);
}

TEST(NormThroughKernelTest, MalformedArgsAndRefusalsNameTheField) {
  auto k = core::Kernel::Create(Options());
  ASSERT_TRUE(k.ok()) << k.status();
  Problem p(TEPLUG_NORM_LAYERNORM, 2, 8, false, 3);
  p.args.norm_type = 7;
  auto bad = (*k)->Explain(sdk::kIidNormV1, TEPLUG_NORM_OP_FORWARD, &p.args);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("TeplugNormFwdArgs.norm_type 7 is not a TeplugNormType"));
  p.args.norm_type = TEPLUG_NORM_LAYERNORM;
  p.args.gamma = nullptr;
  bad = (*k)->Explain(sdk::kIidNormV1, TEPLUG_NORM_OP_FORWARD, &p.args);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("TeplugNormFwdArgs.gamma is NULL"));
  p.args.gamma = &p.gamma;
  p.x.dtype = TEPLUG_DTYPE_INT32;  // no provider declares int32 x
  auto record = (*k)->Explain(sdk::kIidNormV1, TEPLUG_NORM_OP_FORWARD, &p.args);
  ASSERT_TRUE(record.ok()) << record.status();
  ASSERT_FALSE(record->served());
  EXPECT_THAT(record->Format(), HasSubstr("[capability] x dtype int32 not in {"));
}

}  // namespace
}  // namespace teplug
