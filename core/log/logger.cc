#include "core/log/logger.h"

#include <cstdio>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/log/untrusted_text.h"

namespace teplug::core {

std::optional<LogLevel> ParseLogLevel(absl::string_view text) {
  std::string t = absl::AsciiStrToLower(text);
  if (t == "error") return LogLevel::kError;
  if (t == "warn" || t == "warning") return LogLevel::kWarn;
  if (t == "info") return LogLevel::kInfo;
  if (t == "debug") return LogLevel::kDebug;
  return std::nullopt;
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "ERROR";
    case LogLevel::kWarn: return "WARN";
    case LogLevel::kInfo: return "INFO";
    case LogLevel::kDebug: return "DEBUG";
  }
  return "?";
}

Logger::Logger(LogLevel level)
    : Logger(level, [](LogLevel, absl::string_view line) {
        std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
      }) {}

Logger::Logger(LogLevel level, Sink sink) : level_(static_cast<int>(level)), sink_(std::move(sink)) {}

void Logger::Log(LogLevel level, absl::string_view message) const {
  if (!Enabled(level)) return;
  sink_(level, absl::StrCat("teplug ", LogLevelName(level), ": ",
                            EscapeUntrustedLines(message, kContinuationIndent)));
}

bool Logger::FirstTime(absl::string_view key) {
  absl::MutexLock lock(&once_mutex_);
  return seen_.insert(std::string(key)).second;
}

bool Logger::LogOnce(absl::string_view key, LogLevel level, absl::string_view message) {
  return LogOnceWith(key, level, [message] { return message; });
}

}  // namespace teplug::core
