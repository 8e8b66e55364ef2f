// Reading and validating capability descriptors: every field a plugin hands
// us is checked once here (struct sizes, known bits only, sane ranges), so
// selection can trust the copy and explain rejections without calling back.
#include "core/registry/capability.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

// More device entries than any real implementation needs; a larger count is
// far more likely garbage than intent, and bounds what we copy.
constexpr size_t kMaxDevices = 64;

// The largest TeplugGemmCaps.alignment served (see ValidateGemm).
constexpr int64_t kMaxAlignment = 256;

// The largest device-array stride (devices[0].struct_size) accepted: room
// for TeplugDeviceSupport to grow tenfold. It bounds how far past the
// array's start we read (kMaxDevices * kMaxDeviceStride bytes), so a huge
// or wrapping struct_size is refused instead of sending us to an address
// outside the plugin's array.
constexpr size_t kMaxDeviceStride = 256;

// Bits 0..count-1 are known.
constexpr uint64_t MaskBelow(int count) {
  return count >= 64 ? ~uint64_t{0} : ((uint64_t{1} << count) - 1);
}

// Checks a bit mask: no bit outside `known`, and (when `required`) not empty.
absl::Status CheckBits(const char* strct, const char* field, uint64_t value, uint64_t known,
                       bool required) {
  if ((value & ~known) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.%s 0x%x sets unknown bits 0x%x (known bits are 0x%x)", strct, field, value,
        value & ~known, known));
  }
  if (required && value == 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.%s is 0: at least one value must be set", strct, field));
  }
  return absl::OkStatus();
}

// Dtype masks: bit 0 is TEPLUG_DTYPE_INVALID and never a valid claim.
absl::Status CheckDtypes(const char* strct, const char* field, uint64_t value, bool required) {
  constexpr uint64_t kKnown = MaskBelow(TEPLUG_DTYPE_COUNT_) & ~TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_INVALID);
  return CheckBits(strct, field, value, kKnown, required);
}

absl::Status CheckNonNegative(const char* strct, const char* field, int64_t value) {
  if (value < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.%s is %d: must be >= 0", strct, field, value));
  }
  return absl::OkStatus();
}

// Copies and validates the device list every descriptor starts with.
absl::Status ReadDevices(const char* strct, const TeplugDeviceSupport* devices, size_t num_devices,
                         std::vector<TeplugDeviceSupport>* out) {
  if (num_devices == 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.num_devices is 0: list at least one device (TEPLUG_DEVICE_ANY matches every kind)",
        strct));
  }
  if (num_devices > kMaxDevices) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.num_devices %d > %d allowed", strct, num_devices, kMaxDevices));
  }
  if (devices == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.num_devices is %d but devices is NULL", strct, num_devices));
  }
  constexpr size_t kRequired = TEPLUG_STRUCT_SIZE(TeplugDeviceSupport, arch_max);
  // The array's stride is the writer's sizeof(TeplugDeviceSupport), carried
  // by devices[0].struct_size (capability.h), so a list written by a newer
  // plugin with a larger element stays readable.
  const size_t stride = devices[0].struct_size;
  if (stride < kRequired || stride > kMaxDeviceStride || stride % alignof(TeplugDeviceSupport) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.devices[0].struct_size %d: must be >= %d, <= %d and a multiple of %d (it is the array stride)",
        strct, stride, kRequired, kMaxDeviceStride, alignof(TeplugDeviceSupport)));
  }
  const auto* base = reinterpret_cast<const unsigned char*>(devices);
  out->clear();
  out->reserve(num_devices);
  for (size_t i = 0; i < num_devices; ++i) {
    TeplugDeviceSupport d;
    const auto* element = reinterpret_cast<const TeplugDeviceSupport*>(base + i * stride);
    if (element->struct_size != stride) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.devices[%d].struct_size %d differs from devices[0].struct_size %d (the array stride)",
                          strct, i, element->struct_size, stride));
    }
    sdk::ReadVersioned(element, &d, kRequired);
    const bool known_kind = (d.kind >= TEPLUG_DEVICE_ANY && d.kind <= TEPLUG_DEVICE_OPENCL) ||
                            d.kind >= TEPLUG_DEVICE_VENDOR_BASE;
    if (!known_kind) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.devices[%d].kind %d is neither a known kind (0-3) nor vendor-defined (>= %d)",
          strct, i, d.kind, static_cast<int>(TEPLUG_DEVICE_VENDOR_BASE)));
    }
    if (d.arch_min < 0 || d.arch_max < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s.devices[%d] arch_min %d / arch_max %d: must be >= 0 (0 = no bound)",
                          strct, i, d.arch_min, d.arch_max));
    }
    if (d.arch_min > 0 && d.arch_max > 0 && d.arch_min > d.arch_max) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.devices[%d].arch_min %d > arch_max %d", strct, i, d.arch_min, d.arch_max));
    }
    // Our copy is a full current-version struct.
    d.struct_size = sizeof(TeplugDeviceSupport);
    out->push_back(d);
  }
  return absl::OkStatus();
}

// Reads a descriptor of type T requiring the v1 size `required`.
template <class T>
absl::Status ReadStruct(const char* strct, const void* raw, size_t required, T* out) {
  const T* p = static_cast<const T*>(raw);
  if (!sdk::ReadVersioned(p, out, required)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.struct_size %d < %d required", strct, p->struct_size, required));
  }
  return absl::OkStatus();
}

absl::Status ValidateGemm(const TeplugGemmCaps& c) {
  const char* s = "TeplugGemmCaps";
  for (absl::Status st : {CheckDtypes(s, "a_dtypes", c.a_dtypes, true),
                          CheckDtypes(s, "b_dtypes", c.b_dtypes, true),
                          CheckDtypes(s, "d_dtypes", c.d_dtypes, true),
                          CheckBits(s, "epilogues", c.epilogues,
                                    TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU |
                                        TEPLUG_GEMM_CAP_GELU_AUX | TEPLUG_GEMM_CAP_ACCUMULATE,
                                    false),
                          CheckBits(s, "scaling_modes", c.scaling_modes,
                                    MaskBelow(TEPLUG_SCALING_COUNT_), false),
                          CheckNonNegative(s, "alignment", c.alignment),
                          CheckNonNegative(s, "max_dim", c.max_dim)}) {
    if (!st.ok()) return st;
  }
  if (c.alignment > 1 && (c.alignment & (c.alignment - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s.alignment %d is not a power of two", s, c.alignment));
  }
  // The decision cache keys pointer alignment classes up to 256 bytes
  // (op_signature.h): a larger requirement could be answered from the cache
  // for a pointer it does not hold.
  if (c.alignment > kMaxAlignment) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.alignment %d > %d: the host tells pointer alignments apart only up to %d bytes", s,
        c.alignment, kMaxAlignment, kMaxAlignment));
  }
  return absl::OkStatus();
}

absl::Status ValidateAttention(const TeplugAttentionCaps& c) {
  const char* s = "TeplugAttentionCaps";
  constexpr uint64_t kFeatures = TEPLUG_ATTN_CAP_DROPOUT | TEPLUG_ATTN_CAP_SLIDING_WINDOW |
                                 TEPLUG_ATTN_CAP_GQA | TEPLUG_ATTN_CAP_DETERMINISTIC |
                                 TEPLUG_ATTN_CAP_BACKWARD | TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS;
  for (absl::Status st :
       {CheckDtypes(s, "qkv_dtypes", c.qkv_dtypes, true),
        CheckBits(s, "layouts", c.layouts, MaskBelow(TEPLUG_LAYOUT_COUNT_), true),
        CheckBits(s, "mask_types", c.mask_types, MaskBelow(TEPLUG_MASK_COUNT_), true),
        CheckBits(s, "bias_types", c.bias_types, MaskBelow(TEPLUG_BIAS_COUNT_), true),
        CheckBits(s, "features", c.features, kFeatures, false),
        CheckNonNegative(s, "head_dim_min", c.head_dim_min),
        CheckNonNegative(s, "head_dim_max", c.head_dim_max),
        CheckNonNegative(s, "head_dim_multiple", c.head_dim_multiple),
        CheckNonNegative(s, "max_seqlen_q", c.max_seqlen_q),
        CheckNonNegative(s, "max_seqlen_kv", c.max_seqlen_kv)}) {
    if (!st.ok()) return st;
  }
  if (c.head_dim_max > 0 && c.head_dim_min > c.head_dim_max) {
    return absl::InvalidArgumentError(absl::StrFormat("%s.head_dim_min %d > head_dim_max %d", s,
                                                      c.head_dim_min, c.head_dim_max));
  }
  return absl::OkStatus();
}

absl::Status ValidateQuantizer(const TeplugQuantizerCaps& c) {
  const char* s = "TeplugQuantizerCaps";
  constexpr uint64_t kFeatures = TEPLUG_QUANT_CAP_COLUMNWISE | TEPLUG_QUANT_CAP_DEQUANTIZE |
                                 TEPLUG_QUANT_CAP_CURRENT_SCALING |
                                 TEPLUG_QUANT_CAP_DELAYED_SCALING;
  for (absl::Status st :
       {CheckDtypes(s, "input_dtypes", c.input_dtypes, true),
        CheckDtypes(s, "output_dtypes", c.output_dtypes, true),
        CheckBits(s, "scaling_modes", c.scaling_modes, MaskBelow(TEPLUG_SCALING_COUNT_), true),
        CheckBits(s, "features", c.features, kFeatures, false)}) {
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status ValidateCollective(const TeplugCollectiveCaps& c) {
  const char* s = "TeplugCollectiveCaps";
  // The collective ops are TEPLUG_OP_ALL_REDUCE .. TEPLUG_OP_BARRIER.
  constexpr uint64_t kOps =
      MaskBelow(TEPLUG_OP_BARRIER + 1) & ~MaskBelow(TEPLUG_OP_ALL_REDUCE);
  const bool reduces =
      (c.ops & (TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE) | TEPLUG_OP_BIT(TEPLUG_OP_REDUCE_SCATTER))) != 0;
  for (absl::Status st :
       {CheckDtypes(s, "dtypes", c.dtypes, true), CheckBits(s, "ops", c.ops, kOps, true),
        // A reducing op without any reduction operator could never be served.
        CheckBits(s, "reductions", c.reductions, MaskBelow(TEPLUG_REDUCE_COUNT_), reduces),
        CheckNonNegative(s, "max_world_size", c.max_world_size)}) {
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

// Reads T, copies its devices, validates it, and stores it in `out`.
template <class T, class Validate>
absl::StatusOr<Capability> ReadKind(InterfaceKind kind, const char* strct, const void* raw,
                                    size_t required, Validate validate) {
  T caps;
  absl::Status st = ReadStruct(strct, raw, required, &caps);
  if (!st.ok()) return st;
  Capability out;
  out.kind = kind;
  st = ReadDevices(strct, caps.devices, caps.num_devices, &out.devices);
  if (!st.ok()) return st;
  st = validate(caps);
  if (!st.ok()) return st;
  caps.struct_size = sizeof(T);  // our copy is complete (missing fields read as 0)
  caps.devices = nullptr;        // re-pointed below, never at plugin memory
  out.caps = caps;
  Capability result;
  result = out;  // operator= points caps.devices at result.devices
  return result;
}

}  // namespace

Capability& Capability::operator=(const Capability& other) {
  if (this == &other) return *this;
  kind = other.kind;
  devices = other.devices;
  caps = other.caps;
  std::visit(
      [this](auto& c) {
        c.devices = devices.empty() ? nullptr : devices.data();
        c.num_devices = devices.size();
      },
      caps);
  return *this;
}

absl::StatusOr<Capability> ReadCapability(InterfaceKind kind, const void* raw) {
  if (raw == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("the capability descriptor of ", InterfaceDisplayName(kind), " is NULL"));
  }
  switch (kind) {
    case InterfaceKind::kGemm:
      return ReadKind<TeplugGemmCaps>(kind, "TeplugGemmCaps", raw,
                                      TEPLUG_STRUCT_SIZE(TeplugGemmCaps, max_dim), ValidateGemm);
    case InterfaceKind::kAttention:
      return ReadKind<TeplugAttentionCaps>(kind, "TeplugAttentionCaps", raw,
                                           TEPLUG_STRUCT_SIZE(TeplugAttentionCaps, max_seqlen_kv),
                                           ValidateAttention);
    case InterfaceKind::kQuantizer:
      return ReadKind<TeplugQuantizerCaps>(kind, "TeplugQuantizerCaps", raw,
                                           TEPLUG_STRUCT_SIZE(TeplugQuantizerCaps, features),
                                           ValidateQuantizer);
    case InterfaceKind::kCollective:
      return ReadKind<TeplugCollectiveCaps>(kind, "TeplugCollectiveCaps", raw,
                                            TEPLUG_STRUCT_SIZE(TeplugCollectiveCaps, max_world_size),
                                            ValidateCollective);
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("unknown interface kind %d", static_cast<int>(kind)));
}

}  // namespace teplug::core
