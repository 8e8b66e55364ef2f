/* A library that looks like a plugin but exports no teplug_plugin_entry
 * (a typo'd name, hidden by the plugin version script like everything else). */
#include "teplug/teplug.h"

TeplugError* teplug_plugin_entyr(const TeplugHostApi* host, TeplugPluginInfo* info) {
  (void)host;
  (void)info;
  return NULL;
}
