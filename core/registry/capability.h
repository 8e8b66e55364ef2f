// A validated, owned copy of an implementation's capability descriptor.
//
// Plugins hand the host a pointer to a static descriptor; the core reads it
// once at registration (with struct_size checks, see sdk/struct_io.hpp),
// validates it, and keeps this copy, so selection never reads plugin memory
// for static capabilities. The device list is copied too; `caps`' own
// `devices` pointer is redirected to `devices.data()`.
#ifndef TEPLUG_CORE_REGISTRY_CAPABILITY_H_
#define TEPLUG_CORE_REGISTRY_CAPABILITY_H_

#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "core/registry/interface_kind.h"
#include "teplug/teplug.h"

namespace teplug::core {

struct Capability {
  InterfaceKind kind;
  std::vector<TeplugDeviceSupport> devices;
  // Exactly the alternative matching `kind`.
  std::variant<TeplugGemmCaps, TeplugAttentionCaps, TeplugQuantizerCaps, TeplugCollectiveCaps> caps;

  Capability() = default;
  Capability(const Capability& other) { *this = other; }
  Capability& operator=(const Capability& other);  // re-points caps.devices

  const TeplugGemmCaps& gemm() const { return std::get<TeplugGemmCaps>(caps); }
  const TeplugAttentionCaps& attention() const { return std::get<TeplugAttentionCaps>(caps); }
  const TeplugQuantizerCaps& quantizer() const { return std::get<TeplugQuantizerCaps>(caps); }
  const TeplugCollectiveCaps& collective() const { return std::get<TeplugCollectiveCaps>(caps); }
};

// Reads and validates the descriptor `raw` for interface `kind`. Errors name
// the struct and field that is wrong ("TeplugAttentionCaps.head_dim_min 256 >
// head_dim_max 128", "TeplugGemmCaps.num_devices is 2 but devices is NULL",
// "TeplugGemmCaps.struct_size 16 < 72 required", unknown bits set, ...).
absl::StatusOr<Capability> ReadCapability(InterfaceKind kind, const void* raw);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_REGISTRY_CAPABILITY_H_
