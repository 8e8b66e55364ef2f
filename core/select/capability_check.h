// Evaluates a validated capability descriptor against one op, without calling
// the plugin, and explains a refusal with the values involved:
//   "head_dim_qk 320 > max 256", "dtype fp8_e4m3 not in {bf16, fp16}".
//
// A refusal is kept as values (a Refusal) and formatted only when a decision
// record is printed: selection runs on every cache miss and among many
// implementations, and most refusals are never read.
#ifndef TEPLUG_CORE_SELECT_CAPABILITY_CHECK_H_
#define TEPLUG_CORE_SELECT_CAPABILITY_CHECK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/registry/capability.h"
#include "core/registry/implementation.h"
#include "core/select/op_description.h"

namespace teplug::core {

// Why a descriptor refuses an op, as values. `what` points at a string
// literal (a field or feature name, or for kFixed the whole message).
struct Refusal {
  enum class Kind : uint8_t {
    kFixed,          // what
    kDType,          // "<what> dtype <value> not in <mask>"
    kScaling,        // "<what> scaling mode <value> not in <mask>"
    kLayout,         // "layout <value> not in <mask>"
    kMask,           // "mask <value> not in <mask>"
    kBias,           // "bias <value> not in <mask>"
    kReduction,      // "reduction <value> not in <mask>"
    kAbove,          // "<what> <value> > max <limit>"
    kBelow,          // "<what> <value> < min <limit>"
    kNotMultiple,    // "<what> <value> not a multiple of <limit>"
    kEpilogue,       // "epilogue <value> unknown"
    kMisaligned,     // "<what> data pointer not aligned to <limit> bytes"
    kLeadingDim,     // "<what> leading dimension <value> (<value2> bytes) not a multiple of <limit> bytes"
    kHeadDims,       // "head_dim_qk <value> != head_dim_v <value2> not supported"
    kDropout,        // "dropout <real> not supported"
    kWindow,         // "sliding window (<value>, <value2>) not supported"
    kGqa,            // "grouped-query attention (hq <value> != hkv <value2>) not supported"
    kCollectiveOp,   // "collective <value> not supported"
    kDevice,         // "device <device> not in {<the descriptor's devices>}"
  };
  Kind kind = Kind::kFixed;
  const char* what = "";
  int64_t value = 0;
  int64_t value2 = 0;
  int64_t limit = 0;
  uint64_t mask = 0;
  double real = 0;
  TeplugDevice device{};
};

// The refusal as text; `devices` is the refusing descriptor's device list
// (used by kDevice).
std::string FormatRefusal(const Refusal& r, const std::vector<TeplugDeviceSupport>& devices);

// nullopt when one of `devices` accepts `device`, else why not.
std::optional<Refusal> CheckDevice(const std::vector<TeplugDeviceSupport>& devices, const TeplugDevice& device);

// nullopt when the static descriptor (devices included) accepts the op, else
// the first reason it does not. `op.args` must be the args DescribeOp
// validated.
std::optional<Refusal> CheckCapability(const Capability& cap, const OpDescription& op);

// The same without the device check, for callers that checked the device
// already (the selector does, to report that stage on its own).
std::optional<Refusal> CheckOpCapability(const Capability& cap, const OpDescription& op);

// Asks the implementation's `supports` hook (if it has one) about the op:
// nullopt when it will serve it, else its reason. The plugin writes into a
// 256-byte buffer that is NUL-terminated here whatever the plugin did, and an
// empty reason becomes "declined by supports() without a reason". A C++
// exception escaping the hook is a refusal whose reason is "C++ exception
// escaped <impl> supports: <what>"; `*threw` (when given) says so.
std::optional<std::string> AskSupports(const Implementation& impl, int32_t op, const void* args,
                                       bool* threw = nullptr);

// One line describing what a descriptor accepts, for `teplug list`.
std::string SummarizeCapability(const Capability& cap);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_CAPABILITY_CHECK_H_
