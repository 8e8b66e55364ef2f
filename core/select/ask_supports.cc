#include "core/select/ask_supports.h"

#include "core/boundary/plugin_call.h"
#include "core/log/untrusted_text.h"

namespace teplug::core {

std::optional<std::string> AskSupports(const Implementation& impl, int32_t op, const void* args, bool* threw) {
  if (impl.supports == nullptr) return std::nullopt;
  char reason[256] = {0};
  TeplugBool yes = 0;
  std::string exception;
  if (!GuardPluginCall({impl.QualifiedName(), "supports"},
                       [&] { yes = impl.supports(impl.object.get(), op, args, reason, sizeof reason); }, &exception)) {
    if (threw != nullptr) *threw = true;
    return exception;
  }
  if (yes) return std::nullopt;
  reason[sizeof reason - 1] = '\0';  // a plugin may fill the whole buffer
  if (reason[0] == '\0') return std::string("declined by supports() without a reason");
  // Plugin text: it reaches decision records, callers' errors and logs.
  return EscapeUntrustedText(reason);
}

}  // namespace teplug::core
