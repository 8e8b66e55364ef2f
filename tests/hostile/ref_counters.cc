// The counters hostile plugins update (see ref_counters.h), defined in the
// test binary and exported so a dlopen'ed plugin's weak references bind here.
#include "tests/hostile/ref_counters.h"

extern "C" {
__attribute__((visibility("default"))) int64_t teplug_hostile_acquired = 0;
__attribute__((visibility("default"))) int64_t teplug_hostile_released = 0;
__attribute__((visibility("default"))) int64_t teplug_hostile_late_log_requests = 0;
__attribute__((visibility("default"))) int64_t teplug_hostile_late_log_calls = 0;
}
