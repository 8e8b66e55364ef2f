/* teplug/device.h — IDevice v1: the devices a provider serves, their memory
 * and their streams.
 *
 * A provider that runs ops on a device registers one IDevice implementation
 * for it, so that a host tool can find the device, put tensors on it, run an
 * op and read the result without any vendor API: `teplug list` shows the
 * devices, `teplug conformance` and `teplug run` drive ops through it.
 *
 * The model (as ICollective's communicators):
 *  - device_count / device_info enumerate the devices the implementation
 *    serves. The host's dispatching IDevice enumerates the devices of every
 *    registered implementation.
 *  - open binds a device to a context. The host selects the implementation
 *    for a TeplugDevice at open (capability descriptor, `supports`, config
 *    rules on interface "device", op "open"), and every later call on the
 *    context goes to that implementation: memory and streams belong to the
 *    context that made them and are only valid with it.
 *  - allocate / deallocate device memory; copy host<->device and
 *    device<->device within the context's device; streams to order work.
 *
 * Errors: INVALID_ARGUMENT for malformed calls (NULL context, a pointer or
 * stream the context did not make, a zero size, an alignment that is not a
 * power of two), UNSUPPORTED for a device the implementation does not serve,
 * RESOURCE_EXHAUSTED when memory runs out. Every call is thread-safe on
 * distinct contexts; on one context, calls are thread-safe except that a
 * pointer or stream must not be used after (or while) it is released.
 *
 * Op numbers are local to this interface (TeplugDeviceOp): `supports`
 * receives TEPLUG_DEVICE_OP_OPEN with a TeplugDeviceOpenArgs*. */
#ifndef TEPLUG_DEVICE_H_
#define TEPLUG_DEVICE_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* IDevice/1 (v1.0). */
#define TEPLUG_IID_DEVICE_V1_INIT {0x7465706c75670001ull, 0x6465766900000001ull}

/* The ops of IDevice/1 selection decides (interface-local numbers). */
typedef enum TeplugDeviceOp {
  TEPLUG_DEVICE_OP_OPEN = 1, /* args: TeplugDeviceOpenArgs* */
  TEPLUG_DEVICE_OP_COUNT_ = 2
} TeplugDeviceOp;

/* One device an implementation serves (104 bytes in v1.0). The CALLER
 * allocates it and sets struct_size to its sizeof; the implementation writes
 * only the fields that fit in struct_size (sdk::DeviceImpl does this). */
typedef struct TeplugDeviceInfo {
  /* v1.0. The caller's sizeof(TeplugDeviceInfo). */
  size_t struct_size;
  /* v1.0. The device, as a TeplugDevice names it: a TeplugDeviceKind. */
  int32_t kind;
  /* v1.0. PCI vendor id (TEPLUG_VENDOR_*); 0: none (the host CPU). */
  uint32_t vendor_id;
  /* v1.0. Index within its kind, 0-based. */
  int32_t ordinal;
  /* v1.0. As TeplugDevice.arch; 0: unknown or none. */
  int32_t arch;
  /* v1.0. A human-readable name, UTF-8, NUL-terminated ("NVIDIA H200",
   * "host CPU (16 threads)"). */
  char name[64];
  /* v1.0. Bytes of memory the device has; 0: unknown. */
  uint64_t memory_bytes;
  /* v1.0. Nonzero: ops on this device accept tensors whose data is ordinary
   * host memory (the CPU; unified-memory devices), so a host may skip the
   * copies. Zero: tensors must be in memory from `allocate`. */
  TeplugBool host_pointers_usable;
  /* v1.0. Zero. */
  int32_t reserved0;
} TeplugDeviceInfo;
TEPLUG_DECLARE_LAST_FIELD(TeplugDeviceInfo, reserved0);

/* An implementation-owned context: one opened device. */
typedef struct TeplugDeviceContext TeplugDeviceContext;

/* open's arguments (16 bytes in v1.0). */
typedef struct TeplugDeviceOpenArgs {
  /* v1.0. The writer's sizeof(TeplugDeviceOpenArgs). */
  size_t struct_size;
  /* v1.0. The device to open, required; its kind is not TEPLUG_DEVICE_ANY. */
  const TeplugDevice* device;
} TeplugDeviceOpenArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugDeviceOpenArgs, device);

/* allocate's arguments (32 bytes in v1.0). */
typedef struct TeplugAllocateArgs {
  /* v1.0. The writer's sizeof(TeplugAllocateArgs). */
  size_t struct_size;
  /* v1.0. The context, required. */
  TeplugDeviceContext* context;
  /* v1.0. Bytes to allocate, > 0. */
  size_t bytes;
  /* v1.0. A power of two. 0: at least 256, enough for every op of the
   * provider. */
  size_t alignment;
} TeplugAllocateArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugAllocateArgs, alignment);

/* Which way a copy goes (v1.0). */
typedef enum TeplugCopyKind {
  TEPLUG_COPY_HOST_TO_DEVICE = 0, /* src: host memory; dst: from allocate */
  TEPLUG_COPY_DEVICE_TO_HOST = 1, /* src: from allocate; dst: host memory */
  TEPLUG_COPY_DEVICE_TO_DEVICE = 2, /* both from allocate on this context */
  TEPLUG_COPY_KIND_COUNT_ = 3
} TeplugCopyKind;

/* copy's arguments (56 bytes in v1.0). Device pointers may point inside an
 * allocation; the whole range [p, p + bytes) must lie inside one. */
typedef struct TeplugCopyArgs {
  /* v1.0. The writer's sizeof(TeplugCopyArgs). */
  size_t struct_size;
  /* v1.0. The context, required. */
  TeplugDeviceContext* context;
  /* v1.0. A TeplugCopyKind. */
  int32_t kind;
  /* v1.0. Zero. */
  int32_t reserved0;
  /* v1.0. Destination, required unless bytes is 0. */
  void* dst;
  /* v1.0. Source, required unless bytes is 0. */
  const void* src;
  /* v1.0. Bytes to copy; 0 is a no-op. */
  size_t bytes;
  /* v1.0. NULL: the copy has completed when copy returns. Otherwise a
   * stream from stream_create on this context: the copy is ordered on it and
   * has completed after stream_synchronize; host memory must stay valid and
   * unchanged until then. */
  TeplugStream stream;
} TeplugCopyArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugCopyArgs, stream);

/* What an IDevice implementation serves: the devices its open accepts
 * (checked by the host before open is called). */
typedef struct TeplugDeviceCaps {
  /* v1.0. The plugin's sizeof(TeplugDeviceCaps). */
  size_t struct_size;
  /* v1.0. The devices served, at least one entry. */
  const TeplugDeviceSupport* devices;
  /* v1.0. Entries in `devices`, >= 1. */
  size_t num_devices;
} TeplugDeviceCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugDeviceCaps, num_devices);

typedef struct TeplugDeviceV1 TeplugDeviceV1;
typedef struct TeplugDeviceV1Vtbl {
  /* v1.0. */
  TeplugObjectVtbl base;
  /* v1.0. The hook of capability.h for op TEPLUG_DEVICE_OP_OPEN. May be
   * NULL. */
  TeplugSupportsFn supports;
  /* v1.0. Writes the number of devices served to *count. */
  TeplugError* (*device_count)(TeplugDeviceV1* self, size_t* count);
  /* v1.0. Describes device `index` (< the count) into *info, whose
   * struct_size the caller set; INVALID_ARGUMENT for an index out of range. */
  TeplugError* (*device_info)(TeplugDeviceV1* self, size_t index, TeplugDeviceInfo* info);
  /* v1.0. Opens args->device and writes the new context to *out;
   * UNSUPPORTED (with the reason) for a device it does not serve. */
  TeplugError* (*open)(TeplugDeviceV1* self, const TeplugDeviceOpenArgs* args,
                       TeplugDeviceContext** out);
  /* v1.0. Releases the context with the memory and streams it still holds. */
  TeplugError* (*close)(TeplugDeviceV1* self, TeplugDeviceContext* context);
  /* v1.0. Allocates device memory and writes its address to *out. */
  TeplugError* (*allocate)(TeplugDeviceV1* self, const TeplugAllocateArgs* args, void** out);
  /* v1.0. Frees memory `allocate` returned on this context (after the work
   * using it has completed). NULL is a no-op. */
  TeplugError* (*deallocate)(TeplugDeviceV1* self, TeplugDeviceContext* context, void* ptr);
  /* v1.0. Copies as TeplugCopyArgs says. */
  TeplugError* (*copy)(TeplugDeviceV1* self, const TeplugCopyArgs* args);
  /* v1.0. Creates a stream (see TeplugStream) and writes it to *out. */
  TeplugError* (*stream_create)(TeplugDeviceV1* self, TeplugDeviceContext* context,
                                TeplugStream* out);
  /* v1.0. Returns when all work enqueued on `stream` has completed; the
   * first error of that work, if any. */
  TeplugError* (*stream_synchronize)(TeplugDeviceV1* self, TeplugDeviceContext* context,
                                     TeplugStream stream);
  /* v1.0. Waits for the stream's work, then destroys it. */
  TeplugError* (*stream_destroy)(TeplugDeviceV1* self, TeplugDeviceContext* context,
                                 TeplugStream stream);
} TeplugDeviceV1Vtbl;
TEPLUG_DECLARE_LAST_FIELD(TeplugDeviceV1Vtbl, stream_destroy);

struct TeplugDeviceV1 {
  const TeplugDeviceV1Vtbl* vtbl;
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_DEVICE_H_ */
