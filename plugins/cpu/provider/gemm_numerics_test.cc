// The cpu provider's GEMM against the reference provider (the fp64 oracle) on
// random inputs, for every declared dtype pairing, epilogue and transpose, and
// for strided layouts; tolerances from the main job's table
// (tools/teplug/tolerances.h, by D's dtype).
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <tuple>

#include "gtest/gtest.h"
#include "plugins/cpu/provider/gemm_provider.h"
#include "plugins/cpu/provider/testing/test_matrix.h"
#include "plugins/reference/provider/gemm_provider.h"
#include "teplug/sdk/names.hpp"
#include "tools/teplug/tolerances.h"

namespace teplug::cpu::provider {
namespace {

using testing::MatrixLayout;
using testing::NormalizedMaxError;
using testing::TestMatrix;

constexpr int32_t kDTypes[] = {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16};

enum class Epilogue {
  kNone,
  kBias,
  kGelu,
  kGeluAux,
  kBiasGeluAux,
  kC,
  kAccumulate,
  kAccumulateAll
};
constexpr Epilogue kEpilogues[] = {Epilogue::kNone,       Epilogue::kBias,         Epilogue::kGelu,
                                   Epilogue::kGeluAux,    Epilogue::kBiasGeluAux,  Epilogue::kC,
                                   Epilogue::kAccumulate, Epilogue::kAccumulateAll};
const char* EpilogueName(Epilogue e) {
  constexpr const char* kNames[] = {
      "none",          "bias", "gelu",       "gelu_aux",
      "bias_gelu_aux", "c",    "accumulate", "accumulate_bias_gelu_aux"};
  return kNames[static_cast<int>(e)];
}

struct GemmSetup {
  int32_t a_dtype = TEPLUG_DTYPE_FP32, b_dtype = TEPLUG_DTYPE_FP32, d_dtype = TEPLUG_DTYPE_FP32;
  int32_t c_dtype = TEPLUG_DTYPE_FP32;
  bool trans_a = false, trans_b = false;
  Epilogue epilogue = Epilogue::kNone;
  int64_t m = 37, n = 29, k = 45;
  MatrixLayout a_layout, b_layout, c_layout, d_layout, bias_layout;
};

// One call's tensors, twice: once for the cpu provider, once for the oracle,
// with identical input bytes.
class GemmPair {
 public:
  explicit GemmPair(const GemmSetup& s, uint64_t seed) : s_(s) {
    std::mt19937_64 rng(seed);
    const bool bias = s.epilogue == Epilogue::kBias || s.epilogue == Epilogue::kBiasGeluAux ||
                      s.epilogue == Epilogue::kAccumulateAll;
    const bool aux = s.epilogue == Epilogue::kGeluAux || s.epilogue == Epilogue::kBiasGeluAux ||
                     s.epilogue == Epilogue::kAccumulateAll;
    gelu_ = aux || s.epilogue == Epilogue::kGelu;
    accumulate_ = s.epilogue == Epilogue::kAccumulate || s.epilogue == Epilogue::kAccumulateAll;
    a_ = std::make_unique<TestMatrix>(s.a_dtype, s.trans_a ? s.k : s.m, s.trans_a ? s.m : s.k,
                                      s.a_layout);
    b_ = std::make_unique<TestMatrix>(s.b_dtype, s.trans_b ? s.n : s.k, s.trans_b ? s.k : s.n,
                                      s.b_layout);
    a_->FillRandom(rng);
    b_->FillRandom(rng);
    if (s.epilogue == Epilogue::kC) {
      c_ = std::make_unique<TestMatrix>(s.c_dtype, s.m, s.n, s.c_layout);
      c_->FillRandom(rng);
    }
    if (bias) {
      bias_ = std::make_unique<TestMatrix>(s.d_dtype, -1, s.n, s.bias_layout);
      bias_->FillRandom(rng);
    }
    for (Side* side : {&mine_, &oracle_}) {
      side->d = std::make_unique<TestMatrix>(s.d_dtype, s.m, s.n, s.d_layout);
      // D's old contents: read with accumulate, overwritten otherwise.
      side->d->FillRandom(rng);
      if (side == &oracle_) side->d->CopyFrom(*mine_.d);
      if (aux) side->pre = std::make_unique<TestMatrix>(s.d_dtype, s.m, s.n);
      TeplugGemmArgs& g = side->args;
      g.struct_size = sizeof(TeplugGemmArgs);
      g.a = a_->tensor();
      g.b = b_->tensor();
      g.c = c_ ? c_->tensor() : nullptr;
      g.d = side->d->tensor();
      g.bias = bias_ ? bias_->tensor() : nullptr;
      g.pre_gelu_out = side->pre ? side->pre->tensor() : nullptr;
      g.trans_a = s.trans_a;
      g.trans_b = s.trans_b;
      g.alpha = 0.75f;
      g.beta = c_ ? -0.5f : 0.f;
      g.epilogue = gelu_ ? TEPLUG_EPILOGUE_GELU : TEPLUG_EPILOGUE_NONE;
      g.accumulate = accumulate_;
    }
  }

  // Runs both and checks D (and pre_gelu_out) against the oracle.
  void RunAndCompare(CpuGemm& gemm) {
    ASSERT_TRUE(reference::provider::RunReferenceGemm(oracle_.args).ok());
    const absl::Status status = gemm.Run(mine_.args);
    ASSERT_TRUE(status.ok()) << status;
    const double tolerance = cli::OutputTolerance(cli::ToleranceKind::kGemm, s_.d_dtype);
    EXPECT_LE(NormalizedMaxError(mine_.d->Values(), oracle_.d->Values()), tolerance) << "D";
    if (mine_.pre) {
      EXPECT_LE(NormalizedMaxError(mine_.pre->Values(), oracle_.pre->Values()), tolerance)
          << "pre_gelu_out";
    }
  }

  // Passes each side's D as its C too (C aliasing D), scaled by `beta`.
  void UseDAsC(float beta) {
    for (Side* side : {&mine_, &oracle_}) {
      side->args.c = side->d->tensor();
      side->args.beta = beta;
    }
  }

 private:
  struct Side {
    std::unique_ptr<TestMatrix> d, pre;
    TeplugGemmArgs args{};
  };
  GemmSetup s_;
  bool gelu_ = false, accumulate_ = false;
  std::unique_ptr<TestMatrix> a_, b_, c_, bias_;
  Side mine_, oracle_;
};

std::string Describe(const GemmSetup& s) {
  return std::string("a=") + sdk::DTypeName(s.a_dtype) + " b=" + sdk::DTypeName(s.b_dtype) +
         " d=" + sdk::DTypeName(s.d_dtype) + " c=" + sdk::DTypeName(s.c_dtype) +
         " trans_a=" + std::to_string(s.trans_a) + " trans_b=" + std::to_string(s.trans_b) +
         " epilogue=" + EpilogueName(s.epilogue);
}

// Every dtype triple x every epilogue x every transpose pair; C's dtype
// rotates through the three so every C -> D conversion is met.
TEST(CpuGemmNumericsTest, EveryDeclaredCombinationMatchesTheReference) {
  CpuGemm gemm;
  uint64_t seed = 1;
  for (int32_t a : kDTypes)
    for (int32_t b : kDTypes)
      for (int32_t d : kDTypes)
        for (Epilogue e : kEpilogues)
          for (int t = 0; t < 4; ++t) {
            GemmSetup s;
            s.a_dtype = a;
            s.b_dtype = b;
            s.d_dtype = d;
            s.c_dtype = kDTypes[seed % 3];
            s.epilogue = e;
            s.trans_a = t & 1;
            s.trans_b = t & 2;
            SCOPED_TRACE(Describe(s));
            GemmPair pair(s, ++seed);
            pair.RunAndCompare(gemm);
          }
}

// Padded rows, column strides other than 1 and a strided bias: every matrix
// takes the copy path, and padding (NaN) must never be read.
TEST(CpuGemmNumericsTest, StridedLayoutsMatchTheReference) {
  CpuGemm gemm;
  uint64_t seed = 100;
  for (int32_t d : kDTypes)
    for (Epilogue e : {Epilogue::kC, Epilogue::kAccumulateAll, Epilogue::kBiasGeluAux})
      for (int t = 0; t < 4; ++t) {
        GemmSetup s;
        s.a_dtype = TEPLUG_DTYPE_BF16;
        s.b_dtype = TEPLUG_DTYPE_BF16;
        s.d_dtype = d;
        s.c_dtype = d;
        s.epilogue = e;
        s.trans_a = t & 1;
        s.trans_b = t & 2;
        s.a_layout = {3, 1};
        s.b_layout = {1, 2};
        s.c_layout = {5, 1};
        s.d_layout = {2, t == 3 ? 2 : 1};
        s.bias_layout = {0, 3};
        SCOPED_TRACE(Describe(s) + " strided");
        GemmPair pair(s, ++seed);
        pair.RunAndCompare(gemm);
      }
}

// Sizes the kernels block differently: a single row and column, a GEMV, and
// a product larger than one AMX tile in every dimension.
TEST(CpuGemmNumericsTest, EdgeAndTiledShapesMatchTheReference) {
  CpuGemm gemm;
  uint64_t seed = 200;
  for (auto [m, n, k] :
       {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {1, 65, 130}, {70, 1, 33}, {130, 97, 260}})
    for (int32_t dtype : kDTypes) {
      GemmSetup s;
      s.a_dtype = s.b_dtype = s.d_dtype = dtype;
      s.m = m;
      s.n = n;
      s.k = k;
      s.epilogue = Epilogue::kBiasGeluAux;
      SCOPED_TRACE(Describe(s) + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                   " k=" + std::to_string(k));
      GemmPair pair(s, ++seed);
      pair.RunAndCompare(gemm);
    }
}

// C given as D itself (same tensor) is the C term read from D's old values.
TEST(CpuGemmNumericsTest, CAliasingDMatchesTheReference) {
  CpuGemm gemm;
  for (int32_t d : kDTypes) {
    GemmSetup s;
    s.a_dtype = s.b_dtype = TEPLUG_DTYPE_FP32;
    s.d_dtype = d;
    s.epilogue = Epilogue::kBias;
    SCOPED_TRACE(sdk::DTypeName(d));
    GemmPair pair(s, 300 + d);
    pair.UseDAsC(0.5f);
    pair.RunAndCompare(gemm);
  }
}

// C one row into D's memory (overlapping, not D itself): C must be read
// before D is written, as the reference reads it.
TEST(CpuGemmNumericsTest, COverlappingDMatchesTheReference) {
  CpuGemm gemm;
  const int64_t m = 9, n = 7, k = 11;
  for (int32_t dtype : kDTypes) {
    SCOPED_TRACE(sdk::DTypeName(dtype));
    std::mt19937_64 rng(400 + dtype);
    TestMatrix a(TEPLUG_DTYPE_FP32, m, k), b(TEPLUG_DTYPE_FP32, k, n);
    TestMatrix mine(dtype, m + 1, n), oracle(dtype, m + 1, n);
    a.FillRandom(rng);
    b.FillRandom(rng);
    mine.FillRandom(rng);
    oracle.CopyFrom(mine);
    const size_t row_bytes = n * (dtype == TEPLUG_DTYPE_FP32 ? 4 : 2);
    for (TestMatrix* side : {&mine, &oracle}) {
      TeplugTensor d = *side->tensor();
      d.shape[0] = m;
      TeplugTensor c = d;
      c.data = static_cast<char*>(d.data) + row_bytes;
      TeplugGemmArgs args{};
      args.struct_size = sizeof(args);
      args.a = a.tensor(), args.b = b.tensor(), args.c = &c, args.d = &d;
      args.alpha = 1.f, args.beta = 0.5f;
      const absl::Status status =
          side == &mine ? gemm.Run(args) : reference::provider::RunReferenceGemm(args);
      ASSERT_TRUE(status.ok()) << status;
    }
    EXPECT_LE(NormalizedMaxError(mine.Values(), oracle.Values()),
              cli::OutputTolerance(cli::ToleranceKind::kGemm, dtype));
  }
}

}  // namespace
}  // namespace teplug::cpu::provider
