#include "core/loader/entry_transaction.h"

#include <atomic>
#include <cstring>
#include <exception>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/boundary/plugin_call.h"
#include "core/loader/abi_range.h"
#include "core/loader/declared_names.h"
#include "core/loader/staging_registrar.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

constexpr size_t kMaxProviderName = 63;
// Bytes left writable behind TeplugPluginInfo for plugins that write past
// its struct_size (fields of a later ABI minor version).
constexpr size_t kInfoRoomBytes = 256;
constexpr size_t kMaxInfoString = 255;

bool ValidProviderName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxProviderName) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

// A string field of TeplugPluginInfo: non-NULL and at most `max` bytes (read
// with strnlen, so an unterminated string cannot run us off its end).
absl::StatusOr<std::string> InfoString(const char* field, const char* value, size_t max) {
  if (value == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugPluginInfo.", field, " is NULL"));
  }
  const size_t length = strnlen(value, max + 1);
  if (length > max) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugPluginInfo.", field, " \"",
                                                   EscapeUntrustedText(absl::string_view(value, max)),
                                                   "...\" is longer than ", max, " bytes"));
  }
  return std::string(value, length);
}

// The TeplugHostApi an entry receives, in a block that is never freed. The
// contract says not to keep `host`, but a plugin that does and calls
// host->log (or reads plugin_path) after its entry would otherwise read this
// function's dead frame; through this block it reaches the log handle and
// the registrar handle, which stay safe to call (they refuse or drop late
// calls), and a path that stays valid. Cost: about 130 bytes plus the path
// per load.
struct KeptHostApi {
  TeplugHostApi api;
  std::string plugin_path;
  OptionContext options;  // api.options_ctx
  KeptHostApi* next;      // the block opened before this one
};

// The last block opened; each links to the one before, so all stay
// reachable for leak checkers. A lock-free push, not a mutex: the
// pre-flight probe's forked child opens one too.
std::atomic<KeptHostApi*> g_last_host_api{nullptr};

KeptHostApi* OpenKeptHostApi(const std::string& plugin_path, std::shared_ptr<const ProviderOptions> options,
                             const TeplugPluginInfo* info) {
  auto* block = new KeptHostApi{sdk::Versioned<TeplugHostApi>(), plugin_path, {std::move(options), info}, nullptr};
  block->api.plugin_path = block->plugin_path.c_str();
  block->api.get_option = &OptionContext::GetOption;
  block->api.options_ctx = &block->options;
  block->next = g_last_host_api.load(std::memory_order_relaxed);
  while (!g_last_host_api.compare_exchange_weak(block->next, block, std::memory_order_release,
                                                std::memory_order_relaxed)) {
  }
  return block;
}

// Runs the entry through the plugin call boundary: the error it returns is
// taken over as a host-made one (safe whatever the plugin put in it), and a
// C++ exception escaping it becomes the returned reason.
std::optional<std::string> CallEntry(TeplugPluginEntryFn entry, const TeplugHostApi* api,
                                     TeplugPluginInfo* info, sdk::OwnedError* error) {
  bool threw = false;
  *error = sdk::OwnedError(CallPlugin({"", "teplug_plugin_entry"}, [&] { return entry(api, info); }, &threw));
  if (!threw) return std::nullopt;
  std::string reason = error->message();
  *error = sdk::OwnedError();
  return reason;
}

absl::StatusCode CodeOf(TeplugCode code) {
  switch (code) {
    case TEPLUG_INVALID_ARGUMENT: return absl::StatusCode::kInvalidArgument;
    case TEPLUG_UNSUPPORTED: return absl::StatusCode::kUnimplemented;
    case TEPLUG_UNAVAILABLE: return absl::StatusCode::kUnavailable;
    case TEPLUG_OUT_OF_MEMORY: return absl::StatusCode::kResourceExhausted;
    case TEPLUG_ABI_MISMATCH: return absl::StatusCode::kFailedPrecondition;
    case TEPLUG_NOT_FOUND: return absl::StatusCode::kNotFound;
    case TEPLUG_DEADLINE_EXCEEDED: return absl::StatusCode::kDeadlineExceeded;
    case TEPLUG_FAILED_PRECONDITION: return absl::StatusCode::kFailedPrecondition;
    default: return absl::StatusCode::kInternal;
  }
}

// What the plugin said about itself, validated.
struct ProviderInfo {
  std::string name;
  std::string vendor;
  std::string version;
};

absl::StatusOr<ProviderInfo> ValidateInfo(const TeplugPluginInfo& info, const LoadPolicy& policy) {
  if (!AbiRangesOverlap(info.abi_min, info.abi_max, policy.host_abi_min, policy.host_abi_max)) {
    return absl::FailedPreconditionError(
        absl::StrCat("ABI mismatch: the plugin supports ", AbiRangeString(info.abi_min, info.abi_max),
                     " but the host supports ",
                     AbiRangeString(policy.host_abi_min, policy.host_abi_max)));
  }
  ProviderInfo out;
  absl::StatusOr<std::string> name = InfoString("name", info.name, kMaxProviderName);
  if (!name.ok()) return name.status();
  if (!ValidProviderName(*name)) {
    return absl::InvalidArgumentError(absl::StrCat("TeplugPluginInfo.name \"",
                                                   EscapeUntrustedText(*name),
                                                   "\" must match [a-z0-9_-]{1,63}"));
  }
  absl::StatusOr<std::string> vendor = InfoString("vendor", info.vendor, kMaxInfoString);
  if (!vendor.ok()) return vendor.status();
  absl::StatusOr<std::string> version = InfoString("version", info.version, kMaxInfoString);
  if (!version.ok()) return version.status();
  out.name = std::move(*name);
  // Shown by `teplug list` and logged: kept escaped, one printable line.
  out.vendor = EscapeUntrustedText(*vendor);
  out.version = EscapeUntrustedText(*version);
  return out;
}

// Why a provider that staged no implementation is refused: it would serve
// nothing, and a plugin with nothing to offer on this machine says why by
// returning an error (TEPLUG_UNAVAILABLE and a reason) instead.
std::string NothingRegistered(const std::vector<std::string>& skipped) {
  std::string why =
      "teplug_plugin_entry returned success but registered no implementation (a provider "
      "must register at least one; return TEPLUG_UNAVAILABLE with the reason when there is "
      "nothing to serve)";
  if (!skipped.empty()) {
    absl::StrAppend(&why, "; ", skipped.size(),
                    " registration(s) skipped, first: ", skipped.front());
  }
  return why;
}

}  // namespace

absl::StatusOr<LoadedProvider> RunEntryTransaction(const EntrySubject& subject,
                                                   const LoadPolicy& policy,
                                                   const ProviderNameTaken& provider_name_taken) {
  // The info the plugin fills, with room behind it: a plugin built against
  // newer headers that writes its new fields without checking struct_size
  // writes there instead of over this frame (the struct_size we set says
  // sizeof(TeplugPluginInfo); nothing behind it is read).
  struct InfoWithRoom {
    TeplugPluginInfo info;
    unsigned char room[kInfoRoomBytes];
  } info_with_room{};
  TeplugPluginInfo& info = info_with_room.info;
  info = sdk::Versioned<TeplugPluginInfo>();
  StagingRegistrar registrar(&info, policy.host_abi_min, policy.host_abi_max);
  KeptHostApi* kept = OpenKeptHostApi(subject.plugin_path, policy.provider_options, &info);
  TeplugHostApi& api = kept->api;
  api.abi_min = policy.host_abi_min;
  api.abi_max = policy.host_abi_max;
  api.log_ctx = subject.log_context->c_context();
  api.log = &PluginLogContext::LogThunk;
  api.registrar = registrar.c_registrar();

  // From here on, any return releases the staged references (registrar's
  // destructor) before the caller drops the library.
  sdk::OwnedError entry_error;
  std::optional<std::string> thrown = CallEntry(subject.entry, &api, &info, &entry_error);
  registrar.Close();
  kept->options.Close();
  if (thrown.has_value()) return absl::InternalError(*thrown);
  if (!entry_error.ok()) {
    // "teplug_plugin_entry returned <code>: <message>" (TakePluginError).
    return absl::Status(CodeOf(entry_error.code()), entry_error.message());
  }
  absl::StatusOr<ProviderInfo> provider_info = ValidateInfo(info, policy);
  if (!provider_info.ok()) return provider_info.status();
  DeclaredNames declared;
  if (absl::Status names = ReadDeclaredNames(info, &declared); !names.ok()) return names;
  if (registrar.failed()) {
    return absl::InvalidArgumentError(
        absl::StrCat("teplug_plugin_entry returned success although ", registrar.error_count(),
                     " registration(s) were refused; first: ", registrar.first_error()));
  }
  if (registrar.staged().empty()) {
    return absl::InvalidArgumentError(NothingRegistered(registrar.skipped()));
  }
  if (provider_name_taken) {
    if (std::optional<std::string> registered = provider_name_taken(provider_info->name)) {
      return absl::AlreadyExistsError(
          DuplicateProviderReason(provider_info->name, *registered, subject.source));
    }
  }

  auto provider = std::make_shared<Provider>();
  provider->library = subject.library;
  provider->name = provider_info->name;
  provider->vendor = provider_info->vendor;
  provider->version = provider_info->version;
  provider->abi_min = info.abi_min;
  provider->abi_max = info.abi_max;
  provider->builtin = subject.builtin;
  provider->source = subject.source;
  provider->log_context = subject.log_context;
  provider->device_kind_names = std::move(declared.device_kinds);
  provider->vendor_names = std::move(declared.vendors);
  subject.log_context->set_label(provider_info->name);

  LoadedProvider loaded;
  loaded.provider = provider;
  loaded.implementations.reserve(registrar.staged().size());
  for (StagedImplementation& staged : registrar.staged()) {
    auto impl = std::make_shared<Implementation>();
    impl->provider = provider;
    impl->module = staged.module;
    impl->qualified_name = absl::StrCat(provider->name, "/", staged.name);
    impl->name = std::move(staged.name);
    impl->default_priority = staged.priority;
    impl->capability = std::move(staged.capability);
    impl->supports = staged.supports;
    impl->object = std::move(staged.object);
    loaded.implementations.push_back(std::move(impl));
  }
  loaded.skipped = registrar.skipped();
  return loaded;
}

}  // namespace teplug::core
