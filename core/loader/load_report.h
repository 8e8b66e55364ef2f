// The load report: what was loaded and what was refused, and why. The kernel
// keeps one entry per built-in, per discovered plugin and per refused
// discovery candidate, and exposes them through its API. Paths, origins and
// reasons come from the file system and from plugins: the loader stores them
// escaped (EscapeUntrustedText), so every text field is one printable line of
// valid UTF-8, and the formatters below escape again (a no-op on escaped text)
// for entries built elsewhere.
#ifndef TEPLUG_CORE_LOADER_LOAD_REPORT_H_
#define TEPLUG_CORE_LOADER_LOAD_REPORT_H_

#include <string>
#include <vector>

namespace teplug::core {

struct LoadReportEntry {
  // The resolved path of the library, the path as given when it could not
  // be resolved, or "built-in"; escaped, for display only.
  std::string path;
  // Where the candidate came from: "config teplug.textproto:7",
  // "TEPLUG_PLUGINS", "TEPLUG_PLUGIN_PATH /dir", "NVTE_PLUGIN", "api",
  // "built-in reference".
  std::string origin;
  bool loaded = false;
  // A config entry marked required: its refusal fails kernel creation.
  bool required = false;
  // The provider name (empty when refused before the plugin named itself).
  std::string provider;
  // Why it was refused; empty when loaded.
  std::string reason;
  // "<interface>/<implementation name>", e.g. "gemm/naive-fp32".
  std::vector<std::string> implementations;
  // Registrations skipped while the plugin still loaded (unknown interface ids).
  std::vector<std::string> skipped;
};

// "plugin <path> (<origin>) refused: <reason>": how a refused plugin is
// named in its WARN line and in errors, wherever it was refused.
std::string RefusalLine(const LoadReportEntry& refused);

// One line per entry, for humans (logs, `teplug list`):
//   loaded  minimal_c from /p/libteplug_minimal_c.so (TEPLUG_PLUGINS): gemm/naive-fp32
//   refused /p/libteplug_bad.so (config t.textproto:3, required): <reason>
// An empty report reads "no plugins or built-in providers".
std::string FormatLoadReport(const std::vector<LoadReportEntry>& entries);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_LOAD_REPORT_H_
