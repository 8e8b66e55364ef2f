// Every call from the host into plugin code is a boundary: a C++ exception
// escaping the plugin (a plugin need not use the SDK, whose thunks catch)
// must not unwind through the host or end it with std::terminate. These two
// wrappers are the only way the core calls a plugin function; both are
// noexcept and cost nothing on the path that does not throw.
#ifndef TEPLUG_CORE_BOUNDARY_PLUGIN_CALL_H_
#define TEPLUG_CORE_BOUNDARY_PLUGIN_CALL_H_

#include <string>
#include <utility>

#include "absl/base/optimization.h"
#include "core/boundary/plugin_error.h"

namespace teplug::core {

// Runs `fn`, a call into plugin code returning TeplugError*. Returns NULL
// on success, else a host-made error: the plugin's own error taken over by
// TakePluginError, or, when a C++ exception escaped, TEPLUG_INTERNAL with
// DescribeCurrentException's text. `*threw` (when given) is set to whether
// an exception escaped, so callers can treat the implementation as failed.
template <class Fn>
inline TeplugError* CallPlugin(const PluginCallSite& site, Fn&& fn, bool* threw = nullptr) noexcept {
  TeplugError* raw;
  try {
    raw = std::forward<Fn>(fn)();
  } catch (...) {
    if (threw != nullptr) *threw = true;
    return ErrorFromCurrentException(site);
  }
  if (ABSL_PREDICT_TRUE(raw == nullptr)) return nullptr;
  return TakePluginError(raw, site);
}

// Runs `fn`, a call into plugin code that returns no error object
// (supports, query_interface, add_ref, release). Returns true when it
// returned; false when a C++ exception escaped, with *failure set to
// DescribeCurrentException's text.
template <class Fn>
inline bool GuardPluginCall(const PluginCallSite& site, Fn&& fn, std::string* failure) noexcept {
  try {
    std::forward<Fn>(fn)();
    return true;
  } catch (...) {
    *failure = DescribeCurrentException(site);
    return false;
  }
}

}  // namespace teplug::core

#endif  // TEPLUG_CORE_BOUNDARY_PLUGIN_CALL_H_
