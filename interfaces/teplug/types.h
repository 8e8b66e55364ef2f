/* teplug/types.h — data types, devices, tensors and quantization metadata.
 *
 * Field reference. Every field and enum value in this header appeared in ABI
 * v1.0 (marked "v1.0"). A field's "0 / NULL:" note is what a zero value
 * means; it is also what a reader assumes for a field that a shorter (older)
 * struct does not contain. Offsets are bytes on LP64, pinned by
 * interfaces/tests/abi_layout_test.cc. Ownership: every struct here is
 * allocated by the caller of an op and borrowed by the implementation for the
 * call only (interfaces/README.md, "Streams, asynchrony and pointer
 * lifetimes"). */
#ifndef TEPLUG_TYPES_H_
#define TEPLUG_TYPES_H_

#include "teplug/abi_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types: TransformerEngine's set (v1.0). Values are stable ABI; new
 * types are appended. Capability descriptors use bit sets built with
 * TEPLUG_DTYPE_BIT(dtype). Canonical names (config files, messages) are the
 * lower-case suffixes ("fp8_e4m3"); the SDK's names.hpp spells them. The
 * bit-exact conversions (round to nearest even) are implemented by the
 * reference provider in plugins/reference/numerics/float_formats.h: use them
 * as a test oracle. */
typedef enum TeplugDType {
  TEPLUG_DTYPE_INVALID = 0,  /* never valid in a tensor */
  TEPLUG_DTYPE_FP32 = 1,     /* IEEE binary32 */
  TEPLUG_DTYPE_FP16 = 2,     /* IEEE binary16 */
  TEPLUG_DTYPE_BF16 = 3,     /* bfloat16: the top 16 bits of a binary32 */
  /* OCP e4m3: bias 7, no infinities, one NaN pattern per sign (S.1111.111),
   * max 448. */
  TEPLUG_DTYPE_FP8_E4M3 = 4,
  TEPLUG_DTYPE_FP8_E5M2 = 5, /* OCP e5m2: IEEE-like (Inf, NaN), max 57344 */
  /* OCP MX scale: value 2^(bits-127), 0xFF is NaN; the dtype of MXFP8
   * scale_inv. */
  TEPLUG_DTYPE_E8M0 = 6,
  /* Two elements per byte: element 2i in the LOW nibble, 2i+1 in the high
   * nibble; max 6. The innermost stride must be 1 and the innermost extent
   * even, so rows start on a byte; other strides still count elements (a
   * contiguous [R, C] fp4 tensor has strides [C, 1] and R*C/2 bytes). */
  TEPLUG_DTYPE_FP4_E2M1 = 7,
  TEPLUG_DTYPE_INT8 = 8,
  TEPLUG_DTYPE_INT32 = 9,
  TEPLUG_DTYPE_INT64 = 10,
  TEPLUG_DTYPE_UINT8 = 11,
  TEPLUG_DTYPE_COUNT_ = 12 /* one past the last value */
} TeplugDType;
#define TEPLUG_DTYPE_BIT(d) (UINT64_C(1) << (d))

/* Where memory lives and code runs (v1.0). Values >= TEPLUG_DEVICE_VENDOR_BASE
 * are vendor-defined kinds: a vendor picks one, documents it with its stream
 * type, and uses it consistently; configuration names it "vendor<N>". */
typedef enum TeplugDeviceKind {
  TEPLUG_DEVICE_ANY = 0, /* capability descriptors only: matches every kind */
  TEPLUG_DEVICE_CPU = 1,
  TEPLUG_DEVICE_CUDA = 2,
  TEPLUG_DEVICE_OPENCL = 3,
  TEPLUG_DEVICE_VENDOR_BASE = 1024
} TeplugDeviceKind;

/* PCI vendor ids for TeplugDevice.vendor_id (v1.0); other vendors use their
 * PCI vendor id. */
#define TEPLUG_VENDOR_ANY 0x0000u /* unspecified / any */
#define TEPLUG_VENDOR_NVIDIA 0x10DEu
#define TEPLUG_VENDOR_AMD 0x1002u
#define TEPLUG_VENDOR_INTEL 0x8086u

/* A device (24 bytes in v1.0). Allocated by the caller, borrowed. */
typedef struct TeplugDevice {
  /* v1.0. The writer's sizeof(TeplugDevice). */
  size_t struct_size;
  /* v1.0. A TeplugDeviceKind. 0: TEPLUG_DEVICE_ANY, never valid on a tensor. */
  int32_t kind;
  /* v1.0. PCI vendor id (TEPLUG_VENDOR_*). 0: unspecified. */
  uint32_t vendor_id;
  /* v1.0. Device index within its kind, 0-based. */
  int32_t ordinal;
  /* v1.0. Vendor-defined, ORDERED architecture number; CUDA: compute
   * capability major*10+minor (90 = sm_90, 100 = sm_100). 0: unknown. */
  int32_t arch;
} TeplugDevice;
TEPLUG_DECLARE_LAST_FIELD(TeplugDevice, arch);

/* How a quantized tensor's values relate to real values (v1.0). Bit sets use
 * TEPLUG_SCALING_BIT(mode). The shapes of the scales per mode are under
 * TeplugQuantization.scale_inv and columnwise_scale_inv. */
typedef enum TeplugScalingMode {
  TEPLUG_SCALING_NONE = 0, /* "none": not quantized */
  /* "per_tensor": one fp32 scale for the tensor: real = code * scale_inv.
   * Used by delayed scaling (scale given, amax recorded) and current scaling
   * (amax computed, then scale). */
  TEPLUG_SCALING_PER_TENSOR = 1,
  /* "mxfp8_1d32", OCP MX: 32 consecutive elements along the row share one
   * e8m0 scale. */
  TEPLUG_SCALING_MXFP8_1D32 = 2,
  /* "block_1d128": 1x128 blocks along the row, fp32 scales. */
  TEPLUG_SCALING_BLOCK_1D128 = 3,
  /* "block_2d128": 128x128 blocks, fp32 scales. */
  TEPLUG_SCALING_BLOCK_2D128 = 4,
  TEPLUG_SCALING_COUNT_ = 5
} TeplugScalingMode;
#define TEPLUG_SCALING_BIT(m) (UINT32_C(1) << (m))

#define TEPLUG_MAX_RANK 8

typedef struct TeplugQuantization TeplugQuantization;

/* A tensor VIEW (168 bytes in v1.0): it never owns `data`. The caller
 * allocates the struct and keeps it valid for the call.
 *
 * Element (i0, ..., i_{r-1}) is at data + sum_k i_k * strides[k] ELEMENTS.
 * `rank` and `shape` describe the logical tensor; an op that wants a matrix
 * views a rank-N tensor as [prod(shape[:-1]), shape[-1]] where it says so
 * (IQuantizer, the scaling modes). Implementations check what they rely on
 * (dtype, rank, shapes, strides, device kind, alignment) and return
 * TEPLUG_INVALID_ARGUMENT (malformed) or TEPLUG_UNSUPPORTED (valid but not
 * served), naming the tensor and the value. */
typedef struct TeplugTensor {
  /* v1.0. The writer's sizeof(TeplugTensor). */
  size_t struct_size;
  /* v1.0. First element, in the memory of `device`. NULL: no data, valid
   * only where an op says so (e.g. when the host only asks `supports`). */
  void* data;
  /* v1.0. A TeplugDType. 0: TEPLUG_DTYPE_INVALID, never valid. */
  int32_t dtype;
  /* v1.0. 0..TEPLUG_MAX_RANK (8). 0: a scalar. */
  int32_t rank;
  /* v1.0. Extents, >= 0; entries at index >= rank are ignored. */
  int64_t shape[TEPLUG_MAX_RANK];
  /* v1.0. Distances in ELEMENTS (not bytes) between neighbours along each
   * axis, all given or all zero. All zero: row-major contiguous
   * (strides[r-1] = 1, strides[k] = strides[k+1] * shape[k+1]). A mix of zero
   * and non-zero strides is malformed: refuse it with TEPLUG_INVALID_ARGUMENT
   * naming the tensor. Explicit strides are honoured or refused with a
   * message. fp4_e2m1: see TEPLUG_DTYPE_FP4_E2M1. */
  int64_t strides[TEPLUG_MAX_RANK];
  /* v1.0. Where `data` lives. NULL: host memory (TEPLUG_DEVICE_CPU,
   * ordinal 0). */
  const TeplugDevice* device;
  /* v1.0. Quantization metadata. NULL: an unquantized tensor. */
  const TeplugQuantization* quant;
} TeplugTensor;
TEPLUG_DECLARE_LAST_FIELD(TeplugTensor, quant);

/* Quantization metadata (56 bytes in v1.0) of a tensor whose dtype is
 * fp8/fp4, or of a high-precision output whose amax is tracked. All members
 * are optional (NULL) unless an op says otherwise. Scale tensors live on the
 * SAME DEVICE as the data. Borrowed like the tensor that points to it. The
 * pointers are const because the descriptor is not modified: an op that
 * produces scales writes through the member tensor's `data`.
 *
 * Shapes below are for the data viewed as [rows, cols] (rows =
 * prod(shape[:-1]), cols = shape[-1]). Scale tensors are unpadded: a partial
 * last block has its own scale computed from the elements it holds. */
struct TeplugQuantization {
  /* v1.0. The writer's sizeof(TeplugQuantization). */
  size_t struct_size;
  /* v1.0. A TeplugScalingMode. 0: none. */
  int32_t mode;
  /* v1.0. Zero; fills what would be padding. */
  int32_t reserved0;
  /* v1.0. fp32[1]: the multiplier applied when quantizing (per-tensor).
   * NULL: not given. */
  const TeplugTensor* scale;
  /* v1.0. The dequantization multiplier(s): real = code * scale_inv.
   *   per_tensor:  fp32 [1] (= 1/scale)
   *   mxfp8_1d32:  e8m0 [rows, ceil(cols/32)]
   *   block_1d128: fp32 [rows, ceil(cols/128)]
   *   block_2d128: fp32 [ceil(rows/128), ceil(cols/128)]
   * NULL: not given (an op that reads the tensor's real values refuses it). */
  const TeplugTensor* scale_inv;
  /* v1.0. fp32[1]: max |x| of the real values, written by producers. NULL:
   * not tracked. */
  const TeplugTensor* amax;
  /* v1.0. The same values quantized along columns (the copy GEMMs need for
   * the other operand order).
   *   per_tensor, block_1d128, block_2d128: the exact transpose [cols, rows],
   *     quantized by the row-wise rule applied to the transpose;
   *   mxfp8_1d32: NOT transposed, [rows, cols] (as in TransformerEngine);
   *     only the direction of the blocks changes: 32 consecutive elements
   *     down each column.
   * NULL: no column-wise copy. */
  const TeplugTensor* columnwise_data;
  /* v1.0. The scales of columnwise_data:
   *   per_tensor:  fp32 [1] (the one tensor scale)
   *   mxfp8_1d32:  e8m0 [ceil(rows/32), cols]
   *   block_1d128: fp32 [cols, ceil(rows/128)] (1x128 blocks along the rows
   *                of the transpose, i.e. down the original columns)
   *   block_2d128: fp32 [ceil(cols/128), ceil(rows/128)] (the transposed grid)
   * NULL: no column-wise copy. */
  const TeplugTensor* columnwise_scale_inv;
};
TEPLUG_DECLARE_LAST_FIELD(TeplugQuantization, columnwise_scale_inv);

/* A stream handle (v1.0). Its meaning depends on the device kind of the op's
 * tensors: cudaStream_t for CUDA, cl_command_queue for OpenCL, NULL for the
 * CPU (the call completes before it returns); a vendor-defined kind
 * documents its own. Work is ordered on it like any other work enqueued
 * there: enqueue on it (or make it wait for your streams) and return without
 * synchronizing the device. */
typedef void* TeplugStream;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_TYPES_H_ */
