// native/cublaslt through the kernel, the way hosts call it, against the
// reference provider (the fp64 oracle) on random inputs. Without a GPU
// (development machines, CI) the decision record says why native cannot
// serve, in the driver's words; the GPU cases skip with that text. With a
// GPU, each case runs the same GEMM twice through one dispatching IGemm:
// on cuda:0 (native serves it: the record says so) and on host copies
// (the reference serves it), and compares D, and pre_gelu_out when asked,
// element by element.
//
// Tolerance: |native - reference| <= 2^-7 |reference| + atol. 2^-7 is one
// bf16 rounding of the result (the reference rounds an fp64 result once;
// cuBLASLt rounds an fp32 accumulation, which may land on the neighbouring
// bf16 value); atol = 2^-10 * sqrt(K) * max|a| * max|b| covers fp32
// accumulation differences and GELU's tanh near zero.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/kernel/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "native/gemm/testing/gpu_presence.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

using testing::WhyNoGpu;

using ::testing::HasSubstr;

std::unique_ptr<core::Kernel> MakeKernel() {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = "log_level: \"error\"\n";
  auto k = core::Kernel::Create(o);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

float Bf16ToFloat(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t FloatToBf16(float f) {  // round to nearest even; inputs are finite
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
// e4m3 (OCP): 1 sign, 4 exponent (bias 7), 3 mantissa bits.
float E4m3ToFloat(uint8_t c) {
  const int e = (c >> 3) & 0xf, m = c & 7;
  const float v = e == 0 ? std::ldexp(m / 8.0f, -6) : std::ldexp(1 + m / 8.0f, e - 7);
  return (c & 0x80) ? -v : v;
}

class NativeGemmOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    why_no_gpu_ = WhyNoGpu();
    kernel_ = MakeKernel();
    ASSERT_NE(kernel_, nullptr);
  }
  std::string why_no_gpu_;
  std::unique_ptr<core::Kernel> kernel_;
};

TEST_F(NativeGemmOnGpu, WithoutAGpuTheDecisionRecordSaysWhyInTheDriversWords) {
  if (why_no_gpu_.empty()) GTEST_SKIP() << "a GPU is present";
  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  cuda.kind = TEPLUG_DEVICE_CUDA;
  TeplugTensor a = sdk::Versioned<TeplugTensor>(), b = a, d = a;
  for (TeplugTensor* t : {&a, &b, &d}) {
    t->dtype = TEPLUG_DTYPE_BF16;
    t->rank = 2;
    t->shape[0] = t->shape[1] = 64;
    t->device = &cuda;
  }
  TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
  args.a = &a;
  args.b = &b;
  args.d = &d;
  args.alpha = 1.0f;
  absl::StatusOr<core::DecisionRecord> record =
      kernel_->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, &args);
  ASSERT_TRUE(record.ok()) << record.status();
  bool seen = false;
  for (const core::CandidateVerdict& c : record->candidates) {
    const std::string reason = record->Reason(c);
    if (reason.find("native gemm") == std::string::npos) continue;
    seen = true;
    EXPECT_THAT(reason, HasSubstr("native gemm: no CUDA device: " + why_no_gpu_));
  }
  EXPECT_TRUE(seen) << "no candidate of native/cublaslt in the record";
}

// Runs `args` through the kernel's dispatching IGemm with the workspace it
// asks for (on `ctx`'s device when given, else in host memory), on a stream
// of `ctx` that it waits for; "" or the error.
std::string RunGemm(const core::Kernel& k, TeplugGemmArgs args, sdk::DeviceContext* ctx) {
  auto gemm = k.Query<TeplugGemmV1>(sdk::kIidGemmV1);
  if (!gemm) return "no IGemm";
  TeplugStream stream = nullptr;
  if (ctx != nullptr) {
    if (sdk::OwnedError e = ctx->CreateStream(&stream); e) return "stream: " + e.message();
    args.stream = stream;
  }
  size_t bytes = 0;
  if (sdk::OwnedError e(gemm->vtbl->workspace_size(gemm.get(), &args, &bytes)); e) {
    return "workspace_size: " + e.message();
  }
  std::vector<uint8_t> host(bytes);
  void* workspace = host.data();
  if (ctx != nullptr && bytes > 0) {
    if (sdk::OwnedError e = ctx->Allocate(bytes, 256, &workspace); e) return "workspace: " + e.message();
  }
  args.workspace = bytes == 0 ? nullptr : workspace;
  args.workspace_size = bytes;
  sdk::OwnedError e(gemm->vtbl->gemm(gemm.get(), &args));
  std::string error = e ? e.message() : "";
  if (ctx != nullptr) {
    if (sdk::OwnedError s = ctx->SynchronizeStream(stream); s && error.empty()) {
      error = "synchronize: " + s.message();
    }
    if (bytes > 0) {
      if (sdk::OwnedError d = ctx->Deallocate(workspace); d && error.empty())
        error = "free: " + d.message();
    }
    if (sdk::OwnedError d = ctx->DestroyStream(stream); d && error.empty()) {
      error = "stream destroy: " + d.message();
    }
  }
  return error;
}

// D and pre_gelu_out as floats, from the GPU run and the host run.
struct Outcome {
  std::vector<float> native, reference, native_aux, reference_aux;
};

struct Spec {
  const char* name;
  int32_t in_dtype, d_dtype;
  int64_t M, N, K;
  bool bias, gelu_aux, accumulate;
  // fp8 scaling of A and of B: per-tensor, or mxfp8_1d32 (e8m0 per 32 along
  // K; sm_100+), block_1d128 / block_2d128 (fp32 per 1x128 / 128x128; Hopper).
  int32_t a_scaling = TEPLUG_SCALING_PER_TENSOR;
  int32_t b_scaling = TEPLUG_SCALING_PER_TENSOR;
};

class NativeGemmMatchesTheReference : public ::testing::TestWithParam<Spec> {};

size_t ElemBytes(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP32 ? 4 : dtype == TEPLUG_DTYPE_BF16 ? 2 : 1;
}

float ReadElem(int32_t dtype, const uint8_t* p) {
  if (dtype == TEPLUG_DTYPE_FP32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (dtype == TEPLUG_DTYPE_BF16) {
    uint16_t b;
    std::memcpy(&b, p, 2);
    return Bf16ToFloat(b);
  }
  return E4m3ToFloat(*p);
}

TEST_P(NativeGemmMatchesTheReference, OnRandomInputs) {
  const std::string why = WhyNoGpu();
  if (!why.empty()) GTEST_SKIP() << "no CUDA device: " << why;
  const Spec s = GetParam();
  auto k = MakeKernel();
  ASSERT_NE(k, nullptr);
  auto dev = k->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  cuda.kind = TEPLUG_DEVICE_CUDA;
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  cuda.arch = prop.major * 10 + prop.minor;
  std::unique_ptr<sdk::DeviceContext> ctx;
  sdk::OwnedError opened = sdk::DeviceContext::Open(dev.get(), cuda, &ctx);
  ASSERT_FALSE(opened) << opened.message();

  // Random host contents: bf16 uniform in [-1, 1]; e4m3 codes below 2 in
  // magnitude (exponent bit 6 clear: never NaN).
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  auto fill = [&](int32_t dtype, int64_t n) {
    std::vector<uint8_t> v(static_cast<size_t>(n) * ElemBytes(dtype));
    for (int64_t i = 0; i < n; ++i) {
      if (dtype == TEPLUG_DTYPE_BF16) {
        const uint16_t b = FloatToBf16(uni(rng));
        std::memcpy(&v[static_cast<size_t>(i) * 2], &b, 2);
      } else if (dtype == TEPLUG_DTYPE_FP32) {
        const float f = uni(rng);
        std::memcpy(&v[static_cast<size_t>(i) * 4], &f, 4);
      } else {
        v[static_cast<size_t>(i)] = static_cast<uint8_t>(rng() & 0xbf);
      }
    }
    return v;
  };
  const bool fp8 = s.in_dtype == TEPLUG_DTYPE_FP8_E4M3;
  const bool mx = s.a_scaling == TEPLUG_SCALING_MXFP8_1D32;
  const bool blocks = s.a_scaling == TEPLUG_SCALING_BLOCK_1D128 || s.a_scaling == TEPLUG_SCALING_BLOCK_2D128;
  if (mx && cuda.arch < 100) GTEST_SKIP() << "MXFP8 needs sm_100 or later; cuda:0 is sm_" << cuda.arch;
  if (blocks && (cuda.arch < 90 || cuda.arch >= 100)) {
    GTEST_SKIP() << "cuBLASLt's 1x128/128x128 block scaling is Hopper's; cuda:0 is sm_" << cuda.arch;
  }
  // Block scales are random powers of two 2^-3 .. 2^3: e8m0 codes 124..130
  // for MXFP8, fp32 for 1x128/128x128 blocks. The grid of a [rows, K]
  // operand per teplug/types.h.
  auto scale_grid = [&](int32_t mode, int64_t rows) -> std::pair<std::vector<uint8_t>, std::vector<int64_t>> {
    const int64_t kb = mode == TEPLUG_SCALING_MXFP8_1D32 ? s.K / 32 : (s.K + 127) / 128;
    const int64_t gr = mode == TEPLUG_SCALING_BLOCK_2D128 ? (rows + 127) / 128 : rows;
    const size_t n = static_cast<size_t>(gr * kb);
    std::vector<uint8_t> v(mode == TEPLUG_SCALING_MXFP8_1D32 ? n : 4 * n);
    for (size_t i = 0; i < n; ++i) {
      const int e = static_cast<int>(rng() % 7) - 3;
      if (mode == TEPLUG_SCALING_MXFP8_1D32) {
        v[i] = static_cast<uint8_t>(127 + e);
      } else {
        const float f = std::ldexp(1.0f, e);
        std::memcpy(&v[4 * i], &f, 4);
      }
    }
    return {v, {gr, kb}};
  };
  const float a_scale_inv = fp8 ? 0.5f : 1.0f, b_scale_inv = fp8 ? 0.25f : 1.0f;
  struct Named {
    std::vector<uint8_t> host;
    std::vector<int64_t> shape;
    int32_t dtype;
  };
  std::vector<Named> tensors = {
      {fill(s.in_dtype, s.M * s.K), {s.M, s.K}, s.in_dtype},  // 0 A
      {fill(s.in_dtype, s.N * s.K), {s.N, s.K}, s.in_dtype},  // 1 B
      {fill(s.d_dtype, s.M * s.N), {s.M, s.N}, s.d_dtype},    // 2 D (initial: accumulate)
      {fill(s.d_dtype, s.N), {s.N}, s.d_dtype},               // 3 bias
      {fill(s.d_dtype, s.M * s.N), {s.M, s.N}, s.d_dtype},    // 4 pre_gelu_out
      {std::vector<uint8_t>(4), {1}, TEPLUG_DTYPE_FP32},      // 5 A scale_inv
      {std::vector<uint8_t>(4), {1}, TEPLUG_DTYPE_FP32},      // 6 B scale_inv
  };
  std::memcpy(tensors[5].host.data(), &a_scale_inv, 4);
  std::memcpy(tensors[6].host.data(), &b_scale_inv, 4);
  if (mx || blocks) {
    const int32_t grid_dtype = mx ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
    auto [a_grid, a_shape] = scale_grid(s.a_scaling, s.M);
    auto [b_grid, b_shape] = scale_grid(s.b_scaling, s.N);
    tensors[5] = {a_grid, a_shape, grid_dtype};
    tensors[6] = {b_grid, b_shape, grid_dtype};
  }

  // The same GEMM twice: on the GPU (device copies) and on the host.
  Outcome out;
  for (const bool on_gpu : {true, false}) {
    std::vector<TeplugTensor> t(tensors.size(), sdk::Versioned<TeplugTensor>());
    std::vector<void*> device(tensors.size(), nullptr);
    for (size_t i = 0; i < tensors.size(); ++i) {
      t[i].dtype = tensors[i].dtype;
      t[i].rank = static_cast<int32_t>(tensors[i].shape.size());
      for (size_t j = 0; j < tensors[i].shape.size(); ++j) t[i].shape[j] = tensors[i].shape[j];
      const size_t bytes = tensors[i].host.size();
      if (on_gpu) {
        ASSERT_FALSE(ctx->Allocate(bytes, 256, &device[i]));
        ASSERT_FALSE(
            ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, device[i], tensors[i].host.data(), bytes));
        t[i].data = device[i];
        t[i].device = &cuda;
      } else {
        t[i].data = tensors[i].host.data();  // the host run writes D and pre_gelu_out in place
      }
    }
    TeplugQuantization qa = sdk::Versioned<TeplugQuantization>(), qb = qa;
    qa.mode = s.a_scaling;
    qb.mode = s.b_scaling;
    qa.scale_inv = &t[5];
    qb.scale_inv = &t[6];
    if (fp8) {
      t[0].quant = &qa;
      t[1].quant = &qb;
    }
    TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
    args.a = &t[0];
    args.b = &t[1];
    args.d = &t[2];
    args.trans_b = 1;
    args.alpha = 1.0f;
    args.accumulate = s.accumulate;
    args.use_split_accumulator = 1;
    if (s.bias) args.bias = &t[3];
    if (s.gelu_aux) {
      args.epilogue = TEPLUG_EPILOGUE_GELU;
      args.pre_gelu_out = &t[4];
    }
    std::string served_by;
    {
      core::ServedByRecorder recorder;
      const std::string error = RunGemm(*k, args, on_gpu ? ctx.get() : nullptr);
      ASSERT_EQ(error, "") << (on_gpu ? "on cuda:0" : "on the host");
      served_by = recorder.last();
    }
    std::vector<float>& d = on_gpu ? out.native : out.reference;
    std::vector<float>& aux = on_gpu ? out.native_aux : out.reference_aux;
    for (const size_t i : {size_t{2}, size_t{4}}) {
      std::vector<uint8_t> back = tensors[i].host;
      if (on_gpu) {
        ASSERT_FALSE(ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, back.data(), device[i], back.size()));
      }
      std::vector<float>& into = i == 2 ? d : aux;
      for (size_t e = 0; e < back.size() / ElemBytes(tensors[i].dtype); ++e) {
        into.push_back(ReadElem(tensors[i].dtype, &back[e * ElemBytes(tensors[i].dtype)]));
      }
    }
    if (on_gpu) {
      EXPECT_EQ(served_by, "native/cublaslt");
      for (void* p : device) ASSERT_FALSE(ctx->Deallocate(p));
    } else {
      EXPECT_EQ(served_by, "reference/gemm");
    }
  }
  ASSERT_FALSE(ctx->Close());

  const double max_scale = 8.0;  // the largest block scale
  const double max_a = mx || blocks ? 2.0 * max_scale : fp8 ? 2.0 * a_scale_inv : 1.0;
  const double max_b = mx || blocks ? 2.0 * max_scale : fp8 ? 2.0 * b_scale_inv : 1.0;
  const double atol = std::ldexp(1.0, -10) * std::sqrt(static_cast<double>(s.K)) * max_a * max_b;
  auto compare = [&](const std::vector<float>& got, const std::vector<float>& want,
                     const char* what) {
    ASSERT_EQ(got.size(), want.size());
    int bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const double tol = std::ldexp(std::fabs(want[i]), -7) + atol;
      if (!(std::fabs(got[i] - want[i]) <= tol) && ++bad <= 5) {
        ADD_FAILURE() << what << "[" << i / static_cast<size_t>(s.N) << ", "
                      << i % static_cast<size_t>(s.N) << "]: native " << got[i] << ", reference "
                      << want[i] << ", tolerance " << tol;
      }
    }
    EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size()
                      << " elements outside the tolerance";
  };
  compare(out.native, out.reference, "D");
  if (s.gelu_aux) compare(out.native_aux, out.reference_aux, "pre_gelu_out");
}

INSTANTIATE_TEST_SUITE_P(DtypesAndEpilogues, NativeGemmMatchesTheReference,
                         ::testing::Values(Spec{"bf16", TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_BF16, 192,
                                                160, 256, false, false, false},
                                           Spec{"bf16_bias_gelu_aux", TEPLUG_DTYPE_BF16,
                                                TEPLUG_DTYPE_BF16, 128, 96, 64, true, true, false},
                                           Spec{"fp32_accumulate", TEPLUG_DTYPE_FP32,
                                                TEPLUG_DTYPE_FP32, 64, 80, 48, false, false, true},
                                           Spec{"fp8_e4m3_into_bf16_bias", TEPLUG_DTYPE_FP8_E4M3,
                                                TEPLUG_DTYPE_BF16, 128, 64, 128, true, false,
                                                false},
                                           // 200 rows: two 128-row bands of scale tiles, the
                                           // second padded; K / 32 = 5 blocks: two tiles along K.
                                           Spec{"mxfp8_e4m3_into_bf16", TEPLUG_DTYPE_FP8_E4M3,
                                                TEPLUG_DTYPE_BF16, 200, 64, 160, false, false,
                                                false, TEPLUG_SCALING_MXFP8_1D32,
                                                TEPLUG_SCALING_MXFP8_1D32},
                                           // 1x128 A (200 rows, 3 K blocks: the copy transposes
                                           // and pads 200 -> 200) by 128x128 B (64 -> 1 block).
                                           Spec{"block_1x128_by_128x128_into_bf16_bias",
                                                TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_BF16, 200, 64,
                                                384, true, false, false, TEPLUG_SCALING_BLOCK_1D128,
                                                TEPLUG_SCALING_BLOCK_2D128},
                                           Spec{"block_128x128_by_1x128_into_fp32",
                                                TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP32, 136, 104,
                                                256, false, false, false, TEPLUG_SCALING_BLOCK_2D128,
                                                TEPLUG_SCALING_BLOCK_1D128}),
                         [](const ::testing::TestParamInfo<Spec>& i) { return i.param.name; });

}  // namespace
}  // namespace teplug::native
