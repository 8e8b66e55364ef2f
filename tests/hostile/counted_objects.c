#include "tests/hostile/counted_objects.h"

#include "tests/hostile/ref_counters.h"

typedef struct CountedObject {
  TeplugObject base; /* first: the host sees a TeplugObject* */
  TeplugIID iid;
  uint32_t refs;
} CountedObject;

static const TeplugIID kObjectIid = TEPLUG_IID_OBJECT_INIT;

static uint32_t counted_add_ref(TeplugObject* self) {
  teplug_hostile_count_acquire();
  return __atomic_add_fetch(&((CountedObject*)self)->refs, 1, __ATOMIC_RELAXED);
}
static uint32_t counted_release(TeplugObject* self) {
  teplug_hostile_count_release();
  return __atomic_sub_fetch(&((CountedObject*)self)->refs, 1, __ATOMIC_ACQ_REL);
}
static TeplugObject* counted_query(TeplugObject* self, const TeplugIID* iid) {
  if (teplug_iid_equal(iid, &((CountedObject*)self)->iid) || teplug_iid_equal(iid, &kObjectIid)) {
    counted_add_ref(self);
    return self;
  }
  return NULL;
}
static TeplugObject* refusing_query(TeplugObject* self, const TeplugIID* iid) {
  (void)self;
  (void)iid;
  return NULL;
}

static TeplugError* unsupported(const char* what) {
  return teplug_error_create(TEPLUG_UNSUPPORTED, what);
}
static TeplugError* gemm_workspace(TeplugGemmV1* s, const TeplugGemmArgs* a, size_t* bytes) {
  (void)s;
  (void)a;
  *bytes = 0;
  return NULL;
}
static TeplugError* gemm_run(TeplugGemmV1* s, const TeplugGemmArgs* a) {
  (void)s;
  (void)a;
  return unsupported("hostile gemm does not compute");
}
static TeplugError* quantize(TeplugQuantizerV1* s, const TeplugQuantizeArgs* a) {
  (void)s;
  (void)a;
  return unsupported("hostile quantizer does not compute");
}
static TeplugError* dequantize(TeplugQuantizerV1* s, const TeplugDequantizeArgs* a) {
  (void)s;
  (void)a;
  return unsupported("hostile quantizer does not compute");
}

static const TeplugGemmV1Vtbl kGemmVtbl = {
    {sizeof(TeplugGemmV1Vtbl), counted_query, counted_add_ref, counted_release},
    NULL,
    gemm_workspace,
    gemm_run};
static const TeplugQuantizerV1Vtbl kQuantizerVtbl = {
    {sizeof(TeplugQuantizerV1Vtbl), counted_query, counted_add_ref, counted_release},
    NULL,
    quantize,
    dequantize};
static const TeplugObjectVtbl kSmallVtbl = {sizeof(TeplugObjectVtbl), counted_query,
                                            counted_add_ref, counted_release};
static const TeplugGemmV1Vtbl kRefusingVtbl = {
    {sizeof(TeplugGemmV1Vtbl), refusing_query, counted_add_ref, counted_release},
    NULL,
    gemm_workspace,
    gemm_run};

static CountedObject g_gemm = {{(const TeplugObjectVtbl*)&kGemmVtbl}, TEPLUG_IID_GEMM_V1_INIT, 1};
static CountedObject g_quantizer = {
    {(const TeplugObjectVtbl*)&kQuantizerVtbl}, TEPLUG_IID_QUANTIZER_V1_INIT, 1};
static CountedObject g_small = {{&kSmallVtbl}, TEPLUG_IID_GEMM_V1_INIT, 1};
static CountedObject g_refusing = {
    {(const TeplugObjectVtbl*)&kRefusingVtbl}, TEPLUG_IID_GEMM_V1_INIT, 1};

static const TeplugDeviceSupport kCpu[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
static const TeplugGemmCaps kGemmCaps = {sizeof(TeplugGemmCaps),
                                         kCpu,
                                         1,
                                         TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                         TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                         TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                         0,
                                         0,
                                         0,
                                         0};
static const TeplugQuantizerCaps kQuantizerCaps = {
    sizeof(TeplugQuantizerCaps),          kCpu, 1, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3), TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR), 0};

TeplugObject* hostile_gemm(void) { return &g_gemm.base; }
const TeplugGemmCaps* hostile_gemm_caps(void) { return &kGemmCaps; }
TeplugObject* hostile_quantizer(void) { return &g_quantizer.base; }
const TeplugQuantizerCaps* hostile_quantizer_caps(void) { return &kQuantizerCaps; }
TeplugObject* hostile_gemm_with_small_vtbl(void) { return &g_small.base; }
TeplugObject* hostile_gemm_refusing_query(void) { return &g_refusing.base; }
