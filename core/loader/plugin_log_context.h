// What TeplugHostApi.log_ctx points at: the logger plugin log lines go
// through, and the label they are prefixed with. Owned by the Provider
// (Provider::log_context) because a plugin may log from any thread for as
// long as it is loaded.
#ifndef TEPLUG_CORE_LOADER_PLUGIN_LOG_CONTEXT_H_
#define TEPLUG_CORE_LOADER_PLUGIN_LOG_CONTEXT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/log/logger.h"

namespace teplug::core {

class PluginLogContext {
 public:
  // `label` names the plugin until it has a validated provider name (e.g.
  // the library's file name, which may hold any byte: it is kept escaped).
  PluginLogContext(std::shared_ptr<Logger> logger, std::string label);

  // Switches the prefix to the provider name once the load is committed.
  void set_label(std::string label) ABSL_LOCKS_EXCLUDED(mutex_);

  // Logs "plugin <label>: <message>" at the plugin's level (unknown levels
  // are clamped to error/debug). The message is the plugin's: it is read up
  // to kMaxPluginMessageBytes (an unterminated or huge message is cut there
  // and marked "...") and logged through EscapeUntrustedText, one line
  // whatever it holds (BoundedPluginText).
  void Log(int32_t level, const char* message) const ABSL_LOCKS_EXCLUDED(mutex_);

  // The TeplugHostApi.log function: `ctx` is a PluginLogContext*. Never
  // throws (a C caller is on the other side).
  static void LogThunk(void* ctx, int32_t level, const char* message) noexcept;

 private:
  std::shared_ptr<Logger> logger_;
  mutable absl::Mutex mutex_;
  std::string label_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_PLUGIN_LOG_CONTEXT_H_
