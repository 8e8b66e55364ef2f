// The signature of one IGemm v1 call as the cpu provider serves it: every
// property of TeplugGemmArgs that shapes the oneDNN primitives (dtypes, the
// stored geometry and strides of each matrix, transposes, alpha, the C term,
// bias, GELU and its aux output), read and checked once, plus the data
// pointers kept apart so that two calls differing only in their buffers share
// one signature and one cached plan (gemm_plan_cache.h).
//
// Semantics are those of the reference provider (gemm.h): D = epilogue(alpha
// op(A) op(B) + beta C + bias); with accumulate C is D and beta is 1; without
// C the beta term is dropped; pre_gelu_out receives the pre-GELU result.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_GEMM_SIGNATURE_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_GEMM_SIGNATURE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "teplug/gemm.h"

namespace teplug::cpu::provider {

// A stored matrix: dtype and [rows, cols] with element strides (row-major
// contiguous strides filled in when the caller gave all zeros; a rank-1 bias
// of [N] is stored as [1, N]).
struct StoredMatrix {
  int32_t dtype = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
  // For an fp8 operand (A or B), the TeplugScalingMode of its row-wise
  // scales (gemm.h: real = code * scale_inv); 0 for every other matrix.
  int32_t scaling = 0;

  // True for unit column stride and rows that do not overlap: the layouts a
  // oneDNN matmul reads and writes directly (others go through a copy).
  bool IsRowMajorDense() const;
  bool quantized() const { return scaling != 0; }
};

struct GemmSignature {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  StoredMatrix a, b, d;
  // C read from a tensor other than D; nullopt when there is no C term or the
  // C term is D's old contents (c_from_d).
  std::optional<StoredMatrix> c;
  // The C term is D's old contents: accumulate, or c is d itself (same data,
  // dtype and strides).
  bool c_from_d = false;
  // `c` shares memory with D without being D: it is read before D is written.
  bool c_overlaps_d = false;
  float alpha = 0.f;
  // Scale of the C term: args.beta, 1 with accumulate, 0 when there is none.
  float beta = 0.f;
  std::optional<StoredMatrix> bias;  // [1, N]
  bool gelu = false;
  std::optional<StoredMatrix> pre_gelu;  // [M, N], GELU only

  bool has_c_term() const { return c.has_value() || c_from_d; }
  // The cache key: every field above in binary, never a data pointer. Two
  // signatures have the same key exactly when they are equal.
  std::string Key() const;
  // The same fields as text, for messages: "m=4 n=5 k=6 trans_a=0 ...
  // a=fp32[4x6:6,1] ...".
  std::string Describe() const;
};

// The data behind one call's matrices (NULL for an absent one).
struct GemmBuffers {
  const void* a = nullptr;
  const void* b = nullptr;
  // The row-wise scale_inv of a quantized A or B (fp32, or e8m0 for MXFP8),
  // contiguous in the shape of its scaling mode (types.h); NULL otherwise.
  const void* a_scale_inv = nullptr;
  const void* b_scale_inv = nullptr;
  const void* c = nullptr;
  void* d = nullptr;
  const void* bias = nullptr;
  void* pre_gelu = nullptr;
};

struct GemmCall {
  GemmSignature signature;
  GemmBuffers buffers;
};

// Reads and checks `args`. Errors name the field and value:
//   InvalidArgument for malformed args, as the reference provider reports
//   them (NULL a/b/d, short struct_size, rank other than 2, negative extents,
//   strides mixing zero and non-zero, shapes that do not chain, an unknown
//   epilogue, pre_gelu_out without GELU, NULL data of a non-empty tensor);
//   an fp8 A or B without quant, scale_inv or a scaling mode, or with
//   scale_inv of the wrong dtype or shape for its mode;
//   Unimplemented for well-formed args this provider does not serve: a
//   tensor on a device other than the host, a dtype other than fp32, fp16,
//   bf16 (C, D, bias, pre_gelu_out; A and B may also be fp8_e4m3 or
//   fp8_e5m2, per-tensor, MXFP8 or 1x128/128x128 block scaled), quant on an
//   unquantized matrix, an fp8 operand or scale_inv that is not contiguous,
//   a negative stride, k = 0, D or pre_gelu_out sharing memory with A, B,
//   the bias or each other (C may share D's memory).
absl::StatusOr<GemmCall> ReadGemmCall(const TeplugGemmArgs& args);

}  // namespace teplug::cpu::provider

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_GEMM_SIGNATURE_H_
