// teplug/sdk/iids.hpp — the interface ids as C++ constants, with names for
// messages.
#ifndef TEPLUG_SDK_IIDS_HPP_
#define TEPLUG_SDK_IIDS_HPP_

#include "teplug/attention.h"
#include "teplug/collective.h"
#include "teplug/device.h"
#include "teplug/gemm.h"
#include "teplug/norm.h"
#include "teplug/quantizer.h"

namespace teplug::sdk {

inline constexpr TeplugIID kIidObject = TEPLUG_IID_OBJECT_INIT;
inline constexpr TeplugIID kIidGemmV1 = TEPLUG_IID_GEMM_V1_INIT;
inline constexpr TeplugIID kIidAttentionV1 = TEPLUG_IID_ATTENTION_V1_INIT;
inline constexpr TeplugIID kIidQuantizerV1 = TEPLUG_IID_QUANTIZER_V1_INIT;
inline constexpr TeplugIID kIidCollectiveV1 = TEPLUG_IID_COLLECTIVE_V1_INIT;
inline constexpr TeplugIID kIidNormV1 = TEPLUG_IID_NORM_V1_INIT;
inline constexpr TeplugIID kIidDeviceV1 = TEPLUG_IID_DEVICE_V1_INIT;

constexpr bool SameIid(const TeplugIID& a, const TeplugIID& b) {
  return a.hi == b.hi && a.lo == b.lo;
}

// "IGemm/1", "IAttention/1", ...; nullptr for an IID these headers do not know.
inline const char* IidName(const TeplugIID& iid) {
  if (SameIid(iid, kIidGemmV1)) return "IGemm/1";
  if (SameIid(iid, kIidAttentionV1)) return "IAttention/1";
  if (SameIid(iid, kIidQuantizerV1)) return "IQuantizer/1";
  if (SameIid(iid, kIidCollectiveV1)) return "ICollective/1";
  if (SameIid(iid, kIidNormV1)) return "INorm/1";
  if (SameIid(iid, kIidDeviceV1)) return "IDevice/1";
  if (SameIid(iid, kIidObject)) return "IObject";
  return nullptr;
}

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_IIDS_HPP_
