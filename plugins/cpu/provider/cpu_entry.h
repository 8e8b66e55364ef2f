// The cpu provider's entry function, shared by both ways of loading it:
// libteplug_cpu.so forwards its exported teplug_plugin_entry here
// (plugin_entry.cc), and the built-in registration passes it to
// TEPLUG_REGISTER_BUILTIN_PROVIDER (builtin_registration.cc).
//
// It registers "cpu" (vendor "teplug") with IGemm/1 "onednn-matmul" at
// priority 100, the convention's "portable CPU" (reference 0, portable CPU
// 100, vendor-optimised 200-500, native CUDA 300): above the reference, so it
// serves the host GEMMs it declares, and below every accelerator provider;
// and ICollective/1 "gloo" (collective/gloo_collective.h) at -100, below.
#ifndef TEPLUG_PLUGINS_CPU_PROVIDER_CPU_ENTRY_H_
#define TEPLUG_PLUGINS_CPU_PROVIDER_CPU_ENTRY_H_

#include <cstdint>

#include "teplug/plugin.h"

namespace teplug::cpu::provider {
inline constexpr char kCpuName[] = "cpu";
inline constexpr char kCpuVendor[] = "teplug";
inline constexpr char kCpuVersion[] = "0.1.0";
inline constexpr char kCpuGemmName[] = "onednn-matmul";
inline constexpr char kCpuAttentionName[] = "flash-attention";
inline constexpr char kCpuQuantizerName[] = "quantizer";
inline constexpr int32_t kCpuPriority = 100;
inline constexpr char kCpuCollectiveName[] = "gloo";
// Below the reference's shared-memory collective (0): between ranks on one host
// shared memory wins (Gloo over loopback TCP moves about 1 GB/s at 16-64 MB
// where a memory copy does 10-20 GB/s here), so Gloo serves only when a
// config rule prefers it, as a deployment whose ranks span hosts does.
inline constexpr int32_t kCpuCollectivePriority = -100;
}  // namespace teplug::cpu::provider

// Fills `info` and registers the implementations through host->registrar.
// Never throws; errors come back as TeplugError*.
TeplugError* teplug_cpu_entry(const TeplugHostApi* host, TeplugPluginInfo* info);

#endif  // TEPLUG_PLUGINS_CPU_PROVIDER_CPU_ENTRY_H_
