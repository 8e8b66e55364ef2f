// The reference provider's entry function, shared by both ways of loading it:
// libteplug_reference.so forwards its exported teplug_plugin_entry here
// (plugin_entry.cc), and the built-in registration passes it to
// TEPLUG_REGISTER_BUILTIN_PROVIDER (builtin_registration.cc). One function,
// one set of objects and descriptors: both give identical results.
//
// It registers "reference" (vendor "teplug", version kReferenceVersion) with
// IGemm/1 "gemm", IAttention/1 "attention", IQuantizer/1 "quantizer",
// ICollective/1 "collective" and, where the host serves it, INorm/1 "norm",
// each at priority 0: the lowest default priority
// of the convention (reference 0, portable CPU 100, vendor-optimised 200-500,
// native CUDA 300), so it is chosen only when nothing else serves an op.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_REFERENCE_ENTRY_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_REFERENCE_ENTRY_H_

#include <cstdint>

#include "teplug/plugin.h"

namespace teplug::reference::provider {
inline constexpr char kReferenceName[] = "reference";
inline constexpr char kReferenceVendor[] = "teplug";
inline constexpr char kReferenceVersion[] = "0.1.0";
inline constexpr int32_t kReferencePriority = 0;
}  // namespace teplug::reference::provider

// Fills `info` and registers the implementations through host->registrar.
// Never throws; errors come back as TeplugError* (e.g. ABI ranges that do not
// overlap, a registrar refusing a registration).
TeplugError* teplug_reference_entry(const TeplugHostApi* host, TeplugPluginInfo* info);

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_REFERENCE_ENTRY_H_
