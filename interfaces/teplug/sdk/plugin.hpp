// teplug/sdk/plugin.hpp — writing a plugin's entry point in C++.
//
//   static void RegisterAll(teplug::sdk::Registrar& r) {
//     static const TeplugGemmCaps caps = {...};
//     r.Register(teplug::sdk::kIidGemmV1, teplug::sdk::MakeGemm(std::make_unique<MyGemm>()),
//                &caps, "my-gemm", 200);
//   }
//   TEPLUG_SDK_PLUGIN("myvendor", "My Vendor Inc.", "1.2.0", RegisterAll)
//
// The macro defines the one exported symbol, fills TeplugPluginInfo, refuses a
// host whose ABI range does not overlap ours (naming both ranges), and turns
// any exception thrown by the registration function into the entry's error.
#ifndef TEPLUG_SDK_PLUGIN_HPP_
#define TEPLUG_SDK_PLUGIN_HPP_

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "teplug/plugin.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/ref.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::sdk {

// "1.0" for TEPLUG_ABI_VERSION(1, 0).
inline std::string AbiVersionString(uint32_t v) {
  return std::to_string(TEPLUG_ABI_MAJOR(v)) + "." + std::to_string(TEPLUG_ABI_MINOR(v));
}

// The host's services during the entry call.
class Registrar {
 public:
  // `info` (may be null: then DeclareNames declares nothing) is the struct
  // the entry fills.
  explicit Registrar(const TeplugHostApi* host, TeplugPluginInfo* info = nullptr)
      : host_(host), info_(info) {}

  // Declares the names of the provider's vendor-defined device kinds and of
  // device vendor ids (TeplugPluginInfo.device_kind_names / vendor_names;
  // interfaces/README.md 1.3.3), e.g.
  //   static const TeplugNamedId kKinds[] = {{1100, "gaudi"}};
  //   static const TeplugNamedId kVendors[] = {{0x1da3, "habana"}};
  //   r.DeclareNames(kKinds, kVendors);
  // The arrays must be static (the host reads them after the entry returns
  // and keeps the names). Returns false, declaring nothing, when the host's
  // TeplugPluginInfo predates these fields; the host checks the names.
  template <size_t K, size_t V>
  bool DeclareNames(const TeplugNamedId (&kinds)[K], const TeplugNamedId (&vendors)[V]) {
    return DeclareNames(kinds, static_cast<uint32_t>(K), vendors, static_cast<uint32_t>(V));
  }
  bool DeclareNames(const TeplugNamedId* kinds, uint32_t kind_count, const TeplugNamedId* vendors,
                    uint32_t vendor_count) {
    if (!TEPLUG_HAS_FIELD(info_, TeplugPluginInfo, vendor_names)) return false;
    info_->device_kind_names = kinds;
    info_->device_kind_name_count = kind_count;
    info_->vendor_names = vendors;
    info_->vendor_name_count = vendor_count;
    return true;
  }

  // The operator's value for this provider's option `key` (the config's
  // `providers { name: "<provider>" options { key: "<key>" value: "..." } }`),
  // or nullopt when the config sets none or the host has no options (a 1.0
  // host). Call it from the entry (RunPluginEntry has set info->name).
  // Throws the host's error for anything but "not set".
  std::optional<std::string> Option(const char* key) const {
    if (!TEPLUG_HAS_FIELD(host_, TeplugHostApi, options_ctx) || host_->get_option == nullptr) return std::nullopt;
    size_t length = 0;
    OwnedError e(host_->get_option(host_->options_ctx, key, nullptr, 0, &length));
    if (e.code() == TEPLUG_NOT_FOUND) return std::nullopt;
    e.ThrowIfError();
    std::string value(length + 1, '\0');
    OwnedError again(host_->get_option(host_->options_ctx, key, value.data(), value.size(), &length));
    again.ThrowIfError();
    value.resize(std::min(length, value.size() - 1));
    return value;
  }

  // Stages one implementation. Takes over the caller's reference on `object`
  // (the host adds its own; ours is released here). Throws the host's error.
  template <class CIface>
  void Register(const TeplugIID& iid, CIface* object, const void* capability, const char* name,
                int32_t priority) {
    Stage(iid, object, capability, name, priority).ThrowIfError();
  }

  // Register for an interface the host may not serve (a newer major version):
  // returns false, destroying the error, when the host answers
  // TEPLUG_UNSUPPORTED (an unknown IID; the host skips that registration and
  // the plugin still loads), true when staged. Throws any other error, as
  // Register does: the host refuses the whole plugin after those.
  template <class CIface>
  bool RegisterIfServed(const TeplugIID& iid, CIface* object, const void* capability,
                        const char* name, int32_t priority) {
    OwnedError e = Stage(iid, object, capability, name, priority);
    if (e.code() == TEPLUG_UNSUPPORTED) return false;
    e.ThrowIfError();
    return true;
  }

  // Logs through the host (no-op when the host offers no logger).
  void Log(TeplugLogLevel level, const std::string& message) const {
    if (host_->log != nullptr) host_->log(host_->log_ctx, level, message.c_str());
  }
  const TeplugHostApi& host() const { return *host_; }

 private:
  // Calls the registrar; the caller's reference on `object` is released on return.
  template <class CIface>
  OwnedError Stage(const TeplugIID& iid, CIface* object, const void* capability,
                   const char* name, int32_t priority) {
    Ref<CIface> owned = Ref<CIface>::Adopt(object);
    TeplugImplementationDesc d = Versioned<TeplugImplementationDesc>();
    d.iid = iid;
    d.object = reinterpret_cast<TeplugObject*>(object);
    d.capability = capability;
    d.name = name;
    d.priority = priority;
    TeplugRegistrar* r = host_->registrar;
    if (r == nullptr || r->register_implementation == nullptr) {
      throw Exception(TEPLUG_ABI_MISMATCH, "host API has no registrar");
    }
    return OwnedError(r->register_implementation(r, &d));
  }

  const TeplugHostApi* host_;
  TeplugPluginInfo* info_;
};

// The body of teplug_plugin_entry; use TEPLUG_SDK_PLUGIN instead of calling it.
template <class RegisterFn>
TeplugError* RunPluginEntry(const TeplugHostApi* host, TeplugPluginInfo* info, const char* name,
                            const char* vendor, const char* version, uint32_t abi_min,
                            uint32_t abi_max, RegisterFn&& register_fn) noexcept {
  return Guard([&] {
    if (host == nullptr || info == nullptr) {
      throw Exception(TEPLUG_INVALID_ARGUMENT, "teplug_plugin_entry called with NULL host or info");
    }
    if (host->struct_size < TEPLUG_STRUCT_SIZE(TeplugHostApi, registrar)) {
      throw Exception(TEPLUG_ABI_MISMATCH, "TeplugHostApi.struct_size " +
                                               std::to_string(host->struct_size) + " too small");
    }
    if (TEPLUG_HAS_FIELD(info, TeplugPluginInfo, name)) info->name = name;
    if (TEPLUG_HAS_FIELD(info, TeplugPluginInfo, vendor)) info->vendor = vendor;
    if (TEPLUG_HAS_FIELD(info, TeplugPluginInfo, version)) info->version = version;
    if (TEPLUG_HAS_FIELD(info, TeplugPluginInfo, abi_min)) info->abi_min = abi_min;
    if (TEPLUG_HAS_FIELD(info, TeplugPluginInfo, abi_max)) info->abi_max = abi_max;
    if (abi_max < host->abi_min || host->abi_max < abi_min) {
      throw Exception(TEPLUG_ABI_MISMATCH,
                      std::string("plugin ") + name + " supports ABI [" +
                          AbiVersionString(abi_min) + ", " + AbiVersionString(abi_max) +
                          "] but the host supports [" + AbiVersionString(host->abi_min) + ", " +
                          AbiVersionString(host->abi_max) + "]");
    }
    Registrar registrar(host, info);
    register_fn(registrar);
  });
}

}  // namespace teplug::sdk

// Defines the plugin's exported entry point. Use once per shared library.
#define TEPLUG_SDK_PLUGIN(name, vendor, version, register_fn)                                 \
  extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host, \
                                                                   TeplugPluginInfo* info) {  \
    return ::teplug::sdk::RunPluginEntry(host, info, name, vendor, version,                   \
                                         TEPLUG_ABI_VERSION_MAJOR_FIRST, TEPLUG_ABI_VERSION_CURRENT, \
                                         register_fn);                                        \
  }

#endif  // TEPLUG_SDK_PLUGIN_HPP_
