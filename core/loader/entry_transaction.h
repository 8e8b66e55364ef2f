// The part of loading shared by plugins and built-ins: run the entry with a
// staging registrar, validate what it said, and build the provider. Used by
// plugin_loader.cc only.
#ifndef TEPLUG_CORE_LOADER_ENTRY_TRANSACTION_H_
#define TEPLUG_CORE_LOADER_ENTRY_TRANSACTION_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/loader/plugin_loader.h"
#include "core/loader/plugin_log_context.h"

namespace teplug::core {

// What is being loaded.
struct EntrySubject {
  TeplugPluginEntryFn entry = nullptr;
  // Given to the plugin as TeplugHostApi.plugin_path.
  std::string plugin_path;
  // Provider::source: the resolved path or "built-in".
  std::string source;
  bool builtin = false;
  // Receives the plugin's log lines; becomes Provider::log_context.
  // Declared before `library` so it outlives it (a plugin may log while
  // its library is being closed).
  std::shared_ptr<PluginLogContext> log_context;
  // Keeps the code loaded; null for built-ins.
  std::shared_ptr<PluginLibrary> library;
};

// Runs the transaction. On failure the status message is the bare reason
// (the caller prefixes "<who> refused: "), every staged reference has been
// released, and `subject.library` is untouched (the caller drops it).
absl::StatusOr<LoadedProvider> RunEntryTransaction(const EntrySubject& subject,
                                                   const LoadPolicy& policy,
                                                   const ProviderNameTaken& provider_name_taken);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_ENTRY_TRANSACTION_H_
