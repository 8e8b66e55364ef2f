#include "core/kernel/host_identity.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace teplug::core {

std::string LocalHostId(absl::string_view override_id) {
  if (!override_id.empty()) return std::string(override_id);
  std::string boot_id;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot_id;
  struct stat shm {};
  if (!boot_id.empty() && stat("/dev/shm", &shm) == 0) {
    return absl::StrCat(boot_id, "/shm:", shm.st_dev, ":", shm.st_ino);
  }
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') return absl::StrCat("host:", name);
  return boot_id.empty() ? "unknown-host" : boot_id;
}

std::string LocalHostIdFromEnvironment() {
  const char* id = std::getenv("TEPLUG_HOST_ID");
  return LocalHostId(id != nullptr ? id : "");
}

}  // namespace teplug::core
