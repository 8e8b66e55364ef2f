// The parts of describing an op that its field table says everything about:
// argument validation (struct sizes, required tensors and structs, tensor
// ranks and quantization structs, enum ranges), the op's device, and the
// facts fields feed. Interface modules add what spans several fields (GEMM's
// M, N and K, attention's head_dim fact). The tensors' capability checks are
// in table_check.h, the key in table_key.h.
#ifndef TEPLUG_CORE_OPS_TABLE_DESCRIBE_H_
#define TEPLUG_CORE_OPS_TABLE_DESCRIBE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/ops/field_table.h"
#include "core/ops/interface_module.h"
#include "core/ops/refusal.h"
#include "teplug/teplug.h"

namespace teplug::core {

// Validates `args` (struct_size at least `args_v1`, then every field of
// `spec.fields`) and starts the description: module, spec, args, device (the
// first kDeviceFrom tensor naming one), device kind and vendor, and the
// facts the fields feed. INVALID_ARGUMENT names the struct and field.
absl::Status DescribeFromTable(const InterfaceModule& module, const OpSpec& spec, size_t args_v1, const void* args,
                               const DeviceSpelling& spelling, OpDescription* d);

// The tensor field `name` of `args` (nullptr when absent or not a field).
const TeplugTensor* TensorAt(absl::Span<const Field> fields, const void* args, absl::string_view name);
// "fp32[64,32]", or "-" for NULL.
std::string ShapeText(const TeplugTensor* t);
// Finishes a description (after DescribeFromTable): the summary
// "<interface> <op> <text> on <device>", which names the op with exactly the
// words a config rule's `interfaces` and `ops` use ("attention forward bf16
// ..."), so a summary in a record or message is what a rule would match.
void FinishDescription(const std::string& text, const DeviceSpelling& spelling, OpDescription* d);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_TABLE_DESCRIBE_H_
