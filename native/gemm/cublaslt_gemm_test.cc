// The cuBLASLt IGemm on a host without a GPU: a fake cuBLASLt
// (testing/fake_cublaslt.h) and a fake CUDA runtime stand in for the library
// and the driver, so every refusal, the algorithm cache, the descriptor
// attributes of each dtype and epilogue case, the workspace and every
// cuBLASLt error are checked here. The real library's loading is checked
// against the toolkit's libcublasLt (no GPU needed to load it).
#include "native/gemm/cublaslt_gemm.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "native/device/testing/fake_cuda_runtime.h"
#include "native/gemm/cublaslt_gemm_plan.h"
#include "native/gemm/cublaslt_library.h"
#include "native/gemm/cublaslt_status.h"
#include "native/gemm/testing/fake_cublaslt.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

using testing::FakeCublasLt;
using testing::FakeCudaRuntime;
using ::testing::HasSubstr;
using ::testing::StartsWith;

CudaDeviceFacts Gpu(int major, int minor) {
  return CudaDeviceFacts{"fake GPU", major, minor, uint64_t{80} << 30};
}

// GEMM args on cuda:<ordinal> with distinct fake device addresses.
class Args {
 public:
  explicit Args(int ordinal = 0) {
    device_ = sdk::Versioned<TeplugDevice>();
    device_.kind = TEPLUG_DEVICE_CUDA;
    device_.ordinal = ordinal;
    args_ = sdk::Versioned<TeplugGemmArgs>();
    args_.alpha = 1.5f;
  }
  TeplugTensor* Tensor(int32_t dtype, std::vector<int64_t> shape) {
    TeplugTensor& t = tensors_.emplace_back(sdk::Versioned<TeplugTensor>());
    t.dtype = dtype;
    t.rank = static_cast<int32_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
    t.device = &device_;
    next_address_ += 1 << 20;
    t.data = reinterpret_cast<void*>(next_address_);
    return &t;
  }
  // Per-tensor scaling with a scale_inv on the device; for D also scale and amax.
  TeplugQuantization* PerTensor(TeplugTensor* t, bool output = false) {
    TeplugQuantization& q = quants_.emplace_back(sdk::Versioned<TeplugQuantization>());
    q.mode = TEPLUG_SCALING_PER_TENSOR;
    if (output) {
      q.scale = Tensor(TEPLUG_DTYPE_FP32, {1});
      q.amax = Tensor(TEPLUG_DTYPE_FP32, {1});
    } else {
      q.scale_inv = Tensor(TEPLUG_DTYPE_FP32, {1});
    }
    t->quant = &q;
    return &q;
  }
  // Block scaling of a [rows, K] operand with its teplug grid: fp32
  // [rows, K/128] (1x128) or [rows/128, K/128] (128x128), rounding up.
  TeplugQuantization* Blocks(TeplugTensor* t, int32_t mode) {
    TeplugQuantization& q = quants_.emplace_back(sdk::Versioned<TeplugQuantization>());
    q.mode = mode;
    const int64_t rows = mode == TEPLUG_SCALING_BLOCK_1D128 ? t->shape[0] : (t->shape[0] + 127) / 128;
    q.scale_inv = Tensor(TEPLUG_DTYPE_FP32, {rows, (t->shape[1] + 127) / 128});
    t->quant = &q;
    return &q;
  }
  // MXFP8 scaling of a [rows, K] operand: e8m0 scale_inv [rows, K / 32].
  TeplugQuantization* Mx(TeplugTensor* t) {
    TeplugQuantization& q = quants_.emplace_back(sdk::Versioned<TeplugQuantization>());
    q.mode = TEPLUG_SCALING_MXFP8_1D32;
    q.scale_inv = Tensor(TEPLUG_DTYPE_E8M0, {t->shape[0], t->shape[1] / 32});
    t->quant = &q;
    return &q;
  }
  // A [M, K] (or [K, M]), B [K, N] (or [N, K]), D [M, N].
  TeplugGemmArgs& Gemm(int32_t dtype, int64_t M, int64_t N, int64_t K, bool trans_a = false,
                       bool trans_b = false, int32_t d_dtype = 0) {
    args_.a = trans_a ? Tensor(dtype, {K, M}) : Tensor(dtype, {M, K});
    args_.b = trans_b ? Tensor(dtype, {N, K}) : Tensor(dtype, {K, N});
    args_.d = Tensor(d_dtype == 0 ? dtype : d_dtype, {M, N});
    args_.trans_a = trans_a;
    args_.trans_b = trans_b;
    return args_;
  }
  TeplugGemmArgs& args() { return args_; }
  TeplugDevice& device() { return device_; }

 private:
  TeplugDevice device_;
  TeplugGemmArgs args_;
  std::deque<TeplugTensor> tensors_;
  std::deque<TeplugQuantization> quants_;
  uintptr_t next_address_ = uintptr_t{1} << 40;
};

// The scale kernels as a recorder: what each launch was asked, and a
// cudaError_t to return.
class RecordingScaleKernels final : public ScaleLayoutKernels {
 public:
  int SwizzleMxScales(const MxScaleSwizzle& launch) override {
    swizzles.push_back(launch);
    return fail_with;
  }
  int CopyBlockScales(const BlockScaleCopy& launch) override {
    block_copies.push_back(launch);
    return fail_with;
  }
  int WriteScaleReciprocal(const ScaleReciprocal& launch) override {
    reciprocals.push_back(launch);
    return fail_with;
  }
  std::vector<MxScaleSwizzle> swizzles;
  std::vector<BlockScaleCopy> block_copies;
  std::vector<ScaleReciprocal> reciprocals;
  int fail_with = 0;
};

// The GEMM with a fake cuBLASLt, runtime and kernels: the GEMM takes the fake
// cuBLASLt on its first question (the loader runs once) and `lt` keeps
// watching it.
struct Fixture {
  explicit Fixture(std::vector<CudaDeviceFacts> gpus = {Gpu(9, 0)},
                   CublasLtGemmOptions options = {})
      : runtime(std::move(gpus)), pending(std::make_unique<FakeCublasLt>()), lt(pending.get()) {
    gemm = NewCublasLtGemm(
        [this] { return absl::StatusOr<std::unique_ptr<CublasLtApi>>(std::move(pending)); },
        runtime, kernels, options);
  }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;

  std::string WhyNot(const TeplugGemmArgs& args) {
    std::string reason;
    return gemm->Supports(args, &reason) ? "" : reason;
  }
  // Runs the GEMM; the error it throws, or none.
  std::pair<TeplugCode, std::string> Run(const TeplugGemmArgs& args) {
    try {
      gemm->Gemm(args);
    } catch (const sdk::Exception& e) {
      return {e.code(), e.what()};
    }
    return {TEPLUG_OK, ""};
  }

  FakeCudaRuntime runtime;
  RecordingScaleKernels kernels;
  std::unique_ptr<FakeCublasLt> pending;  // until the GEMM loads it
  FakeCublasLt* lt;
  std::unique_ptr<sdk::GemmImpl> gemm;
};

// ------------------------------------------------------------ refusals

TEST(CublasLtGemmRefusals, WithoutTheLibraryTheLoadersWordsAreTheReasonAndGemmIsUnavailable) {
  FakeCudaRuntime runtime({Gpu(9, 0)});
  RecordingScaleKernels kernels;
  auto gemm = NewCublasLtGemm(
      [] {
        return absl::StatusOr<std::unique_ptr<CublasLtApi>>(
            LoadCublasLt({"/nonexistent/libcublasLt.so.13"}));
      },
      runtime, kernels);
  Args a;
  a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  std::string reason;
  EXPECT_FALSE(gemm->Supports(a.args(), &reason));
  EXPECT_THAT(reason, StartsWith("native gemm: cuBLASLt not loadable: "));
  EXPECT_THAT(reason, HasSubstr("/nonexistent/libcublasLt.so.13: cannot open shared object file"));
  try {
    gemm->Gemm(a.args());
    ADD_FAILURE() << "gemm ran without a library";
  } catch (const sdk::Exception& e) {
    EXPECT_EQ(e.code(), TEPLUG_UNAVAILABLE);
    EXPECT_EQ(e.what(), reason);
  }
}

TEST(CublasLtGemmRefusals, WithoutAGpuTheRuntimesWordsAreTheReason) {
  Fixture f;
  f.runtime.Fail("GetDeviceCount", testing::kCudaErrorInsufficientDriver);
  Args a;
  a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  EXPECT_THAT(
      f.WhyNot(a.args()),
      StartsWith(
          "native gemm: no CUDA device: cudaGetDeviceCount returned cudaErrorInsufficientDriver"));
  EXPECT_EQ(f.Run(a.args()).first, TEPLUG_UNAVAILABLE);
  EXPECT_NE(f.pending, nullptr) << "cuBLASLt was loaded on a machine without a GPU";
}

TEST(CublasLtGemmRefusals, ZeroGpusAndAnOrdinalBeyondThemAreRefused) {
  Fixture none(std::vector<CudaDeviceFacts>{});
  Args a;
  a.Gemm(TEPLUG_DTYPE_FP16, 8, 8, 8);
  EXPECT_EQ(none.WhyNot(a.args()),
            "native gemm: no CUDA device: cudaGetDeviceCount reported 0 devices");

  Fixture one;
  Args b(3);
  b.Gemm(TEPLUG_DTYPE_FP16, 8, 8, 8);
  EXPECT_EQ(one.WhyNot(b.args()),
            "native gemm: no CUDA device with ordinal 3 (the runtime reports 1)");
}

TEST(CublasLtGemmRefusals, TheArchTableDecidesWithTheRuleAndValuesNamed) {
  Args bf16;
  bf16.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  EXPECT_EQ(Fixture({Gpu(7, 5)}).WhyNot(bf16.args()),
            "native gemm: cuda:0 is sm_75; native serves sm_80 and later");
  EXPECT_EQ(Fixture({Gpu(8, 0)}).WhyNot(bf16.args()), "");

  Args fp8;
  TeplugGemmArgs& g = fp8.Gemm(TEPLUG_DTYPE_FP8_E4M3, 64, 32, 16, false, true, TEPLUG_DTYPE_BF16);
  fp8.PerTensor(const_cast<TeplugTensor*>(g.a));
  fp8.PerTensor(const_cast<TeplugTensor*>(g.b));
  EXPECT_EQ(Fixture({Gpu(8, 0)}).WhyNot(g),
            absl::StrCat("native gemm: A dtype ", TEPLUG_DTYPE_FP8_E4M3,
                         " is not served on Ampere (sm_80) (cuBLASLt 130100)"));
  EXPECT_EQ(Fixture({Gpu(9, 0)}).WhyNot(g), "");
  g.trans_b = 0;
  const_cast<TeplugTensor*>(g.b)->shape[0] = 16;
  const_cast<TeplugTensor*>(g.b)->shape[1] = 32;
  EXPECT_EQ(Fixture({Gpu(9, 0)}).WhyNot(g),
            "native gemm: fp8 needs the TN form on Hopper (sm_90): trans_a 0 and trans_b 1, got 0 "
            "and 0 (cuBLASLt "
            "130100)");
  EXPECT_EQ(Fixture({Gpu(10, 0)}).WhyNot(g), "");
}

TEST(CublasLtGemmRefusals, MxScalesAreServedFromBlackwellOn) {
  Args mx;
  TeplugGemmArgs& g = mx.Gemm(TEPLUG_DTYPE_FP8_E4M3, 64, 32, 64, false, true, TEPLUG_DTYPE_BF16);
  mx.Mx(const_cast<TeplugTensor*>(g.a));
  mx.Mx(const_cast<TeplugTensor*>(g.b));
  EXPECT_EQ(Fixture({Gpu(10, 0)}).WhyNot(g), "");
  EXPECT_THAT(Fixture({Gpu(9, 0)}).WhyNot(g), HasSubstr("scaling mode 2"));
}

// ------------------------------------------------------------ MXFP8 and an fp8 D's scale_inv

TEST(CublasLtGemmMx, ScalesAreTiledIntoTheWorkspaceFrontAndPassedAsTheScalePointers) {
  Fixture f({Gpu(10, 0)});
  f.lt->heuristic_workspace = 4096;
  Args mx;
  // op(A) [200, 96], op(B) [96, 40]: A is [200, 96], B [40, 96] (transposed).
  TeplugGemmArgs& g = mx.Gemm(TEPLUG_DTYPE_FP8_E4M3, 200, 40, 96, false, true, TEPLUG_DTYPE_BF16);
  const TeplugQuantization* qa = mx.Mx(const_cast<TeplugTensor*>(g.a));
  const TeplugQuantization* qb = mx.Mx(const_cast<TeplugTensor*>(g.b));
  // cuBLASLt's A is teplug's B: 40 rows -> one 128-row band, 3 kblocks -> one
  // tile: 512 bytes. cuBLASLt's B is teplug's A: 200 rows -> 2 bands: 1024.
  const size_t b_tiled = 512, a_tiled = 1024;
  // Plus 255 bytes: the layout starts at the workspace's first 256-byte boundary.
  ASSERT_EQ(f.gemm->WorkspaceSize(g), b_tiled + a_tiled + 4096 + 255);

  uint8_t* workspace = reinterpret_cast<uint8_t*>(uintptr_t{1} << 43);
  g.workspace = workspace;
  g.workspace_size = b_tiled + a_tiled + 4096 + 255 - 1;
  const auto refused = f.Run(g);
  EXPECT_EQ(refused.first, TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(
      refused.second,
      "native gemm: workspace of 5886 bytes given; this GEMM needs 5887 (1536 for the scales in "
      "cuBLASLt's layout, 4096 for the algorithm cuBLASLt chose, 255 to start them 256-byte "
      "aligned; ask workspace_size)");
  EXPECT_TRUE(f.kernels.swizzles.empty()) << "nothing is enqueued for a refused call";

  g.workspace_size = 8192;
  g.stream = reinterpret_cast<void*>(uintptr_t{0x5eed});
  ASSERT_EQ(f.Run(g).first, TEPLUG_OK);
  ASSERT_EQ(f.kernels.swizzles.size(), 2u);
  const MxScaleSwizzle& sb = f.kernels.swizzles[0];
  EXPECT_EQ(sb.source, qb->scale_inv->data);
  EXPECT_EQ(sb.rows, 40);
  EXPECT_EQ(sb.kblocks, 3);
  EXPECT_EQ(sb.source_row_stride, 3);
  EXPECT_EQ(sb.tiled, workspace);
  EXPECT_EQ(sb.stream, g.stream);
  const MxScaleSwizzle& sa = f.kernels.swizzles[1];
  EXPECT_EQ(sa.source, qa->scale_inv->data);
  EXPECT_EQ(sa.rows, 200);
  EXPECT_EQ(sa.kblocks, 3);
  EXPECT_EQ(sa.tiled, workspace + b_tiled);

  const testing::FakeMatmulCall call = f.lt->matmuls().back();
  EXPECT_EQ(call.desc.Int(CUBLASLT_MATMUL_DESC_A_SCALE_MODE), CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0);
  EXPECT_EQ(call.desc.Int(CUBLASLT_MATMUL_DESC_B_SCALE_MODE), CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0);
  EXPECT_EQ(call.desc.Int(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER), reinterpret_cast<int64_t>(workspace));
  EXPECT_EQ(call.desc.Int(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER),
            reinterpret_cast<int64_t>(workspace + b_tiled));
  EXPECT_EQ(call.workspace, workspace + b_tiled + a_tiled);
  EXPECT_EQ(call.workspace_bytes, 8192 - b_tiled - a_tiled);
}

TEST(CublasLtGemmMx, AFailedSwizzleLaunchIsAnInternalErrorNamingTheOperand) {
  Fixture f({Gpu(10, 0)});
  Args mx;
  TeplugGemmArgs& g = mx.Gemm(TEPLUG_DTYPE_FP8_E4M3, 64, 32, 64, false, true, TEPLUG_DTYPE_BF16);
  mx.Mx(const_cast<TeplugTensor*>(g.a));
  mx.Mx(const_cast<TeplugTensor*>(g.b));
  g.workspace = reinterpret_cast<void*>(uintptr_t{1} << 43);
  g.workspace_size = f.gemm->WorkspaceSize(g);
  f.kernels.fail_with = testing::kCudaErrorInsufficientDriver;
  const auto failed = f.Run(g);
  EXPECT_EQ(failed.first, TEPLUG_INTERNAL);
  EXPECT_THAT(failed.second, StartsWith("native gemm: copying B's MXFP8 scales into cuBLASLt's layout: "));
  EXPECT_THAT(failed.second, HasSubstr("cudaErrorInsufficientDriver"));
  EXPECT_TRUE(f.lt->matmuls().empty());
}

TEST(CublasLtGemmBlocks, ScalesAreCopiedIntoCuBlasLtsLayoutAndPassedAsTheScalePointers) {
  Fixture f({Gpu(9, 0)});  // Hopper, TN
  Args blocks;
  // A [200, 384] with 1x128 blocks: grid [200, 3] -> cuBLASLt's [3, 200]
  // (already a multiple of 4): 2400 bytes, 2560 aligned. B [40, 384] with
  // 128x128 blocks: grid [1, 3] -> [1, 4]: 16 bytes, 256 aligned.
  TeplugGemmArgs& g = blocks.Gemm(TEPLUG_DTYPE_FP8_E4M3, 200, 40, 384, false, true, TEPLUG_DTYPE_BF16);
  const TeplugQuantization* qa = blocks.Blocks(const_cast<TeplugTensor*>(g.a), TEPLUG_SCALING_BLOCK_1D128);
  const TeplugQuantization* qb = blocks.Blocks(const_cast<TeplugTensor*>(g.b), TEPLUG_SCALING_BLOCK_2D128);
  ASSERT_EQ(f.WhyNot(g), "");
  const size_t b_copy = 256, a_copy = 2560;
  ASSERT_EQ(f.gemm->WorkspaceSize(g), b_copy + a_copy + 255);

  uint8_t* workspace = reinterpret_cast<uint8_t*>(uintptr_t{1} << 43);
  g.workspace = workspace;
  g.workspace_size = b_copy + a_copy + 255;
  ASSERT_EQ(f.Run(g).first, TEPLUG_OK);
  ASSERT_EQ(f.kernels.block_copies.size(), 2u);
  const BlockScaleCopy& cb = f.kernels.block_copies[0];  // cuBLASLt's A: teplug's B
  EXPECT_EQ(cb.source, qb->scale_inv->data);
  EXPECT_EQ(cb.source_rows, 1);
  EXPECT_EQ(cb.source_cols, 3);
  EXPECT_EQ(cb.source_row_stride, 3);
  EXPECT_FALSE(cb.transpose);
  EXPECT_EQ(reinterpret_cast<uint8_t*>(cb.destination), workspace);
  const BlockScaleCopy& ca = f.kernels.block_copies[1];
  EXPECT_EQ(ca.source, qa->scale_inv->data);
  EXPECT_EQ(ca.source_rows, 200);
  EXPECT_EQ(ca.source_cols, 3);
  EXPECT_TRUE(ca.transpose);
  EXPECT_EQ(reinterpret_cast<uint8_t*>(ca.destination), workspace + b_copy);
  EXPECT_TRUE(f.kernels.swizzles.empty());

  const testing::FakeMatmulCall call = f.lt->matmuls().back();
  EXPECT_EQ(call.desc.Int(CUBLASLT_MATMUL_DESC_A_SCALE_MODE), CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F);
  EXPECT_EQ(call.desc.Int(CUBLASLT_MATMUL_DESC_B_SCALE_MODE), CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F);
  EXPECT_EQ(call.desc.Int(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER), reinterpret_cast<int64_t>(workspace));
  EXPECT_EQ(call.desc.Int(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER), reinterpret_cast<int64_t>(workspace + b_copy));
  // The algorithm needs none; it gets what is left, the alignment's slack.
  EXPECT_EQ(call.workspace, workspace + b_copy + a_copy);
  EXPECT_EQ(call.workspace_bytes, 255u);
}

TEST(CublasLtGemmBlocks, BlackwellHasNoBlockScaledMatmulInTheTable) {
  Args blocks;
  TeplugGemmArgs& g = blocks.Gemm(TEPLUG_DTYPE_FP8_E4M3, 64, 32, 256, false, true, TEPLUG_DTYPE_BF16);
  blocks.Blocks(const_cast<TeplugTensor*>(g.a), TEPLUG_SCALING_BLOCK_1D128);
  blocks.Blocks(const_cast<TeplugTensor*>(g.b), TEPLUG_SCALING_BLOCK_1D128);
  EXPECT_EQ(Fixture({Gpu(9, 0)}).WhyNot(g), "");
  EXPECT_THAT(Fixture({Gpu(10, 0)}).WhyNot(g), HasSubstr("scaling mode 3"));
}

TEST(CublasLtGemmMx, AnFp8DsScaleInvIsWrittenAfterTheMatmulOnTheStream) {
  Fixture f({Gpu(9, 0)});
  Args out;
  TeplugGemmArgs& h = out.Gemm(TEPLUG_DTYPE_FP8_E4M3, 64, 32, 64, false, true);
  out.PerTensor(const_cast<TeplugTensor*>(h.a));
  out.PerTensor(const_cast<TeplugTensor*>(h.b));
  TeplugQuantization* dq = out.PerTensor(h.d, true);
  ASSERT_EQ(f.Run(h).first, TEPLUG_OK);
  EXPECT_TRUE(f.kernels.reciprocals.empty()) << "no scale_inv asked for";

  dq->scale_inv = out.Tensor(TEPLUG_DTYPE_FP32, {1});
  h.stream = reinterpret_cast<void*>(uintptr_t{0xabc});
  EXPECT_EQ(f.WhyNot(h), "");
  ASSERT_EQ(f.Run(h).first, TEPLUG_OK);
  ASSERT_EQ(f.kernels.reciprocals.size(), 1u);
  EXPECT_EQ(f.kernels.reciprocals[0].scale, dq->scale->data);
  EXPECT_EQ(f.kernels.reciprocals[0].scale_inv, dq->scale_inv->data);
  EXPECT_EQ(f.kernels.reciprocals[0].stream, h.stream);
}

TEST(CublasLtGemmRefusals, PlanRefusalsAndForeignDevicesKeepTheirCodes) {
  Fixture f;
  Args a;
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  const_cast<TeplugTensor*>(g.b)->shape[0] = 17;
  EXPECT_THAT(f.WhyNot(g), HasSubstr("K differs"));
  EXPECT_EQ(f.Run(g).first, TEPLUG_INVALID_ARGUMENT);

  Args b;
  TeplugGemmArgs& h = b.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  TeplugDevice other = b.device();
  other.ordinal = 1;
  const_cast<TeplugTensor*>(h.a)->device = &other;
  EXPECT_EQ(f.WhyNot(h), "native gemm: A is not on D's device cuda:0");
  EXPECT_EQ(f.Run(h).first, TEPLUG_INVALID_ARGUMENT);

  Args c;
  TeplugGemmArgs& k = c.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16, false, false, TEPLUG_DTYPE_FP16);
  EXPECT_EQ(f.Run(k).first, TEPLUG_UNSUPPORTED);
}

TEST(CublasLtGemmRefusals, AHeuristicWithoutAnAlgorithmIsARefusal) {
  Fixture f;
  f.lt->heuristic_finds_algorithm = false;
  Args a;
  a.Gemm(TEPLUG_DTYPE_FP32, 64, 32, 16);
  EXPECT_EQ(
      f.WhyNot(a.args()),
      "native gemm: cublasLtMatmulAlgoGetHeuristic found no algorithm for this GEMM on cuda:0");
  EXPECT_EQ(f.Run(a.args()).first, TEPLUG_UNSUPPORTED);
  EXPECT_EQ(f.lt->CountOf("Matmul"), 0);
}

// ------------------------------------------------------------ the algorithm cache

TEST(CublasLtGemmAlgorithms, TheHeuristicIsAskedOncePerSignatureAndItsAlgorithmRuns) {
  Fixture f;
  Args a;
  a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  EXPECT_EQ(f.WhyNot(a.args()), "");
  EXPECT_EQ(f.gemm->WorkspaceSize(a.args()), 0u);
  EXPECT_EQ(f.Run(a.args()).first, TEPLUG_OK);
  EXPECT_EQ(f.Run(a.args()).first, TEPLUG_OK);
  EXPECT_EQ(f.lt->heuristic_calls(), 1);
  ASSERT_EQ(f.lt->matmuls().size(), 2u);
  EXPECT_EQ(f.lt->matmuls()[0].algo_id, 1u);  // the heuristic's first answer
  EXPECT_EQ(f.lt->matmuls()[1].algo_id, 1u);

  Args b;  // another shape: another signature
  b.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 48);
  EXPECT_EQ(f.Run(b.args()).first, TEPLUG_OK);
  EXPECT_EQ(f.lt->heuristic_calls(), 2);
  EXPECT_EQ(f.lt->matmuls()[2].algo_id, 2u);
  EXPECT_EQ(f.lt->CountOf("Create"), 1);  // one handle for the GPU
}

TEST(CublasLtGemmAlgorithms, TheCacheIsBoundedLeastRecentlyUsedFirst) {
  CublasLtGemmOptions options;
  options.cache_capacity = 2;
  Fixture f({Gpu(9, 0)}, options);
  Args s1, s2, s3;
  s1.Gemm(TEPLUG_DTYPE_FP16, 64, 32, 16);
  s2.Gemm(TEPLUG_DTYPE_FP16, 64, 32, 32);
  s3.Gemm(TEPLUG_DTYPE_FP16, 64, 32, 48);
  for (TeplugGemmArgs* g : {&s1.args(), &s2.args(), &s3.args()})
    ASSERT_EQ(f.Run(*g).first, TEPLUG_OK);
  EXPECT_EQ(f.lt->heuristic_calls(), 3);
  ASSERT_EQ(f.Run(s3.args()).first, TEPLUG_OK);  // still cached
  EXPECT_EQ(f.lt->heuristic_calls(), 3);
  ASSERT_EQ(f.Run(s1.args()).first, TEPLUG_OK);  // evicted by s3
  EXPECT_EQ(f.lt->heuristic_calls(), 4);
}

TEST(CublasLtGemmAlgorithms, ThePreferenceCarriesTheWorkspaceLimitAndAlignments) {
  CublasLtGemmOptions options;
  options.max_workspace = 4 << 20;
  Fixture f({Gpu(9, 0)}, options);
  Args a;
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  const_cast<TeplugTensor*>(g.a)->data =
      reinterpret_cast<void*>(uintptr_t{1} << 41 | 16);  // 16-byte aligned
  ASSERT_EQ(f.WhyNot(g), "");
  const testing::FakePreference p = f.lt->last_preference();
  EXPECT_EQ(p.attributes.at(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES), 4u << 20);
  EXPECT_EQ(p.attributes.at(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES),
            256u);  // cuBLASLt's A is teplug's B
  EXPECT_EQ(p.attributes.at(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES), 16u);
}

TEST(CublasLtGemmAlgorithms, TheChosenAlgorithmsWorkspaceIsReportedAndRequired) {
  Fixture f;
  f.lt->heuristic_workspace = 3 << 20;
  Args a;
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  EXPECT_EQ(f.gemm->WorkspaceSize(g), (size_t{3} << 20) + 255);
  g.workspace = reinterpret_cast<void*>(uintptr_t{1} << 42);
  g.workspace_size = (3 << 20) + 255 - 1;
  const auto refused = f.Run(g);
  EXPECT_EQ(refused.first, TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(
      refused.second,
      "native gemm: workspace of 3145982 bytes given; this GEMM needs 3145983 (0 for the scales in "
      "cuBLASLt's layout, 3145728 for the algorithm cuBLASLt chose, 255 to start them 256-byte "
      "aligned; ask workspace_size)");
  g.workspace_size = 8 << 20;
  ASSERT_EQ(f.Run(g).first, TEPLUG_OK);
  EXPECT_EQ(f.lt->matmuls().back().workspace, g.workspace);
  EXPECT_EQ(f.lt->matmuls().back().workspace_bytes, size_t{8} << 20);
}

// The GEMM runs with D's GPU current and leaves the caller's thread on its own.
TEST(CublasLtGemmAlgorithms, TheCallersCurrentDeviceIsPutBack) {
  Fixture f({Gpu(9, 0), Gpu(9, 0)});
  Args a(1);
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  f.runtime.set_current_device(0);
  ASSERT_EQ(f.Run(g).second, "");
  EXPECT_EQ(f.lt->matmuls().size(), 1u);
  EXPECT_GE(f.runtime.calls("SetDevice"), 2) << "set to cuda:1, then back";
  EXPECT_EQ(f.runtime.current_device(), 0);
}

// A GEMM that needs no workspace ignores a short, unaligned one.
TEST(CublasLtGemmAlgorithms, AShortUnalignedWorkspaceIsUnusedWhenNoneIsNeeded) {
  Fixture f;
  Args a;
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  ASSERT_EQ(f.gemm->WorkspaceSize(g), 0u);
  g.workspace = reinterpret_cast<void*>((uintptr_t{1} << 42) + 200);
  g.workspace_size = 10;
  ASSERT_EQ(f.Run(g).second, "");
  EXPECT_EQ(f.lt->matmuls().back().workspace, nullptr);
  EXPECT_EQ(f.lt->matmuls().back().workspace_bytes, 0u);
}

// cuBLASLt needs a 256-byte aligned workspace; the caller's may start anywhere.
TEST(CublasLtGemmAlgorithms, AnUnalignedWorkspaceIsUsedFromItsFirstAlignedByte) {
  Fixture f;
  f.lt->heuristic_workspace = 4096;
  Args a;
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  const size_t asked = f.gemm->WorkspaceSize(g);
  for (uintptr_t offset : {1, 8, 200, 255}) {
    uint8_t* const start = reinterpret_cast<uint8_t*>((uintptr_t{1} << 42) + offset);
    g.workspace = start;
    g.workspace_size = asked;
    ASSERT_EQ(f.Run(g).second, "") << "offset " << offset;
    const testing::FakeMatmulCall call = f.lt->matmuls().back();
    EXPECT_EQ(call.workspace, start + (256 - offset)) << "offset " << offset;
    EXPECT_EQ(call.workspace_bytes, asked - (256 - offset)) << "offset " << offset;
    EXPECT_GE(call.workspace_bytes, 4096u);
  }
}

TEST(CublasLtGemmAlgorithms, ConcurrentCallersShareOneLibraryHandleAndCache) {
  Fixture f;
  constexpr int kThreads = 8, kCalls = 40;
  std::vector<std::unique_ptr<Args>> signatures;
  for (int64_t k : {16, 32, 48}) {
    signatures.push_back(std::make_unique<Args>());
    signatures.back()->Gemm(TEPLUG_DTYPE_BF16, 64, 32, k);
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        const TeplugGemmArgs& g = signatures[static_cast<size_t>((t + i) % 3)]->args();
        if (f.Run(g).first != TEPLUG_OK || f.gemm->WorkspaceSize(g) != 0) ++failures;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(f.lt->CountOf("Matmul"), kThreads * kCalls);
  EXPECT_EQ(f.lt->CountOf("GetVersion"), 1);  // loaded once
  EXPECT_EQ(f.lt->CountOf("Create"), 1);      // one handle
  // Racing first callers may each ask; after that the cache answers.
  EXPECT_GE(f.lt->heuristic_calls(), 3);
  EXPECT_LE(f.lt->heuristic_calls(), 3 * kThreads);
}

// ------------------------------------------------------------ what reaches cuBLASLt

// One dtype/epilogue case: the args, and what the matmul descriptor must hold.
struct DescribedCase {
  const char* name;
  void (*make)(Args&);
};

void Bf16Plain(Args& a) { a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16, true, false); }
void Fp32BiasIntoC(Args& a) {
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_FP32, 64, 32, 16, false, true);
  g.bias = a.Tensor(TEPLUG_DTYPE_FP32, {32});
  g.c = a.Tensor(TEPLUG_DTYPE_FP32, {64, 32});
  g.beta = 0.25f;
}
void Fp16GeluAuxBiasAccumulate(Args& a) {
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_FP16, 64, 32, 16);
  g.bias = a.Tensor(TEPLUG_DTYPE_FP16, {32});
  g.epilogue = TEPLUG_EPILOGUE_GELU;
  g.pre_gelu_out = a.Tensor(TEPLUG_DTYPE_FP16, {64, 32});
  g.accumulate = 1;
}
void Bf16Gelu(Args& a) {
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  g.epilogue = TEPLUG_EPILOGUE_GELU;
}
void Fp8IntoFp8WithSplitAccumulator(Args& a) {
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_FP8_E4M3, 64, 32, 16, false, true, TEPLUG_DTYPE_FP8_E5M2);
  a.PerTensor(const_cast<TeplugTensor*>(g.a));
  a.PerTensor(const_cast<TeplugTensor*>(g.b));
  a.PerTensor(g.d, true);
  g.use_split_accumulator = 1;
}
void Fp8IntoFp8WithFp16Bias(Args& a) {
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_FP8_E4M3, 64, 32, 16, false, true, TEPLUG_DTYPE_FP8_E4M3);
  a.PerTensor(const_cast<TeplugTensor*>(g.a));
  a.PerTensor(const_cast<TeplugTensor*>(g.b));
  a.PerTensor(g.d, true);
  g.bias = a.Tensor(TEPLUG_DTYPE_FP16, {32});
}
void Fp8IntoBf16WithBias(Args& a) {
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_FP8_E5M2, 64, 32, 16, false, true, TEPLUG_DTYPE_BF16);
  const_cast<TeplugTensor*>(g.b)->dtype = TEPLUG_DTYPE_FP8_E4M3;
  a.PerTensor(const_cast<TeplugTensor*>(g.a));
  a.PerTensor(const_cast<TeplugTensor*>(g.b));
  g.bias = a.Tensor(TEPLUG_DTYPE_BF16, {32});
}

class CublasLtGemmDescribes : public ::testing::TestWithParam<DescribedCase> {};

const void* Data(const TeplugTensor* t) { return t == nullptr ? nullptr : t->data; }

void ExpectLayout(const testing::FakeLayout& got, const LtMatrixLayout& want, const char* which) {
  EXPECT_EQ(got.type, want.type) << which;
  EXPECT_EQ(got.rows, want.rows) << which;
  EXPECT_EQ(got.cols, want.cols) << which;
  EXPECT_EQ(got.ld, want.ld) << which;
}

TEST_P(CublasLtGemmDescribes, EveryAttributeThePlanCallsForAndNothingElse) {
  Fixture f;
  Args a;
  GetParam().make(a);
  TeplugGemmArgs& g = a.args();
  int stream_token = 0;
  g.stream = &stream_token;
  const absl::StatusOr<CublasLtGemmPlan> plan = PlanCublasLtGemm(g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(f.Run(g).second, "");
  const std::vector<testing::FakeMatmulCall> calls = f.lt->matmuls();
  ASSERT_EQ(calls.size(), 1u);
  const testing::FakeMatmulCall& m = calls[0];
  const testing::FakeMatmulDesc& d = m.desc;

  EXPECT_EQ(d.compute_type, plan->compute_type);
  EXPECT_EQ(d.scale_type, plan->scale_type);
  std::map<int, int64_t> want = {{CUBLASLT_MATMUL_DESC_TRANSA, plan->trans_a},
                                 {CUBLASLT_MATMUL_DESC_TRANSB, plan->trans_b}};
  if (plan->epilogue != CUBLASLT_EPILOGUE_DEFAULT)
    want[CUBLASLT_MATMUL_DESC_EPILOGUE] = plan->epilogue;
  if (g.bias != nullptr) {
    want[CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE] = plan->bias_type;
    want[CUBLASLT_MATMUL_DESC_BIAS_POINTER] = reinterpret_cast<int64_t>(g.bias->data);
  }
  if (plan->has_aux) {
    want[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER] =
        reinterpret_cast<int64_t>(g.pre_gelu_out->data);
    want[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD] = plan->aux_ld;
    want[CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE] = plan->aux_type;
  }
  if (plan->fp8) {
    want[CUBLASLT_MATMUL_DESC_FAST_ACCUM] = plan->fast_accum;
    // The swap: cuBLASLt's A scale is teplug's B's scale_inv.
    want[CUBLASLT_MATMUL_DESC_A_SCALE_POINTER] =
        reinterpret_cast<int64_t>(g.b->quant->scale_inv->data);
    want[CUBLASLT_MATMUL_DESC_B_SCALE_POINTER] =
        reinterpret_cast<int64_t>(g.a->quant->scale_inv->data);
  }
  if (plan->d_scale) {
    want[CUBLASLT_MATMUL_DESC_D_SCALE_POINTER] = reinterpret_cast<int64_t>(g.d->quant->scale->data);
  }
  if (plan->d_amax) {
    want[CUBLASLT_MATMUL_DESC_AMAX_D_POINTER] = reinterpret_cast<int64_t>(g.d->quant->amax->data);
  }
  std::map<int, int64_t> got;
  for (const auto& [attr, bytes] : d.attributes)
    got[attr] = d.Int(static_cast<cublasLtMatmulDescAttributes_t>(attr));
  EXPECT_EQ(got, want);

  ExpectLayout(m.a, plan->a, "A");
  ExpectLayout(m.b, plan->b, "B");
  ExpectLayout(m.c, plan->c, "C");
  ExpectLayout(m.d, plan->d, "D");
  EXPECT_EQ(m.a_data, g.b->data);
  EXPECT_EQ(m.b_data, g.a->data);
  // With no C term cuBLASLt gets D as C, or NULL for an fp8 D (whose C layout
  // has another type).
  const bool fp8_d = plan->d.type == CUDA_R_8F_E4M3 || plan->d.type == CUDA_R_8F_E5M2;
  EXPECT_EQ(m.c_data, g.accumulate     ? g.d->data
                      : g.c != nullptr ? Data(g.c)
                      : fp8_d          ? nullptr
                                       : g.d->data);
  EXPECT_EQ(m.d_data, g.d->data);
  EXPECT_EQ(m.alpha, g.alpha);
  EXPECT_EQ(m.beta, plan->beta);
  EXPECT_EQ(m.stream, static_cast<cudaStream_t>(g.stream));
  EXPECT_EQ(m.algo_id, 1u);
  // Descriptors and layouts are released; only the GPU's handle lives on.
  EXPECT_EQ(f.lt->live_objects(), 1);
}

INSTANTIATE_TEST_SUITE_P(
    DtypesAndEpilogues, CublasLtGemmDescribes,
    ::testing::Values(DescribedCase{"Bf16Plain", &Bf16Plain},
                      DescribedCase{"Fp32BiasIntoC", &Fp32BiasIntoC},
                      DescribedCase{"Fp16GeluAuxBiasAccumulate", &Fp16GeluAuxBiasAccumulate},
                      DescribedCase{"Bf16Gelu", &Bf16Gelu},
                      DescribedCase{"Fp8IntoFp8WithSplitAccumulator",
                                    &Fp8IntoFp8WithSplitAccumulator},
                      DescribedCase{"Fp8IntoFp8WithFp16Bias", &Fp8IntoFp8WithFp16Bias},
                      DescribedCase{"Fp8IntoBf16WithBias", &Fp8IntoBf16WithBias}),
    [](const ::testing::TestParamInfo<DescribedCase>& i) { return i.param.name; });

TEST(CublasLtGemmDescribesTest, NullDataIsRefusedByNameBeforeAnythingRuns) {
  Fixture f;
  Args a;
  TeplugGemmArgs& g = a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  const_cast<TeplugTensor*>(g.b)->data = nullptr;
  EXPECT_EQ(f.WhyNot(g), "");  // supports() is asked without data
  const auto r = f.Run(g);
  EXPECT_EQ(r.first, TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(r.second, "native gemm: B.data is NULL");
  EXPECT_EQ(f.lt->CountOf("Matmul"), 0);
}

// ------------------------------------------------------------ cuBLASLt's errors

struct StatusCase {
  cublasStatus_t status;
  TeplugCode code;
};

class CublasLtGemmErrors : public ::testing::TestWithParam<StatusCase> {};

TEST_P(CublasLtGemmErrors, AFailedMatmulIsItsStatusByNameWithTheCall) {
  Fixture f;
  f.lt->failures["Matmul"] = GetParam().status;
  Args a;
  a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16);
  const auto r = f.Run(a.args());
  EXPECT_EQ(r.first, GetParam().code);
  EXPECT_EQ(r.second, "native gemm: cublasLtMatmul returned " +
                          CublasStatusName(GetParam().status) + " (" +
                          CublasStatusMeaning(GetParam().status) + ")");
  EXPECT_THAT(r.second, HasSubstr("CUBLAS_STATUS_"));
  EXPECT_EQ(f.lt->live_objects(), 1);  // nothing leaked on the way out
}

INSTANTIATE_TEST_SUITE_P(
    EveryStatus, CublasLtGemmErrors,
    ::testing::Values(StatusCase{CUBLAS_STATUS_NOT_INITIALIZED, TEPLUG_UNAVAILABLE},
                      StatusCase{CUBLAS_STATUS_ALLOC_FAILED, TEPLUG_OUT_OF_MEMORY},
                      StatusCase{CUBLAS_STATUS_INVALID_VALUE, TEPLUG_INVALID_ARGUMENT},
                      StatusCase{CUBLAS_STATUS_ARCH_MISMATCH, TEPLUG_UNSUPPORTED},
                      StatusCase{CUBLAS_STATUS_MAPPING_ERROR, TEPLUG_INTERNAL},
                      StatusCase{CUBLAS_STATUS_EXECUTION_FAILED, TEPLUG_INTERNAL},
                      StatusCase{CUBLAS_STATUS_INTERNAL_ERROR, TEPLUG_INTERNAL},
                      StatusCase{CUBLAS_STATUS_NOT_SUPPORTED, TEPLUG_UNSUPPORTED},
                      StatusCase{CUBLAS_STATUS_LICENSE_ERROR, TEPLUG_INTERNAL}));

TEST(CublasLtGemmErrorsTest, EveryCallThatFailsIsNamed) {
  const struct {
    std::string call;
    std::string named;
  } cases[] = {
      {"Create", "cublasLtCreate returned CUBLAS_STATUS_NOT_INITIALIZED"},
      {"MatmulDescCreate", "cublasLtMatmulDescCreate returned CUBLAS_STATUS_NOT_INITIALIZED"},
      {"MatmulDescSetAttribute(" + std::to_string(CUBLASLT_MATMUL_DESC_EPILOGUE) + ")",
       "cublasLtMatmulDescSetAttribute(EPILOGUE) returned CUBLAS_STATUS_NOT_INITIALIZED"},
      {"MatrixLayoutCreate",
       "cublasLtMatrixLayoutCreate(A) returned CUBLAS_STATUS_NOT_INITIALIZED"},
      {"MatmulPreferenceCreate",
       "cublasLtMatmulPreferenceCreate returned CUBLAS_STATUS_NOT_INITIALIZED"},
      {"MatmulPreferenceSetAttribute(" + std::to_string(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES) +
           ")",
       "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES) returned "
       "CUBLAS_STATUS_NOT_INITIALIZED"},
      {"MatmulAlgoGetHeuristic",
       "cublasLtMatmulAlgoGetHeuristic returned CUBLAS_STATUS_NOT_INITIALIZED"},
  };
  for (const auto& c : cases) {
    Fixture f;
    f.lt->failures[c.call] = CUBLAS_STATUS_NOT_INITIALIZED;
    Args a;
    a.Gemm(TEPLUG_DTYPE_BF16, 64, 32, 16).epilogue = TEPLUG_EPILOGUE_GELU;
    EXPECT_THAT(f.WhyNot(a.args()), StartsWith("native gemm: " + c.named)) << c.call;
    EXPECT_EQ(f.Run(a.args()).first, TEPLUG_UNAVAILABLE) << c.call;
    EXPECT_LE(f.lt->live_objects(), 1) << c.call << ": a descriptor, layout or preference leaked";
  }
}

TEST(CublasLtStatusTest, AStatusTheHeadersDoNotDefineIsNamedByNumber) {
  EXPECT_EQ(CublasStatusName(static_cast<cublasStatus_t>(99)), "cublasStatus_t 99");
  EXPECT_EQ(TeplugCodeOfCublas(static_cast<cublasStatus_t>(99)), TEPLUG_INTERNAL);
}

// ------------------------------------------------------------ the real library

TEST(CublasLtLibraryTest, MissingLibraryAndMissingFunctionsAreReportedInTheLoadersWords) {
  absl::StatusOr<std::unique_ptr<CublasLtApi>> none =
      LoadCublasLt({"/nonexistent/a.so", "/nonexistent/b.so"});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(std::string(none.status().message()),
              HasSubstr("/nonexistent/a.so: cannot open shared object file"));
  EXPECT_THAT(std::string(none.status().message()),
              HasSubstr("/nonexistent/b.so: cannot open shared object file"));

  absl::StatusOr<std::unique_ptr<CublasLtApi>> wrong = LoadCublasLt({"libm.so.6"});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(std::string(wrong.status().message()),
              StartsWith("cuBLASLt lacks a function the GEMM calls: cublasLtGetVersion: "));
}

TEST(CublasLtLibraryTest, TheToolkitsLibraryLoadsWithoutAGpuAndReportsItsVersion) {
  absl::StatusOr<std::unique_ptr<CublasLtApi>> lt = LoadCublasLt(CublasLtCandidatePaths());
  ASSERT_TRUE(lt.ok()) << lt.status();
  EXPECT_EQ((*lt)->GetVersion() / 10000, static_cast<size_t>(CUBLAS_VER_MAJOR));
}

TEST(CublasLtGemmCapsTest, ServesCudaOfEveryArchWithTheTablesDtypesAndEveryScalingMode) {
  const TeplugGemmCaps& caps = *CublasLtGemmCaps();
  ASSERT_EQ(caps.num_devices, 1u);
  EXPECT_EQ(caps.devices[0].kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(caps.devices[0].arch_min, 0);
  EXPECT_NE(caps.a_dtypes & TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3), 0u);
  EXPECT_NE(caps.a_dtypes & TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16), 0u);
  EXPECT_EQ(caps.scaling_modes,
            TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32) |
                TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_1D128) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_2D128));
  EXPECT_EQ(caps.epilogues, TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX |
                                TEPLUG_GEMM_CAP_ACCUMULATE);
}

}  // namespace
}  // namespace teplug::native
