#include "native/gemm/cublaslt_gemm.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "native/device/current_device_scope.h"
#include "native/device/device_description.h"
#include "native/gemm/algorithm_cache.h"
#include "native/gemm/block_scale_layout.h"
#include "native/gemm/cublaslt_gemm_plan.h"
#include "native/gemm/cublaslt_gemm_support.h"
#include "native/gemm/cublaslt_heuristic.h"
#include "native/gemm/cublaslt_library.h"
#include "native/gemm/cublaslt_matmul_description.h"
#include "native/gemm/cublaslt_status.h"
#include "native/gemm/mx_scale_layout.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

// What the GEMM learns once: the library, or why there is none.
struct Library {
  std::unique_ptr<CublasLtApi> lt;
  size_t version = 0;
  std::string missing_reason;  // set when lt is null
};

// The GPUs' archs, or why there are none.
struct Gpus {
  std::vector<int32_t> archs;
  std::string missing_reason;  // set when archs is empty
};

// A GEMM the checks accepted: its plan, GPU and algorithm.
struct Accepted {
  CublasLtGemmPlan plan;
  int ordinal = 0;
  cublasLtHandle_t handle = nullptr;
  ChosenAlgorithm chosen;
};

// Every given tensor on D's CUDA device; returns D's ordinal.
absl::StatusOr<int> OrdinalOfTensors(const TeplugGemmArgs& args) {
  const struct {
    const TeplugTensor* t;
    const char* name;
  } tensors[] = {{args.d, "D"}, {args.a, "A"},       {args.b, "B"},
                 {args.c, "C"}, {args.bias, "bias"}, {args.pre_gelu_out, "pre_gelu_out"}};
  if (args.d == nullptr) return absl::InvalidArgumentError("native gemm: D is NULL");
  const TeplugDevice* d = args.d->device;
  if (d == nullptr || d->kind != TEPLUG_DEVICE_CUDA) {
    return absl::InvalidArgumentError(absl::StrCat("native gemm: D is not on a CUDA device (kind ",
                                                   d == nullptr ? TEPLUG_DEVICE_CPU : d->kind,
                                                   ")"));
  }
  for (const auto& x : tensors) {
    if (x.t == nullptr || (x.t == args.c && args.accumulate)) continue;
    const TeplugDevice* td = x.t->device;
    if (td == nullptr || td->kind != TEPLUG_DEVICE_CUDA || td->ordinal != d->ordinal) {
      return absl::InvalidArgumentError(
          absl::StrCat("native gemm: ", x.name, " is not on D's device cuda:", d->ordinal));
    }
  }
  return d->ordinal;
}

// Scaling modes native serves: per-tensor scales go to cuBLASLt as they are,
// MXFP8 and block scales through a copy in cuBLASLt's layout in the workspace.
constexpr uint32_t kServedScaling =
    TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32) |
    TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_1D128) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_BLOCK_2D128);

// The workspace is cut at this alignment: cuBLASLt's part (which cuBLASLt
// requires 256-byte aligned) and each tiled scale copy start on it. The
// caller's workspace may start anywhere, so a GEMM that uses one asks for
// kWorkspaceAlignment - 1 bytes more and starts at its first aligned byte.
constexpr size_t kWorkspaceAlignment = 256;

size_t AlignedUp(size_t n) { return (n + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment; }

// Bytes of the copy of one operand's scales in cuBLASLt's layout (0 for
// per-tensor scales, which cuBLASLt reads where they are).
size_t TiledScaleBytes(const LtOperandScaling& s) {
  if (!s.scaled || s.mode == CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F) return 0;
  if (s.mode == CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0) {
    return AlignedUp(static_cast<size_t>(MxTiledBytes(s.grid_rows, s.grid_cols)));
  }
  return AlignedUp(sizeof(float) *
                   static_cast<size_t>(BlockScaleElements(s.grid_rows, s.grid_cols, s.grid_transpose)));
}

// The workspace of a GEMM: the scale copies of cuBLASLt's A and B first,
// then what the chosen algorithm needs.
struct WorkspaceLayout {
  size_t a_scales = 0, b_scales = 0;  // bytes of each copy
  size_t algorithm = 0;
  size_t staging() const { return a_scales + b_scales; }
  size_t used() const { return staging() + algorithm; }
  // What workspace_size reports: `used` from an aligned start anywhere in it.
  size_t asked() const { return used() == 0 ? 0 : used() + kWorkspaceAlignment - 1; }
};

class CublasLtGemm final : public sdk::GemmImpl {
 public:
  CublasLtGemm(CublasLtLoader loader, CudaRuntimeApi& runtime, ScaleLayoutKernels& kernels,
               CublasLtGemmOptions options)
      : loader_(std::move(loader)),
        runtime_(runtime),
        kernels_(kernels),
        options_(options),
        cache_(options.cache_capacity) {}

  ~CublasLtGemm() override {
    if (library_.lt == nullptr) return;
    for (const auto& [ordinal, handle] : handles_) {
      const CurrentDeviceScope device(runtime_, ordinal);
      if (device.error() == kCudaSuccess) library_.lt->Destroy(handle);
    }
  }

  bool Supports(const TeplugGemmArgs& args, std::string* reason) override {
    absl::StatusOr<Accepted> accepted = Accept(args);
    if (accepted.ok()) return true;
    *reason = std::string(accepted.status().message());
    return false;
  }

  size_t WorkspaceSize(const TeplugGemmArgs& args) override {
    return Workspace(Require(args)).asked();
  }

  void Gemm(const TeplugGemmArgs& args) override {
    const Accepted g = Require(args);
    const struct {
      const TeplugTensor* t;
      const char* name;
    } data[] = {{args.a, "A"}, {args.b, "B"}, {args.d, "D"}};
    for (const auto& x : data) {
      if (x.t->data == nullptr)
        throw sdk::InvalidArgument(absl::StrCat("native gemm: ", x.name, ".data is NULL"));
    }
    const size_t given = args.workspace == nullptr ? 0 : args.workspace_size;
    const WorkspaceLayout w = Workspace(g);
    if (given < w.asked()) {
      throw sdk::InvalidArgument(
          absl::StrCat("native gemm: workspace of ", given, " bytes given; this GEMM needs ",
                       w.asked(), " (", w.staging(), " for the scales in cuBLASLt's layout, ",
                       w.algorithm, " for the algorithm cuBLASLt chose, ", w.asked() - w.used(),
                       " to start them 256-byte aligned; ask workspace_size)"));
    }
    const CurrentDeviceScope device(runtime_, g.ordinal);
    if (device.error() != kCudaSuccess) {
      throw sdk::Internal("native gemm: " +
                          CudaCallFailure(runtime_, "cudaSetDevice", device.error()));
    }
    const auto start = reinterpret_cast<uintptr_t>(args.workspace);
    const size_t skipped =
        (kWorkspaceAlignment - start % kWorkspaceAlignment) % kWorkspaceAlignment;
    // A GEMM that needs no workspace may be given one shorter than the skip
    // to its first boundary: it then uses none of it.
    const bool fits = given > skipped;
    uint8_t* const workspace = fits ? static_cast<uint8_t*>(args.workspace) + skipped : nullptr;
    const size_t usable = fits ? given - skipped : 0;
    LtScalePointers tiled;
    if (w.a_scales > 0) tiled.a = CopyScales(g.plan.a_scaling, args, workspace);
    if (w.b_scales > 0) tiled.b = CopyScales(g.plan.b_scaling, args, workspace + w.a_scales);
    CublasLtMatmulDescription description(*library_.lt);
    ThrowIfError(description.Build(g.plan, args, tiled));
    const LtOperandPointers p = OperandPointers(g.plan, args);
    const size_t algorithm_bytes = usable - w.staging();
    const cublasStatus_t s = library_.lt->Matmul(
        g.handle, description.desc(), &g.plan.alpha, p.a, description.a(), p.b, description.b(),
        &g.plan.beta, p.c, description.c(), p.d, description.d(), &g.chosen.algo,
        algorithm_bytes == 0 ? nullptr : workspace + w.staging(), algorithm_bytes,
        static_cast<cudaStream_t>(args.stream));
    if (s != CUBLAS_STATUS_SUCCESS) ThrowIfError(CublasError("cublasLtMatmul", s));
    if (g.plan.d_writes_scale_inv) {
      const int e = kernels_.WriteScaleReciprocal(
          ScaleReciprocal{static_cast<const float*>(args.d->quant->scale->data),
                          static_cast<float*>(args.d->quant->scale_inv->data), args.stream});
      if (e != kCudaSuccess) {
        throw sdk::Internal("native gemm: writing D.quant->scale_inv: " +
                            CudaCallFailure(runtime_, "the reciprocal kernel's launch", e));
      }
    }
  }

 private:
  static void ThrowIfError(const absl::Status& s) {
    if (!s.ok()) throw sdk::Exception(TeplugCodeOf(s), std::string(s.message()));
  }

  static WorkspaceLayout Workspace(const Accepted& g) {
    return WorkspaceLayout{TiledScaleBytes(g.plan.a_scaling), TiledScaleBytes(g.plan.b_scaling),
                           g.chosen.workspace};
  }

  // Enqueues the copy of one operand's MXFP8 or block scales into the layout
  // cuBLASLt reads, at `into`; returns `into`.
  const void* CopyScales(const LtOperandScaling& s, const TeplugGemmArgs& args, uint8_t* into) {
    const bool is_a = s.scale_inv_of == TeplugOperand::kA;
    const TeplugTensor* t = is_a ? args.a : args.b;
    const char* name = is_a ? "A" : "B";
    const void* source = t->quant->scale_inv->data;
    if (source == nullptr) {
      throw sdk::InvalidArgument(absl::StrCat("native gemm: ", name, ".quant->scale_inv->data is NULL"));
    }
    const bool mx = s.mode == CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
    const int e =
        mx ? kernels_.SwizzleMxScales(MxScaleSwizzle{static_cast<const uint8_t*>(source), s.grid_rows, s.grid_cols,
                                                     s.grid_row_stride, into, args.stream})
           : kernels_.CopyBlockScales(BlockScaleCopy{static_cast<const float*>(source), s.grid_rows, s.grid_cols,
                                                     s.grid_row_stride, s.grid_transpose,
                                                     reinterpret_cast<float*>(into), args.stream});
    if (e != kCudaSuccess) {
      throw sdk::Internal(absl::StrCat("native gemm: copying ", name, "'s ", mx ? "MXFP8" : "block",
                                       " scales into cuBLASLt's layout: ",
                                       CudaCallFailure(runtime_, "the copy kernel's launch", e)));
    }
    return into;
  }

  Accepted Require(const TeplugGemmArgs& args) {
    absl::StatusOr<Accepted> accepted = Accept(args);
    ThrowIfError(accepted.status());
    return *std::move(accepted);
  }

  // Every check of supports(), in the order the header lists them.
  absl::StatusOr<Accepted> Accept(const TeplugGemmArgs& args) {
    Accepted g;
    absl::StatusOr<CublasLtGemmPlan> plan = PlanCublasLtGemm(args);
    if (!plan.ok()) return plan.status();
    g.plan = *std::move(plan);
    absl::StatusOr<int> ordinal = OrdinalOfTensors(args);
    if (!ordinal.ok()) return ordinal.status();
    g.ordinal = *ordinal;

    // The GPU first: asking the runtime costs ~0.1 ms, loading cuBLASLt tens
    // of milliseconds, which a machine without a GPU never pays.
    const Gpus& gpus = Probed();
    if (gpus.archs.empty()) return absl::UnavailableError(gpus.missing_reason);
    const Library& library = Loaded();
    if (library.lt == nullptr) return absl::UnavailableError(library.missing_reason);
    if (g.ordinal < 0 || static_cast<size_t>(g.ordinal) >= gpus.archs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("native gemm: no CUDA device with ordinal ",
                                                     g.ordinal, " (the runtime reports ",
                                                     gpus.archs.size(), ")"));
    }
    const int32_t arch = gpus.archs[static_cast<size_t>(g.ordinal)];
    const std::optional<GemmArchSupport> support = GemmSupportForArch(arch, library.version);
    if (!support.has_value()) {
      return absl::UnimplementedError(absl::StrCat("native gemm: cuda:", g.ordinal, " is sm_", arch,
                                                   "; native serves sm_80 and later"));
    }
    if (std::string why = WhyNotOnArch(args, *support); !why.empty()) {
      return absl::UnimplementedError(absl::StrCat(why, " (cuBLASLt ", library.version, ")"));
    }

    absl::StatusOr<cublasLtHandle_t> handle = HandleFor(g.ordinal);
    if (!handle.ok()) return handle.status();
    g.handle = *handle;
    absl::StatusOr<ChosenAlgorithm> chosen = Choose(g, args);
    if (!chosen.ok()) return chosen.status();
    g.chosen = *chosen;
    return g;
  }

  // The cached algorithm of this signature, or the heuristic's first.
  absl::StatusOr<ChosenAlgorithm> Choose(const Accepted& g, const TeplugGemmArgs& args) {
    const LtOperandPointers p = OperandPointers(g.plan, args);
    const uint32_t alignments[kKeyedPointers] = {AlignmentClass(p.a),    AlignmentClass(p.b),
                                                 AlignmentClass(p.c),    AlignmentClass(p.d),
                                                 AlignmentClass(p.bias), AlignmentClass(p.aux)};
    const AlgorithmKey key =
        MakeAlgorithmKey(g.plan, g.ordinal, alignments, options_.max_workspace);
    if (std::optional<ChosenAlgorithm> hit = cache_.Find(key)) return *hit;

    CublasLtApi& lt = *library_.lt;
    const CurrentDeviceScope device(runtime_, g.ordinal);
    if (device.error() != kCudaSuccess) {
      return absl::InternalError("native gemm: " +
                                 CudaCallFailure(runtime_, "cudaSetDevice", device.error()));
    }
    CublasLtMatmulDescription description(lt);
    if (absl::Status s = description.Build(g.plan, args); !s.ok()) return s;
    absl::StatusOr<ChosenAlgorithm> chosen = AskCublasLtHeuristic(
        lt, g.handle, description, alignments, options_.max_workspace, g.ordinal);
    if (chosen.ok()) cache_.Insert(key, *chosen);
    return chosen;
  }

  absl::StatusOr<cublasLtHandle_t> HandleFor(int ordinal) {
    std::lock_guard<std::mutex> lock(handles_mu_);
    if (auto it = handles_.find(ordinal); it != handles_.end()) return it->second;
    const CurrentDeviceScope device(runtime_, ordinal);
    if (device.error() != kCudaSuccess) {
      return absl::InternalError("native gemm: " +
                                 CudaCallFailure(runtime_, "cudaSetDevice", device.error()));
    }
    cublasLtHandle_t handle = nullptr;
    const cublasStatus_t s = library_.lt->Create(&handle);
    if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasLtCreate", s);
    handles_.emplace(ordinal, handle);
    return handle;
  }

  const Library& Loaded() {
    std::call_once(loaded_, [this] {
      absl::StatusOr<std::unique_ptr<CublasLtApi>> lt = loader_();
      if (!lt.ok()) {
        library_.missing_reason = absl::StrCat("native gemm: ", lt.status().message());
        return;
      }
      library_.lt = *std::move(lt);
      library_.version = library_.lt->GetVersion();
    });
    return library_;
  }

  const Gpus& Probed() {
    std::call_once(probed_, [this] {
      int count = 0;
      const int e = runtime_.GetDeviceCount(&count);
      if (e != kCudaSuccess) {
        gpus_.missing_reason =
            "native gemm: no CUDA device: " + CudaCallFailure(runtime_, "cudaGetDeviceCount", e);
        return;
      }
      if (count <= 0) {
        gpus_.missing_reason = "native gemm: no CUDA device: cudaGetDeviceCount reported 0 devices";
        return;
      }
      std::vector<int32_t> archs;
      for (int i = 0; i < count; ++i) {
        CudaDeviceFacts facts;
        const int f = runtime_.GetDeviceFacts(i, &facts);
        if (f != kCudaSuccess) {
          gpus_.missing_reason =
              "native gemm: no CUDA device: " +
              CudaCallFailure(runtime_, absl::StrCat("cudaGetDeviceProperties(", i, ")"), f);
          return;
        }
        archs.push_back(ArchOfComputeCapability(facts.major, facts.minor));
      }
      gpus_.archs = std::move(archs);
    });
    return gpus_;
  }

  CublasLtLoader loader_;
  CudaRuntimeApi& runtime_;
  ScaleLayoutKernels& kernels_;
  const CublasLtGemmOptions options_;
  AlgorithmCache<ChosenAlgorithm> cache_;
  std::once_flag loaded_, probed_;
  Library library_;
  Gpus gpus_;
  std::mutex handles_mu_;
  std::map<int, cublasLtHandle_t> handles_;  // guarded by handles_mu_
};

TeplugGemmCaps MakeCaps() {
  static const TeplugDeviceSupport kCuda[] = {
      {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_ANY, 0, 0}};
  TeplugGemmCaps caps = sdk::Versioned<TeplugGemmCaps>();
  for (const NativeGemmCaps& c : GemmCapsForArchs({80, 89, 90, 100}, CUBLAS_VERSION)) {
    caps.a_dtypes |= c.caps.a_dtypes;
    caps.b_dtypes |= c.caps.b_dtypes;
    caps.d_dtypes |= c.caps.d_dtypes;
    caps.epilogues |= c.caps.epilogues;
    caps.scaling_modes |= c.caps.scaling_modes & kServedScaling;
  }
  caps.devices = kCuda;
  caps.num_devices = 1;
  return caps;
}

}  // namespace

std::unique_ptr<sdk::GemmImpl> NewCublasLtGemm(CublasLtLoader loader, CudaRuntimeApi& runtime,
                                               ScaleLayoutKernels& kernels, CublasLtGemmOptions options) {
  return std::make_unique<CublasLtGemm>(std::move(loader), runtime, kernels, options);
}

CublasLtLoader RealCublasLtLoader() {
  return [] { return LoadCublasLt(CublasLtCandidatePaths()); };
}

const TeplugGemmCaps* CublasLtGemmCaps() {
  static const TeplugGemmCaps caps = MakeCaps();
  return &caps;
}

}  // namespace teplug::native
