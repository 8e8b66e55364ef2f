// The staging state behind the TeplugRegistrar a plugin's entry receives.
// Each registration is validated on the spot (the plugin gets a TeplugError
// naming the problem) and staged; nothing reaches a registry until the whole
// entry succeeded (see plugin_loader.h). Every error returned to the plugin
// is also remembered, so a plugin that ignores it and returns success is
// still refused.
//
// The plugin holds a RegistrarHandle (registrar_handle.h), not this object:
// the handle serialises calls from any number of threads and, once Close()
// ran, answers FAILED_PRECONDITION without reaching this object, so this one
// can live on the loader's stack. Staging costs O(1) per registration (the
// duplicate-name check is a hash lookup).
#ifndef TEPLUG_CORE_LOADER_STAGING_REGISTRAR_H_
#define TEPLUG_CORE_LOADER_STAGING_REGISTRAR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/loader/registrar_handle.h"
#include "core/ops/interface_module.h"
#include "core/boundary/plugin_object.h"
#include "teplug/teplug.h"

namespace teplug::core {

// One validated registration, holding the host's reference on its object.
struct StagedImplementation {
  const InterfaceModule* module = nullptr;
  std::string name;
  int32_t priority = 0;
  Capability capability;
  TeplugSupportsFn supports = nullptr;
  PluginObjectRef object;
};

class StagingRegistrar final : private RegistrationSink {
 public:
  // `info` is the struct the entry fills; registrations are refused until it
  // names an ABI range overlapping [host_abi_min, host_abi_max]. Opens the
  // handle the plugin will hold.
  StagingRegistrar(const TeplugPluginInfo* info, uint32_t host_abi_min, uint32_t host_abi_max);
  StagingRegistrar(const StagingRegistrar&) = delete;
  StagingRegistrar& operator=(const StagingRegistrar&) = delete;
  // Closes the handle (if Close() was not called).
  ~StagingRegistrar();

  // What TeplugHostApi.registrar points at: valid memory for the life of the
  // process.
  TeplugRegistrar* c_registrar() { return handle_->c_registrar(); }

  // Refuses every later registration (the entry has returned): waits for a
  // registration in progress on another thread, then detaches this object
  // from the handle. The accessors below may be used only after Close().
  void Close() { handle_->Close(); }

  // In registration order.
  std::vector<StagedImplementation>& staged() { return staged_; }
  // Whether any registration was refused (the plugin was told so).
  bool failed() const { return !errors_.empty() || out_of_memory_; }
  // How many registrations were refused, and the first refusal's message.
  size_t error_count() const { return errors_.size() + (out_of_memory_ ? 1 : 0); }
  std::string first_error() const;
  // Registrations skipped because their interface id is unknown here.
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  struct Refusal {
    TeplugCode code;
    std::string message;
    // False for an interface id this host does not know (a newer major
    // version, say): the plugin is told UNSUPPORTED and may go on; the
    // registration is only skipped, so a plugin offering IAttention/2 beside
    // IAttention/1 still loads on a v1 host.
    bool fatal = true;
  };

  // RegistrationSink: stages `desc` and remembers a refusal. The handle
  // calls it one registration at a time, and never after Close().
  TeplugError* Register(const TeplugImplementationDesc* desc) noexcept override;
  // Validates and stages; returns why not.
  std::optional<Refusal> Stage(const TeplugImplementationDesc* desc);

  RegistrarHandle* handle_;  // never freed (see registrar_handle.h)
  // True while Stage runs: a registration arriving then comes from a plugin
  // callback Stage made (query_interface, release) on the same thread.
  bool staging_ = false;
  const TeplugPluginInfo* info_;
  uint32_t host_abi_min_;
  uint32_t host_abi_max_;
  std::vector<StagedImplementation> staged_;
  // Implementation name -> its interface, for the duplicate-name check.
  absl::flat_hash_map<std::string, const InterfaceModule*> kind_by_name_;
  std::vector<std::string> errors_;
  std::vector<std::string> skipped_;
  bool out_of_memory_ = false;  // a refusal that could not be stored in errors_
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_STAGING_REGISTRAR_H_
