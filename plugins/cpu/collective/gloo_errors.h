// Turning Gloo's exceptions into teplug errors. Gloo reports failures by
// throwing (gloo::IoException for socket errors and timeouts,
// gloo::EnforceNotMet for broken invariants, gloo::InvalidOperationException
// for misuse); RunGloo catches each precisely and rethrows an
// sdk::Exception, whose code the SDK's thunks return across the C ABI.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_ERRORS_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_ERRORS_H_

#include <functional>
#include <stdexcept>
#include <string>

namespace teplug::cpu::collective {

// Thrown by this package when a wait on named ranks timed out; its message
// names them. Becomes TEPLUG_DEADLINE_EXCEEDED.
class RankTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether a gloo::IoException message is one of Gloo's timeouts ("Timed out
// waiting ...", "Wait timeout for key(s) ...").
bool IsGlooTimeoutMessage(const std::string& message);

// Runs `body`; any exception but sdk::Exception becomes one whose message is
// "<what>: <cause>": DEADLINE_EXCEEDED for timeouts, UNAVAILABLE for other
// I/O errors (a peer closed its connection), the store's code for a
// KvStoreError, INTERNAL for Gloo's failed invariants, OUT_OF_MEMORY for
// std::bad_alloc.
void RunGloo(const std::string& what, const std::function<void()>& body);
// The same, with the description made only when something failed (keeps
// string formatting off the path of every successful op).
void RunGloo(const std::function<std::string()>& describe, const std::function<void()>& body);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_ERRORS_H_
