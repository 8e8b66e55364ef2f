#include "native/provider/native_entry.h"

#include "native/attention/cudnn_attention.h"
#include "native/attention/cudnn_attention_backend_real.h"
#include "native/collective/nccl_collective.h"
#include "native/collective/nccl_types.h"
#include "native/collective/stream_poller.h"
#include "native/device/cuda_device.h"
#include "native/device/cuda_runtime_real.h"
#include "native/gemm/cublaslt_gemm.h"
#include "native/provider/device_caps.h"
#include "native/quantize/cuda_quantizer.h"
#include "native/quantize/quantizer_caps.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"

namespace teplug::native {
namespace {

void RegisterNativeImplementations(sdk::Registrar& r) {
  // A host older than IDevice/1 skips it.
  r.RegisterIfServed(sdk::kIidDeviceV1, sdk::MakeDevice(NewCudaDevice(RealCudaRuntime())), NativeDeviceCaps(),
                     "cuda", kNativePriority);
  r.RegisterIfServed(sdk::kIidGemmV1,
                     sdk::MakeGemm(NewCublasLtGemm(RealCublasLtLoader(), RealCudaRuntime(), RealScaleLayoutKernels())),
                     CublasLtGemmCaps(), "cublaslt", kNativePriority);
  // IQuantizer/1 on the quantize kernels (native/quantize).
  r.RegisterIfServed(sdk::kIidQuantizerV1,
                     sdk::MakeQuantizer(quantize::NewCudaQuantizer(RealCudaRuntime(),
                                                                   quantize::RealKernelLauncher())),
                     quantize::NativeQuantizerCaps(r.host().abi_max), "quantizer", kNativePriority);
  // ICollective/1 on NCCL (native/collective), loaded on first use.
  r.RegisterIfServed(sdk::kIidCollectiveV1,
                     sdk::MakeCollective(collective::NewNcclCollective(
                         collective::RealNcclLoader(), RealCudaRuntime(), collective::RealStreamPoller())),
                     collective::NcclCollectiveCaps(), "nccl", kNativePriority);
  // IAttention/1 on cuDNN's fused attention (native/attention).
  r.RegisterIfServed(sdk::kIidAttentionV1,
                     sdk::MakeAttention(attention::NewCudnnAttention(attention::RealCudnnAttentionBackend(),
                                                                     RealCudaRuntime())),
                     attention::CudnnAttentionCaps(), "cudnn", kNativePriority);
}

}  // namespace
}  // namespace teplug::native

TeplugError* teplug_native_entry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  using namespace teplug::native;  // NOLINT(build/namespaces): names above
  return teplug::sdk::RunPluginEntry(host, info, kNativeName, kNativeVendor, kNativeVersion,
                                     TEPLUG_ABI_VERSION_MAJOR_FIRST, TEPLUG_ABI_VERSION_CURRENT,
                                     RegisterNativeImplementations);
}
