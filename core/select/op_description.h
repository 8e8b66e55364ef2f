// What the selection engine knows about one op call, extracted from the
// caller's args struct: the device it runs on, the facts config rules match
// on, and a one-line summary for decision records and logs. (The cache key,
// which must be far cheaper, is built separately: op_signature.h.)
#ifndef TEPLUG_CORE_SELECT_OP_DESCRIPTION_H_
#define TEPLUG_CORE_SELECT_OP_DESCRIPTION_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/config/config_snapshot.h"
#include "core/registry/interface_kind.h"
#include "teplug/teplug.h"

namespace teplug::core {

// Pseudo-op for selecting a collective implementation at communicator
// creation (args: TeplugCommCreateArgs). Not part of the ABI's TeplugOp.
inline constexpr int32_t kOpCommCreate = 1000;

struct OpDescription {
  InterfaceKind kind = InterfaceKind::kGemm;
  int32_t op = 0;         // TeplugOp, or kOpCommCreate
  const void* args = nullptr;  // the caller's args struct (for `supports`)
  TeplugDevice device{};  // where the op runs (host if no tensor names a device)
  int64_t world_size = 0; // collectives: communicator size, when known
  // Facts for config rules; "" / -1 when not applicable.
  std::string op_name;    // "forward", "gemm", "quantize", "all_reduce", ...
  std::string dtype;
  std::string layout;
  std::string mask_type;
  std::string vendor;     // "nvidia", "amd", "intel", "0x1234", or ""
  std::string device_kind;
  int head_dim = -1;
  int seq_len = -1;
  // "attention_forward bf16 bshd_bshd_bshd b=2 hq=16 hkv=4 d=128/128 sq=4096 skv=4096 mask=causal on cpu:0"
  std::string summary;

  // The facts view config rules are evaluated on (points into this object).
  config::OpFacts Facts() const;
};

// Extracts the description, validating what selection needs (args and
// tensors non-NULL where required, struct sizes). Errors are
// INVALID_ARGUMENT naming the struct and field.
absl::StatusOr<OpDescription> DescribeOp(InterfaceKind kind, int32_t op, const void* args);

// The op's device from its first tensor with a device (host if none).
TeplugDevice DeviceOf(const TeplugTensor* t);
// "cpu:0", "cuda:1 (nvidia, arch 90)".
std::string DeviceLabel(const TeplugDevice& d);
// "nvidia", "amd", "intel", or "0x%04x"; "" for TEPLUG_VENDOR_ANY.
std::string VendorName(uint32_t vendor_id);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_OP_DESCRIPTION_H_
