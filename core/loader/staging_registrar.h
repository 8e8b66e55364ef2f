// The TeplugRegistrar a plugin's entry receives. Each registration is
// validated on the spot (the plugin gets a TeplugError naming the problem)
// and staged; nothing reaches a registry until the whole entry succeeded
// (see plugin_loader.h). Every error returned to the plugin is also
// remembered, so a plugin that ignores it and returns success is still
// refused.
#ifndef TEPLUG_CORE_LOADER_STAGING_REGISTRAR_H_
#define TEPLUG_CORE_LOADER_STAGING_REGISTRAR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/registry/capability.h"
#include "core/registry/interface_kind.h"
#include "teplug/sdk/ref.hpp"
#include "teplug/teplug.h"

namespace teplug::core {

// One validated registration, holding the host's reference on its object.
struct StagedImplementation {
  InterfaceKind kind = InterfaceKind::kGemm;
  std::string name;
  int32_t priority = 0;
  Capability capability;
  TeplugSupportsFn supports = nullptr;
  sdk::Ref<TeplugObject> object;
};

class StagingRegistrar {
 public:
  // `info` is the struct the entry fills; registrations are refused until it
  // names an ABI range overlapping [host_abi_min, host_abi_max].
  StagingRegistrar(const TeplugPluginInfo* info, uint32_t host_abi_min, uint32_t host_abi_max);
  StagingRegistrar(const StagingRegistrar&) = delete;
  StagingRegistrar& operator=(const StagingRegistrar&) = delete;

  // What TeplugHostApi.registrar points at.
  TeplugRegistrar* c_registrar() { return &box_.c; }

  // Refuses every later registration (the entry has returned).
  void Close() { closed_ = true; }

  std::vector<StagedImplementation>& staged() { return staged_; }
  // Whether any registration was refused (the plugin was told so).
  bool failed() const { return !errors_.empty() || out_of_memory_; }
  // How many registrations were refused, and the first refusal's message.
  size_t error_count() const { return errors_.size() + (out_of_memory_ ? 1 : 0); }
  std::string first_error() const;
  // Registrations skipped because their interface id is unknown here.
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  struct Box {
    TeplugRegistrar c;  // first: the plugin sees a TeplugRegistrar*
    StagingRegistrar* self;
  };
  struct Refusal {
    TeplugCode code;
    std::string message;
    // False for an interface id this host does not know (a newer major
    // version, say): the plugin is told UNSUPPORTED and may go on; the
    // registration is only skipped, so a plugin offering IAttention/2 beside
    // IAttention/1 still loads on a v1 host.
    bool fatal = true;
  };

  static TeplugError* RegisterThunk(TeplugRegistrar* registrar,
                                    const TeplugImplementationDesc* desc) noexcept;
  // Validates and stages; returns why not.
  std::optional<Refusal> Stage(const TeplugImplementationDesc* desc);

  Box box_;
  const TeplugPluginInfo* info_;
  uint32_t host_abi_min_;
  uint32_t host_abi_max_;
  bool closed_ = false;
  std::vector<StagedImplementation> staged_;
  std::vector<std::string> errors_;
  std::vector<std::string> skipped_;
  bool out_of_memory_ = false;  // a refusal that could not be stored in errors_
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_STAGING_REGISTRAR_H_
