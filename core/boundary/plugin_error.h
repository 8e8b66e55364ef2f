// Error objects that cross the ABI from a plugin are untrusted: `destroy` or
// `message` may be NULL, the message may be unterminated, hold control bytes
// or invalid UTF-8, and the code may be one this host does not know. The
// host never hands such an object on: TakePluginError turns it into a
// host-made error (teplug_error_create) that every caller can read and
// destroy safely.
#ifndef TEPLUG_CORE_BOUNDARY_PLUGIN_ERROR_H_
#define TEPLUG_CORE_BOUNDARY_PLUGIN_ERROR_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "teplug/status.h"

namespace teplug::core {

// Where a call into plugin code went, for messages: `who` is the
// implementation ("provider/name"), empty when there is none yet (the
// entry); `method` is the ABI function ("gemm", "supports",
// "teplug_plugin_entry").
struct PluginCallSite {
  absl::string_view who;
  absl::string_view method;
};

// The most bytes of a plugin's error message (or exception text) the host
// reads; the rest is cut off and the cut marked with "...". Read with
// strnlen, so an unterminated message is never read past this bound.
inline constexpr size_t kMaxPluginMessageBytes = 4096;

// `text` (non-NULL), a string a plugin handed the host (an error message, an
// exception's what(), a log message), as one safe line: read with strnlen
// up to kMaxPluginMessageBytes, cut with "..." beyond it, and passed through
// EscapeUntrustedText.
std::string BoundedPluginText(const char* text);

// Takes ownership of `error` (non-NULL), an error a plugin returned from
// the call at `site`, and returns a host-made error in its place:
//   code     the plugin's code; an unknown code becomes TEPLUG_INTERNAL and
//            the message names the number;
//   message  "<who> returned <code> from <method>: <text>" ("<method>
//            returned <code>: <text>" when `who` is empty), where <text> is
//            the plugin's message read with the bound above and passed
//            through EscapeUntrustedText, or a placeholder saying it was
//            NULL.
// The plugin's object is then destroyed with its own `destroy`; when that
// is NULL it cannot be freed safely and is abandoned (leaked), which the
// message says.
TeplugError* TakePluginError(TeplugError* error, const PluginCallSite& site);

// "C++ exception escaped <who> <method>: <what>" for the exception being
// handled (call it only inside a catch block); <what> is bounded and
// escaped like a message.
std::string DescribeCurrentException(const PluginCallSite& site);

// A host-made TEPLUG_INTERNAL error carrying DescribeCurrentException(site).
TeplugError* ErrorFromCurrentException(const PluginCallSite& site);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_BOUNDARY_PLUGIN_ERROR_H_
