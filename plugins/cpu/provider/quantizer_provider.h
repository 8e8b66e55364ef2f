// IQuantizer v1 of the cpu provider: fp32/fp16/bf16 <-> fp8_e4m3/fp8_e5m2 on
// host memory in every scaling mode (per_tensor delayed and current,
// mxfp8_1d32 with the OCP scale rule, block_1d128, block_2d128), row-wise and
// column-wise, and dequantize, by the exact rules of
// interfaces/teplug/quantizer.h (the reference provider's results, bit for
// bit). The arithmetic is plugins/cpu/quantize/; this file reads and checks
// the ABI args and lays out the column-wise copies. Served: contiguous
// tensors (all-zero strides, or explicit row-major ones). Refused in
// supports() with a reason: fp4_e2m1, explicit non-contiguous strides,
// tensors on another device.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_QUANTIZER_PROVIDER_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_QUANTIZER_PROVIDER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "teplug/quantizer.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::cpu::provider {

// Quantizes on up to `threads` threads (0: one per hardware thread).
// InvalidArgument for malformed args, Unimplemented for what is not served;
// the message names the args field.
absl::Status RunCpuQuantize(const TeplugQuantizeArgs& args, int threads);

// Dequantizes the row-wise data of args.input into args.output.
absl::Status RunCpuDequantize(const TeplugDequantizeArgs& args, int threads);

// The registered IQuantizer object; `threads` is the provider's budget
// (TEPLUG_CPU_THREADS, 0: none).
class CpuQuantizer : public sdk::QuantizerImpl {
 public:
  explicit CpuQuantizer(int threads) : threads_(threads) {}
  bool SupportsQuantize(const TeplugQuantizeArgs& args, std::string* reason) override;
  bool SupportsDequantize(const TeplugDequantizeArgs& args, std::string* reason) override;
  void Quantize(const TeplugQuantizeArgs& args) override;
  void Dequantize(const TeplugDequantizeArgs& args) override;

 private:
  int threads_;
};

}  // namespace teplug::cpu::provider

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_QUANTIZER_PROVIDER_H_
