// A minimal plugin for plugin_exports_test: one exported entry and one helper that
// must stay hidden even though it has external linkage.
#include <cstdint>

extern "C" int32_t teplug_export_probe_hidden_helper(int32_t x) { return x * 3 + 1; }

extern "C" __attribute__((visibility("default"))) int32_t teplug_plugin_entry(int32_t x) {
  return teplug_export_probe_hidden_helper(x);
}
