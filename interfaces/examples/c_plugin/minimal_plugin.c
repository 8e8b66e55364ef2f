/* A complete teplug plugin in plain C99, written from interfaces/README.md.
 *
 * It provides IGemm v1 for fp32 host tensors: D = alpha*op(A)*op(B) + beta*C
 * (+bias), no GELU. Everything a real plugin needs is here: the object with
 * its function table and reference count, a static capability descriptor, a
 * dynamic `supports` hook that explains a refusal, errors as TeplugError*,
 * and the one exported entry point. */
#include <stdio.h>

#include "teplug/teplug.h"

/* ---- the object ------------------------------------------------------- */
typedef struct MinimalGemm {
  TeplugGemmV1 iface; /* must be first: the host sees a TeplugGemmV1* */
  uint32_t refs;      /* one object, used from many threads: atomics below */
} MinimalGemm;

static const TeplugIID kGemmIid = TEPLUG_IID_GEMM_V1_INIT;
static const TeplugIID kObjectIid = TEPLUG_IID_OBJECT_INIT;

static uint32_t minimal_add_ref(TeplugObject* self) {
  return __atomic_add_fetch(&((MinimalGemm*)self)->refs, 1, __ATOMIC_RELAXED);
}
static uint32_t minimal_release(TeplugObject* self) {
  /* The object is static: the count is kept for correctness checks only. */
  return __atomic_sub_fetch(&((MinimalGemm*)self)->refs, 1, __ATOMIC_ACQ_REL);
}
static TeplugObject* minimal_query(TeplugObject* self, const TeplugIID* iid) {
  if (iid == NULL) return NULL;
  if (teplug_iid_equal(iid, &kGemmIid) || teplug_iid_equal(iid, &kObjectIid)) {
    minimal_add_ref(self);
    return self;
  }
  return NULL;
}

/* ---- helpers ------------------------------------------------------------ */
static int64_t row_stride(const TeplugTensor* t) {
  return t->strides[0] != 0 ? t->strides[0] : t->shape[1];
}
static int64_t col_stride(const TeplugTensor* t) {
  return t->strides[1] != 0 ? t->strides[1] : 1;
}
static float at(const TeplugTensor* t, int trans, int64_t r, int64_t c) {
  const float* p = (const float*)t->data;
  return trans ? p[c * row_stride(t) + r * col_stride(t)] : p[r * row_stride(t) + c * col_stride(t)];
}
static int is_host_fp32_matrix(const TeplugTensor* t) {
  return t != NULL && t->dtype == TEPLUG_DTYPE_FP32 && t->rank == 2 &&
         (t->device == NULL || t->device->kind == TEPLUG_DEVICE_CPU);
}

/* ---- IGemm v1 ----------------------------------------------------------- */
static TeplugBool minimal_supports(TeplugObject* self, int32_t op, const void* args, char* reason,
                                   size_t reason_size) {
  const TeplugGemmArgs* a = (const TeplugGemmArgs*)args;
  (void)self;
  if (op != TEPLUG_OP_GEMM || a == NULL || a->struct_size < TEPLUG_STRUCT_SIZE(TeplugGemmArgs, epilogue)) {
    snprintf(reason, reason_size, "op %d is not gemm, or its args are NULL or too small", (int)op);
    return 0;
  }
  if (a->epilogue != TEPLUG_EPILOGUE_NONE) {
    snprintf(reason, reason_size, "epilogue %d not supported (only none)", (int)a->epilogue);
    return 0;
  }
  return 1;
}

static TeplugError* minimal_workspace(TeplugGemmV1* self, const TeplugGemmArgs* args,
                                      size_t* bytes) {
  (void)self;
  if (args == NULL || bytes == NULL) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "minimal: workspace_size needs args and bytes");
  }
  *bytes = 0;
  return NULL;
}

static TeplugError* minimal_gemm(TeplugGemmV1* self, const TeplugGemmArgs* args) {
  int64_t m, n, k, i, j, p;
  char msg[160];
  (void)self;
  /* Check struct_size before reading fields. */
  if (args == NULL || args->struct_size < TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream)) {
    return teplug_error_create(TEPLUG_ABI_MISMATCH, "minimal: TeplugGemmArgs too small");
  }
  if (!is_host_fp32_matrix(args->a) || !is_host_fp32_matrix(args->b) ||
      !is_host_fp32_matrix(args->d) || (args->c != NULL && !is_host_fp32_matrix(args->c))) {
    return teplug_error_create(TEPLUG_UNSUPPORTED, "minimal: only fp32 host matrices");
  }
  m = args->trans_a ? args->a->shape[1] : args->a->shape[0];
  k = args->trans_a ? args->a->shape[0] : args->a->shape[1];
  n = args->trans_b ? args->b->shape[0] : args->b->shape[1];
  if ((args->trans_b ? args->b->shape[1] : args->b->shape[0]) != k || args->d->shape[0] != m ||
      args->d->shape[1] != n) {
    snprintf(msg, sizeof msg, "minimal: shape mismatch (M=%lld K=%lld N=%lld, D is %lldx%lld)",
             (long long)m, (long long)k, (long long)n, (long long)args->d->shape[0],
             (long long)args->d->shape[1]);
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, msg);
  }
  for (i = 0; i < m; ++i) {
    for (j = 0; j < n; ++j) {
      double acc = 0.0;
      float* out = (float*)args->d->data + i * row_stride(args->d) + j * col_stride(args->d);
      for (p = 0; p < k; ++p) acc += (double)at(args->a, args->trans_a, i, p) * at(args->b, args->trans_b, p, j);
      acc *= args->alpha;
      if (args->accumulate) acc += *out;
      else if (args->c != NULL) acc += (double)args->beta * at(args->c, 0, i, j);
      if (args->bias != NULL) acc += ((const float*)args->bias->data)[j];
      *out = (float)acc;
    }
  }
  return NULL;
}

static const TeplugGemmV1Vtbl kMinimalVtbl = {
    {sizeof(TeplugGemmV1Vtbl), minimal_query, minimal_add_ref, minimal_release},
    minimal_supports,
    minimal_workspace,
    minimal_gemm};

static MinimalGemm g_gemm = {{&kMinimalVtbl}, 1};

/* ---- capability descriptor (static, declarative) ------------------------ */
static const TeplugDeviceSupport kDevices[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
static const TeplugGemmCaps kCaps = {sizeof(TeplugGemmCaps),
                                     kDevices,
                                     1,
                                     TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                     TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                     TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                     TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_ACCUMULATE,
                                     0,
                                     4,
                                     0};

/* ---- the entry point ---------------------------------------------------- */
TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                      TeplugPluginInfo* info) {
  const uint32_t abi = TEPLUG_ABI_VERSION_CURRENT;
  TeplugImplementationDesc desc;
  char msg[128];
  if (host == NULL || info == NULL ||
      host->struct_size < TEPLUG_STRUCT_SIZE(TeplugHostApi, registrar)) {
    return teplug_error_create(TEPLUG_ABI_MISMATCH, "minimal: host API too small");
  }
  /* 1. Describe ourselves (only fields the host's struct has). */
  if (TEPLUG_HAS_FIELD(info, TeplugPluginInfo, abi_max)) {
    info->name = "minimal_c";
    info->vendor = "teplug examples";
    info->version = "1.0.0";
    info->abi_min = abi;
    info->abi_max = abi;
  }
  /* 2. Refuse a host whose ABI range we do not overlap, naming both. */
  if (abi < host->abi_min || abi > host->abi_max) {
    snprintf(msg, sizeof msg, "minimal_c supports ABI [%u.%u, %u.%u], host supports [%u.%u, %u.%u]",
             TEPLUG_ABI_MAJOR(abi), TEPLUG_ABI_MINOR(abi), TEPLUG_ABI_MAJOR(abi),
             TEPLUG_ABI_MINOR(abi), TEPLUG_ABI_MAJOR(host->abi_min),
             TEPLUG_ABI_MINOR(host->abi_min), TEPLUG_ABI_MAJOR(host->abi_max),
             TEPLUG_ABI_MINOR(host->abi_max));
    return teplug_error_create(TEPLUG_ABI_MISMATCH, msg);
  }
  /* 3. Register. The host adds its own reference to the object. */
  desc.struct_size = sizeof desc;
  desc.iid = kGemmIid;
  desc.object = (TeplugObject*)&g_gemm;
  desc.capability = &kCaps;
  desc.name = "naive-fp32";
  desc.priority = 10;
  desc.reserved0 = 0;
  if (host->log != NULL) host->log(host->log_ctx, TEPLUG_LOG_DEBUG, "minimal_c: registering IGemm/1");
  return host->registrar->register_implementation(host->registrar, &desc);
}
