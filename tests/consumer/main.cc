// Prints what a consumer sees of teplug, for tests/consumer/run.sh to check:
// the version through both the C++ and the C entry points, and whether this
// workspace's own GoogleTest definition survived teplug_dependencies().
#include <cstdio>
#include <string>

#include "core/version.h"

int main() {
  const std::string cpp(teplug::VersionString());
  std::printf("cpp: %s\n", cpp.c_str());
  std::printf("c: %s\n", teplug_version());
#ifdef TEPLUG_CONSUMER_OWN_GOOGLETEST
  std::printf("googletest: consumer's own\n");
#else
  std::printf("googletest: replaced by teplug\n");
#endif
  return 0;
}
