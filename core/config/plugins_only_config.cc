#include "core/config/plugins_only_config.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "core/config/config_validation.h"
#include "google/protobuf/text_format.h"

namespace teplug::config {
std::string PluginsOnlyConfigText(const ValidatedConfig& config) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  std::string text;
  int line = 1;
  std::set<std::string> paths;
  for (int i = 0; i < config.proto.plugins_size(); ++i) {
    const Plugin& plugin = config.proto.plugins(i);
    if (plugin.path().empty() || !IsWellFormedSha256Pin(plugin.sha256()) ||
        !paths.insert(plugin.path()).second) {
      continue;
    }
    const int at = config.locations.FindNearest(absl::StrCat("plugins[", i, "]")).line;
    for (; line < at; ++line) text += '\n';
    Plugin optional = plugin;
    optional.set_required(false);
    std::string entry;
    printer.PrintToString(optional, &entry);
    absl::StrAppend(&text, "plugins { ", entry, "} ");
  }
  text += '\n';
  if (config.proto.allow_insecure_plugin_permissions()) text += "allow_insecure_plugin_permissions: true\n";
  if (config.proto.probe()) text += "probe: true\n";
  if (config.proto.has_probe_timeout_ms() && config.proto.probe_timeout_ms() >= 1 &&
      config.proto.probe_timeout_ms() <= kMaxProbeTimeoutMs) {
    absl::StrAppend(&text, "probe_timeout_ms: ", config.proto.probe_timeout_ms(), "\n");
  }
  return text;
}

}  // namespace teplug::config
