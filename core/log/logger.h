// The core's logger: leveled lines to a sink (stderr by default), each
// prefixed "teplug <LEVEL>: ". Only the logger writes that prefix at column
// 0: a message is written through EscapeUntrustedLines, so every control
// byte and malformed UTF-8 byte in it becomes `\xNN`, and each line after the
// first of a multi-line message (a decision record) is indented by
// kContinuationIndent. Whatever text a plugin slipped into a message, it
// cannot start a line of its own or drive the terminal. The level is atomic so a config reload can
// change it while other threads log. LogOnce logs a line the first time a key
// is seen (e.g. "first time this op signature is served").
#ifndef TEPLUG_CORE_LOG_LOGGER_H_
#define TEPLUG_CORE_LOG_LOGGER_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace teplug::core {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3 };

// "error", "warn", "info", "debug" (case-insensitive); nullopt otherwise.
std::optional<LogLevel> ParseLogLevel(absl::string_view text);
const char* LogLevelName(LogLevel level);

class Logger {
 public:
  // What each line after the first of a multi-line message starts with.
  static constexpr char kContinuationIndent[] = "  ";
  // Receives one message: "teplug <LEVEL>: " and the escaped message, its
  // continuation lines indented; no trailing newline.
  using Sink = std::function<void(LogLevel, absl::string_view line)>;

  // Logs to stderr.
  explicit Logger(LogLevel level);
  Logger(LogLevel level, Sink sink);

  void set_level(LogLevel level) { level_.store(static_cast<int>(level), std::memory_order_relaxed); }
  LogLevel level() const { return static_cast<LogLevel>(level_.load(std::memory_order_relaxed)); }
  bool Enabled(LogLevel level) const {
    return static_cast<int>(level) <= level_.load(std::memory_order_relaxed);
  }

  // Writes `message` (see above: escaped, continuation lines indented).
  void Log(LogLevel level, absl::string_view message) const;
  // Logs `message` only the first time `key` is passed (per logger). Returns
  // whether it was the first time. Keys are remembered even when the level
  // filters the line out, so raising the level later does not replay them.
  bool LogOnce(absl::string_view key, LogLevel level, absl::string_view message)
      ABSL_LOCKS_EXCLUDED(once_mutex_);
  // The same, with the message built by `make()` only the first time, for
  // lines that are costly to build (a decision record).
  template <class MakeMessage>
  bool LogOnceWith(absl::string_view key, LogLevel level, MakeMessage&& make) ABSL_LOCKS_EXCLUDED(once_mutex_) {
    if (!FirstTime(key)) return false;
    Log(level, make());
    return true;
  }

 private:
  // Remembers `key`; true when it was new.
  bool FirstTime(absl::string_view key) ABSL_LOCKS_EXCLUDED(once_mutex_);

  std::atomic<int> level_;
  Sink sink_;
  mutable absl::Mutex once_mutex_;
  absl::flat_hash_set<std::string> seen_ ABSL_GUARDED_BY(once_mutex_);
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOG_LOGGER_H_
