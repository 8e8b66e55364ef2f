#include "core/concurrency/process_fence.h"

#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

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

bool ProcessWideFence(std::string* error_text) {
  int error = 0;
#if defined(__linux__) && defined(__NR_membarrier)
  if (Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return true;
  error = errno;
  // The registration belongs to the address space (a forked child inherits
  // it); should it ever be missing, register again.
  if (error == EPERM && Membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 &&
      Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
    return true;
  }
  error = errno;
#endif
  if (error_text != nullptr) {
    *error_text = std::string("membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) failed: ") + std::strerror(error);
  }
  return false;
}

}  // namespace teplug::core
