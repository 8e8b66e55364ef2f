#include "core/loader/staging_registrar.h"

#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/boundary/plugin_call.h"
#include "core/loader/abi_range.h"
#include "core/ops/modules.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

// Implementation names: short, printable, usable in "provider/name".
constexpr size_t kMaxNameLength = 63;

bool ValidImplementationName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string IidString(const TeplugIID& iid) {
  return absl::StrFormat("{0x%016x, 0x%016x}", iid.hi, iid.lo);
}

}  // namespace

StagingRegistrar::StagingRegistrar(const TeplugPluginInfo* info, uint32_t host_abi_min,
                                   uint32_t host_abi_max)
    : handle_(RegistrarHandle::Open(this)),
      info_(info),
      host_abi_min_(host_abi_min),
      host_abi_max_(host_abi_max) {}

StagingRegistrar::~StagingRegistrar() { handle_->Close(); }

TeplugError* StagingRegistrar::Register(const TeplugImplementationDesc* desc) noexcept {
  try {
    std::optional<Refusal> refusal;
    if (staging_) {
      // Staging it now would interleave with the registration being staged
      // (whose name is checked but not yet taken).
      refusal = Refusal{TEPLUG_FAILED_PRECONDITION,
                        "implementation registered from inside a plugin callback the host made "
                        "while staging another registration (register_implementation is not "
                        "re-entrant)"};
    } else {
      staging_ = true;
      struct Done {
        bool* flag;
        ~Done() { *flag = false; }
      } done{&staging_};
      refusal = Stage(desc);
    }
    if (!refusal.has_value()) return nullptr;
    (refusal->fatal ? errors_ : skipped_).push_back(refusal->message);
    return teplug_error_create(refusal->code, refusal->message.c_str());
  } catch (const std::bad_alloc&) {
    out_of_memory_ = true;  // remembered without allocating
    return teplug_error_create(TEPLUG_OUT_OF_MEMORY, "out of memory while staging a registration");
  } catch (const std::exception& e) {
    std::string message = std::string("internal error while staging a registration: ") + e.what();
    errors_.push_back(message);
    return teplug_error_create(TEPLUG_INTERNAL, message.c_str());
  }
}

std::string StagingRegistrar::first_error() const {
  if (!errors_.empty()) return errors_.front();
  return out_of_memory_ ? "out of memory while staging a registration" : "";
}

std::optional<StagingRegistrar::Refusal> StagingRegistrar::Stage(
    const TeplugImplementationDesc* desc) {
  if (!AbiRangesOverlap(info_->abi_min, info_->abi_max, host_abi_min_, host_abi_max_)) {
    return Refusal{TEPLUG_ABI_MISMATCH,
                   absl::StrCat("register_implementation called before TeplugPluginInfo names "
                                "an ABI range overlapping the host's ",
                                AbiRangeString(host_abi_min_, host_abi_max_), " (info says ",
                                AbiRangeString(info_->abi_min, info_->abi_max), ")")};
  }
  if (desc == nullptr) return Refusal{TEPLUG_INVALID_ARGUMENT, "TeplugImplementationDesc is NULL"};
  constexpr size_t kRequired = TEPLUG_STRUCT_SIZE(TeplugImplementationDesc, priority);
  TeplugImplementationDesc d;
  if (!sdk::ReadVersioned(desc, &d, kRequired)) {
    return Refusal{TEPLUG_ABI_MISMATCH, absl::StrCat("TeplugImplementationDesc.struct_size ",
                                                     desc->struct_size, " < ", kRequired,
                                                     " required")};
  }

  std::string name = "default";
  if (d.name != nullptr) {
    const size_t length = strnlen(d.name, kMaxNameLength + 1);
    name.assign(d.name, length);
    if (!ValidImplementationName(name)) {
      return Refusal{TEPLUG_INVALID_ARGUMENT,
                     absl::StrCat("TeplugImplementationDesc.name \"", EscapeUntrustedText(name),
                                  length > kMaxNameLength ? "...\"" : "\"",
                                  " must be 1-63 characters of [A-Za-z0-9_.-]")};
    }
  }
  const std::string who = absl::StrCat("implementation \"", name, "\"");

  const InterfaceModule* module = ModuleOfIid(d.iid);
  if (module == nullptr) {
    std::string served;
    for (const InterfaceModule* m : InterfaceModules()) absl::StrAppend(&served, served.empty() ? "" : ", ", m->display_name());
    return Refusal{TEPLUG_UNSUPPORTED,
                   absl::StrCat(who, ": unknown interface id ", IidString(d.iid), " (this host serves ", served,
                                "); registration skipped"),
                   /*fatal=*/false};
  }
  const std::string who_kind = absl::StrCat(who, " (", module->display_name(), ")");

  if (auto taken = kind_by_name_.find(name); taken != kind_by_name_.end()) {
    return Refusal{
        TEPLUG_INVALID_ARGUMENT,
        absl::StrCat(who_kind, ": duplicate implementation name (already registered for ",
                     taken->second->display_name(), ")")};
  }

  if (std::optional<std::string> problem = module->CheckTable(d.object)) {
    return Refusal{TEPLUG_INVALID_ARGUMENT, absl::StrCat(who_kind, ": ", *problem)};
  }

  // query_interface(iid) must hand back the registered object itself; it is
  // plugin code, so it is called through the plugin call boundary.
  TeplugObject* answer = nullptr;
  std::string thrown;
  if (!GuardPluginCall({"", "query_interface"},
                       [&] { answer = d.object->vtbl->query_interface(d.object, &d.iid); }, &thrown)) {
    return Refusal{TEPLUG_INVALID_ARGUMENT, absl::StrCat(who_kind, ": ", thrown)};
  }
  if (answer != d.object) {
    // Give the reference back if the answer's table has a release to call
    // (one too small to hold it keeps the reference: a leak, not a crash).
    if (answer != nullptr && answer->vtbl != nullptr &&
        answer->vtbl->struct_size >= TEPLUG_STRUCT_SIZE(TeplugObjectVtbl, release) &&
        answer->vtbl->release != nullptr) {
      ReleasePluginReference(answer, who);
    }
    return Refusal{TEPLUG_INVALID_ARGUMENT,
                   absl::StrCat(who_kind, ": query_interface(", module->display_name(),
                                ") returned ",
                                answer == nullptr ? "NULL" : "a different object",
                                ", not the registered object")};
  }
  ReleasePluginReference(d.object, who);  // the reference query_interface added

  absl::StatusOr<Capability> capability = module->ReadCapability(d.capability);
  if (!capability.ok()) {
    return Refusal{TEPLUG_INVALID_ARGUMENT,
                   absl::StrCat(who_kind, ": malformed capability descriptor: ",
                                capability.status().message())};
  }

  kind_by_name_.emplace(name, module);
  StagedImplementation staged;
  staged.module = module;
  staged.name = std::move(name);
  staged.priority = d.priority;
  staged.capability = std::move(*capability);
  staged.supports = module->SupportsHook(d.object);
  std::string add_ref_failure;
  staged.object = PluginObjectRef::Share(d.object, who_kind, &add_ref_failure);
  if (!staged.object) return Refusal{TEPLUG_INVALID_ARGUMENT, absl::StrCat(who_kind, ": ", add_ref_failure)};
  staged_.push_back(std::move(staged));
  return std::nullopt;
}

}  // namespace teplug::core
