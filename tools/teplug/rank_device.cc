#include "tools/teplug/rank_device.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cli {
namespace {

TeplugError* Failure(TeplugCode code, const std::string& message) {
  return sdk::Guard([&] { throw sdk::Exception(code, message); });
}

}  // namespace

OpInvoker OnHost(StagedRun run) {
  return [run = std::move(run)](TeplugObject* object, const void* args) {
    DeviceStaging host(nullptr);
    return run(object, args, &host);
  };
}

std::string UnservedReasons(const core::DecisionRecord& record, const std::string& device) {
  std::vector<std::string> reasons;
  for (const core::CandidateVerdict& c : record.candidates) {
    const std::string rule = record.Rule(c);
    const std::string reason = record.Reason(c);
    // A denial's reason is "denied"; the rule says by what (`config rule
    // "no-fp8" (FILE:LINE)`), unless the reason already names it.
    std::string text = absl::StrCat(c.implementation(), ": ", reason);
    if (!rule.empty() && !absl::StrContains(reason, rule)) absl::StrAppend(&text, " by ", rule);
    reasons.push_back(std::move(text));
  }
  if (reasons.empty()) reasons.push_back("no implementation of the interface is registered");
  return absl::StrCat("nothing serves it on ", device, ": ", absl::StrJoin(reasons, "; "));
}

OpInvoker OnRankDevice(const core::Kernel& kernel, const RankDevice& device,
                       TeplugObject* dispatcher, const TeplugIID& iid, int32_t op,
                       std::string label, TensorsOf tensors, StagedRun run, PlacementLog* log) {
  if (device.on_host()) return OnHost(std::move(run));
  return [&kernel, device, dispatcher, iid, op, label = std::move(label),
          tensors = std::move(tensors), run = std::move(run),
          log](TeplugObject* object, const void* args) -> TeplugError* {
    if (object != dispatcher) return OnHost(run)(object, args);
    {
      DeviceStaging staging(device.where);
      if (std::string e = staging.Stage(tensors(args)); !e.empty()) {
        return Failure(TEPLUG_INTERNAL, absl::StrCat("staging ", label, " on ", device.spelling,
                                                     ": ", e));
      }
      absl::StatusOr<core::DecisionRecord> record = kernel.Explain(iid, op, args);
      if (!record.ok()) {
        return Failure(TEPLUG_INVALID_ARGUMENT,
                       absl::StrCat(label, " on ", device.spelling, ": ", record.status().message()));
      }
      if (record->served()) {
        log->Set(label, {false, record->chosen()->implementation(),
                         record->Reason(*record->chosen())});
        if (TeplugError* err = run(object, args, &staging)) return err;
        if (std::string e = staging.Finish(); !e.empty()) {
          return Failure(TEPLUG_INTERNAL, absl::StrCat(label, " on ", device.spelling, ": ", e));
        }
        return nullptr;
      }
      log->Set(label, {true, "", absl::StrCat("staged to cpu: ",
                                              UnservedReasons(*record, device.spelling))});
    }  // the staging's end points the tensors at host memory again
    return OnHost(run)(object, args);
  };
}

}  // namespace teplug::cli
