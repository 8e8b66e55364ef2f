// Where one rank of `teplug run` keeps its tensors and runs its ops. The job
// builds every tensor in host memory; for a rank on a device (opened through
// the kernel's IDevice) each op call through the kernel's dispatching object
// stages the tensors of its args on that device (DeviceStaging), asks the
// kernel which provider serves the op there, runs it there and copies the
// outputs back. When no provider serves the op on the device, the call runs
// on host memory instead, where the host providers serve it, and the rank's
// placement log says so with the device selection's reasons ("staged to
// cpu: ..."): nothing fails and nothing is hidden.
#ifndef TEPLUG_TOOLS_TEPLUG_RANK_DEVICE_H_
#define TEPLUG_TOOLS_TEPLUG_RANK_DEVICE_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "tools/teplug/conformance_staging.h"

namespace teplug::cli {

// A rank's device: host memory (the CPU) or a device opened by the command.
struct RankDevice {
  std::string spelling = "cpu:0";     // as the command line spells it
  const CaseDevice* where = nullptr;  // null: host memory
  bool on_host() const { return where == nullptr; }
};

// How the last dispatched call of an op label was placed on a rank.
struct OpPlacement {
  bool staged = false;      // ran on host memory: nothing serves it on the device
  std::string chosen;       // on the device: the implementation the kernel chose there
  std::string why;          // on the device: that choice's reason; staged: "staged to cpu: ..."
};

// Per rank (one thread): the placement of each op label's last dispatched call.
class PlacementLog {
 public:
  void Set(const std::string& label, OpPlacement p) { placements_[label] = std::move(p); }
  // The placement of `label`, or null when it never ran through a device.
  const OpPlacement* Find(const std::string& label) const {
    auto it = placements_.find(label);
    return it == placements_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, OpPlacement> placements_;
};

// Runs an op on `object` with `args`, taking any workspace the op asks for
// from `staging` (device memory when the args are staged, host memory else).
using StagedRun =
    std::function<TeplugError*(TeplugObject* object, const void* args, DeviceStaging* staging)>;
// The tensors of an op's args (op_tensors.h).
using TensorsOf = std::function<std::vector<StagedTensor>(const void* args)>;
// An op invoker, OpCall::invoke's type.
using OpInvoker = std::function<TeplugError*(TeplugObject* object, const void* args)>;

// `run` on host memory, for any object (the reference's too).
OpInvoker OnHost(StagedRun run);

// The invoker of op (`iid`, `op`) labelled `label` on a rank on `device`:
// called on `dispatcher` it stages the args' tensors on the device, asks the
// kernel to explain the op there, and runs it there when a provider serves
// it, else on host memory; `log` records which and why. Called on any other
// object (the reference provider's, for the comparison), or on a host rank,
// it runs on host memory. Errors name the device and the staging step.
OpInvoker OnRankDevice(const core::Kernel& kernel, const RankDevice& device,
                       TeplugObject* dispatcher, const TeplugIID& iid, int32_t op,
                       std::string label, TensorsOf tensors, StagedRun run, PlacementLog* log);

// "nothing serves it on opencl:0: cpu/flash-attention: device opencl:0 not in
// {cpu}; ...": every candidate of an unserved record with its reason.
std::string UnservedReasons(const core::DecisionRecord& record, const std::string& device);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_RANK_DEVICE_H_
