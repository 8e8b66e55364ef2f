// What the conformance test plugins share: their reference count, error
// objects and their entry's one registration. Plain C ABI, no SDK, as a vendor might write it.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_PLUGINS_PLUGIN_PARTS_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_PLUGINS_PLUGIN_PARTS_H_

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "teplug/teplug.h"

namespace conformance_plugins {

// The reference count of a plugin's one static object (it never frees
// itself). With LIE_REFCOUNT, release does not decrement: that plugin's lie.
inline std::atomic<uint32_t> g_refs{1};
inline uint32_t AddRef(TeplugObject*) { return ++g_refs; }
inline uint32_t Release(TeplugObject*) {
#ifdef LIE_REFCOUNT
  return g_refs.load();
#else
  return --g_refs;
#endif
}

inline void FreeError(TeplugError* e) { std::free(e); }

// A malloc'ed error with a static message.
inline TeplugError* Error(int32_t code, const char* message) {
  auto* e = static_cast<TeplugError*>(std::malloc(sizeof(TeplugError)));
  if (e == nullptr) return nullptr;
  *e = {sizeof(TeplugError), code, 0, message, &FreeError};
  return e;
}

// query_interface of a plugin whose one object serves `kIid` (and the base
// object interface): adds a reference and returns the object, or NULL.
template <const TeplugIID* kIid>
TeplugObject* QueryOne(TeplugObject* self, const TeplugIID* iid) {
  static const TeplugIID kObject = TEPLUG_IID_OBJECT_INIT;
  if (iid == nullptr || !(teplug_iid_equal(iid, kIid) || teplug_iid_equal(iid, &kObject)))
    return nullptr;
  AddRef(self);
  return self;
}

// What `supports` answers for args the plugin does not serve because of
// `why` (NULL: served): 0 with `why` copied into `reason`, else 1.
inline TeplugBool AnswerSupports(const char* why, char* reason, size_t reason_size) {
  if (why == nullptr) return 1;
  if (reason != nullptr && reason_size > 0) {
    std::strncpy(reason, why, reason_size - 1);
    reason[reason_size - 1] = '\0';
  }
  return 0;
}

// An IDevice's streams as tokens, for devices whose every copy and op
// completes before it returns: created, synchronised (nothing to wait for)
// and destroyed.
inline TeplugError* TokenStreamCreate(TeplugDeviceV1*, TeplugDeviceContext*, TeplugStream* out) {
  *out = std::malloc(1);
  return nullptr;
}
inline TeplugError* TokenStreamSynchronize(TeplugDeviceV1*, TeplugDeviceContext*, TeplugStream) {
  return nullptr;
}
inline TeplugError* TokenStreamDestroy(TeplugDeviceV1*, TeplugDeviceContext*, TeplugStream s) {
  std::free(s);
  return nullptr;
}

// device_info of an IDevice serving one device, ordinal 0 of `kind`.
inline TeplugError* OneDeviceInfo(size_t index, TeplugDeviceInfo* info, int32_t kind,
                                  const char* name, bool host_pointers_usable) {
  if (index != 0) return Error(TEPLUG_INVALID_ARGUMENT, "device_info: one device, index 0");
  info->kind = kind;
  info->vendor_id = 0;
  info->ordinal = 0;
  info->arch = 0;
  std::strncpy(info->name, name, sizeof info->name - 1);
  info->name[sizeof info->name - 1] = '\0';
  info->memory_bytes = 0;
  info->host_pointers_usable = host_pointers_usable ? 1 : 0;
  info->reserved0 = 0;
  return nullptr;
}

// Registers one implementation of the provider being loaded.
inline TeplugError* RegisterImplementation(const TeplugHostApi* host, const TeplugIID& iid,
                                           TeplugObject* object, const void* caps,
                                           const char* implementation) {
  TeplugImplementationDesc d = {};
  d.struct_size = sizeof d;
  d.iid = iid;
  d.object = object;
  d.capability = caps;
  d.name = implementation;
  d.priority = 10;
  return host->registrar->register_implementation(host->registrar, &d);
}

// RMSNorm forward over `rows` rows of `hidden` fp32 values: y = x * rsigma *
// gamma (gamma + 1 when zero-centered), rsigma = 1 / sqrt(sum(x^2) / divisor
// + epsilon) per row (written when `rsigma` is not NULL). INorm/1's divisor
// is `hidden`.
inline void RmsNormRows(const float* x, const float* g, float* y, float* rsigma, int64_t rows,
                        int64_t hidden, double divisor, float epsilon, bool zero_centered_gamma) {
  for (int64_t r = 0; r < rows; ++r) {
    double squares = 0;
    for (int64_t i = 0; i < hidden; ++i) squares += double{x[r * hidden + i]} * x[r * hidden + i];
    const double rs = 1.0 / std::sqrt(squares / divisor + epsilon);
    for (int64_t i = 0; i < hidden; ++i) {
      const double gi = zero_centered_gamma ? g[i] + 1.0 : g[i];
      y[r * hidden + i] = static_cast<float>(x[r * hidden + i] * rs * gi);
    }
    if (rsigma != nullptr) rsigma[r] = static_cast<float>(rs);
  }
}

// OCP e4m3: bias 7, 3 mantissa bits, subnormals; 0x7F is NaN, 448 the max.
inline float DecodeE4m3(uint8_t code) {
  const int exponent = (code >> 3) & 0xF, mantissa = code & 7;
  if (exponent == 0) return std::ldexp(static_cast<float>(mantissa), -9);
  return std::ldexp(1.0f + mantissa / 8.0f, exponent - 7);
}

// The nearest e4m3 code (ties to the even code), saturating at 448.
inline uint8_t EncodeE4m3(float v) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  const float a = std::fabs(v);
  if (std::isnan(v)) return 0x7F;
  if (a >= 448.0f) return sign | 0x7E;
  uint8_t best = 0;
  for (uint8_t c = 1; c <= 0x7E; ++c) {
    const float d = std::fabs(DecodeE4m3(c) - a), best_d = std::fabs(DecodeE4m3(best) - a);
    if (d < best_d || (d == best_d && (c & 1) == 0)) best = c;
  }
  return sign | best;
}

// One MXFP8 block of e4m3 codes by the OCP rule (quantizer.h): shared_exp = floor(log2(amax)) - 8
// (e4m3's emax), at least -127; codes = e4m3(x / 2^shared_exp). Its scale code is returned. A block
// with NaN or Inf gets 0xFF and NaN codes.
inline uint8_t QuantizeMxBlockE4m3(const float* x, int64_t n, uint8_t* codes) {
  float amax = 0;
  bool special = false;
  for (int64_t i = 0; i < n; ++i) {
    special = special || !std::isfinite(x[i]);
    amax = std::fmax(amax, std::fabs(x[i]));
  }
  if (special) {
    std::memset(codes, 0x7F, static_cast<size_t>(n));
    return 0xFF;
  }
  int shared_exp = -127;
  if (amax > 0) shared_exp = std::ilogb(amax) - 8 < -127 ? -127 : std::ilogb(amax) - 8;
  for (int64_t i = 0; i < n; ++i) codes[i] = EncodeE4m3(std::ldexp(x[i], -shared_exp));
  return static_cast<uint8_t>(shared_exp + 127);
}

// A row-major [rows, cols] fp32 tensor as MXFP8 e4m3 by the OCP rule: codes
// [rows, cols], scales e8m0 [rows, ceil(cols/32)] (the last block of a row
// partial).
inline void QuantizeMxRowsE4m3(const float* x, int64_t rows, int64_t cols, uint8_t* codes,
                               uint8_t* scales) {
  const int64_t blocks = (cols + 31) / 32;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t first = r * cols + 32 * b, n = cols - 32 * b < 32 ? cols - 32 * b : 32;
      scales[r * blocks + b] = QuantizeMxBlockE4m3(x + first, n, codes + first);
    }
  }
}

// Fills `info` (ABI 1.0 to current) and registers one implementation.
inline TeplugError* RegisterOne(const TeplugHostApi* host, TeplugPluginInfo* info,
                                const char* provider, const TeplugIID& iid, TeplugObject* object,
                                const void* caps, const char* implementation) {
  info->name = provider;
  info->vendor = "teplug conformance tests";
  info->version = "1.0";
  info->abi_min = TEPLUG_ABI_VERSION_MAJOR_FIRST;
  info->abi_max = TEPLUG_ABI_VERSION_CURRENT;
  return RegisterImplementation(host, iid, object, caps, implementation);
}

}  // namespace conformance_plugins

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_PLUGINS_PLUGIN_PARTS_H_
