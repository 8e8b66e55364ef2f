#include "core/loader/provider_options.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/log/untrusted_text.h"

namespace teplug::core {
namespace {

TeplugError* Error(TeplugCode code, const std::string& message) { return teplug_error_create(code, message.c_str()); }

}  // namespace

OptionContext::OptionContext(std::shared_ptr<const ProviderOptions> options, const TeplugPluginInfo* info)
    : options_(options != nullptr ? std::move(options) : std::make_shared<const ProviderOptions>()), info_(info) {}

void OptionContext::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  info_ = nullptr;
}

TeplugError* OptionContext::GetOption(void* ctx, const char* key, char* buffer, size_t capacity,
                                      size_t* length) noexcept {
  if (ctx == nullptr) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "get_option: options_ctx is NULL");
  try {
    return static_cast<OptionContext*>(ctx)->Lookup(key, buffer, capacity, length);
  } catch (const std::bad_alloc&) {
    return teplug_error_create(TEPLUG_OUT_OF_MEMORY, "get_option: out of memory");
  }
}

TeplugError* OptionContext::Lookup(const char* key, char* buffer, size_t capacity, size_t* length) {
  if (key == nullptr || length == nullptr) {
    return Error(TEPLUG_INVALID_ARGUMENT, "get_option: key and length must not be NULL");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (info_ == nullptr) {
    return Error(TEPLUG_FAILED_PRECONDITION,
                 "get_option: called after the entry returned; a provider reads its options while it loads");
  }
  // At most a provider name's length and one more byte are read.
  const char* name = info_->name;
  const size_t name_length = name != nullptr ? strnlen(name, 64) : 0;
  if (name_length == 0) {
    return Error(TEPLUG_FAILED_PRECONDITION,
                 "get_option: set TeplugPluginInfo.name first (options are given to a provider by its name)");
  }
  const std::string provider(name, name_length);
  const absl::string_view wanted(key, strnlen(key, 256));
  const auto by_provider = options_->find(provider);
  if (by_provider != options_->end()) {
    const auto value = by_provider->second.find(wanted);
    if (value != by_provider->second.end()) {
      *length = value->second.size();
      if (buffer != nullptr && capacity > 0) {
        const size_t n = std::min(value->second.size(), capacity - 1);
        std::memcpy(buffer, value->second.data(), n);
        buffer[n] = '\0';
      }
      return nullptr;
    }
  }
  return Error(TEPLUG_NOT_FOUND, absl::StrCat("get_option: the config sets no option \"", EscapeUntrustedText(wanted),
                                              "\" for provider \"", EscapeUntrustedText(provider), "\""));
}

}  // namespace teplug::core
