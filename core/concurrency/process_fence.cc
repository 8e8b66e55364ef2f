#include "core/concurrency/process_fence.h"

#include <cstdio>
#include <cstdlib>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace teplug::core {
namespace {

#if defined(__linux__) && defined(__NR_membarrier)
long Membarrier(int cmd) { return syscall(__NR_membarrier, cmd, 0); }

bool Register() {
  const long commands = Membarrier(MEMBARRIER_CMD_QUERY);
  if (commands < 0 || (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
  return Membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}
#else
bool Register() { return false; }
#endif

}  // namespace

bool ProcessFenceAvailable() {
  static const bool available = Register();
  return available;
}

void ProcessWideFence() {
#if defined(__linux__) && defined(__NR_membarrier)
  if (Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return;
#endif
  // Registered at start, so this cannot fail; if it ever did, readers would
  // not be fenced and a value could be freed under them. Stop instead.
  std::fprintf(stderr, "teplug: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed after registration\n");
  std::abort();
}

}  // namespace teplug::core
