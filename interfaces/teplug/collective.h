/* teplug/collective.h — ICollective v1: communicators and collectives.
 *
 * A communicator joins `world_size` ranks (processes or threads). It is an
 * implementation-owned opaque handle (TeplugCommunicator*), created by
 * comm_create and freed by comm_destroy. Ranks meet through a rendezvous the
 * host provides: either an opaque bootstrap blob every rank received out of
 * band, or a key-value store offered as callbacks. A bootstrap blob's format
 * is DEFINED BY EACH IMPLEMENTATION (which documents it and how rank 0 makes
 * one; no ICollective v1 method makes one), so a blob only works with the
 * implementation it was made for; the key-value store is the portable
 * rendezvous, and a host that does not know the implementation uses it. The
 * reference collectives (plugins/reference/collective/, rendezvous.h:
 * "teplug-collective-v1:" + a region path) show one way to define a blob and
 * to use the store.
 *
 * Ops are ordered on the given stream; on the CPU (stream NULL) they complete
 * before returning. Every rank must issue the same collectives in the same
 * order. Calls on one communicator are SERIALIZED BY THE CALLER (one thread at
 * a time: run, group_start, group_end, comm_destroy); different communicators
 * may be used concurrently, also on one object.
 *
 * Selection: teplug's core selects a collective implementation once, at
 * comm_create (supports is not called there: there are no op args yet); the
 * communicator is bound to it. Each later run checks the bound
 * implementation's descriptor and supports for that op and, when either
 * refuses, returns TEPLUG_UNSUPPORTED naming why: a communicator never falls
 * back to another implementation.
 *
 * Field reference: every field here appeared in ABI v1.0 ("v1.0"); "0 /
 * NULL:" is what a zero value means (and what a reader assumes for a field a
 * shorter struct lacks). */
#ifndef TEPLUG_COLLECTIVE_H_
#define TEPLUG_COLLECTIVE_H_

#include "teplug/capability.h"
#include "teplug/status.h"
#include "teplug/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ICollective/1 (v1.0). */
#define TEPLUG_IID_COLLECTIVE_V1_INIT {0x7465706c75670001ull, 0x636f6c6c00000001ull}

/* Reductions (v1.0; bit sets use TEPLUG_REDUCE_BIT). */
typedef enum TeplugReduceOp {
  TEPLUG_REDUCE_SUM = 0,
  TEPLUG_REDUCE_PROD = 1,
  TEPLUG_REDUCE_MIN = 2,
  TEPLUG_REDUCE_MAX = 3,
  TEPLUG_REDUCE_AVG = 4, /* sum / world_size; integers round toward zero */
  TEPLUG_REDUCE_COUNT_ = 5
} TeplugReduceOp;
#define TEPLUG_REDUCE_BIT(r) (UINT32_C(1) << (r))

/* A key-value store the host offers for rendezvous (32 bytes in v1.0);
 * host-owned, valid during comm_create. The callbacks may be called from any
 * thread of the calling rank. Errors they return are owned by the
 * implementation (destroy or pass on). */
typedef struct TeplugKvStore {
  /* v1.0. The host's sizeof(TeplugKvStore). */
  size_t struct_size;
  /* v1.0. Passed back to both callbacks. */
  void* ctx;
  /* v1.0. Publishes `size` bytes under `key` (NUL-terminated), visible to
   * every rank. */
  TeplugError* (*put)(void* ctx, const char* key, const void* value, size_t size);
  /* v1.0. Blocks up to timeout_ms until `key` exists, then copies at most
   * `capacity` bytes into `buffer` and writes the stored size to *size. When
   * the value is larger than capacity it STILL WRITES *size and returns
   * TEPLUG_INVALID_ARGUMENT, so the caller can retry with a buffer of *size
   * bytes; TEPLUG_DEADLINE_EXCEEDED on timeout. */
  TeplugError* (*get)(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
                      int64_t timeout_ms);
} TeplugKvStore;
TEPLUG_DECLARE_LAST_FIELD(TeplugKvStore, get);

/* How ranks meet (48 bytes in v1.0). EXACTLY ONE of bootstrap (with
 * bootstrap_size > 0) or kv must be set. The implementation copies what it
 * needs; nothing is retained after comm_create returns. */
typedef struct TeplugRendezvous {
  /* v1.0. The writer's sizeof(TeplugRendezvous). */
  size_t struct_size;
  /* v1.0. The blob bytes. NULL: use kv. */
  const void* bootstrap;
  /* v1.0. The blob's length. 0: use kv. */
  size_t bootstrap_size;
  /* v1.0. The store. NULL: use bootstrap. */
  const TeplugKvStore* kv;
  /* v1.0. Prefix for every key this communicator puts into kv, so several
   * communicators can share one store. NULL: no prefix. */
  const char* kv_prefix;
  /* v1.0. Milliseconds for the whole rendezvous AND each later op on the
   * communicator; exceeding it is TEPLUG_DEADLINE_EXCEEDED. 0: the
   * implementation's default. */
  int64_t timeout_ms;
} TeplugRendezvous;
TEPLUG_DECLARE_LAST_FIELD(TeplugRendezvous, timeout_ms);

/* An implementation-owned communicator handle. */
typedef struct TeplugCommunicator TeplugCommunicator;

/* comm_create's arguments (40 bytes in v1.2, 32 in v1.0). */
typedef struct TeplugCommCreateArgs {
  /* v1.0. The writer's sizeof(TeplugCommCreateArgs). */
  size_t struct_size;
  /* v1.0. This rank, 0 <= rank < world_size. */
  int32_t rank;
  /* v1.0. Number of ranks, required (> 0). */
  int32_t world_size;
  /* v1.0. How ranks meet, required. */
  const TeplugRendezvous* rendezvous;
  /* v1.0. Where this rank's buffers live; the device selection matches.
   * NULL: host. */
  const TeplugDevice* device;
  /* v1.2. How many hosts the ranks are on; a host is one running OS kernel
   * with one /dev/shm, so ranks on one host can share memory. 0: unknown.
   * teplug's core fills an unknown count before it selects (every rank
   * publishes its host through `rendezvous->kv` under "<kv_prefix>/teplug/
   * host/<rank>"; a bootstrap rendezvous leaves it unknown, a world of 1 is 1 host)
   * and passes the count to the implementation it selects. */
  int32_t num_hosts;
  /* v1.2. Zero. */
  int32_t reserved0;
} TeplugCommCreateArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugCommCreateArgs, reserved0);

/* Every op's args (64 bytes in v1.0). Element counts are the tensors'
 * element counts; send and recv dtypes must match. What each op reads:
 *  all_reduce:     send [count], recv [count], reduce_op: every rank gets the
 *                  reduction; recv may alias send
 *  all_gather:     send [count], recv [world*count], counts: recv holds every
 *                  rank's send in rank order; with counts, rank r sends
 *                  counts[r] elements and recv holds their concatenation
 *  reduce_scatter: send [world*count], recv [count], reduce_op, counts: rank r
 *                  gets block r of the reduction; with counts, block r has
 *                  counts[r] elements
 *  broadcast:      send (root), recv, root: root's send arrives in every
 *                  rank's recv; at the root recv may alias send
 *  send / recv:    send or recv, peer: to / from peer
 *  barrier:        nothing; returns when every rank reached it */
typedef struct TeplugCollectiveArgs {
  /* v1.0. The writer's sizeof(TeplugCollectiveArgs). */
  size_t struct_size;
  /* v1.0. The communicator, required. */
  TeplugCommunicator* comm;
  /* v1.0. Input buffer; which ops need it: above. */
  const TeplugTensor* send;
  /* v1.0. Output buffer; which ops need it: above. */
  TeplugTensor* recv;
  /* v1.0. HOST array [world_size] of per-rank element counts for uneven
   * all_gather / reduce_scatter (in host memory whatever the device;
   * borrowed for the call). NULL: an even split. */
  const int64_t* counts;
  /* v1.0. A TeplugReduceOp. 0: sum. */
  int32_t reduce_op;
  /* v1.0. Broadcast root rank. 0: rank 0. */
  int32_t root;
  /* v1.0. send / recv peer rank. 0: rank 0. */
  int32_t peer;
  /* v1.0. Zero. */
  int32_t reserved0;
  /* v1.0. NULL: CPU / default stream. */
  TeplugStream stream;
} TeplugCollectiveArgs;
TEPLUG_DECLARE_LAST_FIELD(TeplugCollectiveArgs, stream);

/* TeplugCollectiveCaps.features bits (v1.2). */
/* Serves only communicators whose ranks are on one host (e.g. a shared-memory
 * transport): refused when TeplugCommCreateArgs.num_hosts > 1, served when
 * the count is 1 or unknown. */
#define TEPLUG_COLLECTIVE_CAP_ONE_HOST (UINT32_C(1) << 0)

/* What a collective implementation serves (56 bytes in v1.2, 48 in v1.0):
 * plugin-owned, static. dtypes and ops must not be 0; reductions must not be
 * 0 when a reducing op is listed. */
typedef struct TeplugCollectiveCaps {
  /* v1.0. The plugin's sizeof(TeplugCollectiveCaps). */
  size_t struct_size;
  /* v1.0. Devices served, compared with TeplugCommCreateArgs.device. */
  const TeplugDeviceSupport* devices;
  /* v1.0. Entries in `devices`, 1..64. */
  size_t num_devices;
  /* v1.0. TEPLUG_DTYPE_BIT set of buffer dtypes, accepted by EVERY op listed. */
  uint64_t dtypes;
  /* v1.0. TEPLUG_OP_BIT(op) for TEPLUG_OP_ALL_REDUCE .. TEPLUG_OP_BARRIER. */
  uint32_t ops;
  /* v1.0. TEPLUG_REDUCE_BIT(reduce_op) set, for the reducing ops. */
  uint32_t reductions;
  /* v1.0. Largest world_size. 0: unbounded. */
  int64_t max_world_size;
  /* v1.2. TEPLUG_COLLECTIVE_CAP_* bits. 0: ranks may be anywhere. */
  uint32_t features;
  /* v1.2. Zero. */
  uint32_t reserved0;
} TeplugCollectiveCaps;
TEPLUG_DECLARE_LAST_FIELD(TeplugCollectiveCaps, reserved0);

/* The ICollective v1 function table (80 bytes in v1.0). Every member but
 * `supports` is required. */
typedef struct TeplugCollectiveV1 TeplugCollectiveV1;
typedef struct TeplugCollectiveV1Vtbl {
  /* v1.0. base.struct_size = sizeof(TeplugCollectiveV1Vtbl). */
  TeplugObjectVtbl base;
  /* v1.0. The hook of capability.h; args is a TeplugCollectiveArgs*. May be
   * NULL. */
  TeplugSupportsFn supports;
  /* v1.0. Joins the rendezvous (blocking, up to timeout_ms) and writes the new
   * communicator to *out, never NULL (teplug's core answers a success that
   * left *out NULL with TEPLUG_INTERNAL: "<provider/implementation> returned
   * success from comm_create but wrote no communicator (*out is NULL)"). */
  TeplugError* (*comm_create)(TeplugCollectiveV1* self, const TeplugCommCreateArgs* args,
                              TeplugCommunicator** out);
  /* v1.0. Frees the communicator; NO OP MAY BE IN FLIGHT on it. */
  TeplugError* (*comm_destroy)(TeplugCollectiveV1* self, TeplugCommunicator* comm);
  /* v1.0. `op` is one of TEPLUG_OP_ALL_REDUCE .. TEPLUG_OP_BARRIER. */
  TeplugError* (*run)(TeplugCollectiveV1* self, int32_t op, const TeplugCollectiveArgs* args);
  /* v1.0. Calls until group_end are queued and issued together at group_end,
   * so send/recv pairs inside a group cannot deadlock. */
  TeplugError* (*group_start)(TeplugCollectiveV1* self, TeplugCommunicator* comm);
  /* v1.0. Issues the group. Groups do not nest: group_start inside a group
   * is TEPLUG_FAILED_PRECONDITION. */
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
