// Evaluates a validated capability descriptor against one op, without calling
// the plugin, and explains a refusal with the values involved:
//   "head_dim_qk 320 > max 256", "dtype fp8_e4m3 not in {bf16, fp16}".
#ifndef TEPLUG_CORE_SELECT_CAPABILITY_CHECK_H_
#define TEPLUG_CORE_SELECT_CAPABILITY_CHECK_H_

#include <optional>
#include <string>
#include <vector>

#include "core/registry/capability.h"
#include "core/select/op_description.h"

namespace teplug::core {

// nullopt when one of `devices` accepts `device`, else why not
// ("device cuda:0 (nvidia, arch 90) not in {cpu}").
std::optional<std::string> CheckDevice(const std::vector<TeplugDeviceSupport>& devices,
                                       const TeplugDevice& device);

// nullopt when the static descriptor accepts the op, else the first reason
// it does not. `op.args` must be the args DescribeOp validated.
std::optional<std::string> CheckCapability(const Capability& cap, const OpDescription& op);

// One line describing what a descriptor accepts, for `teplug list`.
std::string SummarizeCapability(const Capability& cap);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_CAPABILITY_CHECK_H_
