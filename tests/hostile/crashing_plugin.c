/* Plugins that take down the process that loads them, one way each,
 * selected by a -DCRASHING_<CASE> define (see BUILD). Loaded in-process they
 * would kill the test, so they are never in //tests/hostile:plugins; only the
 * pre-flight probe loads them (in a child it can lose). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "teplug/teplug.h"

#if defined(CRASHING_EXIT_IN_CONSTRUCTOR)
/* exit() while dlopen runs the library's constructors. */
__attribute__((constructor)) static void exit_while_loading(void) { exit(7); }
#endif

static TeplugError* misbehave(void) {
#if defined(CRASHING_SEGFAULT_IN_ENTRY)
  /* A store to a page mapped without access: a real SIGSEGV, and not a NULL
   * store that an undefined-behaviour checker would report first. */
  volatile char* guarded = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *guarded = 1;
#elif defined(CRASHING_ABORT_IN_ENTRY)
  abort();
#elif defined(CRASHING_SPIN_IN_ENTRY)
  volatile unsigned long spins = 0;
  for (;;) ++spins;
#elif defined(CRASHING_HEAP_CORRUPTION_IN_ENTRY)
  /* A double free: glibc's allocator detects it and aborts the process. */
  char* volatile block = malloc(48);
  memset(block, 0x5a, 48);
  free(block);
  free(block);
#endif
  return NULL;
}

TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host, TeplugPluginInfo* info) {
  (void)host;
  info->name = "crashing";
  info->vendor = "teplug hostile tests";
  info->version = "0.0.1";
  info->abi_min = TEPLUG_ABI_VERSION_CURRENT;
  info->abi_max = TEPLUG_ABI_VERSION_CURRENT;
  return misbehave();
}
