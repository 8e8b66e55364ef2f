#include "core/loader/file_security.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"

namespace teplug::core {
namespace {

// Checks one filesystem object; `what` is "plugin file" or "plugin directory".
absl::Status CheckOne(const char* what, const std::string& path, bool want_regular_file) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(
        absl::StrFormat("cannot stat %s %s: %s", what, path, std::strerror(errno)));
  }
  const unsigned mode = st.st_mode & 07777;
  const uid_t me = ::geteuid();
  if (want_regular_file && !S_ISREG(st.st_mode)) {
    return absl::PermissionDeniedError(
        absl::StrFormat("%s %s is not a regular file (mode 0%o)", what, path, st.st_mode));
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "%s %s is writable by group or others (mode 0%03o, owner uid %d); fix: chmod go-w %s", what,
        path, mode, st.st_uid, path));
  }
  if (st.st_uid != 0 && st.st_uid != me) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "%s %s is owned by uid %d, neither root nor the current user (uid %d) (mode 0%03o); "
        "fix: chown root %s, or install it as uid %d",
        what, path, st.st_uid, me, mode, path, me));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckPluginFileSecurity(const std::string& resolved_path) {
  absl::Status file = CheckOne("plugin file", resolved_path, /*want_regular_file=*/true);
  if (!file.ok()) return file;
  const size_t slash = resolved_path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : resolved_path.substr(0, slash);
  return CheckOne("plugin directory", dir, /*want_regular_file=*/false);
}

}  // namespace teplug::core
