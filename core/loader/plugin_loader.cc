#include "core/loader/plugin_loader.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/loader/elf_check.h"
#include "core/loader/entry_symbol.h"
#include "core/loader/entry_transaction.h"
#include "core/loader/file_security.h"
#include "core/loader/plugin_log_context.h"
#include "core/loader/plugin_probe.h"
#include "core/loader/sha256.h"
#include "core/log/untrusted_text.h"

namespace teplug::core {
namespace {

constexpr absl::string_view kRefused = " refused: ";

std::shared_ptr<Logger> OrDefault(std::shared_ptr<Logger> logger) {
  return logger != nullptr ? logger : std::make_shared<Logger>(LogLevel::kWarn);
}

// Where a refusal status carries its bare reason, so the load report takes
// it from there instead of parsing the message (a path may contain anything).
constexpr absl::string_view kReasonPayload = "teplug/plugin-refusal-reason";

// "plugin <path> (<origin>)", both escaped: how a plugin file is named in
// its log lines and refusals (a path may hold any byte).
std::string PluginWho(const std::string& path, const std::string& origin) {
  return absl::StrCat("plugin ", EscapeUntrustedText(path), " (", EscapeUntrustedText(origin), ")");
}

// The one place a refusal is logged: "<who> refused: <reason>", one WARN.
// The reason may quote the plugin (an entry's error message) or the file
// system (dlerror names the path): it is escaped, one line whatever it holds.
absl::Status Refuse(const std::string& who, const absl::Status& reason, const Logger& logger) {
  const std::string why = EscapeUntrustedText(reason.message());
  absl::Status refusal(reason.code(), absl::StrCat(who, kRefused, why));
  refusal.SetPayload(kReasonPayload, absl::Cord(why));
  logger.Log(LogLevel::kWarn, refusal.message());
  return refusal;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool IsHexDigest(absl::string_view pin) {
  if (pin.size() != 64) return false;
  for (char c : pin) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Appended to a permission refusal: the documented way to load the file
// anyway.
constexpr absl::string_view kInsecureOptOut =
    " (to load it anyway: allow_insecure_plugin_permissions: true in the config, or "
    "KernelOptions::allow_insecure_plugin_permissions)";

// Security and pin checks on the resolved file. Logs the override WARN when
// the policy allows an insecure file.
absl::Status CheckFile(const std::string& who, const std::string& resolved,
                       const PluginCandidate& candidate, const LoadPolicy& policy,
                       const Logger& logger) {
  absl::Status security = CheckPluginFileSecurity(resolved);
  if (!security.ok()) {
    if (!policy.allow_insecure_permissions) {
      if (security.code() != absl::StatusCode::kPermissionDenied) return security;
      return absl::PermissionDeniedError(absl::StrCat(security.message(), kInsecureOptOut));
    }
    logger.Log(LogLevel::kWarn,
               absl::StrCat(who, ": loading despite failed security check because "
                                 "allow_insecure_plugin_permissions is set: ",
                            EscapeUntrustedText(security.message())));
  }
  if (!candidate.sha256.empty()) {
    if (!IsHexDigest(candidate.sha256)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sha256 pin \"", candidate.sha256, "\" is not 64 hex digits"));
    }
    absl::StatusOr<std::string> digest = Sha256OfFile(resolved);
    if (!digest.ok()) return digest.status();
    if (!absl::EqualsIgnoreCase(*digest, candidate.sha256)) {
      return absl::PermissionDeniedError(absl::StrCat("sha256 mismatch: the file's digest is ",
                                                      *digest, " but the pin is ",
                                                      absl::AsciiStrToLower(candidate.sha256)));
    }
  }
  return absl::OkStatus();
}

// The ELF structure of the resolved file, read through one descriptor.
absl::Status CheckElf(const std::string& resolved) {
  const int fd = ::open(resolved.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot open the file: ", std::strerror(errno)));
  }
  absl::Status elf = CheckElfFile(fd);
  ::close(fd);
  return elf;
}

std::string LastDlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "no dlerror message";
}

// A skipped registration is not a refusal: the plugin loads without it. Say
// so once per registration, at INFO (a newer plugin on an older host is
// expected, not a problem).
void LogSkipped(const std::string& who, const LoadedProvider& loaded, Logger& logger) {
  for (const std::string& s : loaded.skipped) {
    logger.Log(LogLevel::kInfo, absl::StrCat(who, ": ", EscapeUntrustedText(s)));
  }
}

}  // namespace

absl::StatusOr<LoadedProvider> LoadPluginFile(const PluginCandidate& candidate,
                                              const LoadPolicy& policy,
                                              const ProviderNameTaken& provider_name_taken,
                                              std::shared_ptr<Logger> logger) {
  logger = OrDefault(std::move(logger));
  char buffer[PATH_MAX];
  if (::realpath(candidate.path.c_str(), buffer) == nullptr) {
    const std::string who = PluginWho(candidate.path, candidate.origin);
    return Refuse(who, absl::NotFoundError(absl::StrCat("cannot resolve the path: ",
                                                        std::strerror(errno))),
                  *logger);
  }
  const std::string resolved = buffer;
  const std::string who = PluginWho(resolved, candidate.origin);
  if (absl::Status file = CheckFile(who, resolved, candidate, policy, *logger); !file.ok()) {
    return Refuse(who, file, *logger);
  }
  if (absl::Status elf = CheckElf(resolved); !elf.ok()) return Refuse(who, elf, *logger);
  if (policy.probe || candidate.probe) {
    if (absl::Status probed = ProbePluginFile(resolved, policy); !probed.ok()) {
      return Refuse(who, probed, *logger);
    }
  }

  EntrySubject subject;
  subject.log_context = std::make_shared<PluginLogContext>(logger, BaseName(resolved));
  subject.plugin_path = resolved;
  subject.source = EscapeUntrustedText(resolved);  // shown, never opened

  dlerror();
  void* handle = dlopen(resolved.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return Refuse(who, absl::FailedPreconditionError(absl::StrCat("dlopen failed: ", LastDlError())),
                  *logger);
  }
  subject.library = std::make_shared<PluginLibrary>(handle, resolved);
  absl::StatusOr<TeplugPluginEntryFn> entry = FindPluginEntry(handle);
  if (!entry.ok()) {
    subject.library.reset();  // dlclose before logging, as for every refusal
    return Refuse(who, entry.status(), *logger);
  }
  subject.entry = *entry;

  absl::StatusOr<LoadedProvider> loaded = RunEntryTransaction(subject, policy, provider_name_taken);
  if (!loaded.ok()) {
    subject.library.reset();  // the last reference: dlclose
    return Refuse(who, loaded.status(), *logger);
  }
  LogSkipped(who, *loaded, *logger);
  return loaded;
}

absl::StatusOr<LoadedProvider> LoadBuiltin(const BuiltinProvider& builtin,
                                           const LoadPolicy& policy,
                                           const ProviderNameTaken& provider_name_taken,
                                           std::shared_ptr<Logger> logger) {
  logger = OrDefault(std::move(logger));
  const std::string who = absl::StrCat("built-in provider ", builtin.label);
  if (builtin.entry == nullptr) {
    return Refuse(who, absl::InvalidArgumentError("its entry function is NULL"), *logger);
  }
  EntrySubject subject;
  subject.entry = builtin.entry;
  subject.builtin = true;
  subject.source = "built-in";
  subject.plugin_path = "built-in";  // TeplugHostApi.plugin_path, as plugin.h documents
  subject.log_context = std::make_shared<PluginLogContext>(logger, builtin.label);
  absl::StatusOr<LoadedProvider> loaded = RunEntryTransaction(subject, policy, provider_name_taken);
  if (!loaded.ok()) return Refuse(who, loaded.status(), *logger);
  LogSkipped(who, *loaded, *logger);
  return loaded;
}

std::string DuplicateProviderReason(absl::string_view name, absl::string_view registered_source,
                                    absl::string_view refused_source) {
  auto file = [](absl::string_view source) {
    return source == "built-in" ? std::string("the built-in provider") : EscapeUntrustedText(source);
  };
  return absl::StrCat("duplicate provider name \"", EscapeUntrustedText(name), "\": ", file(refused_source),
                      " declares the name already registered by ", file(registered_source),
                      "; remove one of the two from the plugin search path or the config's plugins "
                      "list, or rename one provider");
}

LoadReportEntry LoadedReportEntry(const PluginCandidate& candidate, const LoadedProvider& loaded) {
  LoadReportEntry e;
  e.path = loaded.provider->source;
  e.origin = EscapeUntrustedText(candidate.origin);
  e.loaded = true;
  e.required = candidate.required;
  e.provider = loaded.provider->name;
  for (const auto& impl : loaded.implementations) {
    e.implementations.push_back(absl::StrCat(impl->module->name(), "/", impl->name));
  }
  for (const std::string& s : loaded.skipped) e.skipped.push_back(EscapeUntrustedText(s));
  return e;
}

LoadReportEntry RefusedReportEntry(const PluginCandidate& candidate, const absl::Status& status) {
  const auto reason = status.GetPayload(kReasonPayload);  // absl::optional in this Abseil
  return RefusedEntry(candidate, reason.has_value() ? std::string(*reason) : std::string(status.message()));
}

PluginCandidate BuiltinCandidate(const BuiltinProvider& builtin) {
  PluginCandidate c;
  c.path = "built-in";
  c.origin = absl::StrCat("built-in ", builtin.label);
  return c;
}

}  // namespace teplug::core
