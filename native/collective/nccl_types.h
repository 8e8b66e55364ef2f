// What the native ICollective serves, in one table: each teplug dtype NCCL
// reduces and moves (with its NCCL dtype and element size) and each teplug
// reduction with NCCL's. The capability descriptor is derived from these
// tables, and the argument checks look values up in them, so the two cannot
// disagree.
//
// fp8 is left out: NCCL reduces fp8 only on sm_90 and newer, and the
// descriptor's dtypes must be accepted by every op on every GPU it serves.
#ifndef TEPLUG_NATIVE_COLLECTIVE_NCCL_TYPES_H_
#define TEPLUG_NATIVE_COLLECTIVE_NCCL_TYPES_H_

#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "teplug/collective.h"

namespace teplug::native::collective {

struct NcclDtype {
  int32_t teplug;  // a TeplugDType
  ncclDataType_t nccl;
  size_t bytes;  // one element
};

inline constexpr NcclDtype kNcclDtypes[] = {
    {TEPLUG_DTYPE_FP32, ncclFloat32, 4}, {TEPLUG_DTYPE_FP16, ncclFloat16, 2},
    {TEPLUG_DTYPE_BF16, ncclBfloat16, 2}, {TEPLUG_DTYPE_INT8, ncclInt8, 1},
    {TEPLUG_DTYPE_INT32, ncclInt32, 4},   {TEPLUG_DTYPE_INT64, ncclInt64, 8},
    {TEPLUG_DTYPE_UINT8, ncclUint8, 1},
};

struct NcclReduction {
  int32_t teplug;  // a TeplugReduceOp
  ncclRedOp_t nccl;
};

// ncclAvg divides integer sums after reducing (C division, toward zero), as
// TEPLUG_REDUCE_AVG asks.
inline constexpr NcclReduction kNcclReductions[] = {
    {TEPLUG_REDUCE_SUM, ncclSum}, {TEPLUG_REDUCE_PROD, ncclProd}, {TEPLUG_REDUCE_MIN, ncclMin},
    {TEPLUG_REDUCE_MAX, ncclMax}, {TEPLUG_REDUCE_AVG, ncclAvg},
};

// The table's entry for a teplug dtype / reduction; nullopt when not served.
std::optional<NcclDtype> FindNcclDtype(int32_t teplug_dtype);
std::optional<ncclRedOp_t> FindNcclReduction(int32_t teplug_reduce_op);

// The served dtypes by name, for refusals: "fp32, fp16, ...".
std::string ServedDtypeNames();

// The ICollective capability descriptor: CUDA devices (any vendor id and
// arch: the GPU is checked by supports and comm_create, so a request naming
// no arch reaches the real reason), the tables' dtypes and reductions, every
// op from all_reduce to barrier, any world size. Static storage.
const TeplugCollectiveCaps* NcclCollectiveCaps();

}  // namespace teplug::native::collective

#endif  // TEPLUG_NATIVE_COLLECTIVE_NCCL_TYPES_H_
