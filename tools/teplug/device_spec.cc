#include "tools/teplug/device_spec.h"

#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cli {

absl::StatusOr<TeplugDevice> ParseDevice(const std::string& text, const core::DeviceNames& names,
                                         const std::string& flag) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  std::vector<std::string> parts = absl::StrSplit(text, ':');
  if (std::optional<int32_t> kind = names.ResolveKind(parts[0])) {
    d.kind = *kind;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("bad value \"", text, "\" for ", flag,
                                                   ": expected cpu, cuda, opencl, a "
                                                   "vendor kind number >= 1024 or a kind a loaded "
                                                   "provider names (declared: ",
                                                   names.DeclaredKindList(),
                                                   "), optionally with :ORDINAL (e.g. cuda:1)"));
  }
  if (parts.size() > 2 ||
      (parts.size() == 2 && (!absl::SimpleAtoi(parts[1], &d.ordinal) || d.ordinal < 0))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad value \"", text, "\" for ", flag, ": the ordinal after ':' must be a number >= 0"));
  }
  return d;
}

absl::StatusOr<std::vector<TeplugDevice>> ParseDeviceList(const std::string& text, int ranks,
                                                          const core::DeviceNames& names) {
  const std::vector<std::string> entries = absl::StrSplit(text, ',');
  if (static_cast<int>(entries.size()) != ranks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--devices \"", text, "\" names ", entries.size(), " device",
        entries.size() == 1 ? "" : "s", " but --ranks is ", ranks,
        ": give one device per rank (e.g. --ranks 2 --devices cpu,opencl:0), or --device for "
        "one device on every rank"));
  }
  std::vector<TeplugDevice> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--devices \"", text, "\": entry ", i + 1,
                                                     " (rank ", i, ") is empty"));
    }
    absl::StatusOr<TeplugDevice> d =
        ParseDevice(entries[i], names, absl::StrCat("--devices entry ", i + 1, " (rank ", i, ")"));
    if (!d.ok()) return d.status();
    out.push_back(*d);
  }
  return out;
}

std::string DeviceSpelling(const TeplugDevice& device, const core::DeviceNames& names) {
  return absl::StrCat(names.KindSpelling(device.kind), ":", device.ordinal);
}

}  // namespace teplug::cli
