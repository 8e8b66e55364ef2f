// A C++ plugin that does NOT use the SDK: its entry registers one counted
// object and then lets a C++ exception escape through the C ABI. The host
// must catch it, roll back the registration and refuse the plugin.
#include <stdexcept>

#include "teplug/teplug.h"
#include "tests/hostile/counted_objects.h"

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
  info->name = "hostile_raw_throw";
  info->vendor = "teplug hostile tests";
  info->version = "0.0.1";
  info->abi_min = TEPLUG_ABI_VERSION_CURRENT;
  info->abi_max = TEPLUG_ABI_VERSION_CURRENT;
  TeplugImplementationDesc d = {};
  d.struct_size = sizeof d;
  d.iid = TEPLUG_IID_GEMM_V1_INIT;
  d.object = hostile_gemm();
  d.capability = hostile_gemm_caps();
  d.name = "counted-gemm";
  TeplugError* e = host->registrar->register_implementation(host->registrar, &d);
  if (e != nullptr) return e;
  throw std::runtime_error("hostile_raw_throw: thrown from a non-SDK entry");
}
