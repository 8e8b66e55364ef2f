// The permission rule for plugin files: code we are
// about to dlopen must not be replaceable by anyone but root or us.
#ifndef TEPLUG_CORE_LOADER_FILE_SECURITY_H_
#define TEPLUG_CORE_LOADER_FILE_SECURITY_H_

#include <string>

#include "absl/status/status.h"

namespace teplug::core {

// Checks `resolved_path` (a realpath: no symlinks left) and the directory
// holding it: each must be owned by root or by geteuid(), and neither may be
// writable by group or others; the file must be a regular file. Only the
// immediate directory is checked (ancestors such as /tmp are commonly
// world-writable with the sticky bit). Errors (PermissionDenied, or NotFound
// when stat fails) name the path, its mode in octal and its owner uid, and
// the command that fixes a permission or owner problem, e.g.
// "plugin file /x/libteplug_a.so is writable by group or others (mode 0666,
// owner uid 1000); fix: chmod go-w /x/libteplug_a.so". The loader adds the
// opt-out (allow_insecure_plugin_permissions) when it refuses.
absl::Status CheckPluginFileSecurity(const std::string& resolved_path);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_FILE_SECURITY_H_
