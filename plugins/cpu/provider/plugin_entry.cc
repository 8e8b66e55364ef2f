// The one exported symbol of libteplug_cpu.so: forwards to the shared entry
// function, so the plugin and the built-in are the same code.
#include "plugins/cpu/provider/cpu_entry.h"
#include "teplug/plugin.h"

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return teplug_cpu_entry(host, info);
}
