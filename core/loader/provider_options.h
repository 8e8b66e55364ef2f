// The host side of TeplugHostApi.get_option: the options the config gives
// each provider (providers { name options { key value } }), found by the
// name the plugin set in its TeplugPluginInfo during its entry.
#ifndef TEPLUG_CORE_LOADER_PROVIDER_OPTIONS_H_
#define TEPLUG_CORE_LOADER_PROVIDER_OPTIONS_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "teplug/teplug.h"

namespace teplug::core {

// Options by provider name, then key.
using ProviderOptions = std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>;

// One entry call's TeplugHostApi.options_ctx. It lives as long as the host
// API block it belongs to (the life of the process), so a plugin that calls
// get_option after its entry is refused, not crashed.
class OptionContext {
 public:
  // `info` is the struct the entry fills; read only until Close().
  OptionContext(std::shared_ptr<const ProviderOptions> options, const TeplugPluginInfo* info);
  OptionContext(const OptionContext&) = delete;
  OptionContext& operator=(const OptionContext&) = delete;

  // The entry returned: later calls are refused (FAILED_PRECONDITION).
  void Close();

  // TeplugHostApi.get_option (plugin.h says what it answers).
  static TeplugError* GetOption(void* ctx, const char* key, char* buffer, size_t capacity, size_t* length) noexcept;

 private:
  TeplugError* Lookup(const char* key, char* buffer, size_t capacity, size_t* length);

  const std::shared_ptr<const ProviderOptions> options_;
  std::mutex mu_;                     // serialises calls from the plugin's threads and Close
  const TeplugPluginInfo* info_;      // null once closed
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_PROVIDER_OPTIONS_H_
