#include "core/loader/discovery.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/log/untrusted_text.h"

namespace teplug::core {
namespace {

// The realpath of `path`, or the system's reason it has none.
std::optional<std::string> Resolve(const std::string& path, std::string* reason) {
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) == nullptr) {
    *reason = absl::StrCat("cannot resolve ", path, ": ", std::strerror(errno));
    return std::nullopt;
  }
  return std::string(buffer);
}

// Directory of the config file, for resolving its relative plugin paths.
std::string ConfigDirectory(const std::string& source_name) {
  const size_t slash = source_name.find_last_of('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : source_name.substr(0, slash);
}

std::vector<std::string> SplitList(const std::string& value) {
  return absl::StrSplit(value, ':', absl::SkipWhitespace());
}

// Collects the raw (unresolved) candidates in discovery order. A directory
// that cannot be read is kept in that order too, as a ready-made refusal.
class CandidateList {
 public:
  struct Raw {
    PluginCandidate candidate;
    std::string refusal;  // non-empty: refused without resolving
  };
  void Add(std::string path, std::string origin, bool required = false, std::string sha256 = "",
           bool probe = false) {
    list.push_back({{std::move(path), std::move(origin), required, std::move(sha256), probe}, ""});
  }
  void AddRefusal(std::string path, std::string origin, std::string reason) {
    list.push_back({{std::move(path), std::move(origin)}, std::move(reason)});
  }
  std::vector<Raw> list;
};

void AddConfigEntries(const config::ConfigSnapshot& config, CandidateList* out) {
  const config::ValidatedConfig& validated = config.config();
  const std::string dir = ConfigDirectory(validated.source_name);
  for (int i = 0; i < validated.proto.plugins_size(); ++i) {
    const config::Plugin& plugin = validated.proto.plugins(i);
    std::string path = plugin.path();
    if (!path.empty() && path[0] != '/' && !dir.empty()) path = absl::StrCat(dir, "/", path);
    const config::SourcePosition at =
        validated.locations.FindNearest(absl::StrCat("plugins[", i, "]"));
    out->Add(std::move(path), absl::StrCat("config ", validated.source_name, ":", at.line),
             plugin.required(), plugin.sha256(), plugin.probe());
  }
}

void AddDirectory(const std::string& dir, CandidateList* out) {
  const std::string origin = absl::StrCat("TEPLUG_PLUGIN_PATH ", dir);
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    out->AddRefusal(dir, origin,
                    absl::StrCat("cannot read plugin directory ", dir, ": ", std::strerror(errno)));
    return;
  }
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(d)) {
    absl::string_view name = entry->d_name;
    if (absl::StartsWith(name, "libteplug_") && absl::EndsWith(name, ".so")) {
      names.emplace_back(name);
    }
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) out->Add(absl::StrCat(dir, "/", name), origin);
}

// TransformerEngine reads NVTE_PLUGIN as the name of a Python module to
// import; teplug reads it as a library only when it names a path: it
// contains '/' or ends in ".so".
bool NamesLibraryPath(absl::string_view value) {
  return absl::StrContains(value, '/') || absl::EndsWith(value, ".so");
}

void AddEnvironmentEntries(const EnvLookup& env, CandidateList* out, const Logger* logger) {
  const std::optional<std::string> plugins = env("TEPLUG_PLUGINS");
  if (plugins.has_value() && *plugins == "none") return;
  if (plugins.has_value()) {
    for (std::string& path : SplitList(*plugins)) out->Add(std::move(path), "TEPLUG_PLUGINS");
  }
  if (std::optional<std::string> dirs = env("TEPLUG_PLUGIN_PATH"); dirs.has_value()) {
    for (const std::string& dir : SplitList(*dirs)) AddDirectory(dir, out);
  }
  if (std::optional<std::string> nvte = env("NVTE_PLUGIN"); nvte.has_value() && !nvte->empty()) {
    if (NamesLibraryPath(*nvte)) {
      out->Add(*nvte, "NVTE_PLUGIN");
    } else if (logger != nullptr) {
      logger->Log(LogLevel::kDebug,
                  absl::StrCat("NVTE_PLUGIN=", EscapeUntrustedText(*nvte),
                               " is not a library path (no '/' and no .so suffix); left to "
                               "TransformerEngine's Python loader"));
    }
  }
}

}  // namespace

LoadReportEntry RefusedEntry(const PluginCandidate& candidate, std::string reason) {
  LoadReportEntry e;
  e.path = EscapeUntrustedText(candidate.path);
  e.origin = EscapeUntrustedText(candidate.origin);
  e.required = candidate.required;
  e.reason = EscapeUntrustedText(reason);
  return e;
}

EnvLookup SecureEnv() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = ::secure_getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::vector<PluginCandidate> DiscoverPlugins(const config::ConfigSnapshot* config,
                                             const std::vector<PluginCandidate>& from_api,
                                             const EnvLookup& env,
                                             std::vector<LoadReportEntry>* refused,
                                             const std::shared_ptr<Logger>& logger) {
  std::vector<LoadReportEntry> refusals;
  CandidateList raw;
  if (config != nullptr) AddConfigEntries(*config, &raw);
  for (const PluginCandidate& c : from_api) {
    raw.Add(c.path, c.origin.empty() ? "api" : c.origin, c.required, c.sha256, c.probe);
  }
  AddEnvironmentEntries(env, &raw, logger.get());

  std::vector<PluginCandidate> out;
  std::vector<bool> pin_conflict;
  absl::flat_hash_map<std::string, size_t> index_of;  // resolved path -> index in out
  for (CandidateList::Raw& r : raw.list) {
    PluginCandidate& c = r.candidate;
    if (!r.refusal.empty()) {
      refusals.push_back(RefusedEntry(c, std::move(r.refusal)));
      continue;
    }
    std::string reason;
    std::optional<std::string> resolved = Resolve(c.path, &reason);
    if (!resolved.has_value()) {
      refusals.push_back(RefusedEntry(c, std::move(reason)));
      continue;
    }
    auto [it, inserted] = index_of.emplace(*resolved, out.size());
    if (inserted) {
      c.path = *resolved;
      out.push_back(std::move(c));
      pin_conflict.push_back(false);
      continue;
    }
    PluginCandidate& first = out[it->second];
    first.required = first.required || c.required;
    first.probe = first.probe || c.probe;
    if (first.sha256.empty()) {
      first.sha256 = c.sha256;
    } else if (!c.sha256.empty() && !absl::EqualsIgnoreCase(first.sha256, c.sha256)) {
      pin_conflict[it->second] = true;
    }
  }

  std::vector<PluginCandidate> candidates;
  for (size_t i = 0; i < out.size(); ++i) {
    if (pin_conflict[i]) {
      refusals.push_back(RefusedEntry(
          out[i], absl::StrCat("listed more than once with different sha256 pins (first ",
                               out[i].sha256, ")")));
    } else {
      candidates.push_back(std::move(out[i]));
    }
  }
  for (LoadReportEntry& e : refusals) {
    if (logger != nullptr) {
      logger->Log(LogLevel::kWarn, RefusalLine(e));
    }
    if (refused != nullptr) refused->push_back(std::move(e));
  }
  return candidates;
}

}  // namespace teplug::core
