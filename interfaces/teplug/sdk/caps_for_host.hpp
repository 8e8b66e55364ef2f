// Capability descriptors as an older host accepts them. A host refuses a
// descriptor that sets a bit newer than the ABI it knows
// (TeplugHostApi.abi_max), so a plugin that also loads into older hosts
// registers, for such a host, a copy without those bits:
//
//   const TeplugQuantizerCaps* MyQuantizerCaps(uint32_t host_abi_max) {
//     static const TeplugQuantizerCaps caps = MakeCaps();
//     static const TeplugQuantizerCaps older =
//         sdk::ForHostAbi(caps, sdk::kAbiBeforeMxTeScale);
//     return host_abi_max >= TEPLUG_ABI_VERSION(1, 3) ? &caps : &older;
//   }
//   ... r.Register(kIidQuantizerV1, object, MyQuantizerCaps(r.host().abi_max), ...);
//
// The bits by version: TEPLUG_QUANT_CAP_MX_TE_SCALE and
// TEPLUG_NORM_CAP_MX_TE_SCALE are v1.3; every other feature bit is as old as
// its field.
#ifndef TEPLUG_SDK_CAPS_FOR_HOST_HPP_
#define TEPLUG_SDK_CAPS_FOR_HOST_HPP_

#include <cstdint>

#include "teplug/norm.h"
#include "teplug/quantizer.h"

namespace teplug::sdk {

// The newest ABI without the v1.3 bits.
inline constexpr uint32_t kAbiBeforeMxTeScale = TEPLUG_ABI_VERSION(1, 2);

// `caps` without the feature bits a host of ABI `host_abi_max` does not know.
inline TeplugQuantizerCaps ForHostAbi(TeplugQuantizerCaps caps, uint32_t host_abi_max) {
  if (host_abi_max < TEPLUG_ABI_VERSION(1, 3)) caps.features &= ~TEPLUG_QUANT_CAP_MX_TE_SCALE;
  return caps;
}
inline TeplugNormCaps ForHostAbi(TeplugNormCaps caps, uint32_t host_abi_max) {
  if (host_abi_max < TEPLUG_ABI_VERSION(1, 3)) caps.features &= ~TEPLUG_NORM_CAP_MX_TE_SCALE;
  return caps;
}

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_CAPS_FOR_HOST_HPP_
