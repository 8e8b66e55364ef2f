/* teplug/collective.h — ICollective v1: communicators and collectives.
 *
 * A communicator joins `world_size` ranks. Ranks meet through a rendezvous the
 * host provides: an opaque bootstrap blob every rank received out of band (the
 * implementation defines its content and documents how rank 0 makes one), or a
 * key-value store offered as callbacks. Ops are ordered on the given stream;
 * on the CPU (stream NULL) they complete before returning. Every rank must
 * issue the same collectives in the same order. Calls on one communicator are
 * serialized by the caller (one thread at a time); different communicators
 * may be used concurrently. A bootstrap blob's format is defined by each
 * implementation (see its documentation); the key-value store is the portable
 * rendezvous. */
#ifndef TEPLUG_COLLECTIVE_H_
#define TEPLUG_COLLECTIVE_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TEPLUG_IID_COLLECTIVE_V1_INIT {0x7465706c75670001ull, 0x636f6c6c00000001ull}

typedef enum TeplugReduceOp {
  TEPLUG_REDUCE_SUM = 0,
  TEPLUG_REDUCE_PROD = 1,
  TEPLUG_REDUCE_MIN = 2,
  TEPLUG_REDUCE_MAX = 3,
  TEPLUG_REDUCE_AVG = 4, /* sum / world_size; integers round toward zero */
  TEPLUG_REDUCE_COUNT_ = 5
} TeplugReduceOp;
#define TEPLUG_REDUCE_BIT(r) (UINT32_C(1) << (r))

/* A key-value store the host offers for rendezvous. `put` publishes bytes
 * under a key (visible to every rank); `get` blocks up to timeout_ms until the
 * key exists, then copies at most `capacity` bytes into `buffer` and writes the
 * stored size to `*size`; when the value is larger than capacity it still
 * writes `*size` and returns TEPLUG_INVALID_ARGUMENT. Callbacks may be called
 * from any thread of the calling rank. */
typedef struct TeplugKvStore {
  size_t struct_size;
  void* ctx;
  TeplugError* (*put)(void* ctx, const char* key, const void* value, size_t size);
  TeplugError* (*get)(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
                      int64_t timeout_ms);
} TeplugKvStore;
TEPLUG_DECLARE_LAST_FIELD(TeplugKvStore, get);

/* Exactly one of bootstrap (with bootstrap_size > 0) or kv must be set. The
 * implementation copies what it needs; nothing is retained after create. */
typedef struct TeplugRendezvous {
  size_t struct_size;
  const void* bootstrap;
  size_t bootstrap_size;
  const TeplugKvStore* kv;
  /* Prefix for every key this communicator puts into kv, so several
   * communicators can share one store. */
  const char* kv_prefix;
  int64_t timeout_ms; /* for the whole rendezvous and each later op; 0 = implementation default */
} TeplugRendezvous;
TEPLUG_DECLARE_LAST_FIELD(TeplugRendezvous, timeout_ms);

/* An implementation-owned communicator handle. */
typedef struct TeplugCommunicator TeplugCommunicator;

typedef struct TeplugCommCreateArgs {
  size_t struct_size;
  int32_t rank;
  int32_t world_size;
  const TeplugRendezvous* rendezvous;
  const TeplugDevice* device; /* where this rank's buffers live; NULL = host */
} TeplugCommCreateArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugCommCreateArgs, device);

/* Every op's args. Which members an op reads:
 *  all_reduce:     send [count] -> recv [count], reduce_op (recv may alias send)
 *  all_gather:     send [count] -> recv [world*count] in rank order; with
 *                  counts (host int64 array [world]) rank r sends counts[r] elements and
 *                  recv holds their concatenation
 *  reduce_scatter: send [world*count] -> recv [count] (rank r gets block r),
 *                  reduce_op; counts as for all_gather
 *  broadcast:      root's send -> every rank's recv (root may alias)
 *  send / recv:    send to / recv from `peer`
 *  barrier:        nothing
 * Element counts are the tensors' element counts; dtypes must match. */
typedef struct TeplugCollectiveArgs {
  size_t struct_size;
  TeplugCommunicator* comm;
  const TeplugTensor* send;
  TeplugTensor* recv;
  const int64_t* counts;
  int32_t reduce_op; /* TeplugReduceOp */
  int32_t root;
  int32_t peer;
  int32_t reserved0; /* zero */
  TeplugStream stream;
} TeplugCollectiveArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugCollectiveArgs, stream);

typedef struct TeplugCollectiveCaps {
  size_t struct_size;
  const TeplugDeviceSupport* devices;
  size_t num_devices;
  uint64_t dtypes;     /* TEPLUG_DTYPE_BIT set accepted by every op */
  uint32_t ops;        /* TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE ...) */
  uint32_t reductions; /* TEPLUG_REDUCE_BIT set */
  int64_t max_world_size; /* 0 = unbounded */
} TeplugCollectiveCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugCollectiveCaps, max_world_size);

typedef struct TeplugCollectiveV1 TeplugCollectiveV1;
typedef struct TeplugCollectiveV1Vtbl {
  TeplugObjectVtbl base;
  TeplugSupportsFn supports; /* may be NULL; args is a TeplugCollectiveArgs* */
  TeplugError* (*comm_create)(TeplugCollectiveV1* self, const TeplugCommCreateArgs* args,
                              TeplugCommunicator** out);
  /* Frees the communicator; no op may be in flight on it. */
  TeplugError* (*comm_destroy)(TeplugCollectiveV1* self, TeplugCommunicator* comm);
  /* `op` is one of TEPLUG_OP_ALL_REDUCE .. TEPLUG_OP_BARRIER. */
  TeplugError* (*run)(TeplugCollectiveV1* self, int32_t op, const TeplugCollectiveArgs* args);
  /* Calls between group_start and group_end are queued and issued together at
   * group_end (so send/recv pairs inside a group cannot deadlock). Groups do
   * not nest. */
  TeplugError* (*group_start)(TeplugCollectiveV1* self, TeplugCommunicator* comm);
  TeplugError* (*group_end)(TeplugCollectiveV1* self, TeplugCommunicator* comm);
} TeplugCollectiveV1Vtbl;
TEPLUG_DECLARE_LAST_FIELD(TeplugCollectiveV1Vtbl, group_end);

struct TeplugCollectiveV1 {
  const TeplugCollectiveV1Vtbl* vtbl;
};

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_COLLECTIVE_H_ */
