#include "core/loader/plugin_log_context.h"

#include <atomic>
#include <cstdio>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "core/boundary/plugin_error.h"
#include "core/log/untrusted_text.h"
#include "teplug/plugin.h"

namespace teplug::core {

// The block TeplugHostApi.log_ctx points at (see the header).
struct PluginLogContext::Handle {
  std::mutex mutex;
  const PluginLogContext* context;  // guarded by mutex; null once closed
  std::string label;                // guarded by mutex; set when closed
  bool reported = false;            // guarded by mutex: the late call was reported
  Handle* next = nullptr;           // the handle opened before this one
};

namespace {

// The last handle opened; each links to the one before, so every handle
// stays reachable (none is ever freed). A lock-free push, not a mutex: the
// pre-flight probe's forked child opens one, and a mutex held by another
// thread at the fork would never be released there.
std::atomic<PluginLogContext::Handle*> g_last_handle{nullptr};

}  // namespace

PluginLogContext::PluginLogContext(std::shared_ptr<Logger> logger, std::string label)
    : handle_(new Handle{{}, this, {}}), logger_(std::move(logger)), label_(EscapeUntrustedText(label)) {
  handle_->next = g_last_handle.load(std::memory_order_relaxed);
  while (!g_last_handle.compare_exchange_weak(handle_->next, handle_, std::memory_order_release,
                                              std::memory_order_relaxed)) {
  }
}

PluginLogContext::~PluginLogContext() {
  std::string label;
  {
    absl::MutexLock lock(&mutex_);
    label = label_;
  }
  std::lock_guard<std::mutex> lock(handle_->mutex);
  handle_->context = nullptr;
  handle_->label = std::move(label);
}

void* PluginLogContext::c_context() const { return handle_; }

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
  auto* handle = static_cast<Handle*>(ctx);
  try {
    std::lock_guard<std::mutex> lock(handle->mutex);
    if (handle->context == nullptr) {
      if (!handle->reported) {
        handle->reported = true;
        std::fprintf(stderr,
                     "teplug ERROR: plugin %s called host->log after it was refused or unloaded; "
                     "this line and every later one are dropped\n",
                     handle->label.c_str());
      }
      return;
    }
    handle->context->Log(level, message);
  } catch (...) {
    // Logging has no error channel to the plugin; the line is lost, and we
    // say so where it can still be seen.
    std::fputs("teplug ERROR: a plugin log line was lost (the logger threw)\n", stderr);
  }
}

}  // namespace teplug::core
