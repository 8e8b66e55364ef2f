// The native CUDA provider's entry function, shared by both ways of loading
// it: libteplug_native.so forwards its exported teplug_plugin_entry here
// (plugin_entry.cc), and the built-in registration passes it to
// TEPLUG_REGISTER_BUILTIN_PROVIDER (builtin_registration.cc).
//
// It registers "native" (vendor "teplug") with IDevice/1 "cuda", IGemm/1
// "cublaslt" (native/gemm/cublaslt_gemm.h), IQuantizer/1 "quantizer"
// (native/quantize) and ICollective/1 "nccl" (native/collective) at priority 300, the convention's
// priority of native CUDA implementations (reference 0, portable CPU 100,
// vendor-optimised 200-500). Registration never touches the
// CUDA runtime, so it succeeds without a driver or GPU; the device then serves
// no devices and says why (see native/device/cuda_device.h).
#ifndef TEPLUG_NATIVE_PROVIDER_NATIVE_ENTRY_H_
#define TEPLUG_NATIVE_PROVIDER_NATIVE_ENTRY_H_

#include <cstdint>

#include "teplug/plugin.h"

namespace teplug::native {
inline constexpr char kNativeName[] = "native";
inline constexpr char kNativeVendor[] = "teplug";
inline constexpr char kNativeVersion[] = "0.1.0";
inline constexpr int32_t kNativePriority = 300;
}  // namespace teplug::native

// Fills `info` and registers the implementations through host->registrar.
// Never throws; errors come back as TeplugError*.
TeplugError* teplug_native_entry(const TeplugHostApi* host, TeplugPluginInfo* info);

#endif  // TEPLUG_NATIVE_PROVIDER_NATIVE_ENTRY_H_
