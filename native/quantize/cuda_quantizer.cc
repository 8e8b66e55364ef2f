#include "native/quantize/cuda_quantizer.h"

#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "native/device/current_device_scope.h"
#include "native/device/device_description.h"
#include "native/quantize/quantize_plan.h"

namespace teplug::native::quantize {
namespace {

// The status of a refused plan as the exception the SDK turns into a TeplugError.
sdk::Exception ToException(const absl::Status& s) {
  const TeplugCode code =
      s.code() == absl::StatusCode::kUnimplemented ? TEPLUG_UNSUPPORTED : TEPLUG_INVALID_ARGUMENT;
  return sdk::Exception(code, absl::StrCat("native: ", s.message()));
}

class CudaQuantizer final : public sdk::QuantizerImpl {
 public:
  CudaQuantizer(CudaRuntimeApi& runtime, KernelLauncher& kernels)
      : runtime_(runtime), kernels_(kernels) {}

  bool SupportsQuantize(const TeplugQuantizeArgs& args, std::string* reason) override {
    const absl::StatusOr<QuantizePlan> plan = PlanQuantize(args, /*data_required=*/false);
    *reason = plan.ok() ? WhyNotOnDevice(plan->ordinal)
                        : absl::StrCat("native: ", plan.status().message());
    return reason->empty();
  }

  bool SupportsDequantize(const TeplugDequantizeArgs& args, std::string* reason) override {
    const absl::StatusOr<DequantizePlan> plan = PlanDequantize(args, /*data_required=*/false);
    *reason = plan.ok() ? WhyNotOnDevice(plan->ordinal)
                        : absl::StrCat("native: ", plan.status().message());
    return reason->empty();
  }

  void Quantize(const TeplugQuantizeArgs& args) override {
    const absl::StatusOr<QuantizePlan> plan = PlanQuantize(args, /*data_required=*/true);
    if (!plan.ok()) throw ToException(plan.status());
    Run(plan->ordinal, "quantize", [&] { return kernels_.Quantize(plan->launch); });
  }

  void Dequantize(const TeplugDequantizeArgs& args) override {
    const absl::StatusOr<DequantizePlan> plan = PlanDequantize(args, /*data_required=*/true);
    if (!plan.ok()) throw ToException(plan.status());
    Run(plan->ordinal, "dequantize", [&] { return kernels_.Dequantize(plan->launch); });
  }

 private:
  // The GPUs the runtime reports (their archs), or why there are none.
  struct Probe {
    std::vector<int> archs;
    std::string no_device_reason;
  };

  template <class Launch>
  void Run(int ordinal, const char* op, Launch launch) {
    const std::string why = WhyNotOnDevice(ordinal);
    if (!why.empty()) throw sdk::Unsupported(why);
    const CurrentDeviceScope device(runtime_, ordinal);
    if (device.error() != kCudaSuccess) {
      throw sdk::Exception(TEPLUG_INTERNAL, absl::StrCat("native: ", op, ": ",
                                                         CudaCallFailure(runtime_, "cudaSetDevice",
                                                                         device.error())));
    }
    const int launched = launch();
    if (launched != kCudaSuccess) {
      throw sdk::Exception(TEPLUG_INTERNAL,
                           absl::StrCat("native: ", op, ": ",
                                        CudaCallFailure(runtime_, "the kernel launch", launched)));
    }
  }

  // Empty when cuda:<ordinal> exists and the kernels run on it.
  std::string WhyNotOnDevice(int ordinal) {
    const Probe& p = Probed();
    if (p.archs.empty()) return p.no_device_reason;
    if (ordinal < 0 || static_cast<size_t>(ordinal) >= p.archs.size()) {
      return absl::StrCat("native: no CUDA device with ordinal ", ordinal, " (the runtime reports ",
                          p.archs.size(), ")");
    }
    const int arch = p.archs[static_cast<size_t>(ordinal)];
    if (arch < kMinQuantizeArch) {
      return absl::StrCat("native: the quantize kernels are built for sm_", kMinQuantizeArch,
                          " and newer; cuda:", ordinal, " is sm_", arch);
    }
    return "";
  }

  const Probe& Probed() {
    std::call_once(probed_, [this] {
      int count = 0;
      const int e = runtime_.GetDeviceCount(&count);
      if (e != kCudaSuccess) {
        probe_.no_device_reason =
            "native: no CUDA device: " + CudaCallFailure(runtime_, "cudaGetDeviceCount", e);
        return;
      }
      if (count <= 0) {
        probe_.no_device_reason = "native: no CUDA device: cudaGetDeviceCount reported 0 devices";
        return;
      }
      std::vector<int> archs;
      for (int i = 0; i < count; ++i) {
        CudaDeviceFacts facts;
        const int f = runtime_.GetDeviceFacts(i, &facts);
        if (f != kCudaSuccess) {
          probe_.no_device_reason =
              "native: no CUDA device: " +
              CudaCallFailure(runtime_, absl::StrCat("cudaGetDeviceProperties(", i, ")"), f);
          return;
        }
        archs.push_back(ArchOfComputeCapability(facts.major, facts.minor));
      }
      probe_.archs = std::move(archs);
    });
    return probe_;
  }

  CudaRuntimeApi& runtime_;
  KernelLauncher& kernels_;
  std::once_flag probed_;
  Probe probe_;
};

}  // namespace

std::unique_ptr<sdk::QuantizerImpl> NewCudaQuantizer(CudaRuntimeApi& runtime,
                                                     KernelLauncher& kernels) {
  return std::make_unique<CudaQuantizer>(runtime, kernels);
}

}  // namespace teplug::native::quantize
