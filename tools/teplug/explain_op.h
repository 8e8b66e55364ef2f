// Builds the args of one op from `teplug explain` flags, with NULL data
// pointers: selection reads only metadata (capability.h's `supports`
// contract says hooks must not read data), so shapes, dtypes, layouts and the
// device are all an explanation needs.
#ifndef TEPLUG_TOOLS_TEPLUG_EXPLAIN_OP_H_
#define TEPLUG_TOOLS_TEPLUG_EXPLAIN_OP_H_

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/kernel/device_names.h"
#include "teplug/teplug.h"
#include "tools/teplug/cli_flags.h"

namespace teplug::cli {

// One op's args and the storage they point into (not copyable: the args
// hold pointers to the members).
struct ExplainedOp {
  TeplugIID iid{};
  int32_t op = 0;
  const void* args = nullptr;

  TeplugDevice device{};
  std::deque<TeplugTensor> tensors;              // stable addresses
  std::deque<TeplugQuantization> quantizations;  // stable addresses
  TeplugAttentionParams attention_params{};
  TeplugAttentionFwdArgs attention_forward{};
  TeplugAttentionBwdArgs attention_backward{};
  TeplugGemmArgs gemm{};
  TeplugQuantizeArgs quantize{};
  TeplugDequantizeArgs dequantize{};
  TeplugCommCreateArgs comm_create{};
  TeplugNormFwdArgs norm_forward{};
  TeplugNormBwdArgs norm_backward{};
};

// Declares every op-field flag (--dtype, --layout, --head-dim, --m, ...).
void AddOpFlags(FlagSet* flags);

// Builds the op `interface` (attention, gemm, quantizer or collective) with
// the parsed flags. A usage error for an unknown interface suggests the
// closest one, and names the flag when a value does not fit the interface
// (e.g. --op gemm for attention). `names` (the kernel's) resolves device
// kind and vendor names that loaded providers declare.
absl::StatusOr<std::unique_ptr<ExplainedOp>> BuildExplainedOp(const std::string& interface,
                                                              const FlagSet& flags,
                                                              const core::DeviceNames& names);

// Parses "cpu", "cuda", "cuda:1", "opencl:0", a vendor kind number
// ("1024:0", "vendor1024:0") or a declared kind name ("gaudi:0") into kind
// and ordinal.
absl::StatusOr<TeplugDevice> ParseDevice(const std::string& text, const core::DeviceNames& names);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_EXPLAIN_OP_H_
