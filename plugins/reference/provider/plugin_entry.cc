// The one exported symbol of libteplug_reference.so: forwards to the shared
// entry function, so the plugin and the built-in are the same code.
#include "plugins/reference/provider/reference_entry.h"
#include "teplug/plugin.h"

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return teplug_reference_entry(host, info);
}
