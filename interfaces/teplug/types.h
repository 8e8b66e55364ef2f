/* teplug/types.h — data types, devices, tensors and quantization metadata. */
#ifndef TEPLUG_TYPES_H_
#define TEPLUG_TYPES_H_

#include "teplug/abi_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types: TransformerEngine's set. Values are stable ABI; new types are
 * appended. Capability descriptors use bit masks TEPLUG_DTYPE_BIT(dtype). */
typedef enum TeplugDType {
  TEPLUG_DTYPE_INVALID = 0,
  TEPLUG_DTYPE_FP32 = 1,
  TEPLUG_DTYPE_FP16 = 2,
  TEPLUG_DTYPE_BF16 = 3,
  TEPLUG_DTYPE_FP8_E4M3 = 4, /* OCP e4m3: no infinities, one NaN pattern, max 448 */
  TEPLUG_DTYPE_FP8_E5M2 = 5, /* OCP e5m2: IEEE-like, max 57344 */
  TEPLUG_DTYPE_E8M0 = 6,     /* OCP MX scale: 2^(bits-127), 0xFF is NaN */
  TEPLUG_DTYPE_FP4_E2M1 = 7, /* two per byte, element 2i in the low nibble */
  TEPLUG_DTYPE_INT8 = 8,
  TEPLUG_DTYPE_INT32 = 9,
  TEPLUG_DTYPE_INT64 = 10,
  TEPLUG_DTYPE_UINT8 = 11,
  TEPLUG_DTYPE_COUNT_ = 12
} TeplugDType;
#define TEPLUG_DTYPE_BIT(d) (UINT64_C(1) << (d))

/* Where memory lives and code runs. Values >= TEPLUG_DEVICE_VENDOR_BASE are
 * vendor-defined kinds (a vendor picks one and documents it). */
typedef enum TeplugDeviceKind {
  TEPLUG_DEVICE_ANY = 0, /* capability descriptors only: matches every kind */
  TEPLUG_DEVICE_CPU = 1,
  TEPLUG_DEVICE_CUDA = 2,
  TEPLUG_DEVICE_OPENCL = 3,
  TEPLUG_DEVICE_VENDOR_BASE = 1024
} TeplugDeviceKind;

/* Well-known PCI vendor ids for TeplugDevice.vendor_id (0 = unspecified/any). */
#define TEPLUG_VENDOR_ANY 0x0000u
#define TEPLUG_VENDOR_NVIDIA 0x10DEu
#define TEPLUG_VENDOR_AMD 0x1002u
#define TEPLUG_VENDOR_INTEL 0x8086u

/* A device. `arch` is vendor-defined and ordered: for CUDA the compute
 * capability as major*10+minor (90 for sm_90, 100 for sm_100); 0 if unknown. */
typedef struct TeplugDevice {
  size_t struct_size;
  int32_t kind; /* TeplugDeviceKind */
  uint32_t vendor_id;
  int32_t ordinal; /* device index within its kind, 0-based */
  int32_t arch;
} TeplugDevice;
TEPLUG_DECLARE_LAST_FIELD(TeplugDevice, arch);

/* How a quantized tensor's values relate to real values. */
typedef enum TeplugScalingMode {
  TEPLUG_SCALING_NONE = 0,
  /* One fp32 scale for the tensor: real = code * scale_inv. Used by delayed
   * scaling (scale given, amax updated) and current scaling (amax computed, then
   * scale). */
  TEPLUG_SCALING_PER_TENSOR = 1,
  /* OCP MX: 32 consecutive elements along the row share one e8m0 scale. */
  TEPLUG_SCALING_MXFP8_1D32 = 2,
  /* 1x128 blocks along the row, fp32 scales. */
  TEPLUG_SCALING_BLOCK_1D128 = 3,
  /* 128x128 blocks, fp32 scales. */
  TEPLUG_SCALING_BLOCK_2D128 = 4,
  TEPLUG_SCALING_COUNT_ = 5
} TeplugScalingMode;
#define TEPLUG_SCALING_BIT(m) (UINT32_C(1) << (m))

#define TEPLUG_MAX_RANK 8

typedef struct TeplugQuantization TeplugQuantization;

/* A tensor view. Does not own `data`. Shapes and strides count ELEMENTS (for
 * fp4_e2m1 the innermost stride must be 1 and the element count even).
 * Strides are all given, or all zero meaning row-major contiguous; a mix is
 * invalid. */
typedef struct TeplugTensor {
  size_t struct_size;
  void* data;
  int32_t dtype; /* TeplugDType */
  int32_t rank;  /* 0..TEPLUG_MAX_RANK */
  int64_t shape[TEPLUG_MAX_RANK];
  int64_t strides[TEPLUG_MAX_RANK];
  /* Where `data` lives. NULL means host memory (TEPLUG_DEVICE_CPU, ordinal 0). */
  const TeplugDevice* device;
  /* NULL for unquantized tensors. */
  const TeplugQuantization* quant;
} TeplugTensor;
TEPLUG_DECLARE_LAST_FIELD(TeplugTensor, quant);

/* Quantization metadata of a tensor whose dtype is fp8/fp4 (or of a
 * high-precision output whose amax is tracked). All members are optional
 * (NULL) unless an op says otherwise. Scale tensors live on the same device as
 * the data.
 *  - scale:      fp32[1]; the multiplier applied when quantizing (per-tensor).
 *  - scale_inv:  per-tensor: fp32[1] = 1/scale, applied when dequantizing;
 *                MXFP8: e8m0 [rows, ceil(cols/32)]; block_1d128: fp32
 *                [rows, ceil(cols/128)]; block_2d128: fp32
 *                [ceil(rows/128), ceil(cols/128)].
 *  - amax:       fp32[1]; max |x| of the real values, written by producers.
 *  - columnwise_data / columnwise_scale_inv: the same values quantized along
 *                columns (the copy GEMMs need for the other operand order),
 *                optional. Per-tensor and block modes: the exact transpose,
 *                [cols, rows], with the transposed scale grid. MXFP8 (as in
 *                TransformerEngine): NOT transposed, [rows, cols], with blocks
 *                of 32 running down the columns and e8m0 scales
 *                [ceil(rows/32), cols]. */
struct TeplugQuantization {
  size_t struct_size;
  int32_t mode;     /* TeplugScalingMode */
  int32_t reserved0; /* zero */
  const TeplugTensor* scale;
  const TeplugTensor* scale_inv;
  const TeplugTensor* amax;
  const TeplugTensor* columnwise_data;
  const TeplugTensor* columnwise_scale_inv;
};
TEPLUG_DECLARE_LAST_FIELD(TeplugQuantization, columnwise_scale_inv);

/* A stream handle. Its meaning depends on the device kind of the op's tensors:
 * cudaStream_t for CUDA, cl_command_queue for OpenCL, NULL for the CPU (the
 * call completes before it returns). Work is ordered on it like any other work
 * enqueued there. */
typedef void* TeplugStream;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_TYPES_H_ */
