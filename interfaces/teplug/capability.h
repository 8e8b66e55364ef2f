/* teplug/capability.h — the parts of capability descriptors shared by every
 * interface, op ids, and the optional dynamic `supports` hook.
 *
 * A capability descriptor is STATIC and DECLARATIVE: it says what an
 * implementation serves, so the core can match an op against it and explain a
 * rejection ("head_dim_qk 320 > max 256") without calling the plugin. Each
 * interface header defines its descriptor (TeplugGemmCaps, ...), which starts
 * with struct_size and a TeplugDeviceSupport list of at least one entry. The
 * descriptor and everything it points to (the device array) must stay valid
 * and unchanged until the plugin is unloaded: a host may keep the pointer
 * (static storage is the normal choice; teplug's core copies and validates it
 * at registration, and refuses a registration whose descriptor it cannot
 * validate).
 *
 * Conventions, the same in every descriptor:
 *  - Bit sets (dtypes, layouts, masks, biases, scaling modes, features, ops,
 *    reductions): a set bit means "served"; 0 means nothing is served. A bit
 *    set that says what the implementation is FOR (every dtype set, layouts,
 *    mask_types, bias_types, IQuantizer's scaling_modes, ICollective's ops,
 *    and reductions when a reducing op is listed) must not be 0, and no set
 *    may contain a bit the headers do not define: the core refuses such a
 *    descriptor at registration, naming the field.
 *  - Numeric limits (max_dim, head_dim_max, max_seqlen_*, max_world_size,
 *    arch_min, arch_max, head_dim_min): 0 means no bound; negative limits are
 *    refused. alignment and head_dim_multiple: 0 or 1 mean none.
 *  - Every bit and limit must be true: an op the descriptor accepts must not
 *    fail with TEPLUG_UNSUPPORTED for a reason the descriptor could have said.
 *
 * Field reference: every field here appeared in ABI v1.0 ("v1.0"). */
#ifndef TEPLUG_CAPABILITY_H_
#define TEPLUG_CAPABILITY_H_

#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One kind/vendor/arch range an implementation runs on (24 bytes in v1.0).
 * List AT LEAST ONE (num_devices 0 is refused; teplug's core also refuses
 * more than 64). The host reads the array with a STRIDE OF
 * devices[0].struct_size, so every element must carry the same struct_size
 * (that of the headers you compile against) and the list stays readable when
 * this struct grows; that stride must be at least the v1 size (24), a
 * multiple of 8 and at most 256 bytes (a larger one would send the host's
 * reads far outside the array, and is refused). Build it as a plain C array of
 * this struct; never append private fields. The op's device matches an entry
 * when the kind is equal or ANY, the vendor equal or ANY, and `arch` within
 * the bounds. */
typedef struct TeplugDeviceSupport {
  /* v1.0. The plugin's sizeof(TeplugDeviceSupport), the same in every
   * element. */
  size_t struct_size;
  /* v1.0. A TeplugDeviceKind: a defined kind or vendor-defined (>= 1024).
   * 0: TEPLUG_DEVICE_ANY, every kind. */
  int32_t kind;
  /* v1.0. PCI vendor id served. 0: TEPLUG_VENDOR_ANY, every vendor. */
  uint32_t vendor_id;
  /* v1.0. Lowest TeplugDevice.arch served, inclusive, >= 0. 0: no lower
   * bound. */
  int32_t arch_min;
  /* v1.0. Highest, inclusive, >= 0 and >= arch_min when both are set. 0: no
   * upper bound. */
  int32_t arch_max;
} TeplugDeviceSupport;
TEPLUG_DECLARE_LAST_FIELD(TeplugDeviceSupport, arch_max);

/* Which op of an interface a `supports` query or a selection is about (v1.0;
 * bit sets use TEPLUG_OP_BIT). The names after each value are the op's
 * interface and its name within that interface, spelled as config rules
 * (`interfaces`, `ops`) and messages ("attention forward bf16 ...") write
 * them; teplug/sdk/names.hpp returns them (OpInterfaceName, OpName). */
typedef enum TeplugOp {
  TEPLUG_OP_GEMM = 1,               /* gemm / gemm */
  TEPLUG_OP_ATTENTION_FORWARD = 2,  /* attention / forward */
  TEPLUG_OP_ATTENTION_BACKWARD = 3, /* attention / backward */
  TEPLUG_OP_QUANTIZE = 4,           /* quantizer / quantize */
  TEPLUG_OP_DEQUANTIZE = 5,         /* quantizer / dequantize */
  TEPLUG_OP_ALL_REDUCE = 6,         /* collective / all_reduce */
  TEPLUG_OP_ALL_GATHER = 7,         /* collective / all_gather */
  TEPLUG_OP_REDUCE_SCATTER = 8,     /* collective / reduce_scatter */
  TEPLUG_OP_BROADCAST = 9,          /* collective / broadcast */
  TEPLUG_OP_SEND = 10,              /* collective / send */
  TEPLUG_OP_RECV = 11,              /* collective / recv */
  TEPLUG_OP_BARRIER = 12,           /* collective / barrier */
  TEPLUG_OP_COUNT_ = 13
} TeplugOp;
#define TEPLUG_OP_BIT(op) (UINT32_C(1) << (op))

/* The optional dynamic hook every interface table carries as `supports`
 * (v1.0; NULL when the static descriptor says everything). Use the static
 * descriptor for everything it can express (it is cheaper and explains
 * itself); use `supports` for the rest (divisibility, combinations, shape
 * limits).
 *  - Called by the core during selection, after the static descriptor
 *    accepted the op, with `args` pointing at the op's args struct:
 *    TeplugGemmArgs* for TEPLUG_OP_GEMM, TeplugAttentionFwdArgs* /
 *    TeplugAttentionBwdArgs* for attention forward / backward,
 *    TeplugQuantizeArgs* / TeplugDequantizeArgs*, TeplugCollectiveArgs* for
 *    collective ops.
 *  - Returns nonzero if the implementation will serve the op. A yes is a
 *    promise for the static shape of the call, not a guarantee against
 *    run-time failure: the op itself may still return TEPLUG_UNAVAILABLE.
 *  - When it returns 0 it MUST write a NUL-terminated reason of at most
 *    `reason_size` bytes (including the NUL) into `reason`, naming the value
 *    it rejects ("k=7 not a multiple of 8"). Truncate rather than overflow;
 *    never return 0 with an empty or unwritten reason. The core passes a
 *    256-byte buffer.
 *  - Check `args` and args->struct_size before reading fields, and answer 0
 *    (with a reason) for an `op` it does not serve.
 *  - MUST NOT block, allocate device memory, launch work or read tensor data:
 *    a tensor's `data` may be NULL when the host only asks (e.g.
 *    `teplug explain`). May run concurrently.
 *  - Decide only from what the op signature holds: the host caches the
 *    answer per signature (interfaces/README.md, "What the dispatcher
 *    caches", lists it per op): dtypes, ranks, explicit strides, devices,
 *    scaling modes, pointer alignment classes up to 256 bytes, the op's flags
 *    and sizes, and shapes where the parameters do not imply them (attention:
 *    only bias and dbias). It does not hold data addresses, values,
 *    softmax_scale, RNG seeds or GEMM alpha/beta: refuse those from the op
 *    itself with TEPLUG_UNSUPPORTED naming the value. */
typedef TeplugBool (*TeplugSupportsFn)(TeplugObject* self, int32_t op, const void* args,
                                       char* reason, size_t reason_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_CAPABILITY_H_ */
