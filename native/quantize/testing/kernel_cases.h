// Test-only: every mode, input dtype, fp8 format, direction and shape the
// native quantizer serves, as random cases (NaN, +-Inf and subnormals
// planted in half of them), run through an IQuantizer object and compared
// bit for bit with the reference numerics; dequantize into fp32 and bf16
// likewise (a NaN compares as any NaN: the sign of an arithmetic NaN is
// unspecified). Shared by the test that runs the kernels on a GPU and the one
// that runs them on the host grid, so both check the same things.
#ifndef TEPLUG_NATIVE_QUANTIZE_TESTING_KERNEL_CASES_H_
#define TEPLUG_NATIVE_QUANTIZE_TESTING_KERNEL_CASES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "teplug/quantizer.h"

namespace teplug::native::quantize::testing {

struct KernelCase {
  int32_t mode;
  bool current;  // per-tensor recipe
  int32_t input_dtype;
  int32_t output_dtype;
  int64_t rows, cols;
  bool specials;  // plant NaN, +-Inf and subnormals
  // The copies asked for: each direction alone runs other kernels than both.
  bool rowwise = true;
  bool columnwise = true;
  bool te_rule = false;  // mxfp8_1d32 with TransformerEngine's scale rule
  std::string Name() const;
};

// Every served mode (per-tensor delayed and current, MXFP8 under both scale
// rules, 1x128, 128x128) x input dtype x fp8 format x {an aligned shape, a
// ragged one} x {plain, with specials} x {row-wise, column-wise, both}.
std::vector<KernelCase> EveryServedCase();

// Where the kernels' buffers live: device memory on a GPU, host memory on
// the host grid. Buffers live as long as the object.
class CaseMemory {
 public:
  virtual ~CaseMemory() = default;
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Upload(void* device, const void* host, size_t bytes) = 0;
  virtual void Download(void* host, const void* device, size_t bytes) = 0;
  // Waits for the work enqueued on `stream`.
  virtual void Synchronize(void* stream) = 0;
};

// Runs `c` through `quantizer` (quantize, then dequantize of the row-wise
// codes) on cuda:0 with buffers from `memory`, on `stream`, and checks every
// output against the reference with gtest assertions. `before_call` (may be
// empty) sees the quantize args first, e.g. to check which provider serves.
void RunKernelCase(TeplugQuantizerV1* quantizer, CaseMemory& memory, const KernelCase& c,
                   void* stream,
                   const std::function<void(const TeplugQuantizeArgs&)>& before_call = {});

}  // namespace teplug::native::quantize::testing

#endif  // TEPLUG_NATIVE_QUANTIZE_TESTING_KERNEL_CASES_H_
