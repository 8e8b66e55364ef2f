#include "core/loader/plugin_log_context.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "core/boundary/plugin_error.h"
#include "core/log/untrusted_text.h"
#include "teplug/plugin.h"

namespace teplug::core {

PluginLogContext::PluginLogContext(std::shared_ptr<Logger> logger, std::string label)
    : logger_(std::move(logger)), label_(EscapeUntrustedText(label)) {}

void PluginLogContext::set_label(std::string label) {
  std::string escaped = EscapeUntrustedText(label);
  absl::MutexLock lock(&mutex_);
  label_ = std::move(escaped);
}

void PluginLogContext::Log(int32_t level, const char* message) const {
  LogLevel ours = level <= TEPLUG_LOG_ERROR  ? LogLevel::kError
                  : level == TEPLUG_LOG_WARN ? LogLevel::kWarn
                  : level == TEPLUG_LOG_INFO ? LogLevel::kInfo
                                             : LogLevel::kDebug;
  if (!logger_->Enabled(ours)) return;
  std::string label;
  {
    absl::MutexLock lock(&mutex_);
    label = label_;
  }
  logger_->Log(ours, absl::StrCat("plugin ", label, ": ",
                                  message != nullptr ? BoundedPluginText(message) : "(null)"));
}

void PluginLogContext::LogThunk(void* ctx, int32_t level, const char* message) noexcept {
  if (ctx == nullptr) return;
  try {
    static_cast<const PluginLogContext*>(ctx)->Log(level, message);
  } catch (...) {
    // Logging has no error channel to the plugin; the line is lost, and we
    // say so where it can still be seen.
    std::fputs("teplug ERROR: a plugin log line was lost (the logger threw)\n", stderr);
  }
}

}  // namespace teplug::core
