/* Reference counting seen from outside a hostile plugin.
 *
 * Every add_ref (or, for SDK objects, construction) of a hostile plugin's
 * object increments teplug_hostile_acquired; every release (destruction)
 * increments teplug_hostile_released. The counters live in the TEST binary
 * (target //tests/hostile:ref_counters), so they survive the plugin being
 * unloaded; a plugin loaded by a binary without them (weak, unresolved)
 * simply does not count. After a refused load, acquired == released proves
 * the host released every reference it took. */
#ifndef TEPLUG_TESTS_HOSTILE_REF_COUNTERS_H_
#define TEPLUG_TESTS_HOSTILE_REF_COUNTERS_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern int64_t teplug_hostile_acquired __attribute__((weak));
extern int64_t teplug_hostile_released __attribute__((weak));

/* For hostile_late_log (late_log_plugin.c): the test raises requests by one
 * to make the plugin's thread call its kept host->log once; the thread
 * raises calls once the call returned. */
extern int64_t teplug_hostile_late_log_requests __attribute__((weak));
extern int64_t teplug_hostile_late_log_calls __attribute__((weak));

static inline void teplug_hostile_count_acquire(void) {
  if (&teplug_hostile_acquired != 0) __atomic_add_fetch(&teplug_hostile_acquired, 1, __ATOMIC_RELAXED);
}
static inline void teplug_hostile_count_release(void) {
  if (&teplug_hostile_released != 0) __atomic_add_fetch(&teplug_hostile_released, 1, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_TESTS_HOSTILE_REF_COUNTERS_H_ */
