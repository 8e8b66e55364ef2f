// teplug/sdk/names.hpp — canonical lower-case names of the ABI's enums, as
// used in config files, decision records and messages ("fp8_e4m3",
// "bshd_bshd_bshd", "causal_bottom_right"). Parse* return false for unknown
// names.
#ifndef TEPLUG_SDK_NAMES_HPP_
#define TEPLUG_SDK_NAMES_HPP_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "teplug/attention.h"
#include "teplug/capability.h"
#include "teplug/collective.h"
#include "teplug/gemm.h"
#include "teplug/norm.h"
#include "teplug/quantizer.h"
#include "teplug/types.h"

namespace teplug::sdk {

namespace internal {
template <size_t N>
const char* NameAt(const char* const (&names)[N], int64_t v) {
  return (v >= 0 && static_cast<size_t>(v) < N && names[v] != nullptr) ? names[v] : "unknown";
}
template <size_t N>
bool ParseName(const char* const (&names)[N], const std::string& s, int32_t* out) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] != nullptr && s == names[i]) {
      *out = static_cast<int32_t>(i);
      return true;
    }
  }
  return false;
}
inline constexpr const char* kDTypes[] = {"invalid", "fp32", "fp16",  "bf16",  "fp8_e4m3", "fp8_e5m2",
                                          "e8m0",    "fp4_e2m1", "int8", "int32", "int64", "uint8"};
inline constexpr const char* kLayouts[] = {
    "sb3hd",          "sbh3d", "sbhd_sb2hd", "sbhd_sbh2d",     "sbhd_sbhd_sbhd",
    "bs3hd",          "bsh3d", "bshd_bs2hd", "bshd_bsh2d",     "bshd_bshd_bshd",
    "t3hd",           "th3d",  "thd_t2hd",   "thd_th2d",       "thd_thd_thd"};
inline constexpr const char* kMasks[] = {"none",   "padding", "causal", "padding_causal",
                                         "causal_bottom_right", "padding_causal_bottom_right"};
inline constexpr const char* kBiases[] = {"none", "pre_scale", "post_scale", "alibi"};
inline constexpr const char* kScalings[] = {"none", "per_tensor", "mxfp8_1d32", "block_1d128",
                                            "block_2d128"};
inline constexpr const char* kMxScaleRules[] = {"ocp", "transformer_engine"};
static_assert(sizeof(kMxScaleRules) / sizeof(kMxScaleRules[0]) == TEPLUG_MX_SCALE_COUNT_,
              "one name per rule");
// Indexed by TeplugOp: the op's name within its interface, and that
// interface's name (capability.h lists the pairs).
inline constexpr const char* kOps[] = {nullptr,      "gemm",       "forward",        "backward",  "quantize",
                                       "dequantize", "all_reduce", "all_gather",     "reduce_scatter",
                                       "broadcast",  "send",       "recv",           "barrier"};
inline constexpr const char* kOpInterfaces[] = {nullptr,      "gemm",       "attention",  "attention",  "quantizer",
                                                "quantizer",  "collective", "collective", "collective", "collective",
                                                "collective", "collective", "collective"};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == TEPLUG_OP_COUNT_, "one name per TeplugOp");
static_assert(sizeof(kOpInterfaces) / sizeof(kOpInterfaces[0]) == TEPLUG_OP_COUNT_, "one interface per TeplugOp");
inline constexpr const char* kNormTypes[] = {"layernorm", "rmsnorm"};
inline constexpr const char* kReduces[] = {"sum", "prod", "min", "max", "avg"};
inline constexpr const char* kDeviceKinds[] = {"any", "cpu", "cuda", "opencl"};
}  // namespace internal

inline const char* DTypeName(int32_t d) { return internal::NameAt(internal::kDTypes, d); }
inline const char* LayoutName(int32_t l) { return internal::NameAt(internal::kLayouts, l); }
inline const char* MaskName(int32_t m) { return internal::NameAt(internal::kMasks, m); }
inline const char* BiasName(int32_t b) { return internal::NameAt(internal::kBiases, b); }
inline const char* ScalingName(int32_t s) { return internal::NameAt(internal::kScalings, s); }
inline const char* MxScaleRuleName(int32_t r) {
  return internal::NameAt(internal::kMxScaleRules, r);
}
// A TeplugOp's name within its interface, as config rules spell it
// (`ops: "forward"`): "gemm", "forward", "backward", "quantize", "all_reduce".
// Not unique on its own (attention and norm both have "forward"): where an op
// is named outside its interface, write OpInterfaceName(op) first, as config
// rules and the core's op summaries do ("attention forward bf16 ...").
inline const char* OpName(int32_t op) { return internal::NameAt(internal::kOps, op); }
// The name of the interface a TeplugOp belongs to, as config rules spell it
// (`interfaces: "attention"`): "gemm", "attention", "quantizer" or
// "collective"; "unknown" for a value that is not a TeplugOp. INorm's ops are
// interface-local (TeplugNormOp, norm.h) and have no TeplugOp.
inline const char* OpInterfaceName(int32_t op) { return internal::NameAt(internal::kOpInterfaces, op); }
inline const char* ReduceName(int32_t r) { return internal::NameAt(internal::kReduces, r); }
inline const char* NormTypeName(int32_t t) { return internal::NameAt(internal::kNormTypes, t); }
// Vendor kinds (>= TEPLUG_DEVICE_VENDOR_BASE) are named "vendor<N>".
inline std::string DeviceKindName(int32_t k) {
  if (k >= TEPLUG_DEVICE_VENDOR_BASE) return "vendor" + std::to_string(k);
  return internal::NameAt(internal::kDeviceKinds, k);
}
// "bshd", "sbhd" or "thd": the format family of a layout.
inline const char* LayoutFormat(int32_t l) {
  if (l >= TEPLUG_LAYOUT_SB3HD && l <= TEPLUG_LAYOUT_SBHD_SBHD_SBHD) return "sbhd";
  if (l >= TEPLUG_LAYOUT_BS3HD && l <= TEPLUG_LAYOUT_BSHD_BSHD_BSHD) return "bshd";
  if (l >= TEPLUG_LAYOUT_T3HD && l <= TEPLUG_LAYOUT_THD_THD_THD) return "thd";
  return "unknown";
}

inline bool ParseDType(const std::string& s, int32_t* out) {
  return internal::ParseName(internal::kDTypes, s, out) && *out != TEPLUG_DTYPE_INVALID;
}
inline bool ParseLayout(const std::string& s, int32_t* out) {
  return internal::ParseName(internal::kLayouts, s, out);
}
inline bool ParseMask(const std::string& s, int32_t* out) {
  return internal::ParseName(internal::kMasks, s, out);
}
inline bool ParseBias(const std::string& s, int32_t* out) {
  return internal::ParseName(internal::kBiases, s, out);
}
inline bool ParseScaling(const std::string& s, int32_t* out) {
  return internal::ParseName(internal::kScalings, s, out);
}
inline bool ParseMxScaleRule(const std::string& s, int32_t* out) {
  return internal::ParseName(internal::kMxScaleRules, s, out);
}
inline bool ParseReduce(const std::string& s, int32_t* out) {
  return internal::ParseName(internal::kReduces, s, out);
}
inline bool ParseNormType(const std::string& s, int32_t* out) {
  return internal::ParseName(internal::kNormTypes, s, out);
}

// Every name of an enum, in value order, without the values no tensor or op
// can have (dtype "invalid", device kind "any"): for listing choices and for
// the config's vocabulary, which must be exactly these spellings.
namespace internal {
template <size_t N>
std::vector<std::string> NamesFrom(const char* const (&names)[N], size_t first) {
  std::vector<std::string> out;
  for (size_t i = first; i < N; ++i) {
    if (names[i] != nullptr) out.emplace_back(names[i]);
  }
  return out;
}
}  // namespace internal
inline std::vector<std::string> DTypeNames() { return internal::NamesFrom(internal::kDTypes, TEPLUG_DTYPE_FP32); }
inline std::vector<std::string> LayoutNames() { return internal::NamesFrom(internal::kLayouts, 0); }
inline std::vector<std::string> MaskNames() { return internal::NamesFrom(internal::kMasks, 0); }
inline std::vector<std::string> NormTypeNames() { return internal::NamesFrom(internal::kNormTypes, 0); }
inline std::vector<std::string> BuiltinDeviceKindNames() {
  return internal::NamesFrom(internal::kDeviceKinds, TEPLUG_DEVICE_CPU);
}

// Size in bits of one element (4 for fp4_e2m1); 0 for an unknown dtype.
inline int DTypeBits(int32_t d) {
  switch (d) {
    case TEPLUG_DTYPE_FP32: case TEPLUG_DTYPE_INT32: return 32;
    case TEPLUG_DTYPE_FP16: case TEPLUG_DTYPE_BF16: return 16;
    case TEPLUG_DTYPE_FP8_E4M3: case TEPLUG_DTYPE_FP8_E5M2: case TEPLUG_DTYPE_E8M0:
    case TEPLUG_DTYPE_INT8: case TEPLUG_DTYPE_UINT8: return 8;
    case TEPLUG_DTYPE_FP4_E2M1: return 4;
    case TEPLUG_DTYPE_INT64: return 64;
    default: return 0;
  }
}

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_NAMES_HPP_
