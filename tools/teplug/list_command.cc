// `teplug list`: every provider with its implementations, and every refused
// plugin with the reason, as a table or (--json) for machines.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/kernel/device_names.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/plugin.hpp"
#include "tools/teplug/command_parse.h"
#include "tools/teplug/commands.h"
#include "tools/teplug/json_writer.h"
#include "tools/teplug/kernel_flags.h"

namespace teplug::cli {
namespace {

using core::EscapeUntrustedText;

constexpr char kListHelp[] =
    "Usage: teplug list [--json] [--config FILE] [--plugin PATH]...\n"
    "\n"
    "Lists every provider this kernel loaded (name, vendor, version, ABI range,\n"
    "built-in or plugin path), its implementations per interface with priority\n"
    "and every field of their capability descriptors (devices, dtypes, layouts,\n"
    "masks, epilogues, features, limits such as max_dim: one line each, named as\n"
    "in the interface's header; a limit of 0 says what 0 means), every plugin\n"
    "that was refused, with the reason, and the devices the device\n"
    "implementations (IDevice) serve: device, implementation, name, memory, and\n"
    "whether host pointers are usable. --json gives each descriptor as\n"
    "\"capability_fields\": {field: [names] for a set, a number for a limit}, and\n"
    "the devices as \"devices\". Plugins come from the config, --plugin, and the environment\n"
    "(TEPLUG_PLUGINS, TEPLUG_PLUGIN_PATH, NVTE_PLUGIN) unless --no-discovery.\n"
    "Text that came from a plugin or the file system (vendor, version, paths,\n"
    "reasons) is printed escaped: control characters and bytes that are not\n"
    "well-formed UTF-8 appear as \\xNN, in the table and in the JSON strings\n"
    "(where a decoder yields the four characters \\xNN), so --json output is\n"
    "always valid UTF-8.\n"
    "Each plugin is first loaded in a forked child (--probe off skips that), so a\n"
    "plugin that crashes or hangs is listed as refused with the reason.\n"
    "Exit status: 0, or 2 when the kernel cannot start (bad config, required plugin refused).\n";

// "1.0", or "1.0-1.3" for a provider that spans several ABI versions.
std::string AbiRange(uint32_t min, uint32_t max) {
  if (min == max) return sdk::AbiVersionString(min);
  return absl::StrCat(sdk::AbiVersionString(min), "-", sdk::AbiVersionString(max));
}

std::string PriorityText(const core::ImplementationListing& i) {
  if (!i.config_priority) return absl::StrCat(i.default_priority);
  return absl::StrCat(*i.config_priority, " (config; default ", i.default_priority, ")");
}

// "cpu:0  reference/cpu  "host CPU (16 threads)"  24.0 GiB  host pointers usable".
void PrintDevices(const core::DeviceListing& devices, const core::DeviceNames& names) {
  std::cout << "devices (" << devices.devices.size() << ")\n";
  for (const core::ServedDevice& d : devices.devices) {
    std::cout << absl::StrFormat("  %s  %s  \"%s\"  %s%s\n", EscapeUntrustedText(names.Label(d.device)),
                                 d.implementation, EscapeUntrustedText(d.name),
                                 d.memory_bytes == 0 ? std::string("memory unknown")
                                                     : absl::StrFormat("%.1f GiB", d.memory_bytes / 1073741824.0),
                                 d.host_pointers_usable ? "  host pointers usable" : "");
  }
  for (const std::string& p : devices.problems) std::cout << "  could not enumerate: " << EscapeUntrustedText(p) << "\n";
}

void WriteDevicesJson(const core::DeviceListing& devices, const core::DeviceNames& names, JsonWriter& j) {
  j.Key("devices");
  j.BeginArray();
  for (const core::ServedDevice& d : devices.devices) {
    j.BeginObject();
    j.Key("device");
    j.String(names.Label(d.device));
    j.Key("kind");
    j.String(names.KindSpelling(d.device.kind));
    j.Key("ordinal");
    j.Int(d.device.ordinal);
    j.Key("vendor");
    j.String(names.VendorSpelling(d.device.vendor_id));
    j.Key("arch");
    j.Int(d.device.arch);
    j.Key("implementation");
    j.String(d.implementation);
    j.Key("name");
    j.String(d.name);
    j.Key("memory_bytes");
    j.Int(static_cast<int64_t>(d.memory_bytes));
    j.Key("host_pointers_usable");
    j.Bool(d.host_pointers_usable);
    j.EndObject();
  }
  j.EndArray();
  j.Key("device_problems");
  j.BeginArray();
  for (const std::string& p : devices.problems) j.String(p);
  j.EndArray();
}

void PrintTable(const std::vector<core::ProviderListing>& providers,
                const std::vector<core::LoadReportEntry>& refused) {
  std::cout << "providers (" << providers.size() << ")\n";
  for (const core::ProviderListing& p : providers) {
    std::cout << absl::StrFormat("  %s  vendor \"%s\"  version %s  ABI %s  %s%s\n",
                                 EscapeUntrustedText(p.name), EscapeUntrustedText(p.vendor),
                                 EscapeUntrustedText(p.version), AbiRange(p.abi_min, p.abi_max),
                                 p.builtin ? "built-in"
                                           : absl::StrCat("plugin ", EscapeUntrustedText(p.source)),
                                 p.enabled ? "" : "  DISABLED by config");
    if (!p.declared_names.empty()) {
      std::cout << "    names: " << EscapeUntrustedText(absl::StrJoin(p.declared_names, ", ")) << "\n";
    }
    size_t wi = 0, wn = 0;
    for (const auto& i : p.implementations) {
      wi = std::max(wi, i.interface_name.size());
      wn = std::max(wn, i.name.size());
    }
    for (const auto& i : p.implementations) {
      std::cout << absl::StrFormat("    %-*s  %-*s  priority %s\n", static_cast<int>(wi),
                                   i.interface_name, static_cast<int>(wn), i.name, PriorityText(i));
      size_t wf = 0;
      for (const core::CapabilityField& f : i.capability_fields) wf = std::max(wf, f.name.size());
      for (const core::CapabilityField& f : i.capability_fields) {
        std::cout << absl::StrFormat("      %-*s  %s\n", static_cast<int>(wf + 1), f.name + ":",
                                     EscapeUntrustedText(f.Text()));
      }
    }
    if (p.implementations.empty()) std::cout << "    (no implementations)\n";
  }
  std::cout << "refused plugins (" << refused.size() << ")\n";
  for (const core::LoadReportEntry& e : refused) {
    std::cout << "  " << EscapeUntrustedText(e.path) << " (" << EscapeUntrustedText(e.origin)
              << (e.required ? ", required" : "") << "): " << EscapeUntrustedText(e.reason) << "\n";
  }
}

void PrintJson(const std::vector<core::ProviderListing>& providers,
               const std::vector<core::LoadReportEntry>& refused, const core::DeviceListing& devices,
               const core::DeviceNames& names) {
  JsonWriter j;
  j.BeginObject();
  WriteDevicesJson(devices, names, j);
  j.Key("providers");
  j.BeginArray();
  for (const core::ProviderListing& p : providers) {
    j.BeginObject();
    j.Key("name");
    j.String(p.name);
    j.Key("vendor");
    j.String(p.vendor);
    j.Key("version");
    j.String(p.version);
    j.Key("abi_min");
    j.String(sdk::AbiVersionString(p.abi_min));
    j.Key("abi_max");
    j.String(sdk::AbiVersionString(p.abi_max));
    j.Key("builtin");
    j.Bool(p.builtin);
    j.Key("source");
    j.String(p.source);
    j.Key("enabled");
    j.Bool(p.enabled);
    j.Key("declared_names");
    j.BeginArray();
    for (const std::string& n : p.declared_names) j.String(n);
    j.EndArray();
    j.Key("implementations");
    j.BeginArray();
    for (const auto& i : p.implementations) {
      j.BeginObject();
      j.Key("interface");
      j.String(i.interface_name);
      j.Key("name");
      j.String(i.name);
      j.Key("default_priority");
      j.Int(i.default_priority);
      j.Key("config_priority");
      if (i.config_priority) {
        j.Int(*i.config_priority);
      } else {
        j.Null();
      }
      j.Key("capability");
      j.String(i.capability_summary);
      j.Key("capability_fields");
      j.BeginObject();
      for (const core::CapabilityField& f : i.capability_fields) {
        j.Key(f.name);
        if (f.is_set) {
          j.BeginArray();
          for (const std::string& m : f.members) j.String(m);
          j.EndArray();
        } else {
          j.Int(f.number);
        }
      }
      j.EndObject();
      j.EndObject();
    }
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
  j.Key("refused");
  j.BeginArray();
  for (const core::LoadReportEntry& e : refused) {
    j.BeginObject();
    j.Key("path");
    j.String(e.path);
    j.Key("origin");
    j.String(e.origin);
    j.Key("required");
    j.Bool(e.required);
    j.Key("provider");
    j.String(e.provider);
    j.Key("reason");
    j.String(e.reason);
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
  std::cout << j.str();
}

}  // namespace

int ListCommand(const std::vector<std::string>& args) {
  FlagSet flags("teplug list");
  flags.AddBool("json", "print JSON instead of a table");
  AddKernelFlags(&flags, ProbeDefault::kOn);
  if (auto done = ParseCommandLine(flags, args, kListHelp)) return *done;
  if (!flags.positionals().empty()) {
    return ReportUsage(flags, absl::StrCat("`teplug list` takes no arguments, got \"",
                                           flags.positionals()[0], "\""));
  }
  absl::StatusOr<std::unique_ptr<core::Kernel>> kernel = CreateKernelFromFlags(flags);
  if (!kernel.ok()) {
    std::cerr << "error: " << core::EscapeUntrustedLines(kernel.status().message(), "  ") << "\n";
    return kExitUsage;
  }
  std::vector<core::LoadReportEntry> refused;
  for (core::LoadReportEntry& e : (*kernel)->LoadReport()) {
    if (!e.loaded) refused.push_back(std::move(e));
  }
  const core::DeviceListing devices = (*kernel)->ListDevices();
  const std::shared_ptr<const core::DeviceNames> names = (*kernel)->DeviceNaming();
  if (flags.GetBool("json")) {
    PrintJson((*kernel)->ListProviders(), refused, devices, *names);
  } else {
    PrintTable((*kernel)->ListProviders(), refused);
    PrintDevices(devices, *names);
  }
  return kExitOk;
}

}  // namespace teplug::cli
