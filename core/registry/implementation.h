// What the registry holds: providers and the implementations they register.
//
// Lifetime: an Implementation holds one reference on its object and shares
// ownership of its Provider, which owns the plugin library. Members are
// declared so that the object reference is released before the provider (and
// with it possibly the library's code) goes away. Whoever holds an
// Implementation (a registry state, a Selection, a call in flight) keeps the
// library loaded: a provider is unloaded only when nothing references it.
#ifndef TEPLUG_CORE_REGISTRY_IMPLEMENTATION_H_
#define TEPLUG_CORE_REGISTRY_IMPLEMENTATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/boundary/plugin_object.h"
#include "core/ops/interface_module.h"
#include "teplug/teplug.h"

namespace teplug::core {

// A dlopen'ed plugin library; dlclose on destruction.
class PluginLibrary {
 public:
  PluginLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;
  void* handle() const { return handle_; }
  const std::string& path() const { return path_; }

 private:
  void* handle_;
  std::string path_;
};

struct Provider {
  // Null for built-ins. Declared first so it is destroyed last: the library
  // is closed only after everything below (which may point into it) is gone.
  std::shared_ptr<PluginLibrary> library;
  // What the host gave the plugin as TeplugHostApi.log_ctx: it must outlive
  // every call the plugin may make to `log` (static destructors included),
  // so it is destroyed just before the library is closed.
  std::shared_ptr<const void> log_context;
  std::string name;
  // As the plugin gave them in TeplugPluginInfo, escaped (EscapeUntrustedText):
  // one printable line of valid UTF-8 whatever bytes the plugin wrote.
  std::string vendor;
  std::string version;
  uint32_t abi_min = 0;
  uint32_t abi_max = 0;
  bool builtin = false;
  // "built-in" for built-ins, else the resolved plugin path, escaped: for
  // display only (the library is opened by its raw path).
  std::string source;
  // The names it declared (TeplugPluginInfo.device_kind_names and
  // vendor_names), checked by the loader; in declaration order.
  std::vector<std::pair<int32_t, std::string>> device_kind_names;
  std::vector<std::pair<uint32_t, std::string>> vendor_names;
};

struct Implementation {
  std::shared_ptr<const Provider> provider;  // declared first: destroyed last
  const InterfaceModule* module = nullptr;
  std::string name;  // unique within the provider
  int32_t default_priority = 0;
  Capability capability;
  // The implementation's `supports` hook (read from its table with a
  // struct_size check), or null.
  TeplugSupportsFn supports = nullptr;
  PluginObjectRef object;  // declared last: released first

  // "provider/name", as decision records show it. Set by the loader (the
  // only place implementations are made), so selection and fallback read it
  // without building a string.
  std::string qualified_name;
  const std::string& QualifiedName() const { return qualified_name; }
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_REGISTRY_IMPLEMENTATION_H_
