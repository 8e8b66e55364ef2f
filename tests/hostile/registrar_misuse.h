/* The registrar-misuse cases of registrar_misuse_plugin.c, run from
 * hostile_entry.c's entry when it is built with -DHOSTILE_MISUSE. */
#ifndef TEPLUG_TESTS_HOSTILE_REGISTRAR_MISUSE_H_
#define TEPLUG_TESTS_HOSTILE_REGISTRAR_MISUSE_H_

#include "teplug/teplug.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers as its -DMISUSE_<CASE> says; returns the entry's answer. */
TeplugError* misuse_run_case(const TeplugHostApi* host);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_TESTS_HOSTILE_REGISTRAR_MISUSE_H_ */
