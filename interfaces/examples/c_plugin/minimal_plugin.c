/* A complete teplug plugin in plain C99, written from interfaces/README.md.
 *
 * It provides IGemm v1 for fp32 host tensors: D = alpha*op(A)*op(B) + beta*C
 * (+bias), no GELU. Everything a real plugin needs is here: the object with
 * its function table and reference count, a static capability descriptor, a
 * dynamic `supports` hook that explains a refusal, errors as TeplugError*,
 * and the one exported entry point. */
#include <stdarg.h>
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
static TeplugError* fail(TeplugCode code, const char* format, ...) {
  char msg[160];
  va_list ap;
  va_start(ap, format);
  vsnprintf(msg, sizeof msg, format, ap);
  va_end(ap);
  return teplug_error_create(code, msg);
}
/* Element stride along `axis` (rank 1 or 2); all-zero strides mean row-major. */
static int64_t stride(const TeplugTensor* t, int axis) {
  if (t->strides[0] != 0) return t->strides[axis];
  return axis == t->rank - 1 ? 1 : t->shape[1];
}
static float at(const TeplugTensor* t, int trans, int64_t r, int64_t c) {
  const float* p = (const float*)t->data;
  return trans ? p[c * stride(t, 0) + r * stride(t, 1)] : p[r * stride(t, 0) + c * stride(t, 1)];
}
/* NULL when `t` is an fp32 host tensor of rank `rank`, with all strides given
 * or all zero, and extents e0, e1 on axes 0, 1 (negative: any); otherwise an
 * error naming the tensor. */
static TeplugError* check_tensor(const TeplugTensor* t, const char* name, int32_t rank,
                                 int64_t e0, int64_t e1) {
  const int64_t want[2] = {e0, e1};
  int32_t i, given = 0;
  if (t == NULL) return fail(TEPLUG_INVALID_ARGUMENT, "minimal: %s is NULL", name);
  if (t->dtype != TEPLUG_DTYPE_FP32 || (t->device != NULL && t->device->kind != TEPLUG_DEVICE_CPU)) {
    return fail(TEPLUG_UNSUPPORTED, "minimal: %s: only fp32 host tensors, not dtype %d on device kind %d",
                name, (int)t->dtype, t->device != NULL ? (int)t->device->kind : TEPLUG_DEVICE_CPU);
  }
  if (t->rank != rank) {
    return fail(TEPLUG_INVALID_ARGUMENT, "minimal: %s has rank %d, want %d", name, (int)t->rank, (int)rank);
  }
  for (i = 0; i < rank; ++i) given += t->strides[i] != 0;
  if (given != 0 && given != rank) {
    return fail(TEPLUG_INVALID_ARGUMENT, "minimal: %s mixes zero and non-zero strides", name);
  }
  for (i = 0; i < rank; ++i) {
    if (want[i] >= 0 && t->shape[i] != want[i]) {
      return fail(TEPLUG_INVALID_ARGUMENT, "minimal: shape mismatch: %s axis %d is %lld, want %lld",
                  name, (int)i, (long long)t->shape[i], (long long)want[i]);
    }
  }
  return NULL;
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
  const TeplugTensor* c;
  TeplugError* err;
  char reason[128];
  /* Check struct_size before reading fields. */
  if (args == NULL || args->struct_size < TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream)) {
    return teplug_error_create(TEPLUG_ABI_MISMATCH, "minimal: TeplugGemmArgs too small");
  }
  /* A caller may skip `supports`: refuse here what it refuses. */
  if (!minimal_supports((TeplugObject*)self, TEPLUG_OP_GEMM, args, reason, sizeof reason)) {
    return fail(TEPLUG_UNSUPPORTED, "minimal: %s", reason);
  }
  /* Check every tensor read, naming it: op(A) is [M,K], op(B) [K,N], C and D [M,N], bias [N]. */
  err = check_tensor(args->a, "a", 2, -1, -1);
  if (err != NULL) return err;
  m = args->trans_a ? args->a->shape[1] : args->a->shape[0];
  k = args->trans_a ? args->a->shape[0] : args->a->shape[1];
  err = check_tensor(args->b, "b", 2, args->trans_b ? -1 : k, args->trans_b ? k : -1);
  if (err != NULL) return err;
  n = args->trans_b ? args->b->shape[0] : args->b->shape[1];
  c = args->accumulate ? NULL : args->c; /* accumulate: C is D, `c` is ignored */
  if ((err = check_tensor(args->d, "d", 2, m, n)) != NULL ||
      (c != NULL && (err = check_tensor(c, "c", 2, m, n)) != NULL) ||
      (args->bias != NULL && (err = check_tensor(args->bias, "bias", 1, n, -1)) != NULL)) {
    return err;
  }
  for (i = 0; i < m; ++i) {
    for (j = 0; j < n; ++j) {
      double acc = 0.0;
      float* out = (float*)args->d->data + i * stride(args->d, 0) + j * stride(args->d, 1);
      for (p = 0; p < k; ++p) acc += (double)at(args->a, args->trans_a, i, p) * at(args->b, args->trans_b, p, j);
      acc *= args->alpha;
      if (args->accumulate) acc += *out;
      else if (c != NULL) acc += (double)args->beta * at(c, 0, i, j);
      if (args->bias != NULL) acc += ((const float*)args->bias->data)[j * stride(args->bias, 0)];
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
  /* Every field this plugin writes is v1.0 or gated by TEPLUG_HAS_FIELD, so
   * it runs on every 1.x host. */
  const uint32_t abi_min = TEPLUG_ABI_VERSION_MAJOR_FIRST, abi_max = TEPLUG_ABI_VERSION_CURRENT;
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
    info->abi_min = abi_min;
    info->abi_max = abi_max;
  }
  /* 2. Refuse a host whose ABI range we do not overlap, naming both. */
  if (abi_max < host->abi_min || abi_min > host->abi_max) {
    snprintf(msg, sizeof msg, "minimal_c supports ABI [%u.%u, %u.%u], host supports [%u.%u, %u.%u]",
             TEPLUG_ABI_MAJOR(abi_min), TEPLUG_ABI_MINOR(abi_min), TEPLUG_ABI_MAJOR(abi_max),
             TEPLUG_ABI_MINOR(abi_max), TEPLUG_ABI_MAJOR(host->abi_min),
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
