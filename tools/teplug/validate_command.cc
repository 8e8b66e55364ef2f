// `teplug validate FILE`: checks a config without running any op, and
// reports every problem in one pass as file:line:col: message, sorted by
// position: syntax and schema problems, names (interfaces, ops, facts,
// values, with "did you mean"), provider names no loaded provider has, and
// plugins the config names that were refused; then warnings (rules that can
// never match, allow lists that leave an interface with no provider). Exit 0
// when there is no error (warnings alone do not fail).
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/config/config_loader.h"
#include "core/config/plugins_only_config.h"
#include "core/config/provider_validation.h"
#include "core/config/rule_vocabulary.h"
#include "core/log/untrusted_text.h"
#include "tools/teplug/command_parse.h"
#include "tools/teplug/commands.h"
#include "tools/teplug/kernel_flags.h"

namespace teplug::cli {
namespace {

using core::EscapeUntrustedLines;
using core::EscapeUntrustedText;

constexpr char kValidateHelp[] =
    "Usage: teplug validate FILE [--plugin PATH]... [--no-discovery] [--probe on|off]\n"
    "\n"
    "Checks a teplug config (text format, or JSON when the name ends in .json or\n"
    "the text starts with '{') without running any op, and lists every problem\n"
    "as file:line:col: message, in one pass: syntax, unknown fields, bad names\n"
    "and ranges, facts a rule's interfaces do not have, rule conflicts\n"
    "(core/config/README.md lists them), provider names the config mentions that\n"
    "no provider this binary knows has (built-ins, the config's plugins, --plugin,\n"
    "and discovered plugins unless --no-discovery), and plugins named by the\n"
    "config that were refused. Lines marked \"warning:\" are rules that can never\n"
    "match and allow lists that leave an interface with no provider; they do not\n"
    "fail the check. Each plugin is first loaded in a forked child (--probe off\n"
    "skips that): one that crashes or hangs there is a refused plugin, not a\n"
    "crash of this command.\n"
    "\n"
    "Exit status: 0 no error (warnings allowed), 1 errors found, 2 usage error or\n"
    "unreadable file.\n";

// Whether the config's plugin cited by a load report origin
// ("config FILE:LINE") is marked required.
bool RequiredAt(const config::ValidatedConfig& config, absl::string_view origin) {
  int line = 0;
  const size_t colon = origin.rfind(':');
  if (colon == absl::string_view::npos || !absl::SimpleAtoi(origin.substr(colon + 1), &line)) return false;
  for (int i = 0; i < config.proto.plugins_size(); ++i) {
    if (config.proto.plugins(i).required() &&
        config.locations.FindNearest(absl::StrCat("plugins[", i, "]")).line == line) {
      return true;
    }
  }
  return false;
}

// Each loaded provider with the interfaces (config names) it implements.
std::vector<config::ProviderOffer> ProviderOffers(const core::Kernel& kernel) {
  std::vector<config::ProviderOffer> offers;
  for (const core::ProviderListing& provider : kernel.ListProviders()) {
    config::ProviderOffer offer{provider.name, {}};
    for (const core::ImplementationListing& impl : provider.implementations) {
      for (const config::InterfaceVocabulary& entry : config::RuleVocabulary()) {
        if (entry.display_name == impl.interface_name &&
            std::find(offer.interfaces.begin(), offer.interfaces.end(), entry.name) ==
                offer.interfaces.end()) {
          offer.interfaces.push_back(entry.name);
        }
      }
    }
    offers.push_back(std::move(offer));
  }
  return offers;
}

}  // namespace

int ValidateCommand(const std::vector<std::string>& args) {
  FlagSet flags("teplug validate");
  flags.AddRepeated("plugin", "PATH",
                    "also load this plugin library (its provider names count as known)");
  flags.AddBool("no-discovery", "ignore TEPLUG_PLUGINS, TEPLUG_PLUGIN_PATH and NVTE_PLUGIN");
  AddProbeFlag(&flags, ProbeDefault::kOn);
  if (auto done = ParseCommandLine(flags, args, kValidateHelp)) return *done;
  if (flags.positionals().size() != 1) {
    return ReportUsage(
        flags, flags.positionals().empty()
                   ? "name the config file to check: teplug validate FILE"
                   : absl::StrCat("one config file expected, got ", flags.positionals().size()));
  }
  const std::string path = flags.positionals()[0];
  const std::string shown_path = EscapeUntrustedText(path);
  if (access(path.c_str(), R_OK) != 0) {
    std::cerr << "error: cannot read config file \"" << shown_path << "\": " << std::strerror(errno)
              << "; check the path\n";
    return kExitUsage;
  }
  absl::StatusOr<config::ConfigCheck> check = config::CheckConfigFile(path);
  if (!check.ok()) {
    std::cerr << "error: " << EscapeUntrustedLines(check.status().message(), "  ") << "\n";
    return kExitUsage;
  }
  config::ProblemList& found = check->problems;
  std::vector<std::string> refusals;  // one line each, escaped
  if (check->parsed.has_value()) {
    // Provider names are only known once plugins are loaded: start a kernel
    // with the config's plugins (each on its own line, so refusals cite the
    // file's lines; the rest of the config may have errors) and check the
    // whole config against the providers it found.
    absl::StatusOr<core::KernelOptions> options = KernelOptionsFromFlags(flags);
    if (!options.ok()) {
      std::cerr << "error: " << EscapeUntrustedLines(options.status().message(), "  ") << "\n";
      return kExitUsage;
    }
    options->config_text = config::PluginsOnlyConfigText(*check->parsed);
    options->config_source_name = path;
    options->log_level = core::LogLevel::kError;  // problems are printed below, not logged
    absl::StatusOr<std::unique_ptr<core::Kernel>> kernel =
        core::Kernel::Create(*std::move(options));
    if (!kernel.ok()) {
      refusals.push_back(absl::StrCat(shown_path, ": the kernel cannot start with this config: ",
                                      EscapeUntrustedLines(kernel.status().message(), "  ")));
    } else {
      const std::vector<config::ProviderOffer> providers = ProviderOffers(**kernel);
      std::vector<std::string> names;
      for (const config::ProviderOffer& provider : providers) names.push_back(provider.name);
      config::CheckProviderNames(*check->parsed, names, &found);
      config::CheckAllowLists(*check->parsed, providers, config::RuleVocabulary(), &found);
      for (const std::string& line : (*kernel)->UnknownDeviceNames(*check->parsed)) {
        refusals.push_back(EscapeUntrustedText(line));
      }
      for (const core::LoadReportEntry& e : (*kernel)->LoadReport()) {
        if (e.loaded || !absl::StartsWith(e.origin, "config ")) continue;
        refusals.push_back(absl::StrCat(
            EscapeUntrustedText(e.origin.substr(7)), ": plugin ", EscapeUntrustedText(e.path),
            " refused: ", EscapeUntrustedText(e.reason),
            RequiredAt(*check->parsed, e.origin)
                ? "; it is marked required, so teplug refuses to start with this config"
                : ""));
      }
    }
  }
  // ProblemList escapes what it quotes; each line is escaped again in case.
  for (const std::string& line : found.Lines()) std::cout << EscapeUntrustedText(line) << "\n";
  for (const std::string& line : refusals) std::cout << line << "\n";
  const size_t errors = found.num_errors() + refusals.size();
  const size_t warnings = found.num_warnings();
  const std::string warning_count =
      warnings == 0 ? std::string() : absl::StrCat(warnings, warnings == 1 ? " warning" : " warnings");
  if (errors == 0) {
    std::cout << shown_path << ": OK" << (warnings == 0 ? "" : absl::StrCat(" (", warning_count, ")"))
              << "\n";
    return kExitOk;
  }
  std::cout << shown_path << ": " << errors << (errors == 1 ? " problem" : " problems")
            << (warnings == 0 ? "" : absl::StrCat(", ", warning_count)) << "\n";
  return kExitNo;
}

}  // namespace teplug::cli
