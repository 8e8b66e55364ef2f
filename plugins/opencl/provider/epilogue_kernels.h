// The OpenCL C of the GEMM's own kernels, compiled by ProgramCache with
// "-DTEPLUG_HALF" for fp16 tensors (read and written with vload_half /
// vstore_half_rte, so no cl_khr_fp16 is needed) and without it for fp32:
//   prefill   the fp32 result W = beta * C (or 0), before CLBlast adds the product
//   epilogue  D = gelu?(W + bias), pre_gelu_out = W + bias, rounded to T
// All index in elements; each work item does one element of a 2D grid.
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_EPILOGUE_KERNELS_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_EPILOGUE_KERNELS_H_

namespace teplug::opencl::provider {

inline constexpr char kEpilogueKernelSource[] = R"CL(
#ifdef TEPLUG_HALF
typedef half T;
#define LOAD(p, i) vload_half((i), (p))
#define STORE(p, i, v) vstore_half_rte((v), (i), (p))
#else
typedef float T;
#define LOAD(p, i) ((p)[(i)])
#define STORE(p, i, v) ((p)[(i)] = (v))
#endif

__kernel void prefill(__global const T* c, ulong c_off, ulong c_ld, float beta, int has_c,
                      __global float* w, ulong w_off, ulong w_ld) {
  const ulong i = get_global_id(0), j = get_global_id(1);
  w[w_off + i * w_ld + j] = has_c ? beta * LOAD(c, c_off + i * c_ld + j) : 0.0f;
}

__kernel void epilogue(__global const float* w, ulong w_off, ulong w_ld,
                       __global const T* bias, ulong bias_off, ulong bias_stride, int has_bias,
                       __global T* pre, ulong pre_off, ulong pre_ld, int has_pre, int gelu,
                       __global T* d, ulong d_off, ulong d_ld) {
  const ulong i = get_global_id(0), j = get_global_id(1);
  float x = w[w_off + i * w_ld + j];
  if (has_bias) x += LOAD(bias, bias_off + j * bias_stride);
  if (has_pre) STORE(pre, pre_off + i * pre_ld + j, x);
  if (gelu) x = 0.5f * x * (1.0f + tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  STORE(d, d_off + i * d_ld + j, x);
}
)CL";

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_EPILOGUE_KERNELS_H_
