/* teplug/capability.h — the parts of capability descriptors shared by every
 * interface, and the optional dynamic `supports` hook.
 *
 * A capability descriptor is STATIC and DECLARATIVE: the core evaluates it and
 * explains a rejection ("head_dim_qk 320 > max 256") without calling the
 * plugin. Each interface header defines its descriptor (TeplugGemmCaps, ...),
 * which starts with struct_size and a TeplugDeviceSupport list of at least
 * one entry. The host reads that array with a stride of devices[0].struct_size
 * (every element must carry the same struct_size; at most 256 bytes), so the
 * list stays readable when TeplugDeviceSupport grows. Descriptors
 * and everything they point to must stay valid and unchanged until the plugin
 * is unloaded (static storage is the normal choice). */
#ifndef TEPLUG_CAPABILITY_H_
#define TEPLUG_CAPABILITY_H_

#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One kind of device an implementation runs on. An implementation lists one
 * entry per kind/vendor/arch range it supports. */
typedef struct TeplugDeviceSupport {
  size_t struct_size;
  int32_t kind;       /* TeplugDeviceKind; TEPLUG_DEVICE_ANY matches every kind */
  uint32_t vendor_id; /* TEPLUG_VENDOR_ANY (0) matches every vendor */
  int32_t arch_min;   /* inclusive; 0 = no lower bound */
  int32_t arch_max;   /* inclusive; 0 = no upper bound */
} TeplugDeviceSupport;
TEPLUG_DECLARE_LAST_FIELD(TeplugDeviceSupport, arch_max);

/* Which op of an interface a `supports` query or a selection is about. */
typedef enum TeplugOp {
  TEPLUG_OP_GEMM = 1,
  TEPLUG_OP_ATTENTION_FORWARD = 2,
  TEPLUG_OP_ATTENTION_BACKWARD = 3,
  TEPLUG_OP_QUANTIZE = 4,
  TEPLUG_OP_DEQUANTIZE = 5,
  TEPLUG_OP_ALL_REDUCE = 6,
  TEPLUG_OP_ALL_GATHER = 7,
  TEPLUG_OP_REDUCE_SCATTER = 8,
  TEPLUG_OP_BROADCAST = 9,
  TEPLUG_OP_SEND = 10,
  TEPLUG_OP_RECV = 11,
  TEPLUG_OP_BARRIER = 12,
  TEPLUG_OP_COUNT_ = 13
} TeplugOp;
#define TEPLUG_OP_BIT(op) (UINT32_C(1) << (op))

/* The optional dynamic hook every interface table carries as `supports`
 * (NULL when the static descriptor says everything). Called by the core during
 * selection, after the static descriptor accepted the op, with `args` pointing
 * at the op's args struct (TeplugGemmArgs* for TEPLUG_OP_GEMM, ...). Returns
 * nonzero if the implementation will serve the op. When it returns 0 it MUST
 * write a NUL-terminated reason of at most `reason_size` bytes (including the
 * NUL) into `reason`, naming the value it rejects ("k=7 not a multiple of 8").
 * Must not block, allocate device memory, launch work or read tensor data
 * (`data` may be NULL when the host only asks, e.g. `teplug explain`); may run
 * concurrently. The host caches the answer per op signature, so decide only
 * from what the signature holds (interfaces/README.md section 3.4 lists it
 * per op): dtypes, ranks, explicit strides, devices, scaling modes, pointer
 * alignment classes up to 256 bytes, the op's flags and sizes, and shapes
 * where the parameters do not imply them (attention: only bias and dbias).
 * It does not hold data addresses, values, softmax_scale, RNG seeds or GEMM
 * alpha/beta: refuse those from the op itself with TEPLUG_UNSUPPORTED. */
typedef TeplugBool (*TeplugSupportsFn)(TeplugObject* self, int32_t op, const void* args,
                                       char* reason, size_t reason_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_CAPABILITY_H_ */
