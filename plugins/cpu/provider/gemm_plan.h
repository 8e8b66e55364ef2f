// The oneDNN primitives that serve one GemmSignature: created once (oneDNN
// JIT-compiles its kernels then), run for every call with that signature.
//
// The pipeline, each step present only when the signature needs it:
//   1. operand copies: A or B reordered into a dense matrix of the compute
//      dtype when its dtype or layout is not one the matmul reads (fp16, a
//      bf16 operand paired with an fp32 or fp16 one, a column stride other
//      than 1), or, for an fp8 operand, its codes decoded into one
//      (quantize/operand_decode.h). The compute dtype is bf16 when each
//      operand is exact in bf16: bf16 itself, per-tensor fp8 (its codes; the
//      scale_inv of each such operand is multiplied in by the matmul's first
//      post-op, a [1, 1] tensor read at run time) or MXFP8 (code * 2^e); AMX /
//      AVX-512 BF16
//      kernels with fp32 accumulation. It is fp32 otherwise: fp16 values are
//      exact in fp32 (oneDNN 2.6 has no fp16 CPU matmul), and a 1x128 or
//      128x128 block-scaled value is code * an fp32 scale, rounded once to
//      fp32 as bf16 could not hold it;
//   2. prefill: the C term copied into the matmul's destination (nothing when
//      the C term is D's old contents and D is the destination);
//   3. the matmul, with alpha as output scale and post-ops: the per-tensor
//      fp8 scales (binary multiply), sum(beta) for the C term, binary add of
//      the bias [1, N], and gelu_tanh (unless pre_gelu_out is wanted);
//   4. when the destination is an fp32 result matrix rather than D (D fp16,
//      an fp32 compute writing bf16, a strided D, pre_gelu_out wanted, a C
//      dtype oneDNN cannot convert into D's, a C overlapping D without being
//      D): the result reordered into
//      pre_gelu_out, gelu_tanh applied in place, then reordered into D.
// All primitives use user scratchpads, so one plan runs on many threads at
// once; Run takes its buffers from a per-thread block reused between calls
// (up to 16 MiB; larger ones are allocated per call).
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_GEMM_PLAN_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_GEMM_PLAN_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/provider/gemm_signature.h"

namespace teplug::cpu::provider {

// The CPU engine every plan runs on (one per process).
const dnnl::engine& CpuEngine();

class GemmPlan {
 public:
  // Creates the primitives. Internal error naming the step when oneDNN
  // refuses one (it should not for any signature ReadGemmCall accepted).
  static absl::StatusOr<std::shared_ptr<const GemmPlan>> Create(const GemmSignature& signature);

  // Runs the pipeline on one call's buffers (which must match the
  // signature's layouts), decoding fp8 operands on up to `threads` threads
  // (0: one per hardware thread). Internal error with oneDNN's message on
  // failure.
  absl::Status Run(const GemmBuffers& buffers, int threads = 0) const;

  // oneDNN's name of the matmul kernel ("brg:avx512_core_amx_bf16", ...).
  std::string MatmulImplementation() const;
  // Whether the matmul writes D itself (no fp32 result matrix, step 4).
  bool WritesDirectly() const { return !result_md_.has_value(); }
  // The compute dtype of the matmul's operands.
  dnnl::memory::data_type compute_dtype() const { return compute_; }

 private:
  GemmPlan() = default;
  // A reorder from `from` to `to` with a user scratchpad.
  struct Copy {
    dnnl::memory::desc from, to;
    dnnl::reorder primitive;
    size_t scratchpad_bytes;
  };
  static Copy MakeCopy(const dnnl::memory::desc& from, const dnnl::memory::desc& to);

  GemmSignature signature_;
  dnnl::memory::data_type compute_ = dnnl::memory::data_type::f32;
  dnnl::memory::desc a_md_, b_md_, d_md_;        // the caller's layouts
  std::optional<Copy> a_copy_, b_copy_;          // step 1
  bool decode_a_ = false, decode_b_ = false;     // step 1 for fp8 operands
  bool runtime_scale_ = false;  // per-tensor scale_invs, multiplied in per call (post-op 0)
  std::optional<Copy> c_copy_;                   // step 2 (C or D into the result matrix)
  std::optional<Copy> bias_copy_;                // bias into fp32 [1, N]
  std::optional<dnnl::memory::desc> result_md_;  // fp32 [M, N] when D is not the destination
  dnnl::memory::desc matmul_a_md_, matmul_b_md_, matmul_dst_md_, bias_md_;
  dnnl::matmul matmul_;
  dnnl::matmul::primitive_desc matmul_pd_;
  std::optional<Copy> pre_gelu_copy_;  // step 4
  std::optional<dnnl::eltwise_forward> gelu_;
  std::optional<Copy> d_copy_;
  size_t scratchpad_bytes_ = 0;
};

}  // namespace teplug::cpu::provider

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_GEMM_PLAN_H_
