#include "native/attention/cudnn_attention.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "native/attention/cudnn_attention_support.h"
#include "native/device/current_device_scope.h"
#include "native/device/device_description.h"
#include "native/gemm/algorithm_cache.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::attention {
namespace {

// A call the checks accepted: its problem, GPU, handle and graph.
struct Accepted {
  SdpaProblem problem;
  void* handle = nullptr;
  std::shared_ptr<SdpaGraph> graph;
  SdpaWorkspaceLayout workspace;
};

int ElementBytes(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP8_E4M3 || dtype == TEPLUG_DTYPE_FP8_E5M2 ? 1 : 2;
}

// An amax several of the graph's amax outputs share (dQ, dK and dV of a
// packed layout): after the graph, `dest` = the largest of the scratch slots
// in `mask` (slot i at slots + i * kAmaxSlotFloats).
struct AmaxCombine {
  float* dest;
  const float* slots;
  uint32_t mask;
};

// Points each of the graph's amax outputs at the caller's amax when it is
// the only output writing there, otherwise at its own slot of `scratch`
// (kAmaxSlots slots, kAmaxSlotBytes apart so each is 16-byte aligned as the
// frontend declares it); returns the combines that then write the shared ones.
std::vector<AmaxCombine> RouteAmaxes(std::initializer_list<void**> outputs, float* scratch) {
  std::vector<void*> dests;
  for (void** o : outputs) dests.push_back(*o);
  std::vector<AmaxCombine> combines;
  uint32_t slot = 0;
  for (void** o : outputs) {
    void* const dest = dests[slot];
    const auto shared = std::count(dests.begin(), dests.end(), dest);
    if (dest == nullptr || shared > 1) *o = scratch + slot * SdpaWorkspaceLayout::kAmaxSlotFloats;
    if (dest != nullptr && shared > 1) {
      auto it = std::find_if(combines.begin(), combines.end(),
                             [dest](const AmaxCombine& c) { return c.dest == dest; });
      if (it == combines.end())
        it = combines.insert(combines.end(), AmaxCombine{static_cast<float*>(dest), scratch, 0});
      it->mask |= 1u << slot;
    }
    ++slot;
  }
  return combines;
}

// What native does not build although cuDNN might: "" when none applies.
std::string WhyNotWritten(const SdpaProblem& p) {
  if (p.fp8 && p.backward) {
    // The frontend native is built with (tools/fetch_cudnn_frontend.sh) has
    // no window or determinism option on its fp8 backward graph.
    if (p.window_left != -1 || (p.window_right != -1 && !(p.causal && p.window_right == 0))) {
      return absl::StrCat("native attention: fp8 backward with sliding window (", p.window_left,
                          ", ", p.window_right,
                          "): native's cuDNN frontend has no window option for fp8 backward");
    }
    if (p.deterministic) {
      return "native attention: deterministic fp8 backward: native's cuDNN frontend has no "
             "determinism option for fp8 backward";
    }
  }
  if (p.explicit_alibi_slopes) {
    return "native attention: cuDNN's ALiBi uses the default slopes; explicit params.alibi_slopes would need a "
           "post_scale bias tensor, which native does not build";
  }
  if (p.backward && p.ragged &&
      (p.dq.token_stride != p.q.token_stride || p.dk.token_stride != p.k.token_stride ||
       p.dv.token_stride != p.v.token_stride || p.d_o.token_stride != p.o.token_stride)) {
    return "native attention: thd gradients must have the token strides of q, k, v and o";
  }
  return "";
}

void ThrowIfError(const absl::Status& s) {
  if (s.ok()) return;
  TeplugCode code = TEPLUG_INTERNAL;
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument: code = TEPLUG_INVALID_ARGUMENT; break;
    case absl::StatusCode::kUnimplemented: code = TEPLUG_UNSUPPORTED; break;
    case absl::StatusCode::kUnavailable: code = TEPLUG_UNAVAILABLE; break;
    case absl::StatusCode::kResourceExhausted: code = TEPLUG_OUT_OF_MEMORY; break;
    default: break;
  }
  throw sdk::Exception(code, std::string(s.message()));
}

class CudnnAttention final : public sdk::AttentionImpl {
 public:
  CudnnAttention(CudnnAttentionBackend& backend, CudaRuntimeApi& runtime, size_t capacity)
      : backend_(backend), runtime_(runtime), cache_(std::in_place, capacity) {}

  ~CudnnAttention() override {
    cache_.reset();  // the graphs' plans were built on the handles: they go first
    for (const auto& [ordinal, handle] : handles_) {
      const CurrentDeviceScope device(runtime_, ordinal);
      if (device.error() == kCudaSuccess) backend_.DestroyHandle(handle);
    }
  }

  bool SupportsForward(const TeplugAttentionFwdArgs& args, std::string* reason) override {
    return Answer(Accept(SdpaProblemOfForward(args), args.params), reason);
  }
  bool SupportsBackward(const TeplugAttentionBwdArgs& args, std::string* reason) override {
    return Answer(Accept(SdpaProblemOfBackward(args), args.params), reason);
  }
  size_t ForwardWorkspaceSize(const TeplugAttentionFwdArgs& args) override {
    return Require(SdpaProblemOfForward(args), args.params).workspace.total;
  }
  size_t BackwardWorkspaceSize(const TeplugAttentionBwdArgs& args) override {
    return Require(SdpaProblemOfBackward(args), args.params).workspace.total;
  }

  void Forward(const TeplugAttentionFwdArgs& args) override {
    const Accepted a = Require(SdpaProblemOfForward(args), args.params);
    const SdpaProblem& p = a.problem;
    RequireData({{args.q, "q"}, {args.k, "k"}, {args.v, "v"}, {args.o, "o"}});
    if (p.writes_lse) RequireData({{args.softmax_lse, "softmax_lse"}});
    char* ws = RequireWorkspace(a, args.workspace, args.workspace_size);
    SdpaBuffers b;
    b.q = At(args.q, p.q, p.dtype);
    b.k = At(args.k, p.k, p.dtype);
    b.v = At(args.v, p.v, p.dtype);
    b.o = At(args.o, p.o, p.dtype);
    b.stats = p.writes_lse ? args.softmax_lse->data
              : p.fp8      ? ws + a.workspace.stats_scratch
                           : nullptr;
    b.bias = p.has_bias ? args.bias->data : nullptr;
    b.softmax_scale = args.params->softmax_scale;
    std::vector<AmaxCombine> combines;
    if (p.fp8) {
      b.fp8 = Fp8Scales(SdpaFp8ScalesOfForward(args, p.ordinal));
      combines = RouteAmaxes({&b.fp8.amax_s, &b.fp8.amax_o},
                             reinterpret_cast<float*>(ws + a.workspace.amax_scratch));
    }
    Run(a, *args.params, b, ws, args.stream, [&](const int32_t* len_q, const int32_t*) {
      CombineAmaxes(combines, args.stream);
      if (!p.padding) return;
      if (!p.ragged) {
        Check("zero O past the query lengths",
              backend_.ZeroRowsPastLength(b.o, p.o.dims, p.o.strides, ElementBytes(p.dtype), len_q,
                                          args.stream));
      }
      if (p.writes_lse) {
        Check("-inf LSE past the query lengths",
              backend_.NegInfPastLength(static_cast<float*>(b.stats), p.batch, p.heads_q, p.seq_q, len_q, args.stream));
      }
    });
  }

  void Backward(const TeplugAttentionBwdArgs& args) override {
    const Accepted a = Require(SdpaProblemOfBackward(args), args.params);
    const SdpaProblem& p = a.problem;
    RequireData({{args.q, "q"}, {args.k, "k"}, {args.v, "v"}, {args.o, "o"}, {args.d_o, "d_o"},
                 {args.softmax_lse, "softmax_lse"}, {args.dq, "dq"}, {args.dk, "dk"}, {args.dv, "dv"}});
    char* ws = RequireWorkspace(a, args.workspace, args.workspace_size);
    SdpaBuffers b;
    b.q = At(args.q, p.q, p.dtype);
    b.k = At(args.k, p.k, p.dtype);
    b.v = At(args.v, p.v, p.dtype);
    b.o = At(args.o, p.o, p.dtype);
    b.d_o = At(args.d_o, p.d_o, p.grad_dtype);
    b.dq = At(args.dq, p.dq, p.grad_dtype);
    b.dk = At(args.dk, p.dk, p.grad_dtype);
    b.dv = At(args.dv, p.dv, p.grad_dtype);
    b.stats = args.softmax_lse->data;
    b.bias = p.has_bias ? args.bias->data : nullptr;
    b.dbias = p.dbias ? args.dbias->data : nullptr;
    b.softmax_scale = args.params->softmax_scale;
    std::vector<AmaxCombine> combines;
    if (p.fp8) {
      b.fp8 = Fp8Scales(SdpaFp8ScalesOfBackward(args, p.ordinal));
      combines = RouteAmaxes({&b.fp8.amax_dq, &b.fp8.amax_dk, &b.fp8.amax_dv, &b.fp8.amax_dp},
                             reinterpret_cast<float*>(ws + a.workspace.amax_scratch));
    }
    Run(a, *args.params, b, ws, args.stream, [&](const int32_t* len_q, const int32_t* len_kv) {
      CombineAmaxes(combines, args.stream);
      if (!p.padding || p.ragged) return;
      const int bytes = ElementBytes(p.grad_dtype);
      Check("zero dQ past the query lengths",
            backend_.ZeroRowsPastLength(b.dq, p.dq.dims, p.dq.strides, bytes, len_q, args.stream));
      Check("zero dK past the key lengths",
            backend_.ZeroRowsPastLength(b.dk, p.dk.dims, p.dk.strides, bytes, len_kv, args.stream));
      Check("zero dV past the key lengths",
            backend_.ZeroRowsPastLength(b.dv, p.dv.dims, p.dv.strides, bytes, len_kv, args.stream));
    });
  }

 private:
  using Finish = std::function<void(const int32_t*, const int32_t*)>;

  static bool Answer(const absl::StatusOr<Accepted>& a, std::string* reason) {
    if (a.ok()) return true;
    *reason = std::string(a.status().message());
    return false;
  }

  Accepted Require(absl::StatusOr<SdpaProblem> problem, const TeplugAttentionParams* params) {
    absl::StatusOr<Accepted> a = Accept(std::move(problem), params);
    ThrowIfError(a.status());
    return *std::move(a);
  }

  static void RequireData(std::initializer_list<std::pair<const TeplugTensor*, const char*>> tensors) {
    for (const auto& [t, name] : tensors) {
      if (t->data == nullptr) throw sdk::InvalidArgument(absl::StrCat("native attention: ", name, ".data is NULL"));
    }
  }

  static char* RequireWorkspace(const Accepted& a, void* workspace, size_t size) {
    const size_t given = workspace == nullptr ? 0 : size;
    if (given < a.workspace.total) {
      throw sdk::InvalidArgument(absl::StrCat("native attention: workspace of ", given, " bytes given; this call needs ",
                                              a.workspace.total, " (ask workspace_size)"));
    }
    return static_cast<char*>(workspace);
  }

  static void* At(const TeplugTensor* t, const SdpaTensorView& v, int32_t dtype) {
    return static_cast<char*>(t->data) +
           v.element_offset * static_cast<int64_t>(ElementBytes(dtype));
  }

  static SdpaFp8Scales Fp8Scales(absl::StatusOr<SdpaFp8Scales> scales) {
    ThrowIfError(scales.status());
    return *scales;
  }

  void CombineAmaxes(const std::vector<AmaxCombine>& combines, void* stream) {
    for (const AmaxCombine& c : combines) {
      Check("the largest of the amaxes that share one tensor",
            backend_.MaxOfAmaxes(c.slots, SdpaWorkspaceLayout::kAmaxSlotFloats, c.mask, c.dest,
                                 stream));
    }
  }

  void Check(const char* what, int code) {
    if (code != kCudaSuccess) {
      throw sdk::Internal(absl::StrCat("native attention: ", what, ": ", CudaCallFailure(runtime_, "kernel launch", code)));
    }
  }

  // The sequence kernels, the graph, then `finish` (with the lengths), in
  // stream order, under cudnn_mu_ (the handle holds the stream and is shared
  // with builds).
  void Run(const Accepted& a, const TeplugAttentionParams& params, SdpaBuffers& b, char* ws, void* stream,
           const Finish& finish) {
    const SdpaProblem& p = a.problem;
    const SdpaWorkspaceLayout& w = a.workspace;
    const CurrentDeviceScope device(runtime_, p.ordinal);
    if (device.error() != kCudaSuccess) {
      throw sdk::Internal("native attention: " +
                          CudaCallFailure(runtime_, "cudaSetDevice", device.error()));
    }
    std::lock_guard<std::mutex> lock(cudnn_mu_);
    ThrowIfError(backend_.SetStream(a.handle, stream));
    const int32_t* cu_q = p.padding || p.ragged ? static_cast<const int32_t*>(params.cu_seqlens_q->data) : nullptr;
    const int32_t* cu_kv = p.padding || p.ragged ? static_cast<const int32_t*>(params.cu_seqlens_kv->data) : nullptr;
    if (p.padding || p.ragged) {
      if (cu_q == nullptr || cu_kv == nullptr) {
        throw sdk::InvalidArgument("native attention: params.cu_seqlens_q/kv.data is NULL");
      }
    }
    int32_t* len_q = nullptr;
    int32_t* len_kv = nullptr;
    if (p.padding) {
      len_q = reinterpret_cast<int32_t*>(ws + w.seq_len_q);
      len_kv = reinterpret_cast<int32_t*>(ws + w.seq_len_kv);
      Check("query lengths from cu_seqlens_q", backend_.SequenceLengths(cu_q, len_q, p.batch, stream));
      Check("key lengths from cu_seqlens_kv", backend_.SequenceLengths(cu_kv, len_kv, p.batch, stream));
      b.seq_len_q = len_q;
      b.seq_len_kv = len_kv;
    }
    if (p.ragged) {
      const struct {
        size_t offset;
        const int32_t* cu;
        int64_t token_stride;
        const int64_t** out;
      } offsets[] = {{w.ragged_q, cu_q, p.q.token_stride, &b.ragged_q},
                     {w.ragged_k, cu_kv, p.k.token_stride, &b.ragged_k},
                     {w.ragged_v, cu_kv, p.v.token_stride, &b.ragged_v},
                     {w.ragged_o, cu_q, p.o.token_stride, &b.ragged_o}};
      for (const auto& o : offsets) {
        auto* dst = reinterpret_cast<int64_t*>(ws + o.offset);
        Check("ragged offsets from cu_seqlens", backend_.RaggedOffsets(o.cu, dst, p.batch, o.token_stride, stream));
        *o.out = dst;
      }
    }
    if (p.dropout) {
      auto* rng = reinterpret_cast<int64_t*>(ws + w.rng);
      Check("dropout seed and offset", backend_.WriteRngState(rng, params.rng_seed, params.rng_offset, stream));
      b.rng_state = rng;
    }
    ThrowIfError(a.graph->Execute(b, w.graph_bytes == 0 ? nullptr : ws));
    finish(len_q, len_kv);
  }

  // Every check of supports(), in the order the header lists them.
  // `params` is non-NULL whenever `problem` is ok.
  absl::StatusOr<Accepted> Accept(absl::StatusOr<SdpaProblem> problem, const TeplugAttentionParams* params) {
    if (!problem.ok()) return problem.status();
    Accepted a;
    a.problem = *std::move(problem);
    const SdpaProblem& p = a.problem;
    const CudaArchProbe& gpus = Probed();
    if (gpus.archs.empty()) return WithoutGpu(p, *params, gpus.missing_reason);
    if (p.ordinal < 0 || static_cast<size_t>(p.ordinal) >= gpus.archs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("native attention: no CUDA device with ordinal ", p.ordinal,
                                                     " (the runtime reports ", gpus.archs.size(), ")"));
    }
    const int32_t version = Loaded();
    if (version == 0) return absl::UnavailableError(library_missing_);
    const int32_t arch = gpus.archs[static_cast<size_t>(p.ordinal)];
    const AttentionQuery query = QueryOf(*params, p.backward, p.dtype, p.dbias, arch, version);
    if (std::string why = WhyCudnnRefuses(query); !why.empty()) {
      return absl::UnimplementedError("native attention: " + why);
    }
    if (std::string why = WhyNotWritten(p); !why.empty()) return absl::UnimplementedError(why);
    absl::StatusOr<void*> handle = HandleFor(p.ordinal);
    if (!handle.ok()) return handle.status();
    a.handle = *handle;
    absl::StatusOr<std::shared_ptr<SdpaGraph>> graph = GraphFor(p, a.handle);
    if (!graph.ok()) return graph.status();
    a.graph = *graph;
    a.workspace = LayOutWorkspace(p, a.graph->workspace_size());
    return a;
  }

  // Without a GPU the driver's reason; but when the call's device names an
  // arch (teplug explain --arch 80) and libcudnn loads, the rule table's
  // refusal for that arch comes first, so it can be read on any machine;
  // when cuDNN attention cannot load (no libcudnn, or built without the
  // frontend headers) that reason instead, as no rule can be read.
  absl::Status WithoutGpu(const SdpaProblem& p, const TeplugAttentionParams& params, const std::string& no_gpu) {
    if (p.device_arch > 0) {
      const int32_t version = Loaded();
      if (version == 0) return absl::UnavailableError(library_missing_);
      const AttentionQuery query = QueryOf(params, p.backward, p.dtype, p.dbias, p.device_arch, version);
      {
        if (std::string why = WhyCudnnRefuses(query); !why.empty()) {
          return absl::UnimplementedError(
              absl::StrCat("native attention: ", why, " (and there is no GPU here: ", no_gpu, ")"));
        }
      }
    }
    return absl::UnavailableError("native attention: " + no_gpu);
  }

  absl::StatusOr<std::shared_ptr<SdpaGraph>> GraphFor(const SdpaProblem& p, void* handle) {
    const AlgorithmKey key{SdpaProblemWords(p)};
    if (std::optional<std::shared_ptr<SdpaGraph>> hit = cache_->Find(key)) return *hit;
    // Also makes one build per signature: a second asker finds the first's graph.
    std::lock_guard<std::mutex> lock(cudnn_mu_);
    if (std::optional<std::shared_ptr<SdpaGraph>> hit = cache_->Find(key)) return *hit;
    const CurrentDeviceScope device(runtime_, p.ordinal);
    if (device.error() != kCudaSuccess) {
      return absl::InternalError("native attention: " +
                                 CudaCallFailure(runtime_, "cudaSetDevice", device.error()));
    }
    absl::StatusOr<std::unique_ptr<SdpaGraph>> built = backend_.BuildGraph(p, handle);
    if (!built.ok()) {
      return absl::Status(built.status().code(), absl::StrCat("native attention: ", built.status().message()));
    }
    std::shared_ptr<SdpaGraph> graph = *std::move(built);
    cache_->Insert(key, graph);
    return graph;
  }

  absl::StatusOr<void*> HandleFor(int ordinal) {
    std::lock_guard<std::mutex> lock(handles_mu_);
    if (auto it = handles_.find(ordinal); it != handles_.end()) return it->second;
    const CurrentDeviceScope device(runtime_, ordinal);
    if (device.error() != kCudaSuccess) {
      return absl::InternalError("native attention: " +
                                 CudaCallFailure(runtime_, "cudaSetDevice", device.error()));
    }
    absl::StatusOr<void*> handle = backend_.CreateHandle();
    if (!handle.ok()) {
      return absl::Status(handle.status().code(), absl::StrCat("native attention: ", handle.status().message()));
    }
    handles_.emplace(ordinal, *handle);
    return *handle;
  }

  // cuDNN's version, or 0 with library_missing_ set.
  int32_t Loaded() {
    std::call_once(loaded_, [this] {
      absl::StatusOr<int32_t> v = backend_.LoadLibrary();
      if (v.ok()) {
        version_ = *v;
      } else {
        library_missing_ = absl::StrCat("native attention: ", v.status().message());
      }
    });
    return version_;
  }

  const CudaArchProbe& Probed() {
    std::call_once(probed_, [this] { gpus_ = ProbeCudaArchs(runtime_); });
    return gpus_;
  }

  CudnnAttentionBackend& backend_;
  CudaRuntimeApi& runtime_;
  std::optional<AlgorithmCache<std::shared_ptr<SdpaGraph>>> cache_;  // empty only in the destructor
  std::once_flag loaded_, probed_;
  int32_t version_ = 0;
  std::string library_missing_;
  CudaArchProbe gpus_;
  std::mutex handles_mu_;
  std::map<int, void*> handles_;  // guarded by handles_mu_
  // Held by every use of a handle: building a graph's plans on it and
  // executing on it (with its stream set). A cuDNN handle is not
  // thread-safe, so a build and an execution on one handle must not overlap;
  // one mutex for every handle keeps that simple, at the cost of a build
  // holding up executions on other GPUs too.
  std::mutex cudnn_mu_;
};

TeplugAttentionCaps MakeCaps() {
  static const TeplugDeviceSupport kCuda[] = {
      {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_ANY, 0, 0}};
  TeplugAttentionCaps caps = sdk::Versioned<TeplugAttentionCaps>();
  caps.devices = kCuda;
  caps.num_devices = 1;
  caps.qkv_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16) |
                    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3);
  caps.layouts = (UINT32_C(1) << TEPLUG_LAYOUT_COUNT_) - 1;
  caps.mask_types = (UINT32_C(1) << TEPLUG_MASK_COUNT_) - 1;
  caps.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_NONE) | TEPLUG_BIAS_BIT(TEPLUG_BIAS_POST_SCALE) |
                    TEPLUG_BIAS_BIT(TEPLUG_BIAS_ALIBI);
  caps.features = TEPLUG_ATTN_CAP_DROPOUT | TEPLUG_ATTN_CAP_SLIDING_WINDOW | TEPLUG_ATTN_CAP_GQA |
                  TEPLUG_ATTN_CAP_DETERMINISTIC | TEPLUG_ATTN_CAP_BACKWARD | TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS;
  caps.head_dim_min = 8;
  caps.head_dim_max = 256;
  caps.head_dim_multiple = 8;
  return caps;
}

}  // namespace

std::unique_ptr<sdk::AttentionImpl> NewCudnnAttention(CudnnAttentionBackend& backend, CudaRuntimeApi& runtime,
                                                      size_t graph_cache_capacity) {
  return std::make_unique<CudnnAttention>(backend, runtime, graph_cache_capacity);
}

const TeplugAttentionCaps* CudnnAttentionCaps() {
  static const TeplugAttentionCaps caps = MakeCaps();
  return &caps;
}

}  // namespace teplug::native::attention
