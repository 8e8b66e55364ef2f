#include "tools/teplug/run_devices.h"

#include "absl/strings/str_cat.h"
#include "teplug/sdk/iids.hpp"
#include "tools/teplug/device_spec.h"

namespace teplug::cli {

absl::StatusOr<RankDevices> OpenRankDevices(const core::Kernel& kernel, const FlagSet& flags,
                                            int ranks) {
  const core::DeviceNames& names = *kernel.DeviceNaming();
  const bool per_rank = flags.IsSet("devices");
  if (per_rank && flags.IsSet("device")) {
    return absl::InvalidArgumentError(
        "--device and --devices both given: --device puts every rank on one device, --devices "
        "gives one per rank; use one");
  }
  std::vector<TeplugDevice> wanted;
  if (per_rank) {
    absl::StatusOr<std::vector<TeplugDevice>> list =
        ParseDeviceList(flags.GetString("devices"), ranks, names);
    if (!list.ok()) return list.status();
    wanted = *list;
  } else {
    absl::StatusOr<TeplugDevice> one = ParseDevice(flags.GetString("device"), names);
    if (!one.ok()) return one.status();
    wanted.assign(static_cast<size_t>(ranks), *one);
  }
  RankDevices out;
  bool any_device = false;
  for (const TeplugDevice& d : wanted) any_device = any_device || d.kind != TEPLUG_DEVICE_CPU;
  if (!per_rank && !any_device) return out;

  const core::DeviceListing served = kernel.ListDevices();
  sdk::Ref<TeplugDeviceV1>& idevice = out.idevice;
  for (size_t rank = 0; rank < wanted.size(); ++rank) {
    const TeplugDevice& d = wanted[rank];
    RankDevice rd;
    rd.spelling = DeviceSpelling(d, names);
    if (d.kind == TEPLUG_DEVICE_CPU) {
      out.ranks.push_back(rd);
      out.description.push_back(absl::StrCat("rank ", rank, ": ", rd.spelling, " (host memory)"));
      continue;
    }
    for (const auto& opened : out.opened) {
      if (opened->spelling == rd.spelling) rd.where = opened.get();
    }
    const core::ServedDevice* listed = nullptr;
    for (const core::ServedDevice& s : served.devices) {
      if (s.device.kind == d.kind && s.device.ordinal == d.ordinal) listed = &s;
    }
    if (rd.where == nullptr) {
      // Opened even when no IDevice lists it: the open then fails with the
      // device's own reason (a CUDA driver's error without a GPU).
      if (!idevice) idevice = kernel.Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
      const TeplugDevice& device = listed != nullptr ? listed->device : d;
      std::unique_ptr<sdk::DeviceContext> ctx;
      sdk::OwnedError e =
          idevice ? sdk::DeviceContext::Open(idevice.get(), device, &ctx) : sdk::OwnedError();
      if (!idevice || e) {
        return absl::UnavailableError(absl::StrCat(
            "cannot open rank ", rank, "'s device ", rd.spelling, ": ",
            idevice ? e.message() : "the kernel serves no IDevice",
            listed != nullptr ? ""
                              : " (no IDevice of the loaded providers lists it: is its plugin "
                                "loaded? --plugin PATH; `teplug list` shows the devices)"));
      }
      auto where = std::make_unique<CaseDevice>();
      where->ctx = ctx.get();
      where->device = device;
      where->spelling = rd.spelling;
      rd.where = where.get();
      out.contexts.push_back(std::move(ctx));
      out.opened.push_back(std::move(where));
    }
    out.ranks.push_back(rd);
    out.description.push_back(absl::StrCat(
        "rank ", rank, ": ", rd.spelling, " \"", listed != nullptr ? listed->name : "", "\" through ",
        listed != nullptr ? listed->implementation : "IDevice",
        "; an op no provider serves there is staged to cpu"));
  }
  return out;
}

}  // namespace teplug::cli
