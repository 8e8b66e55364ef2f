// The logger plugin log lines go through, and the label they are prefixed
// with. Owned by the Provider (Provider::log_context) because a plugin may
// log from any thread for as long as it is loaded.
//
// A plugin may also keep `log` and `log_ctx` and call them after it was
// refused or unloaded (a thread it left running; its code stays mapped when
// the library cannot be unloaded, e.g. it was linked with -z nodelete or
// holds STB_GNU_UNIQUE symbols). So TeplugHostApi.log_ctx is not the
// context itself but a small handle that is never freed (about 100 bytes
// per load, kept reachable for leak checkers): it forwards to the context
// while the context lives, and once the context is destroyed it drops every
// line, saying so once on stderr, without touching freed memory.
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

  // Closes the handle: waits for a log call in progress through it.
  ~PluginLogContext();
  PluginLogContext(const PluginLogContext&) = delete;
  PluginLogContext& operator=(const PluginLogContext&) = delete;

  // What TeplugHostApi.log_ctx points at: this context's handle.
  void* c_context() const;

  // The TeplugHostApi.log function: `ctx` is a c_context(). Never throws (a
  // C caller is on the other side).
  static void LogThunk(void* ctx, int32_t level, const char* message) noexcept;

  // The block log_ctx points at (defined in the .cc file).
  struct Handle;

 private:
  Handle* const handle_;  // never freed
  std::shared_ptr<Logger> logger_;
  mutable absl::Mutex mutex_;
  std::string label_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_PLUGIN_LOG_CONTEXT_H_
