// An RMSNorm plugin (plain C ABI, fp32, forward only), built once per lie:
//   LIE_NUMBERS   it divides the sum of squares by hidden - 1 (the sample
//                 variance) where INorm/1 says hidden
//   LIE_REFCOUNT  release does not decrement the reference count
//   LIE_ANY_DTYPE it answers success to an x, gamma or y in a dtype it does
//                 not declare (writing nothing), where it should refuse them
//   LIE_MX_RULE   it also writes an fp8_e4m3 y in mxfp8_1d32 and declares
//                 TransformerEngine's MX scale rule, but always quantizes by
//                 the OCP rule (it never reads mx_scale_rule)
// Built with HIDDEN_MULTIPLE_48 instead it tells no lie: it declares
// hidden_multiple 48 and refuses (unsupported) every other hidden size, so
// conformance must keep its cases to multiples of 48 and pass it.
// `teplug conformance` must fail each on what it lies about, on an interface
// that has only the shared contract checks.
#include <atomic>
#include <cmath>
#include <vector>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kNormIid = TEPLUG_IID_NORM_V1_INIT;
const TeplugIID kObjectIid = TEPLUG_IID_OBJECT_INIT;

TeplugObject* Query(TeplugObject* self, const TeplugIID* iid) {
  if (iid == nullptr || !(teplug_iid_equal(iid, &kNormIid) || teplug_iid_equal(iid, &kObjectIid)))
    return nullptr;
  AddRef(self);
  return self;
}

#ifdef HIDDEN_MULTIPLE_48
constexpr int64_t kHiddenMultiple = 48;
#else
constexpr int64_t kHiddenMultiple = 0;
#endif

// The refusal of a hidden size that is not a multiple of the declared one.
TeplugError* OutsideLimits(const TeplugTensor* x) {
  if (kHiddenMultiple > 1 && x->shape[x->rank - 1] % kHiddenMultiple != 0)
    return Error(TEPLUG_UNSUPPORTED, "hidden is not a multiple of 48");
  return nullptr;
}

TeplugError* Workspace(TeplugNormV1*, int32_t op, const void* args, size_t* bytes) {
  if (op == TEPLUG_NORM_OP_FORWARD && args != nullptr) {
    const auto* a = static_cast<const TeplugNormFwdArgs*>(args);
    if (a->x != nullptr) {
      if (TeplugError* e = OutsideLimits(a->x)) return e;
    }
  }
  *bytes = 0;
  return nullptr;
}

TeplugError* Forward(TeplugNormV1*, const TeplugNormFwdArgs* a) {
  if (a == nullptr || a->x == nullptr || a->gamma == nullptr || a->y == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "forward: x, gamma and y are required");
  if (TeplugError* e = OutsideLimits(a->x)) return e;
#ifdef LIE_MX_RULE
  const bool mx = a->y->dtype == TEPLUG_DTYPE_FP8_E4M3 && a->y->quant != nullptr &&
                  a->y->quant->mode == TEPLUG_SCALING_MXFP8_1D32 &&
                  a->y->quant->scale_inv != nullptr;
#else
  const bool mx = false;
#endif
  if (a->x->dtype != TEPLUG_DTYPE_FP32 || a->gamma->dtype != TEPLUG_DTYPE_FP32 ||
      (a->y->dtype != TEPLUG_DTYPE_FP32 && !mx)) {
#ifdef LIE_ANY_DTYPE
    return nullptr;  // the lie: success, and nothing read or written
#else
    return Error(TEPLUG_UNSUPPORTED, "forward: only fp32 x, gamma and y");
#endif
  }
  const int64_t hidden = a->x->shape[a->x->rank - 1];
  int64_t rows = 1;
  for (int i = 0; i + 1 < a->x->rank; ++i) rows *= a->x->shape[i];
#ifdef LIE_NUMBERS
  const double divisor = static_cast<double>(hidden - 1);
#else
  const double divisor = static_cast<double>(hidden);
#endif
  std::vector<float> y32(mx ? static_cast<size_t>(rows * hidden) : 0);
  conformance_plugins::RmsNormRows(
      static_cast<const float*>(a->x->data), static_cast<const float*>(a->gamma->data),
      mx ? y32.data() : static_cast<float*>(a->y->data),
      a->rsigma == nullptr ? nullptr : static_cast<float*>(a->rsigma->data), rows, hidden, divisor,
      a->epsilon, a->zero_centered_gamma != 0);
  if (mx) {  // the lie: the OCP rule whatever mx_scale_rule asks for
    conformance_plugins::QuantizeMxRowsE4m3(y32.data(), rows, hidden,
                                            static_cast<uint8_t*>(a->y->data),
                                            static_cast<uint8_t*>(a->y->quant->scale_inv->data));
  }
  return nullptr;
}
TeplugError* Backward(TeplugNormV1*, const TeplugNormBwdArgs*) {
  return Error(TEPLUG_UNSUPPORTED, "backward: not served");
}

const TeplugNormV1Vtbl kVtbl = {{sizeof(TeplugNormV1Vtbl), &Query, &AddRef, &Release},
                                nullptr,
                                &Workspace,
                                &Forward,
                                &Backward};
TeplugNormV1 g_norm = {&kVtbl};

const TeplugDeviceSupport kCpu[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
const TeplugNormCaps kCaps = {
    sizeof(TeplugNormCaps),
    kCpu,
    1,
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
#ifdef LIE_MX_RULE
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3),
    TEPLUG_NORM_TYPE_BIT(TEPLUG_NORM_RMSNORM),
    TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32),
    TEPLUG_NORM_CAP_MX_TE_SCALE,
#else
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
    TEPLUG_NORM_TYPE_BIT(TEPLUG_NORM_RMSNORM),
    0,
    0,
#endif
    0,
    0,
    0,
    kHiddenMultiple};

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return conformance_plugins::RegisterOne(host, info, PLUGIN_PROVIDER_NAME, kNormIid,
                                          reinterpret_cast<TeplugObject*>(&g_norm), &kCaps,
                                          "rmsnorm");
}
