#include "plugins/cpu/collective/gloo_errors.h"

#include <new>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "gloo/common/error.h"
#include "gloo/common/logging.h"
#include "plugins/cpu/collective/kv_store_adapter.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cpu::collective {

bool IsGlooTimeoutMessage(const std::string& message) {
  const std::string lower = absl::AsciiStrToLower(message);
  return absl::StrContains(lower, "timed out") || absl::StrContains(lower, "timeout");
}

void RunGloo(const std::string& what, const std::function<void()>& body) {
  RunGloo([&what] { return what; }, body);
}

void RunGloo(const std::function<std::string()>& describe, const std::function<void()>& body) {
  try {
    body();
  } catch (const sdk::Exception&) {
    throw;
  } catch (const RankTimeout& e) {
    throw sdk::Exception(TEPLUG_DEADLINE_EXCEEDED, describe() + ": " + e.what());
  } catch (const KvStoreError& e) {
    throw sdk::Exception(e.code(), describe() + ": " + e.what());
  } catch (const gloo::IoException& e) {
    if (IsGlooTimeoutMessage(e.what())) {
      throw sdk::Exception(TEPLUG_DEADLINE_EXCEEDED,
                           describe() + ": timed out (Gloo: " + e.what() + ")");
    }
    throw sdk::Exception(TEPLUG_UNAVAILABLE,
                         describe() + ": transport failed (Gloo: " + e.what() + ")");
  } catch (const gloo::InvalidOperationException& e) {
    throw sdk::Exception(TEPLUG_INTERNAL, describe() + ": invalid Gloo operation: " + e.what());
  } catch (const gloo::EnforceNotMet& e) {
    throw sdk::Exception(TEPLUG_INTERNAL, describe() + ": Gloo check failed: " + e.what());
  } catch (const gloo::Exception& e) {
    throw sdk::Exception(TEPLUG_INTERNAL, describe() + ": Gloo error: " + e.what());
  } catch (const std::bad_alloc&) {
    throw sdk::Exception(TEPLUG_OUT_OF_MEMORY, describe() + ": out of host memory");
  }
}

}  // namespace teplug::cpu::collective
