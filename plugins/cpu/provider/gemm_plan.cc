#include "plugins/cpu/provider/gemm_plan.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "plugins/cpu/quantize/operand_decode.h"
#include "plugins/cpu/quantize/parallel_rows.h"

namespace teplug::cpu::provider {
namespace {

using dnnl::memory;
using dt = dnnl::memory::data_type;

constexpr size_t kBufferAlignment = 64;

dt DnnlType(int32_t teplug_dtype) {
  switch (teplug_dtype) {
    case TEPLUG_DTYPE_FP16:
      return dt::f16;
    case TEPLUG_DTYPE_BF16:
      return dt::bf16;
    default:
      return dt::f32;  // ReadGemmCall admits fp32, fp16 and bf16 only
  }
}

memory::desc StoredMd(const StoredMatrix& s) {
  return memory::desc({s.rows, s.cols}, DnnlType(s.dtype), {s.row_stride, s.col_stride});
}

// op(X) of a stored matrix: the same memory seen transposed when `trans`.
memory::desc OperandMd(const StoredMatrix& s, bool trans) {
  if (!trans) return StoredMd(s);
  return memory::desc({s.cols, s.rows}, DnnlType(s.dtype), {s.col_stride, s.row_stride});
}

memory::desc Dense(int64_t rows, int64_t cols, dt type) {
  return memory::desc({rows, cols}, type, {cols, 1});
}

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// Whether `s` reaches a bf16 matmul unrounded: bf16 itself, the codes of a
// per-tensor fp8 operand, or MXFP8 values (quantize/operand_decode.h).
bool ExactInBf16(const StoredMatrix& s) {
  return s.dtype == TEPLUG_DTYPE_BF16 || s.scaling == TEPLUG_SCALING_PER_TENSOR ||
         s.scaling == TEPLUG_SCALING_MXFP8_1D32;
}

// The dense matrix an fp8 operand is decoded into: its stored shape in the
// compute dtype.
StoredMatrix Decoded(const StoredMatrix& s, dt compute) {
  StoredMatrix d;
  d.dtype = compute == dt::bf16 ? TEPLUG_DTYPE_BF16 : TEPLUG_DTYPE_FP32;
  d.rows = s.rows;
  d.cols = s.cols;
  d.row_stride = s.cols;
  d.col_stride = 1;
  return d;
}

void Decode(const StoredMatrix& s, const void* codes, const void* scale_inv, dt compute,
            void* out, int threads) {
  quantize::OperandScales scales;
  scales.values = scale_inv;
  switch (s.scaling) {
    case TEPLUG_SCALING_PER_TENSOR:
      scales.mode = quantize::OperandScales::Mode::kPerTensor;
      break;
    case TEPLUG_SCALING_MXFP8_1D32:
      scales.mode = quantize::OperandScales::Mode::kMx;
      break;
    case TEPLUG_SCALING_BLOCK_1D128:
      scales.mode = quantize::OperandScales::Mode::kBlock1x128;
      break;
    default:
      scales.mode = quantize::OperandScales::Mode::kBlock128x128;
      break;
  }
  const quantize::Fp8Kind kind = s.dtype == TEPLUG_DTYPE_FP8_E5M2 ? quantize::Fp8Kind::kE5M2
                                                                  : quantize::Fp8Kind::kE4M3;
  // One thread per MiB written (the decode is bound by memory traffic).
  const int64_t bytes = s.rows * s.cols * (compute == dt::bf16 ? 3 : 5);
  quantize::DecodeOperand(static_cast<const uint8_t*>(codes), s.rows, s.cols, kind, scales,
                          compute == dt::bf16, out, quantize::ThreadsFor(bytes, threads));
}

// Whether a oneDNN 2.6 reorder converts `from` into `to` (bf16 <-> fp16 it does not).
bool Converts(int32_t from, int32_t to) {
  return from == to || from == TEPLUG_DTYPE_FP32 || to == TEPLUG_DTYPE_FP32;
}

// Per-call memory: consecutive 64-byte aligned regions of one block. Blocks up
// to kReusedBytes come from a per-thread buffer kept between calls (no mmap
// and page faults per GEMM); larger ones are allocated for the call, so a
// thread never keeps more than kReusedBytes.
class CallBuffers {
 public:
  static constexpr size_t kReusedBytes = size_t{16} << 20;

  size_t Reserve(size_t bytes) {
    const size_t at = size_;
    size_ += (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
    return at;
  }
  void Allocate() {
    const size_t bytes = size_ + kBufferAlignment;
    if (bytes <= kReusedBytes) {
      thread_local std::unique_ptr<char[]> reused;
      thread_local size_t reused_bytes = 0;
      if (reused_bytes < bytes) {
        reused.reset(new char[bytes]);
        reused_bytes = bytes;
      }
      base_ = reused.get();
    } else {
      owned_.reset(new char[bytes]);
      base_ = owned_.get();
    }
  }
  void* At(size_t offset) const {
    const uintptr_t base = reinterpret_cast<uintptr_t>(base_);
    const uintptr_t aligned = (base + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
    return reinterpret_cast<void*>(aligned + offset);
  }

 private:
  size_t size_ = 0;
  char* base_ = nullptr;
  std::unique_ptr<char[]> owned_;
};

}  // namespace

const dnnl::engine& CpuEngine() {
  static const dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

GemmPlan::Copy GemmPlan::MakeCopy(const memory::desc& from, const memory::desc& to) {
  dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to, UserScratchpad());
  return Copy{from, to, dnnl::reorder(pd), pd.scratchpad_desc().get_size()};
}

absl::StatusOr<std::shared_ptr<const GemmPlan>> GemmPlan::Create(const GemmSignature& s) {
  std::shared_ptr<GemmPlan> plan(new GemmPlan());
  const char* step = "operand copy";
  try {
    plan->signature_ = s;
    plan->compute_ = ExactInBf16(s.a) && ExactInBf16(s.b) ? dt::bf16 : dt::f32;
    const dt compute = plan->compute_;
    plan->d_md_ = StoredMd(s.d);
    // How op(X) [rows, cols] reaches the matmul: decoded (fp8), read in
    // place, or copied into a dense matrix of the compute dtype.
    auto operand = [&](const StoredMatrix& x, bool trans, int64_t rows, int64_t cols,
                       bool* decode, memory::desc* md, memory::desc* matmul_md,
                       std::optional<Copy>* copy) {
      if (x.quantized()) {
        *decode = true;
        *matmul_md = OperandMd(Decoded(x, compute), trans);
        return;
      }
      *md = OperandMd(x, trans);
      *matmul_md = *md;
      if (DnnlType(x.dtype) != compute || !x.IsRowMajorDense()) {
        *matmul_md = Dense(rows, cols, compute);
        *copy = MakeCopy(*md, *matmul_md);
      }
    };
    operand(s.a, s.trans_a, s.m, s.k, &plan->decode_a_, &plan->a_md_, &plan->matmul_a_md_,
            &plan->a_copy_);
    operand(s.b, s.trans_b, s.k, s.n, &plan->decode_b_, &plan->b_md_, &plan->matmul_b_md_,
            &plan->b_copy_);
    plan->runtime_scale_ = s.a.scaling == TEPLUG_SCALING_PER_TENSOR ||
                           s.b.scaling == TEPLUG_SCALING_PER_TENSOR;

    step = "prefill of the C term";
    const bool d_is_matmul_output =
        s.d.dtype == TEPLUG_DTYPE_FP32 || (s.d.dtype == TEPLUG_DTYPE_BF16 && compute == dt::bf16);
    const bool direct = d_is_matmul_output && s.d.IsRowMajorDense() && !s.pre_gelu.has_value() &&
                        !s.c_overlaps_d && (!s.c.has_value() || Converts(s.c->dtype, s.d.dtype));
    if (direct) {
      plan->matmul_dst_md_ = plan->d_md_;
      if (s.c) plan->c_copy_ = MakeCopy(StoredMd(*s.c), plan->d_md_);
    } else {
      plan->result_md_ = Dense(s.m, s.n, dt::f32);
      plan->matmul_dst_md_ = *plan->result_md_;
      if (s.c) {
        plan->c_copy_ = MakeCopy(StoredMd(*s.c), *plan->result_md_);
      } else if (s.c_from_d) {
        plan->c_copy_ = MakeCopy(plan->d_md_, *plan->result_md_);
      }
    }
    if (s.bias) {
      plan->bias_md_ = Dense(1, s.n, dt::f32);
      if (s.bias->dtype != TEPLUG_DTYPE_FP32 || s.bias->col_stride != 1) {
        plan->bias_copy_ = MakeCopy(StoredMd(*s.bias), plan->bias_md_);
      }
    }

    step = "matmul";
    dnnl::primitive_attr attr = UserScratchpad();
    if (s.alpha != 1.f) attr.set_output_scales(0, {s.alpha});
    dnnl::post_ops post;
    // The per-tensor scale_invs, read at each call: a binary multiply by a
    // [1, 1] tensor first. (A runtime output scale would do the same, but
    // oneDNN 2.6 serves it with gemm:jit and an fp32 scratchpad of all of D,
    // 64 MiB at 4096 x 4096, instead of brgemm's 130 KiB.)
    if (plan->runtime_scale_) post.append_binary(dnnl::algorithm::binary_mul, Dense(1, 1, dt::f32));
    if (s.has_c_term()) post.append_sum(s.beta);
    if (s.bias) post.append_binary(dnnl::algorithm::binary_add, plan->bias_md_);
    const bool gelu_in_matmul = s.gelu && !s.pre_gelu.has_value();
    if (gelu_in_matmul) post.append_eltwise(1.f, dnnl::algorithm::eltwise_gelu_tanh, 0.f, 0.f);
    attr.set_post_ops(post);
    plan->matmul_pd_ = dnnl::matmul::primitive_desc(
        dnnl::matmul::desc(plan->matmul_a_md_, plan->matmul_b_md_, plan->matmul_dst_md_), attr,
        CpuEngine());
    plan->matmul_ = dnnl::matmul(plan->matmul_pd_);

    step = "epilogue";
    if (plan->result_md_) {
      if (s.pre_gelu) plan->pre_gelu_copy_ = MakeCopy(*plan->result_md_, StoredMd(*s.pre_gelu));
      if (s.gelu && !gelu_in_matmul) {
        dnnl::eltwise_forward::primitive_desc gelu_pd(
            dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference,
                                        dnnl::algorithm::eltwise_gelu_tanh, *plan->result_md_, 0.f,
                                        0.f),
            UserScratchpad(), CpuEngine());
        plan->scratchpad_bytes_ =
            std::max(plan->scratchpad_bytes_, gelu_pd.scratchpad_desc().get_size());
        plan->gelu_ = dnnl::eltwise_forward(gelu_pd);
      }
      plan->d_copy_ = MakeCopy(*plan->result_md_, plan->d_md_);
    }
  } catch (const dnnl::error& e) {
    return absl::InternalError(
        absl::StrCat("oneDNN refused the ", step, " of the GEMM ", s.Describe(), ": ", e.what()));
  }
  plan->scratchpad_bytes_ =
      std::max(plan->scratchpad_bytes_, plan->matmul_pd_.scratchpad_desc().get_size());
  for (const std::optional<Copy>* copy :
       {&plan->a_copy_, &plan->b_copy_, &plan->c_copy_, &plan->bias_copy_, &plan->pre_gelu_copy_,
        &plan->d_copy_}) {
    if (!copy->has_value()) continue;
    plan->scratchpad_bytes_ = std::max(plan->scratchpad_bytes_, (*copy)->scratchpad_bytes);
  }
  return std::shared_ptr<const GemmPlan>(std::move(plan));
}

std::string GemmPlan::MatmulImplementation() const { return matmul_pd_.impl_info_str(); }

absl::Status GemmPlan::Run(const GemmBuffers& buffers, int threads) const {
  const GemmSignature& s = signature_;
  CallBuffers scratch;
  const size_t compute_size = compute_ == dt::bf16 ? 2 : 4;
  const bool own_a = a_copy_ || decode_a_, own_b = b_copy_ || decode_b_;
  const size_t a_at = own_a ? scratch.Reserve(s.m * s.k * compute_size) : 0;
  const size_t b_at = own_b ? scratch.Reserve(s.k * s.n * compute_size) : 0;
  const size_t bias_at = bias_copy_ ? scratch.Reserve(s.n * sizeof(float)) : 0;
  const size_t result_at = result_md_ ? scratch.Reserve(s.m * s.n * sizeof(float)) : 0;
  const size_t pad_at = scratch.Reserve(std::max<size_t>(scratchpad_bytes_, 1));
  scratch.Allocate();
  try {
    const dnnl::engine& engine = CpuEngine();
    thread_local dnnl::stream stream(CpuEngine());
    const memory pad({{static_cast<int64_t>(std::max<size_t>(scratchpad_bytes_, 1))}, dt::u8, {1}},
                     engine, scratch.At(pad_at));
    auto run_copy = [&](const Copy& copy, void* from, void* to) {
      copy.primitive.execute(stream, {{DNNL_ARG_FROM, memory(copy.from, engine, from)},
                                      {DNNL_ARG_TO, memory(copy.to, engine, to)},
                                      {DNNL_ARG_SCRATCHPAD, pad}});
    };
    void* a = own_a ? scratch.At(a_at) : const_cast<void*>(buffers.a);
    if (a_copy_) run_copy(*a_copy_, const_cast<void*>(buffers.a), a);
    if (decode_a_) Decode(s.a, buffers.a, buffers.a_scale_inv, compute_, a, threads);
    void* b = own_b ? scratch.At(b_at) : const_cast<void*>(buffers.b);
    if (b_copy_) run_copy(*b_copy_, const_cast<void*>(buffers.b), b);
    if (decode_b_) Decode(s.b, buffers.b, buffers.b_scale_inv, compute_, b, threads);
    void* dst = result_md_ ? scratch.At(result_at) : buffers.d;
    if (c_copy_) run_copy(*c_copy_, s.c ? const_cast<void*>(buffers.c) : buffers.d, dst);
    void* bias = bias_copy_ ? scratch.At(bias_at) : const_cast<void*>(buffers.bias);
    if (bias_copy_) run_copy(*bias_copy_, const_cast<void*>(buffers.bias), bias);

    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, memory(matmul_a_md_, engine, a)},
                                            {DNNL_ARG_WEIGHTS, memory(matmul_b_md_, engine, b)},
                                            {DNNL_ARG_DST, memory(matmul_dst_md_, engine, dst)},
                                            {DNNL_ARG_SCRATCHPAD, pad}};
    // The per-tensor scale_inv of each fp8 operand (post-op 0): the decoded
    // matrices hold its codes' values.
    float operand_scale = 1.f;
    if (s.a.scaling == TEPLUG_SCALING_PER_TENSOR)
      operand_scale *= *static_cast<const float*>(buffers.a_scale_inv);
    if (s.b.scaling == TEPLUG_SCALING_PER_TENSOR)
      operand_scale *= *static_cast<const float*>(buffers.b_scale_inv);
    if (runtime_scale_) {
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                   memory(Dense(1, 1, dt::f32), engine, &operand_scale));
    }
    if (s.bias) {
      const int bias_post_op = (runtime_scale_ ? 1 : 0) + (s.has_c_term() ? 1 : 0);
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(bias_post_op) | DNNL_ARG_SRC_1,
                   memory(bias_md_, engine, bias));
    }
    matmul_.execute(stream, args);

    if (result_md_) {
      if (pre_gelu_copy_) run_copy(*pre_gelu_copy_, dst, buffers.pre_gelu);
      if (gelu_) {
        const memory result(*result_md_, engine, dst);
        gelu_->execute(
            stream, {{DNNL_ARG_SRC, result}, {DNNL_ARG_DST, result}, {DNNL_ARG_SCRATCHPAD, pad}});
      }
      run_copy(*d_copy_, dst, buffers.d);
    }
    stream.wait();
  } catch (const dnnl::error& e) {
    return absl::InternalError(
        absl::StrCat("oneDNN failed running the GEMM ", s.Describe(), ": ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace teplug::cpu::provider
