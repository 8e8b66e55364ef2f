// The OpenCL C that turns a GEMM operand CLBlast cannot take (fp16, bf16,
// fp8 with per-tensor or MXFP8 scales) into a contiguous fp32 matrix, appended
// to kFloatCodecSource and built once per context by ProgramCache. fp16, bf16
// and MXFP8 values are exact in fp32; a per-tensor fp8 value is
// code * scale_inv rounded once to fp32 (the reference keeps it in fp64).
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_GEMM_OPERAND_KERNELS_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_GEMM_OPERAND_KERNELS_H_

namespace teplug::opencl::provider {

// The `kind` argument of operand_to_f32 beyond the TEPLUG_KIND_* of
// float_codec_kernels.h.
inline constexpr int kClKindFp8E4m3 = 3;
inline constexpr int kClKindFp8E5m2 = 4;

inline constexpr char kGemmOperandKernelSource[] = R"CL(
/* Grid [rows, cols]: element (r, c) of the operand at element offset
 * src_off with row stride src_ld into dst[r * cols + c]. For fp8 kinds, mx
 * selects e8m0 scales [rows, scale_cols] at byte offset scale_off, else one
 * fp32 scale_inv at scale_off. */
__kernel void operand_to_f32(__global const uchar* src, ulong src_off, ulong src_ld, int kind,
                             int mx, __global const uchar* scales, ulong scale_off,
                             ulong scale_cols, __global uchar* dst) {
  const ulong r = get_global_id(0), c = get_global_id(1), cols = get_global_size(1);
  const ulong k = src_off + r * src_ld + c, i = r * cols + c;
  if (kind <= TEPLUG_KIND_BF16) {
    ((__global uint*)dst)[i] = teplug_load_bits(src, 0, kind, k);
    return;
  }
  const uint scale = mx ? scales[scale_off + r * scale_cols + c / 32]
                        : *(__global const uint*)(scales + scale_off);
  const teplug_exact x = teplug_scaled_code(src[k], kind == 4, mx, scale);
  teplug_store(dst, 0, TEPLUG_KIND_FP32, i, x.sign, x.sig, x.e, x.special, x.value);
}
)CL";

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_GEMM_OPERAND_KERNELS_H_
