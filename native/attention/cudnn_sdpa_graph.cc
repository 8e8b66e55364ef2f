#include "native/attention/cudnn_sdpa_graph.h"

#include <cudnn_frontend.h>

#include <exception>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "teplug/types.h"

// The frontend's dynamic-loading shim calls libcudnn through this handle.
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}  // namespace cudnn_frontend

namespace teplug::native::attention {
namespace {

namespace fe = cudnn_frontend;
using TensorPtr = std::shared_ptr<fe::graph::Tensor_attributes>;

// Tensor uids of the variant pack.
enum Uid : int64_t {
  kQ = 1,
  kK,
  kV,
  kO,
  kStats,
  kBias,
  kDO,
  kDQ,
  kDK,
  kDV,
  kDBias,
  kSeqLenQ,
  kSeqLenKv,
  kRaggedQ,
  kRaggedK,
  kRaggedV,
  kRaggedO,
  kSeed,
  kOffset,
  kScale,
  // fp8: per-tensor descales and scales in, amaxes out.
  kDescaleQ,
  kDescaleK,
  kDescaleV,
  kDescaleO,
  kDescaleDO,
  kDescaleS,
  kDescaleDP,
  kScaleS,
  kScaleO,
  kScaleDP,
  kScaleDQ,
  kScaleDK,
  kScaleDV,
  kAmaxS,
  kAmaxO,
  kAmaxDP,
  kAmaxDQ,
  kAmaxDK,
  kAmaxDV
};

fe::DataType_t FeType(int32_t dtype) {
  switch (dtype) {
    case TEPLUG_DTYPE_BF16:
      return fe::DataType_t::BFLOAT16;
    case TEPLUG_DTYPE_FP8_E4M3:
      return fe::DataType_t::FP8_E4M3;
    case TEPLUG_DTYPE_FP8_E5M2:
      return fe::DataType_t::FP8_E5M2;
    default:
      return fe::DataType_t::HALF;
  }
}

std::vector<int64_t> Vec(const std::array<int64_t, 4>& a) { return {a[0], a[1], a[2], a[3]}; }

absl::Status Failed(const char* step, fe::error_t e) {
  const std::string what = absl::StrCat("cuDNN frontend ", step, ": ", e.get_message());
  if (e.get_code() == fe::error_code_t::GRAPH_NOT_SUPPORTED) return absl::UnimplementedError(what);
  return absl::InternalError(what);
}

class FrontendGraph final : public SdpaGraph {
 public:
  FrontendGraph(std::shared_ptr<fe::graph::Graph> graph, cudnnHandle_t handle, const SdpaProblem& p)
      : graph_(std::move(graph)), handle_(handle), problem_(p) {}

  size_t workspace_size() const override { return static_cast<size_t>(graph_->get_workspace_size()); }

  absl::Status Execute(const SdpaBuffers& b, void* workspace) override {
    std::unordered_map<int64_t, void*> pack;
    const SdpaProblem& p = problem_;
    auto put = [&pack](Uid uid, const void* ptr) { pack[uid] = const_cast<void*>(ptr); };
    put(kQ, b.q);
    put(kK, b.k);
    put(kV, b.v);
    put(kO, b.o);
    float scale = b.softmax_scale;
    put(kScale, &scale);
    if (p.writes_lse || p.backward || p.fp8) put(kStats, b.stats);
    if (p.fp8) {
      const SdpaFp8Scales& f = b.fp8;
      put(kDescaleQ, f.descale_q);
      put(kDescaleK, f.descale_k);
      put(kDescaleV, f.descale_v);
      put(kDescaleS, f.descale_s);
      put(kScaleS, f.scale_s);
      if (!p.backward) {
        put(kScaleO, f.scale_o);
        put(kAmaxS, f.amax_s);
        put(kAmaxO, f.amax_o);
      } else {
        put(kDescaleO, f.descale_o);
        put(kDescaleDO, f.descale_d_o);
        put(kDescaleDP, f.descale_dp);
        put(kScaleDP, f.scale_dp);
        put(kScaleDQ, f.scale_dq);
        put(kScaleDK, f.scale_dk);
        put(kScaleDV, f.scale_dv);
        put(kAmaxDP, f.amax_dp);
        put(kAmaxDQ, f.amax_dq);
        put(kAmaxDK, f.amax_dk);
        put(kAmaxDV, f.amax_dv);
      }
    }
    if (p.has_bias) put(kBias, b.bias);
    if (p.padding) {
      put(kSeqLenQ, b.seq_len_q);
      put(kSeqLenKv, b.seq_len_kv);
    }
    if (p.ragged) {
      put(kRaggedQ, b.ragged_q);
      put(kRaggedK, b.ragged_k);
      put(kRaggedV, b.ragged_v);
      put(kRaggedO, b.ragged_o);
    }
    if (p.dropout) {
      put(kSeed, b.rng_state);
      put(kOffset, b.rng_state + 1);
    }
    if (p.backward) {
      put(kDO, b.d_o);
      put(kDQ, b.dq);
      put(kDK, b.dk);
      put(kDV, b.dv);
      if (p.dbias) put(kDBias, b.dbias);
    }
    try {
      fe::error_t e = graph_->execute(handle_, pack, workspace);
      if (e.is_bad()) return Failed("execute", e);
    } catch (const std::exception& ex) {  // the shim throws when libcudnn lacks a symbol
      return absl::InternalError(absl::StrCat("cuDNN frontend execute: ", ex.what()));
    }
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<fe::graph::Graph> graph_;
  cudnnHandle_t handle_;
  SdpaProblem problem_;
};

TensorPtr Input(fe::graph::Graph& g, const char* name, Uid uid, const SdpaTensorView& v) {
  return g.tensor(fe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(Vec(v.dims)).set_stride(
      Vec(v.strides)));
}

TensorPtr Scalar(fe::graph::Graph& g, const char* name, Uid uid, fe::DataType_t type) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({1, 1, 1, 1})
                      .set_stride({1, 1, 1, 1})
                      .set_data_type(type));
}

TensorPtr Offsets(fe::graph::Graph& g, const char* name, Uid uid, int64_t batch) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({batch + 1, 1, 1, 1})
                      .set_stride({1, 1, 1, 1})
                      .set_data_type(fe::DataType_t::INT64));
}

TensorPtr SeqLens(fe::graph::Graph& g, const char* name, Uid uid, int64_t batch) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name(name)
                      .set_uid(uid)
                      .set_dim({batch, 1, 1, 1})
                      .set_stride({1, 1, 1, 1})
                      .set_data_type(fe::DataType_t::INT32));
}

// softmax_scale, passed by value.
TensorPtr AttnScale(fe::graph::Graph& g) {
  return g.tensor(fe::graph::Tensor_attributes()
                      .set_name("scale")
                      .set_uid(kScale)
                      .set_dim({1, 1, 1, 1})
                      .set_stride({1, 1, 1, 1})
                      .set_is_pass_by_value(true)
                      .set_data_type(fe::DataType_t::FLOAT));
}

// An fp32 [1] device tensor: an fp8 descale or scale in, an amax out.
TensorPtr Fp32Scalar(fe::graph::Graph& g, const char* name, Uid uid) {
  return Scalar(g, name, uid, fe::DataType_t::FLOAT);
}

void MarkAmax(const TensorPtr& amax, Uid uid) {
  amax->set_output(true)
      .set_uid(uid)
      .set_dim({1, 1, 1, 1})
      .set_stride({1, 1, 1, 1})
      .set_data_type(fe::DataType_t::FLOAT);
}

// Padding lengths and dropout, set alike on every attribute kind.
template <typename Attributes>
void SetPaddingAndDropout(fe::graph::Graph& g, const SdpaProblem& p, Attributes& a) {
  if (p.padding) {
    a.set_padding_mask(true)
        .set_seq_len_q(SeqLens(g, "seq_len_q", kSeqLenQ, p.batch))
        .set_seq_len_kv(SeqLens(g, "seq_len_kv", kSeqLenKv, p.batch));
  }
  if (p.dropout) {
    a.set_dropout(p.dropout_probability, Scalar(g, "seed", kSeed, fe::DataType_t::INT64),
                  Scalar(g, "offset", kOffset, fe::DataType_t::INT64));
  }
}

// The mask, window, bias, ALiBi and dropout options of the forward and the
// f16 backward.
template <typename Attributes>
void SetCommon(fe::graph::Graph& g, const SdpaProblem& p, Attributes& a) {
  a.set_attn_scale(AttnScale(g));
  a.set_diagonal_alignment(p.bottom_right ? fe::DiagonalAlignment_t::BOTTOM_RIGHT
                                          : fe::DiagonalAlignment_t::TOP_LEFT);
  // cuDNN's left bound counts the diagonal itself (TransformerEngine passes
  // window_size_left + 1).
  if (p.window_left >= 0) a.set_diagonal_band_left_bound(static_cast<int>(p.window_left + 1));
  if (p.window_right >= 0) a.set_diagonal_band_right_bound(static_cast<int>(p.window_right));
  a.set_alibi_mask(p.alibi);
  SetPaddingAndDropout(g, p, a);
}

void SetRagged(fe::graph::Graph& g, const SdpaProblem& p, TensorPtr& q, TensorPtr& k, TensorPtr& v) {
  if (!p.ragged) return;
  q->set_ragged_offset(Offsets(g, "ragged_q", kRaggedQ, p.batch));
  k->set_ragged_offset(Offsets(g, "ragged_k", kRaggedK, p.batch));
  v->set_ragged_offset(Offsets(g, "ragged_v", kRaggedV, p.batch));
}

void SetOutput(const TensorPtr& t, Uid uid, const SdpaTensorView& v) {
  t->set_output(true).set_uid(uid).set_dim(Vec(v.dims)).set_stride(Vec(v.strides));
}

// LSE's dims and strides: fp32 [B, Hq, Sq, 1], contiguous.
std::vector<int64_t> StatsDims(const SdpaProblem& p) { return {p.batch, p.heads_q, p.seq_q, 1}; }
std::vector<int64_t> StatsStrides(const SdpaProblem& p) {
  return {p.heads_q * p.seq_q, p.seq_q, 1, 1};
}

void Forward(fe::graph::Graph& g, const SdpaProblem& p, TensorPtr q, TensorPtr k, TensorPtr v,
             TensorPtr bias) {
  TensorPtr o, stats;
  if (!p.fp8) {
    fe::graph::SDPA_attributes a;
    a.set_name("teplug_sdpa").set_generate_stats(p.writes_lse);
    SetCommon(g, p, a);
    if (bias) a.set_bias(bias);
    const auto outputs = g.sdpa(q, k, v, std::move(a));
    o = outputs[0];
    stats = outputs[1];
  } else {
    // TransformerEngine's fp8 forward always generates the statistics.
    fe::graph::SDPA_fp8_attributes a;
    a.set_name("teplug_sdpa_fp8").set_generate_stats(true);
    SetCommon(g, p, a);
    auto [o8, stats8, amax_s, amax_o] = g.sdpa_fp8(
        q, k, v, Fp32Scalar(g, "descale_q", kDescaleQ), Fp32Scalar(g, "descale_k", kDescaleK),
        Fp32Scalar(g, "descale_v", kDescaleV), Fp32Scalar(g, "descale_s", kDescaleS),
        Fp32Scalar(g, "scale_s", kScaleS), Fp32Scalar(g, "scale_o", kScaleO), std::move(a));
    o = o8;
    stats = stats8;
    MarkAmax(amax_s, kAmaxS);
    MarkAmax(amax_o, kAmaxO);
  }
  SetOutput(o, kO, p.o);
  o->set_data_type(FeType(p.dtype));
  if (p.ragged) o->set_ragged_offset(Offsets(g, "ragged_o", kRaggedO, p.batch));
  if (p.writes_lse || p.fp8) {
    stats->set_output(true)
        .set_uid(kStats)
        .set_data_type(fe::DataType_t::FLOAT)
        .set_dim(StatsDims(p))
        .set_stride(StatsStrides(p));
  }
}

void Backward(fe::graph::Graph& g, const SdpaProblem& p, TensorPtr q, TensorPtr k, TensorPtr v,
              TensorPtr bias) {
  TensorPtr stats = g.tensor(fe::graph::Tensor_attributes()
                                 .set_name("stats")
                                 .set_uid(kStats)
                                 .set_dim(StatsDims(p))
                                 .set_stride(StatsStrides(p))
                                 .set_data_type(fe::DataType_t::FLOAT));
  TensorPtr o = Input(g, "O", kO, p.o);
  TensorPtr d_o = Input(g, "dO", kDO, p.d_o);
  d_o->set_data_type(FeType(p.grad_dtype));
  if (p.ragged) {
    TensorPtr ro = Offsets(g, "ragged_o", kRaggedO, p.batch);
    o->set_ragged_offset(ro);
    d_o->set_ragged_offset(ro);
  }
  TensorPtr dq, dk, dv;
  if (!p.fp8) {
    fe::graph::SDPA_backward_attributes a;
    a.set_name("teplug_sdpa_backward").set_deterministic_algorithm(p.deterministic);
    SetCommon(g, p, a);
    if (bias) a.set_bias(bias);
    if (p.dbias) {
      TensorPtr dbias = Input(g, "dBias", kDBias, p.dbias_view);
      dbias->set_data_type(FeType(p.dtype));  // q's, as sdpa_problem.h requires
      a.set_dbias(dbias);
    }
    const auto grads = g.sdpa_backward(q, k, v, o, d_o, stats, a);
    dq = grads[0];
    dk = grads[1];
    dv = grads[2];
  } else {
    // The frontend's fp8 backward has masks, padding and dropout; no window,
    // bias or determinism option (cudnn_attention.cc refuses those).
    fe::graph::SDPA_fp8_backward_attributes a;
    a.set_name("teplug_sdpa_fp8_backward").set_attn_scale(AttnScale(g));
    if (p.causal && p.bottom_right) a.set_causal_mask_bottom_right(true);
    if (p.causal && !p.bottom_right) a.set_causal_mask(true);
    SetPaddingAndDropout(g, p, a);
    auto [dq8, dk8, dv8, amax_dq, amax_dk, amax_dv, amax_dp] = g.sdpa_fp8_backward(
        q, k, v, o, d_o, stats, Fp32Scalar(g, "descale_q", kDescaleQ),
        Fp32Scalar(g, "descale_k", kDescaleK), Fp32Scalar(g, "descale_v", kDescaleV),
        Fp32Scalar(g, "descale_o", kDescaleO), Fp32Scalar(g, "descale_do", kDescaleDO),
        Fp32Scalar(g, "descale_s", kDescaleS), Fp32Scalar(g, "descale_dp", kDescaleDP),
        Fp32Scalar(g, "scale_s", kScaleS), Fp32Scalar(g, "scale_dq", kScaleDQ),
        Fp32Scalar(g, "scale_dk", kScaleDK), Fp32Scalar(g, "scale_dv", kScaleDV),
        Fp32Scalar(g, "scale_dp", kScaleDP), std::move(a));
    dq = dq8;
    dk = dk8;
    dv = dv8;
    MarkAmax(amax_dq, kAmaxDQ);
    MarkAmax(amax_dk, kAmaxDK);
    MarkAmax(amax_dv, kAmaxDV);
    MarkAmax(amax_dp, kAmaxDP);
  }
  SetOutput(dq, kDQ, p.dq);
  SetOutput(dk, kDK, p.dk);
  SetOutput(dv, kDV, p.dv);
  for (const TensorPtr& d : {dq, dk, dv}) d->set_data_type(FeType(p.grad_dtype));
  if (p.ragged) {
    dq->set_ragged_offset(q->get_ragged_offset());
    dk->set_ragged_offset(k->get_ragged_offset());
    dv->set_ragged_offset(v->get_ragged_offset());
  }
}

absl::StatusOr<std::unique_ptr<SdpaGraph>> Build(const SdpaProblem& p, cudnnHandle_t handle) {
  auto graph = std::make_shared<fe::graph::Graph>();
  graph->set_io_data_type(FeType(p.dtype))
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  fe::graph::Graph& g = *graph;
  TensorPtr q = Input(g, "Q", kQ, p.q);
  TensorPtr k = Input(g, "K", kK, p.k);
  TensorPtr v = Input(g, "V", kV, p.v);
  SetRagged(g, p, q, k, v);
  TensorPtr bias;
  if (p.has_bias) {
    bias = Input(g, "bias", kBias, p.bias);
    bias->set_data_type(FeType(p.dtype));  // q's, as sdpa_problem.h requires
  }
  if (p.backward) {
    Backward(g, p, q, k, v, bias);
  } else {
    Forward(g, p, q, k, v, bias);
  }

  if (fe::error_t e = graph->validate(); e.is_bad()) return Failed("validate", e);
  if (fe::error_t e = graph->build_operation_graph(handle); e.is_bad()) return Failed("build_operation_graph", e);
  if (fe::error_t e = graph->create_execution_plans({fe::HeurMode_t::A}); e.is_bad()) {
    return Failed("create_execution_plans", e);
  }
  if (fe::error_t e = graph->check_support(handle); e.is_bad()) return Failed("check_support", e);
  if (fe::error_t e = graph->build_plans(handle); e.is_bad()) return Failed("build_plans", e);
  return std::unique_ptr<SdpaGraph>(new FrontendGraph(std::move(graph), handle, p));
}

}  // namespace

absl::StatusOr<void*> CreateCudnnHandle() {
  try {
    cudnnHandle_t handle = nullptr;
    const cudnnStatus_t s = fe::detail::create_handle(&handle);
    if (s != CUDNN_STATUS_SUCCESS) {
      return absl::UnavailableError(absl::StrCat("cudnnCreate returned ", fe::detail::get_error_string(s)));
    }
    return static_cast<void*>(handle);
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("cudnnCreate: ", e.what()));
  }
}

void DestroyCudnnHandle(void* handle) {
  if (handle != nullptr) fe::detail::destroy_handle(static_cast<cudnnHandle_t>(handle));
}

absl::Status SetCudnnStream(void* handle, void* stream) {
  const cudnnStatus_t s =
      fe::detail::set_stream(static_cast<cudnnHandle_t>(handle), static_cast<cudaStream_t>(stream));
  if (s != CUDNN_STATUS_SUCCESS) {
    return absl::InternalError(absl::StrCat("cudnnSetStream returned ", fe::detail::get_error_string(s)));
  }
  return absl::OkStatus();
}

void SetCudnnLibraryHandle(void* dl_handle) { fe::cudnn_dlhandle = dl_handle; }

absl::StatusOr<std::unique_ptr<SdpaGraph>> BuildCudnnSdpaGraph(const SdpaProblem& problem, void* handle) {
  try {
    return Build(problem, static_cast<cudnnHandle_t>(handle));
  } catch (const std::exception& e) {  // the shim throws when a library or symbol is missing
    return absl::InternalError(absl::StrCat("cuDNN frontend: ", e.what()));
  }
}

}  // namespace teplug::native::attention
