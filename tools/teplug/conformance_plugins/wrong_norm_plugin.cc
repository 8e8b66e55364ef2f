// An RMSNorm plugin (plain C ABI, fp32, forward only), built once per lie:
//   LIE_NUMBERS   it divides the sum of squares by hidden - 1 (the sample
//                 variance) where INorm/1 says hidden
//   LIE_REFCOUNT  release does not decrement the reference count
// `teplug conformance` must fail each on what it lies about, on an interface
// that has only the shared contract checks.
#include <atomic>
#include <cmath>

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

TeplugError* Workspace(TeplugNormV1*, int32_t, const void*, size_t* bytes) {
  *bytes = 0;
  return nullptr;
}

TeplugError* Forward(TeplugNormV1*, const TeplugNormFwdArgs* a) {
  if (a == nullptr || a->x == nullptr || a->gamma == nullptr || a->y == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "forward: x, gamma and y are required");
  const int64_t hidden = a->x->shape[a->x->rank - 1];
  int64_t rows = 1;
  for (int i = 0; i + 1 < a->x->rank; ++i) rows *= a->x->shape[i];
#ifdef LIE_NUMBERS
  const double divisor = static_cast<double>(hidden - 1);
#else
  const double divisor = static_cast<double>(hidden);
#endif
  conformance_plugins::RmsNormRows(
      static_cast<const float*>(a->x->data), static_cast<const float*>(a->gamma->data),
      static_cast<float*>(a->y->data),
      a->rsigma == nullptr ? nullptr : static_cast<float*>(a->rsigma->data), rows, hidden, divisor,
      a->epsilon, a->zero_centered_gamma != 0);
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
const TeplugNormCaps kCaps = {sizeof(TeplugNormCaps),
                              kCpu,
                              1,
                              TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                              TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                              TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                              TEPLUG_NORM_TYPE_BIT(TEPLUG_NORM_RMSNORM),
                              0,
                              0,
                              0,
                              0,
                              0,
                              0};

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return conformance_plugins::RegisterOne(host, info, PLUGIN_PROVIDER_NAME, kNormIid,
                                          reinterpret_cast<TeplugObject*>(&g_norm), &kCaps,
                                          "rmsnorm");
}
