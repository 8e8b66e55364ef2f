#include "native/quantize/kernel_entries.h"
#include "native/quantize/kernel_support.cuh"
#include "native/quantize/quantize_launch.h"

namespace teplug::native::quantize {

int LaunchQuantize(const QuantizeLaunch& launch) {
  switch (launch.scaling) {
    case Scaling::kPerTensor:
      return LaunchPerTensorQuantize(launch);
    case Scaling::kMx:
      return LaunchMxQuantize(launch);
    case Scaling::kBlock1D:
    case Scaling::kBlock2D:
      return LaunchBlockQuantize(launch);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int LaunchDequantize(const DequantizeLaunch& launch) { return LaunchDequantizeKernels(launch); }

namespace {

class RealKernels final : public KernelLauncher {
 public:
  int Quantize(const QuantizeLaunch& launch) override { return LaunchQuantize(launch); }
  int Dequantize(const DequantizeLaunch& launch) override { return LaunchDequantize(launch); }
};

}  // namespace

KernelLauncher& RealKernelLauncher() {
  static RealKernels kernels;
  return kernels;
}

}  // namespace teplug::native::quantize
