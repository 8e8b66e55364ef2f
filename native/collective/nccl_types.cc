#include "native/collective/nccl_types.h"

#include "absl/strings/str_cat.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::collective {
namespace {

const TeplugDeviceSupport kCudaDevices[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_ANY, 0, 0}};

TeplugCollectiveCaps MakeCaps() {
  TeplugCollectiveCaps c = sdk::Versioned<TeplugCollectiveCaps>();
  c.devices = kCudaDevices;
  c.num_devices = 1;
  for (const NcclDtype& d : kNcclDtypes) c.dtypes |= TEPLUG_DTYPE_BIT(d.teplug);
  for (int op = TEPLUG_OP_ALL_REDUCE; op <= TEPLUG_OP_BARRIER; ++op) c.ops |= TEPLUG_OP_BIT(op);
  for (const NcclReduction& r : kNcclReductions) c.reductions |= TEPLUG_REDUCE_BIT(r.teplug);
  c.max_world_size = 0;
  return c;
}

}  // namespace

std::optional<NcclDtype> FindNcclDtype(int32_t teplug_dtype) {
  for (const NcclDtype& d : kNcclDtypes) {
    if (d.teplug == teplug_dtype) return d;
  }
  return std::nullopt;
}

std::optional<ncclRedOp_t> FindNcclReduction(int32_t teplug_reduce_op) {
  for (const NcclReduction& r : kNcclReductions) {
    if (r.teplug == teplug_reduce_op) return r.nccl;
  }
  return std::nullopt;
}

std::string ServedDtypeNames() {
  std::string out;
  for (const NcclDtype& d : kNcclDtypes) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", sdk::DTypeName(d.teplug));
  }
  return out;
}

const TeplugCollectiveCaps* NcclCollectiveCaps() {
  static const TeplugCollectiveCaps caps = MakeCaps();
  return &caps;
}

}  // namespace teplug::native::collective
