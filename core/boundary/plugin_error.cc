#include "core/boundary/plugin_error.h"

#include <cstring>
#include <exception>

#include "absl/strings/str_cat.h"
#include "core/log/untrusted_text.h"

namespace teplug::core {
namespace {

bool KnownCode(int32_t code) { return code > TEPLUG_OK && code <= TEPLUG_FAILED_PRECONDITION; }

}  // namespace

std::string BoundedPluginText(const char* text) {
  const size_t length = strnlen(text, kMaxPluginMessageBytes + 1);
  if (length > kMaxPluginMessageBytes) {
    return absl::StrCat(EscapeUntrustedText(absl::string_view(text, kMaxPluginMessageBytes)), "...");
  }
  return EscapeUntrustedText(absl::string_view(text, length));
}

TeplugError* TakePluginError(TeplugError* error, const PluginCallSite& site) {
  const int32_t code = error->code;
  const TeplugCode host_code = KnownCode(code) ? static_cast<TeplugCode>(code) : TEPLUG_INTERNAL;
  std::string head = site.who.empty() ? absl::StrCat(site.method, " returned ")
                                      : absl::StrCat(site.who, " returned ");
  if (KnownCode(code)) {
    absl::StrAppend(&head, teplug_code_name(code));
  } else {
    absl::StrAppend(&head, "unknown code ", code, " (treated as internal)");
  }
  if (!site.who.empty()) absl::StrAppend(&head, " from ", site.method);
  std::string text = error->message != nullptr ? BoundedPluginText(error->message)
                                               : std::string("(no message: the error's message was NULL)");
  if (error->destroy != nullptr) {
    error->destroy(error);
  } else {
    // Not ours to free (another runtime's allocator) and no way to free it:
    // abandoned, and said so.
    absl::StrAppend(&text, " [the plugin's error object had no destroy function and was abandoned]");
  }
  return teplug_error_create(host_code, absl::StrCat(head, ": ", text).c_str());
}

std::string DescribeCurrentException(const PluginCallSite& site) {
  std::string what;
  try {
    throw;
  } catch (const std::exception& e) {
    const char* text = e.what();
    what = text != nullptr ? BoundedPluginText(text) : std::string("(what() returned NULL)");
  } catch (...) {
    what = "(not a std::exception)";
  }
  return site.who.empty() ? absl::StrCat("C++ exception escaped ", site.method, ": ", what)
                          : absl::StrCat("C++ exception escaped ", site.who, " ", site.method, ": ", what);
}

TeplugError* ErrorFromCurrentException(const PluginCallSite& site) {
  return teplug_error_create(TEPLUG_INTERNAL, DescribeCurrentException(site).c_str());
}

}  // namespace teplug::core
