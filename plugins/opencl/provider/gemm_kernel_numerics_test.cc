// The opencl GEMM through the kernel: the plugin loaded by a teplug kernel, the
// kernel's IDevice opening opencl:0 and its dispatching IGemm selecting opencl
// for tensors on that device. Host operands are staged onto the device through
// IDevice (tools/teplug/device_gemm.h, what `teplug run --device` does), and
// D (and pre_gelu_out) is compared with the reference provider (the fp64
// oracle) on random inputs, for fp32 and fp16, every epilogue, transposes and
// padded rows; tolerances from the main job's table by D's dtype.
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/kernel/kernel.h"
#include "gtest/gtest.h"
#include "plugins/cpu/provider/testing/test_matrix.h"
#include "plugins/reference/provider/gemm_provider.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/device_gemm.h"
#include "tools/teplug/tolerances.h"

namespace teplug::opencl::provider {
namespace {

using cpu::testing::MatrixLayout;
using cpu::testing::NormalizedMaxError;
using cpu::testing::TestMatrix;

enum class Epilogue {
  kNone,
  kBias,
  kGelu,
  kGeluAux,
  kBiasGeluAux,
  kC,
  kCAliasD,
  kAccumulate,
  kAccumulateAll
};
constexpr Epilogue kEpilogues[] = {
    Epilogue::kNone,    Epilogue::kBias,        Epilogue::kGelu,
    Epilogue::kGeluAux, Epilogue::kBiasGeluAux, Epilogue::kC,
    Epilogue::kCAliasD, Epilogue::kAccumulate,  Epilogue::kAccumulateAll};
const char* EpilogueName(Epilogue e) {
  constexpr const char* kNames[] = {"none",      "bias",          "gelu",
                                    "gelu_aux",  "bias_gelu_aux", "c",
                                    "c_alias_d", "accumulate",    "accumulate_bias_gelu_aux"};
  return kNames[static_cast<int>(e)];
}

// The kernel with only the opencl plugin (path in $OPENCL_PLUGIN) and the
// reference built in, and opencl:0 opened through its IDevice.
class KernelWithOpenCl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    core::KernelOptions options;
    options.use_environment = false;
    options.plugin_paths = {std::getenv("OPENCL_PLUGIN")};
    auto kernel = core::Kernel::Create(std::move(options));
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    kernel_ = kernel->release();
    gemm_ = kernel_->Query<TeplugGemmV1>(sdk::kIidGemmV1).release();
    device_api_ = kernel_->Query<TeplugDeviceV1>(sdk::kIidDeviceV1).release();
    device_ = sdk::Versioned<TeplugDevice>();
    device_.kind = TEPLUG_DEVICE_OPENCL;
    std::unique_ptr<sdk::DeviceContext> ctx;
    sdk::OwnedError e = sdk::DeviceContext::Open(device_api_, device_, &ctx);
    ASSERT_FALSE(e) << e.message();
    ctx_ = ctx.release();
  }
  static void TearDownTestSuite() {
    if (ctx_ != nullptr) {
      EXPECT_FALSE(ctx_->Close());
    }
    delete ctx_;
    if (gemm_ != nullptr) gemm_->vtbl->base.release(reinterpret_cast<TeplugObject*>(gemm_));
    if (device_api_ != nullptr)
      device_api_->vtbl->base.release(reinterpret_cast<TeplugObject*>(device_api_));
    delete kernel_;
  }

  static core::Kernel* kernel_;
  static TeplugGemmV1* gemm_;
  static TeplugDeviceV1* device_api_;
  static TeplugDevice device_;
  static sdk::DeviceContext* ctx_;
};
core::Kernel* KernelWithOpenCl::kernel_ = nullptr;
TeplugGemmV1* KernelWithOpenCl::gemm_ = nullptr;
TeplugDeviceV1* KernelWithOpenCl::device_api_ = nullptr;
TeplugDevice KernelWithOpenCl::device_{};
sdk::DeviceContext* KernelWithOpenCl::ctx_ = nullptr;

struct GemmSetup {
  int32_t dtype = TEPLUG_DTYPE_FP32;  // D's, C's, the bias's and pre_gelu_out's
  int32_t a_dtype = -1, b_dtype = -1;  // -1: dtype
  bool trans_a = false, trans_b = false;
  Epilogue epilogue = Epilogue::kNone;
  int64_t m = 37, n = 29, k = 45;
  MatrixLayout layout;  // of every matrix
};

std::string Describe(const GemmSetup& s) {
  return std::string(sdk::DTypeName(s.a_dtype < 0 ? s.dtype : s.a_dtype)) + " x " +
         sdk::DTypeName(s.b_dtype < 0 ? s.dtype : s.b_dtype) + " -> " + sdk::DTypeName(s.dtype) +
         " trans_a=" + std::to_string(s.trans_a) +
         " trans_b=" + std::to_string(s.trans_b) + " epilogue=" + EpilogueName(s.epilogue) +
         " row_padding=" + std::to_string(s.layout.row_padding);
}

// One call's host tensors twice (the device side, the oracle), same bytes.
class GemmPair {
 public:
  GemmPair(const GemmSetup& s, uint64_t seed) : s_(s) {
    std::mt19937_64 rng(seed);
    const Epilogue e = s.epilogue;
    const bool bias =
        e == Epilogue::kBias || e == Epilogue::kBiasGeluAux || e == Epilogue::kAccumulateAll;
    const bool aux =
        e == Epilogue::kGeluAux || e == Epilogue::kBiasGeluAux || e == Epilogue::kAccumulateAll;
    const bool gelu = aux || e == Epilogue::kGelu;
    a_ = std::make_unique<TestMatrix>(s.a_dtype < 0 ? s.dtype : s.a_dtype,
                                      s.trans_a ? s.k : s.m, s.trans_a ? s.m : s.k, s.layout);
    b_ = std::make_unique<TestMatrix>(s.b_dtype < 0 ? s.dtype : s.b_dtype,
                                      s.trans_b ? s.n : s.k, s.trans_b ? s.k : s.n, s.layout);
    a_->FillRandom(rng);
    b_->FillRandom(rng);
    if (e == Epilogue::kC) {
      c_ = std::make_unique<TestMatrix>(s.dtype, s.m, s.n, s.layout);
      c_->FillRandom(rng);
    }
    if (bias) {
      bias_ = std::make_unique<TestMatrix>(s.dtype, -1, s.n);
      bias_->FillRandom(rng);
    }
    for (Side* side : {&mine_, &oracle_}) {
      side->d = std::make_unique<TestMatrix>(s.dtype, s.m, s.n, s.layout);
      side->d->FillRandom(rng);  // read by accumulate and C-aliasing D, overwritten otherwise
      if (side == &oracle_) side->d->CopyFrom(*mine_.d);
      if (aux) side->pre = std::make_unique<TestMatrix>(s.dtype, s.m, s.n);
      TeplugGemmArgs& g = side->args;
      g.struct_size = sizeof(TeplugGemmArgs);
      g.a = a_->tensor();
      g.b = b_->tensor();
      g.c = c_ ? c_->tensor() : e == Epilogue::kCAliasD ? side->d->tensor() : nullptr;
      g.d = side->d->tensor();
      g.bias = bias_ ? bias_->tensor() : nullptr;
      g.pre_gelu_out = side->pre ? side->pre->tensor() : nullptr;
      g.trans_a = s.trans_a;
      g.trans_b = s.trans_b;
      g.alpha = 0.75f;
      g.beta = g.c != nullptr ? -0.5f : 0.f;
      g.epilogue = gelu ? TEPLUG_EPILOGUE_GELU : TEPLUG_EPILOGUE_NONE;
      g.accumulate = e == Epilogue::kAccumulate || e == Epilogue::kAccumulateAll;
    }
  }

  // The oracle on the host, then the kernel's IGemm on the device.
  void RunAndCompare(TeplugGemmV1* gemm, sdk::DeviceContext& ctx, const TeplugDevice& device) {
    ASSERT_TRUE(reference::provider::RunReferenceGemm(oracle_.args).ok());
    const absl::Status status = cli::RunGemmOnDevice(gemm, ctx, device, mine_.args);
    ASSERT_TRUE(status.ok()) << status;
    const double tolerance = cli::OutputTolerance(cli::ToleranceKind::kGemm, s_.dtype);
    EXPECT_LE(NormalizedMaxError(mine_.d->Values(), oracle_.d->Values()), tolerance) << "D";
    if (mine_.pre) {
      EXPECT_LE(NormalizedMaxError(mine_.pre->Values(), oracle_.pre->Values()), tolerance)
          << "pre_gelu_out";
    }
  }

 private:
  struct Side {
    std::unique_ptr<TestMatrix> d, pre;
    TeplugGemmArgs args{};
  };
  GemmSetup s_;
  std::unique_ptr<TestMatrix> a_, b_, c_, bias_;
  Side mine_, oracle_;
};

class OpenClGemmNumericsTest
    : public KernelWithOpenCl,
      public ::testing::WithParamInterface<std::tuple<int32_t, Epilogue, bool, bool>> {};

TEST_P(OpenClGemmNumericsTest, MatchesTheReference) {
  GemmSetup s;
  std::tie(s.dtype, s.epilogue, s.trans_a, s.trans_b) = GetParam();
  SCOPED_TRACE(Describe(s));
  GemmPair pair(s, 1234 + static_cast<uint64_t>(s.epilogue));
  pair.RunAndCompare(gemm_, *ctx_, device_);
}

INSTANTIATE_TEST_SUITE_P(DTypesEpiloguesTransposes, OpenClGemmNumericsTest,
                         ::testing::Combine(::testing::Values(TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16),
                                            ::testing::ValuesIn(kEpilogues), ::testing::Bool(),
                                            ::testing::Bool()));

// A, B and D each fp32 or fp16 in every pairing the descriptor's per-operand
// dtype bits allow, with the epilogues that read D's dtype (C, bias, aux).
TEST_F(KernelWithOpenCl, MixedDTypePairingsMatchTheReference) {
  for (int32_t a : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16}) {
    for (int32_t b : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16}) {
      for (int32_t d : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16}) {
        if (a == b && b == d) continue;  // the parameterised suite's cases
        for (Epilogue e : {Epilogue::kNone, Epilogue::kC, Epilogue::kAccumulateAll}) {
          GemmSetup s;
          s.a_dtype = a;
          s.b_dtype = b;
          s.dtype = d;
          s.epilogue = e;
          s.trans_b = true;
          SCOPED_TRACE(Describe(s));
          GemmPair pair(s, 4242 + static_cast<uint64_t>(e));
          pair.RunAndCompare(gemm_, *ctx_, device_);
        }
      }
    }
  }
}

TEST_F(KernelWithOpenCl, PaddedRowsMatchTheReference) {
  for (int32_t dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16}) {
    for (Epilogue e : {Epilogue::kNone, Epilogue::kC, Epilogue::kAccumulateAll}) {
      GemmSetup s;
      s.dtype = dtype;
      s.epilogue = e;
      s.layout.row_padding = 5;  // padding holds NaN: reading it would show
      SCOPED_TRACE(Describe(s));
      GemmPair pair(s, 99);
      pair.RunAndCompare(gemm_, *ctx_, device_);
    }
  }
}

TEST_F(KernelWithOpenCl, ALargerSquareMatchesTheReference) {
  GemmSetup s;
  s.m = s.n = s.k = 256;
  s.epilogue = Epilogue::kBiasGeluAux;
  GemmPair pair(s, 5);
  pair.RunAndCompare(gemm_, *ctx_, device_);
}

// D's old contents are not read without C or accumulate: NaNs left in device
// memory by earlier work stay out of the result (fp32, where CLBlast writes D
// itself with beta 0, and fp16), for a short and a long K.
TEST_F(KernelWithOpenCl, StaleNaNsInDAreNotRead) {
  for (int32_t dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16}) {
    for (int64_t size : {int64_t{16}, int64_t{300}}) {
      SCOPED_TRACE(std::string(sdk::DTypeName(dtype)) + " " + std::to_string(size));
      const size_t element = dtype == TEPLUG_DTYPE_FP16 ? 2 : 4;
      const size_t bytes = static_cast<size_t>(size * size) * element;
      std::mt19937_64 rng(17);
      TestMatrix a(dtype, size, size), b(dtype, size, size), d(dtype, size, size),
          oracle_d(dtype, size, size);
      a.FillRandom(rng);
      b.FillRandom(rng);
      void *da = nullptr, *db = nullptr, *dd = nullptr;
      ASSERT_FALSE(ctx_->Allocate(bytes, 0, &da));
      ASSERT_FALSE(ctx_->Allocate(bytes, 0, &db));
      ASSERT_FALSE(ctx_->Allocate(bytes, 0, &dd));
      ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, da, a.tensor()->data, bytes));
      ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, db, b.tensor()->data, bytes));
      const std::vector<uint8_t> nans(bytes, 0xFF);  // all-ones: a NaN in fp32 and fp16
      ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, dd, nans.data(), bytes));
      TeplugTensor ta = *a.tensor(), tb = *b.tensor(), td = *d.tensor();
      ta.data = da;
      tb.data = db;
      td.data = dd;
      for (TeplugTensor* t : {&ta, &tb, &td}) t->device = &device_;
      TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
      args.a = &ta;
      args.b = &tb;
      args.d = &td;
      args.alpha = 1;
      sdk::OwnedError e(gemm_->vtbl->gemm(gemm_, &args));
      ASSERT_FALSE(e) << e.message();
      ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_DEVICE_TO_HOST, d.tensor()->data, dd, bytes));
      TeplugGemmArgs oracle = args;
      oracle.a = a.tensor();
      oracle.b = b.tensor();
      oracle.d = oracle_d.tensor();
      ASSERT_TRUE(reference::provider::RunReferenceGemm(oracle).ok());
      EXPECT_LE(NormalizedMaxError(d.Values(), oracle_d.Values()),
                cli::OutputTolerance(cli::ToleranceKind::kGemm, dtype));
      for (void* p : {da, db, dd}) EXPECT_FALSE(ctx_->Deallocate(p));
    }
  }
}

// K = 0: no product, D = gelu(beta C + bias) (CLBlast is not called).
TEST_F(KernelWithOpenCl, AnEmptyInnerDimensionLeavesBetaCPlusBias) {
  const int64_t m = 5, n = 7;
  std::mt19937_64 rng(3);
  TestMatrix a(TEPLUG_DTYPE_FP32, m, 0), b(TEPLUG_DTYPE_FP32, 0, n), c(TEPLUG_DTYPE_FP32, m, n),
      bias(TEPLUG_DTYPE_FP32, -1, n), d(TEPLUG_DTYPE_FP32, m, n), oracle_d(TEPLUG_DTYPE_FP32, m, n);
  c.FillRandom(rng);
  bias.FillRandom(rng);
  void *dc = nullptr, *dbias = nullptr, *dd = nullptr;
  ASSERT_FALSE(ctx_->Allocate(m * n * 4, 0, &dc));
  ASSERT_FALSE(ctx_->Allocate(n * 4, 0, &dbias));
  ASSERT_FALSE(ctx_->Allocate(m * n * 4, 0, &dd));
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, dc, c.tensor()->data, m * n * 4));
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_HOST_TO_DEVICE, dbias, bias.tensor()->data, n * 4));
  TeplugTensor ta = *a.tensor(), tb = *b.tensor(), tc = *c.tensor(), tbias = *bias.tensor(),
               td = *d.tensor();
  tc.data = dc;
  tbias.data = dbias;
  td.data = dd;
  for (TeplugTensor* t : {&ta, &tb, &tc, &tbias, &td}) t->device = &device_;
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = &ta;
  args.b = &tb;
  args.c = &tc;
  args.d = &td;
  args.bias = &tbias;
  args.alpha = 1;
  args.beta = -0.5f;
  args.epilogue = TEPLUG_EPILOGUE_GELU;
  sdk::OwnedError e(gemm_->vtbl->gemm(gemm_, &args));
  ASSERT_FALSE(e) << e.message();
  ASSERT_FALSE(ctx_->Copy(TEPLUG_COPY_DEVICE_TO_HOST, d.tensor()->data, dd, m * n * 4));
  TeplugGemmArgs oracle = args;
  oracle.a = a.tensor();
  oracle.b = b.tensor();
  oracle.c = c.tensor();
  oracle.bias = bias.tensor();
  oracle.d = oracle_d.tensor();
  ASSERT_TRUE(reference::provider::RunReferenceGemm(oracle).ok());
  EXPECT_LE(NormalizedMaxError(d.Values(), oracle_d.Values()),
            cli::OutputTolerance(cli::ToleranceKind::kGemm, TEPLUG_DTYPE_FP32));
  for (void* p : {dc, dbias, dd}) EXPECT_FALSE(ctx_->Deallocate(p));
}

// GEMMs from several threads at once on one context (the default queue and
// the program cache shared) each match the reference.
TEST_F(KernelWithOpenCl, ConcurrentCallsMatchTheReference) {
  constexpr int kThreads = 4;
  std::vector<std::unique_ptr<GemmPair>> pairs;
  for (int t = 0; t < kThreads; ++t) {
    GemmSetup s;
    s.dtype = t % 2 == 0 ? TEPLUG_DTYPE_FP32 : TEPLUG_DTYPE_FP16;
    s.epilogue = t < 2 ? Epilogue::kBiasGeluAux : Epilogue::kC;
    pairs.push_back(std::make_unique<GemmPair>(s, 700 + static_cast<uint64_t>(t)));
  }
  std::vector<std::thread> threads;
  for (auto& pair : pairs) {
    threads.emplace_back([&pair] {
      for (int i = 0; i < 3; ++i) pair->RunAndCompare(gemm_, *ctx_, device_);
    });
  }
  for (std::thread& t : threads) t.join();
}

TEST_F(KernelWithOpenCl, TheKernelSelectsOpenClForOpenClTensors) {
  TeplugTensor a = sdk::Versioned<TeplugTensor>(), b = a, d = a;
  for (TeplugTensor* t : {&a, &b, &d}) {
    t->dtype = TEPLUG_DTYPE_FP32;
    t->rank = 2;
    t->shape[0] = t->shape[1] = 8;
    t->device = &device_;
  }
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = &a;
  args.b = &b;
  args.d = &d;
  args.alpha = 1;
  auto selection = kernel_->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, &args);
  ASSERT_TRUE(selection.ok()) << selection.status();
  EXPECT_EQ(selection->implementation->QualifiedName(), "opencl/clblast");
}

}  // namespace
}  // namespace teplug::opencl::provider
