/* Registrar misuse, one case per -DMISUSE_<CASE> (see BUILD), run by
 * hostile_entry.c's entry (built with -DHOSTILE_MISUSE) after it filled
 * `info`:
 *
 *   MISUSE_LATE        keeps host->registrar (of every entry call, when
 *                      several kernels load it) and calls them after the
 *                      entry returned, at op time: its gemm with alpha 1
 *                      calls them from the calling thread, with alpha 2 from
 *                      a thread the entry started (which outlives the entry
 *                      and stops when the library is unloaded). The gemm returns the
 *                      registrar's answer as its own error, so the caller
 *                      sees it (INTERNAL when the late call was accepted).
 *   MISUSE_THREADED    registers MISUSE_THREADS x MISUSE_PER_THREAD
 *                      implementations ("t<thread>-<i>") from threads it
 *                      starts and joins inside the entry; returns the first
 *                      registrar error any thread got.
 *   MISUSE_REENTRANT   its object's query_interface, asked by the host while
 *                      staging "outer", registers "inner" through the kept
 *                      registrar; the entry ignores that call's answer and
 *                      returns NULL.
 *
 * Objects are static with counted references (ref_counters.h); the helpers
 * below serve the cases that need an object of their own. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "teplug/teplug.h"
#include "tests/hostile/counted_objects.h"
#include "tests/hostile/ref_counters.h"
#include "tests/hostile/registrar_misuse.h"

static const TeplugIID kGemmIid = TEPLUG_IID_GEMM_V1_INIT;
__attribute__((unused)) static const TeplugIID kObjectIid = TEPLUG_IID_OBJECT_INIT;

static TeplugImplementationDesc gemm_desc(TeplugObject* object, const char* name) {
  TeplugImplementationDesc d;
  memset(&d, 0, sizeof d);
  d.struct_size = sizeof d;
  d.iid = kGemmIid;
  d.object = object;
  d.capability = hostile_gemm_caps();
  d.name = name;
  d.priority = 7;
  return d;
}

/* A static IGemm object of this file (its methods differ per case). */
typedef struct MisuseGemm {
  TeplugGemmV1 base;
  uint32_t refs;
} MisuseGemm;

__attribute__((unused)) static uint32_t misuse_add_ref(TeplugObject* self) {
  teplug_hostile_count_acquire();
  return __atomic_add_fetch(&((MisuseGemm*)self)->refs, 1, __ATOMIC_RELAXED);
}
__attribute__((unused)) static uint32_t misuse_release(TeplugObject* self) {
  teplug_hostile_count_release();
  return __atomic_sub_fetch(&((MisuseGemm*)self)->refs, 1, __ATOMIC_ACQ_REL);
}
__attribute__((unused)) static TeplugError* misuse_workspace(TeplugGemmV1* s,
                                                             const TeplugGemmArgs* a,
                                                             size_t* bytes) {
  (void)s;
  (void)a;
  *bytes = 0;
  return NULL;
}

#if defined(MISUSE_LATE)

/* Every registrar this library instance was given (kernels in one process
 * share the loaded library, and each runs the entry again), oldest first. */
#define MISUSE_KEPT_MAX 16
static TeplugRegistrar* g_all_kept[MISUSE_KEPT_MAX];
static int g_kept_count;

/* The late call, as the plugin makes it: a valid registration of a new name
 * on every registrar it kept. Returns the first answer that is not
 * FAILED_PRECONDITION, else the last one. */
static TeplugError* register_late(const char* name) {
  TeplugImplementationDesc d = gemm_desc(hostile_gemm(), name);
  TeplugError* last = NULL;
  for (int i = 0; i < g_kept_count; ++i) {
    TeplugError* e = g_all_kept[i]->register_implementation(g_all_kept[i], &d);
    if (e == NULL) {
      if (last != NULL) last->destroy(last);
      return teplug_error_create(TEPLUG_INTERNAL, "a late registration was accepted");
    }
    if (last != NULL) last->destroy(last);
    last = e;
    if (e->code != TEPLUG_FAILED_PRECONDITION) return e;
  }
  return last != NULL ? last : teplug_error_create(TEPLUG_INTERNAL, "no registrar was kept");
}

/* The thread the entry starts: makes one late call per request until the
 * library is unloaded. */
static pthread_t g_thread;
static int g_thread_started;
static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_requested, g_stop;
static TeplugError* g_answer;

static void* late_thread(void* unused) {
  (void)unused;
  pthread_mutex_lock(&g_mutex);
  for (;;) {
    while (!g_requested && !g_stop) pthread_cond_wait(&g_cond, &g_mutex);
    if (g_stop) break;
    pthread_mutex_unlock(&g_mutex);
    TeplugError* answer = register_late("late-from-thread");
    pthread_mutex_lock(&g_mutex);
    g_answer = answer;
    g_requested = 0;
    pthread_cond_broadcast(&g_cond);
  }
  pthread_mutex_unlock(&g_mutex);
  return NULL;
}

static TeplugError* register_late_from_thread(void) {
  pthread_mutex_lock(&g_mutex);
  g_requested = 1;
  pthread_cond_broadcast(&g_cond);
  while (g_requested) pthread_cond_wait(&g_cond, &g_mutex);
  TeplugError* answer = g_answer;
  g_answer = NULL;
  pthread_mutex_unlock(&g_mutex);
  return answer;
}

/* Stops the thread before the library's code goes away. */
__attribute__((destructor)) static void stop_late_thread(void) {
  if (!g_thread_started) return;
  pthread_mutex_lock(&g_mutex);
  g_stop = 1;
  pthread_cond_broadcast(&g_cond);
  pthread_mutex_unlock(&g_mutex);
  pthread_join(g_thread, NULL);
}

static TeplugError* late_gemm(TeplugGemmV1* s, const TeplugGemmArgs* a) {
  (void)s;
  if (a->alpha == 1.f) return register_late("late-from-op");
  if (a->alpha == 2.f) return register_late_from_thread();
  return teplug_error_create(TEPLUG_INVALID_ARGUMENT,
                             "alpha 1: call from this thread; 2: from the plugin's thread");
}

static TeplugObject* misuse_query(TeplugObject* self, const TeplugIID* iid) {
  if (teplug_iid_equal(iid, &kGemmIid) || teplug_iid_equal(iid, &kObjectIid)) {
    misuse_add_ref(self);
    return self;
  }
  return NULL;
}
static const TeplugGemmV1Vtbl kVtbl = {
    {sizeof(TeplugGemmV1Vtbl), misuse_query, misuse_add_ref, misuse_release},
    NULL,
    misuse_workspace,
    late_gemm};
static MisuseGemm g_object = {{&kVtbl}, 1};

TeplugError* misuse_run_case(const TeplugHostApi* host) {
  if (g_kept_count == MISUSE_KEPT_MAX) {
    return teplug_error_create(TEPLUG_INTERNAL, "misuse_late: loaded too often");
  }
  g_all_kept[g_kept_count++] = host->registrar;
  /* One thread per library instance: kernels in one process share the
   * loaded library, and each runs the entry again. */
  if (!g_thread_started) {
    if (pthread_create(&g_thread, NULL, late_thread, NULL) != 0) {
      return teplug_error_create(TEPLUG_INTERNAL, "misuse_late: pthread_create failed");
    }
    g_thread_started = 1;
  }
  TeplugImplementationDesc d = gemm_desc((TeplugObject*)&g_object.base, "keeps-registrar");
  return host->registrar->register_implementation(host->registrar, &d);
}

#elif defined(MISUSE_THREADED)

static TeplugRegistrar* g_kept; /* the registrar the entry was given */

#define MISUSE_THREADS 8
#define MISUSE_PER_THREAD 32

static TeplugError* g_first_error; /* the first error any thread got */

static void* register_some(void* arg) {
  const int thread = (int)(intptr_t)arg;
  for (int i = 0; i < MISUSE_PER_THREAD; ++i) {
    char name[32];
    snprintf(name, sizeof name, "t%d-%d", thread, i);
    TeplugImplementationDesc d = gemm_desc(hostile_gemm(), name);
    TeplugError* e = g_kept->register_implementation(g_kept, &d);
    if (e == NULL) continue;
    TeplugError* none = NULL;
    if (!__atomic_compare_exchange_n(&g_first_error, &none, e, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
      e->destroy(e);
    }
  }
  return NULL;
}

TeplugError* misuse_run_case(const TeplugHostApi* host) {
  g_kept = host->registrar;
  pthread_t threads[MISUSE_THREADS];
  int started = 0;
  for (; started < MISUSE_THREADS; ++started) {
    if (pthread_create(&threads[started], NULL, register_some, (void*)(intptr_t)started) != 0)
      break;
  }
  for (int i = 0; i < started; ++i) pthread_join(threads[i], NULL);
  if (started < MISUSE_THREADS) {
    if (g_first_error != NULL) g_first_error->destroy(g_first_error);
    return teplug_error_create(TEPLUG_INTERNAL, "misuse_threaded: pthread_create failed");
  }
  return g_first_error;
}

#elif defined(MISUSE_REENTRANT)

static TeplugRegistrar* g_kept; /* the registrar the entry was given */

static TeplugError* reentrant_gemm(TeplugGemmV1* s, const TeplugGemmArgs* a) {
  (void)s;
  (void)a;
  return teplug_error_create(TEPLUG_UNSUPPORTED, "misuse_reentrant does not compute");
}

static TeplugObject* reentrant_query(TeplugObject* self, const TeplugIID* iid);
static const TeplugGemmV1Vtbl kVtbl = {
    {sizeof(TeplugGemmV1Vtbl), reentrant_query, misuse_add_ref, misuse_release},
    NULL,
    misuse_workspace,
    reentrant_gemm};
static MisuseGemm g_object = {{&kVtbl}, 1};
static int g_reentered;

/* Registers "inner" the first time the host asks, while it stages "outer". */
static TeplugObject* reentrant_query(TeplugObject* self, const TeplugIID* iid) {
  if (!g_reentered) {
    g_reentered = 1;
    TeplugImplementationDesc d = gemm_desc((TeplugObject*)&g_object.base, "inner");
    TeplugError* e = g_kept->register_implementation(g_kept, &d);
    if (e != NULL) e->destroy(e); /* ignored: the host must remember it */
  }
  if (teplug_iid_equal(iid, &kGemmIid) || teplug_iid_equal(iid, &kObjectIid)) {
    misuse_add_ref(self);
    return self;
  }
  return NULL;
}

TeplugError* misuse_run_case(const TeplugHostApi* host) {
  g_kept = host->registrar;
  TeplugImplementationDesc d = gemm_desc((TeplugObject*)&g_object.base, "outer");
  return host->registrar->register_implementation(host->registrar, &d);
}

#else
#error "define one MISUSE_<CASE>"
#endif
