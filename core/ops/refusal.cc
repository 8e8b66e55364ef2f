#include "core/ops/refusal.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/ops/device_spelling.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {

Refusal FixedRefusal(const char* message) {
  Refusal r;
  r.kind = Refusal::Kind::kFixed;
  r.what = message;
  return r;
}

Refusal ValueRefusal(Refusal::Kind kind, const char* what, int64_t value, int64_t limit) {
  Refusal r;
  r.kind = kind;
  r.what = what;
  r.value = value;
  r.limit = limit;
  return r;
}

Refusal NamedRefusal(const char* what, int32_t value, uint64_t allowed, const char* (*names)(int32_t),
                     int32_t count) {
  Refusal r;
  r.kind = Refusal::Kind::kNamed;
  r.what = what;
  r.value = value;
  r.mask = allowed;
  r.names = names;
  r.count = count;
  return r;
}

std::string NameSet(uint64_t mask, int count, const char* (*name)(int32_t)) {
  std::string out;
  out.reserve(160);  // one string, no temporary vector: formatted on the selection path
  out += "{";
  for (int i = 0; i < count && i < 64; ++i) {
    if (mask & (uint64_t{1} << i)) {
      if (out.size() > 1) out += ", ";
      out += name(i);
    }
  }
  out += "}";
  return out;
}

std::string DTypeSet(uint64_t mask) { return NameSet(mask, TEPLUG_DTYPE_COUNT_, &sdk::DTypeName); }

std::optional<Refusal> CheckDType(const char* what, int32_t dtype, uint64_t allowed) {
  if (DTypeAllowed(dtype, allowed)) return std::nullopt;
  Refusal r = ValueRefusal(Refusal::Kind::kDType, what, dtype);
  r.mask = allowed;
  return r;
}

std::optional<Refusal> CheckScaling(const char* what, const TeplugTensor* t, uint32_t modes) {
  if (t == nullptr || t->quant == nullptr || t->quant->mode == TEPLUG_SCALING_NONE) return std::nullopt;
  if (t->quant->mode >= 0 && t->quant->mode < 32 && (modes & TEPLUG_SCALING_BIT(t->quant->mode))) {
    return std::nullopt;
  }
  Refusal r = ValueRefusal(Refusal::Kind::kScaling, what, t->quant->mode);
  r.mask = modes;
  return r;
}

namespace {
// The bytes of `n` elements of `dtype`, or nullopt when that overflows.
std::optional<int64_t> ElemBytesTimes(int32_t dtype, int64_t n) {
  int64_t bits = 0;
  if (__builtin_mul_overflow(n, int64_t{sdk::DTypeBits(dtype)}, &bits)) return std::nullopt;
  return bits / 8;
}
}  // namespace

std::optional<Refusal> CheckAlignment(const char* what, const TeplugTensor* t, int64_t alignment) {
  if (t == nullptr || alignment <= 1) return std::nullopt;
  auto addr = reinterpret_cast<uintptr_t>(t->data);
  if (addr % static_cast<uintptr_t>(alignment) != 0) {
    return ValueRefusal(Refusal::Kind::kMisaligned, what, 0, alignment);
  }
  const int64_t ld = t->rank == 2 ? (t->strides[0] != 0 ? t->strides[0] : t->shape[1]) : 0;
  const std::optional<int64_t> ld_bytes = ElemBytesTimes(t->dtype, ld);
  if (!ld_bytes.has_value() || *ld_bytes % alignment != 0) {
    // Too large to count in bytes is refused too (shown saturated).
    Refusal r = ValueRefusal(Refusal::Kind::kLeadingDim, what, ld, alignment);
    r.value2 = ld_bytes.value_or(INT64_MAX);
    return r;
  }
  return std::nullopt;
}

std::optional<Refusal> CheckDevice(const std::vector<TeplugDeviceSupport>& devices, const TeplugDevice& device) {
  if (DeviceAccepted(devices, device)) return std::nullopt;
  Refusal r;
  r.kind = Refusal::Kind::kDevice;
  r.what = "device";
  r.device = device;
  return r;
}

std::string FormatRefusal(const Refusal& r, const std::vector<TeplugDeviceSupport>& devices) {
  using Kind = Refusal::Kind;
  switch (r.kind) {
    case Kind::kFixed: return r.what;
    case Kind::kDType:
      return absl::StrCat(r.what, " dtype ", sdk::DTypeName(static_cast<int32_t>(r.value)), " not in ",
                          DTypeSet(r.mask));
    case Kind::kScaling:
      return absl::StrCat(r.what, " scaling mode ", sdk::ScalingName(static_cast<int32_t>(r.value)), " not in ",
                          NameSet(r.mask, TEPLUG_SCALING_COUNT_, &sdk::ScalingName));
    case Kind::kNamed:
      return absl::StrCat(r.what, " ", r.names(static_cast<int32_t>(r.value)), " not in ",
                          NameSet(r.mask, r.count, r.names));
    case Kind::kAbove: return absl::StrCat(r.what, " ", r.value, " > max ", r.limit);
    case Kind::kBelow: return absl::StrCat(r.what, " ", r.value, " < min ", r.limit);
    case Kind::kNotMultiple: return absl::StrCat(r.what, " ", r.value, " not a multiple of ", r.limit);
    case Kind::kMisaligned: return absl::StrCat(r.what, " data pointer not aligned to ", r.limit, " bytes");
    case Kind::kLeadingDim:
      return absl::StrCat(r.what, " leading dimension ", r.value, " (", r.value2, " bytes) not a multiple of ",
                          r.limit, " bytes");
    case Kind::kDevice: {
      std::string accepted;
      for (const TeplugDeviceSupport& s : devices) {
        absl::StrAppend(&accepted, accepted.empty() ? "" : ", ", DeviceSupportLabel(s));
      }
      return absl::StrCat("device ", DeviceLabel(r.device), " not in {", accepted, "}");
    }
    case Kind::kCustom: return r.format != nullptr ? r.format(r) : r.what;
  }
  return "refused";
}

TeplugDevice DeviceOf(const TeplugTensor* t) {
  TeplugDevice d{};
  d.struct_size = sizeof(TeplugDevice);
  d.kind = TEPLUG_DEVICE_CPU;
  if (t != nullptr && t->device != nullptr && t->device->struct_size >= TEPLUG_STRUCT_SIZE(TeplugDevice, arch)) {
    d = *t->device;
  }
  return d;
}

std::string VendorName(uint32_t vendor_id) {
  switch (vendor_id) {
    case TEPLUG_VENDOR_ANY: return "";
    case TEPLUG_VENDOR_NVIDIA: return "nvidia";
    case TEPLUG_VENDOR_AMD: return "amd";
    case TEPLUG_VENDOR_INTEL: return "intel";
    default: return absl::StrFormat("0x%04x", vendor_id);
  }
}

std::string DeviceLabel(const TeplugDevice& d) { return AbiDeviceSpelling().Label(d); }

std::string DeviceSupportLabel(const TeplugDeviceSupport& s) {
  std::string out = sdk::DeviceKindName(s.kind);
  std::string vendor = VendorName(s.vendor_id);
  if (!vendor.empty()) absl::StrAppend(&out, " ", vendor);
  if (s.arch_min != 0 || s.arch_max != 0) {
    absl::StrAppend(&out, " arch ", s.arch_min != 0 ? absl::StrCat(s.arch_min) : "", "..",
                    s.arch_max != 0 ? absl::StrCat(s.arch_max) : "");
  }
  return out;
}

}  // namespace teplug::core
