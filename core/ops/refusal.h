// Why a capability descriptor refuses an op, kept as values and formatted
// only when a decision record is printed (selection runs on every cache miss
// and among many implementations; most refusals are never read). A Refusal
// is a reason, not a verdict: it is what a rejected candidate's verdict
// (CandidateVerdict in core/select/decision_record.h) holds as the reason
// when the device or capability stage refused it. The checks
// every interface shares (device, dtype, scaling mode, alignment, limits)
// live here; an interface module adds its own through kNamed (an enum value
// and its names) or kCustom (its own formatter).
#ifndef TEPLUG_CORE_OPS_REFUSAL_H_
#define TEPLUG_CORE_OPS_REFUSAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "teplug/teplug.h"

namespace teplug::core {

struct Refusal {
  enum class Kind : uint8_t {
    kFixed,        // what
    kDType,        // "<what> dtype <value> not in <mask>"
    kScaling,      // "<what> scaling mode <value> not in <mask>"
    kNamed,        // "<what> <name(value)> not in {<names of mask>}"
    kAbove,        // "<what> <value> > max <limit>"
    kBelow,        // "<what> <value> < min <limit>"
    kNotMultiple,  // "<what> <value> not a multiple of <limit>"
    kMisaligned,   // "<what> data pointer not aligned to <limit> bytes"
    kLeadingDim,   // "<what> leading dimension <value> (<value2> bytes) not a multiple of <limit> bytes"
    kDevice,       // "device <device> not in {<the descriptor's devices>}"
    kCustom,       // format(*this)
  };
  Kind kind = Kind::kFixed;
  const char* what = "";  // a string literal: a field or feature name, or (kFixed) the message
  int64_t value = 0;
  int64_t value2 = 0;
  int64_t limit = 0;
  uint64_t mask = 0;
  double real = 0;
  TeplugDevice device{};
  const char* (*names)(int32_t) = nullptr;  // kNamed: the value names
  int32_t count = 0;                        // kNamed: values are [0, count)
  std::string (*format)(const Refusal&) = nullptr;  // kCustom
};

Refusal FixedRefusal(const char* message);
Refusal ValueRefusal(Refusal::Kind kind, const char* what, int64_t value, int64_t limit = 0);
Refusal NamedRefusal(const char* what, int32_t value, uint64_t allowed, const char* (*names)(int32_t),
                     int32_t count);

// The refusal as text; `devices` is the refusing descriptor's device list (kDevice).
std::string FormatRefusal(const Refusal& r, const std::vector<TeplugDeviceSupport>& devices);

// Whether one of `devices` accepts `device`. Inline: selection asks it of
// every candidate, most of which accept.
inline bool DeviceAccepted(const std::vector<TeplugDeviceSupport>& devices, const TeplugDevice& device) {
  for (const TeplugDeviceSupport& s : devices) {
    if (s.kind != TEPLUG_DEVICE_ANY && s.kind != device.kind) continue;
    if (s.vendor_id != TEPLUG_VENDOR_ANY && s.vendor_id != device.vendor_id) continue;
    if (s.arch_min != 0 && device.arch < s.arch_min) continue;
    if (s.arch_max != 0 && device.arch > s.arch_max) continue;
    return true;
  }
  return false;
}
// nullopt when DeviceAccepted(devices, device), else why not.
std::optional<Refusal> CheckDevice(const std::vector<TeplugDeviceSupport>& devices, const TeplugDevice& device);
// Whether `dtype`'s bit is in `allowed` (a TEPLUG_DTYPE_BIT mask). Inline:
// the capability check asks it of every tensor of every candidate.
inline bool DTypeAllowed(int32_t dtype, uint64_t allowed) {
  return dtype >= 0 && dtype < 64 && (allowed & TEPLUG_DTYPE_BIT(dtype));
}
// nullopt when DTypeAllowed(dtype, allowed).
std::optional<Refusal> CheckDType(const char* what, int32_t dtype, uint64_t allowed);
// A quantized tensor's scaling mode against a TEPLUG_SCALING_BIT mask.
std::optional<Refusal> CheckScaling(const char* what, const TeplugTensor* t, uint32_t modes);
// The data pointer and (rank 2) leading dimension against an alignment in bytes.
std::optional<Refusal> CheckAlignment(const char* what, const TeplugTensor* t, int64_t alignment);

// "{a, b, c}" for the bits of `mask` below `count`, named by `name`.
std::string NameSet(uint64_t mask, int count, const char* (*name)(int32_t));
// "{fp32, bf16}".
std::string DTypeSet(uint64_t mask);

// The op's device from a tensor (host when it names none or a short struct).
TeplugDevice DeviceOf(const TeplugTensor* t);
// "cpu:0", "cuda:1 (nvidia, arch 90)": AbiDeviceSpelling's label.
std::string DeviceLabel(const TeplugDevice& d);
// "nvidia", "amd", "intel", or "0x%04x"; "" for TEPLUG_VENDOR_ANY.
std::string VendorName(uint32_t vendor_id);
// "cuda nvidia arch 80..90".
std::string DeviceSupportLabel(const TeplugDeviceSupport& s);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_REFUSAL_H_
