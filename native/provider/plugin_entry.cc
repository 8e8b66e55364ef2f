// The one exported symbol of libteplug_native.so: forwards to the shared entry
// function, so the plugin and the built-in are the same code.
#include "native/provider/native_entry.h"
#include "teplug/plugin.h"

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  return teplug_native_entry(host, info);
}
