#include "tools/teplug/checked_op.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "core/boundary/plugin_call.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cli {

std::string ProviderOf(const std::string& implementation) {
  return implementation.substr(0, implementation.find('/'));
}

OpCall MakeOpCall(std::string step, std::string label, const TeplugIID& iid, int32_t op,
                  const void* args, std::vector<HostTensor*> outputs,
                  double tolerance_vs_reference) {
  OpCall c;
  c.step = std::move(step);
  c.label = std::move(label);
  c.iid = iid;
  c.op = op;
  c.args = args;
  c.outputs = std::move(outputs);
  c.tolerance_vs_reference = tolerance_vs_reference;
  return c;
}

absl::StatusOr<OpResult> RunCheckedOp(const core::Kernel& kernel, TeplugObject* dispatcher,
                                      const OpCall& call) {
  absl::StatusOr<core::DecisionRecord> record = kernel.Explain(call.iid, call.op, call.args);
  if (!record.ok())
    return absl::Status(record.status().code(),
                        absl::StrCat(call.label, ": ", record.status().message()));
  if (!record->served()) {
    return absl::NotFoundError(
        absl::StrCat(call.label, ": no provider can serve it\n", record->Format()));
  }
  OpResult r;
  r.step = call.step;
  r.label = call.label;
  r.interface_name = record->interface_name;
  r.implementation = record->chosen()->implementation();
  r.why = record->Reason(*record->chosen());
  r.chosen_is_reference = ProviderOf(r.implementation) == kReferenceProvider;

  // The reference run writes into copies taken before the chosen provider runs.
  std::vector<HostTensor> copies;
  if (!r.chosen_is_reference) {
    for (const HostTensor* out : call.outputs)
      copies.push_back(out->Clone(out->name() + ".reference"));
  }

  const auto start = std::chrono::steady_clock::now();
  sdk::OwnedError err(call.invoke(dispatcher, call.args));
  r.millis =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!err.ok()) {
    return absl::InternalError(
        absl::StrCat(call.label, ": ", r.implementation, " failed: ", err.message()));
  }
  if (r.chosen_is_reference) return r;

  std::vector<HostTensor*> ref_outputs;
  for (HostTensor& c : copies) ref_outputs.push_back(&c);
  const void* ref_args = call.rebind(ref_outputs);
  absl::StatusOr<core::Selection> ref =
      kernel.Select(call.iid, call.op, ref_args, kReferenceProvider);
  if (!ref.ok()) {
    return absl::Status(ref.status().code(),
                        absl::StrCat(call.label, ": cannot compare with the reference provider: ",
                                     ref.status().message()));
  }
  // A direct call into the reference implementation: through the plugin call
  // boundary like every call into a provider.
  sdk::OwnedError ref_err(core::CallPlugin({ref->implementation->QualifiedName(), call.label},
                                           [&] { return call.invoke(ref->implementation->object.get(), ref_args); }));
  if (!ref_err.ok()) {
    return absl::InternalError(
        absl::StrCat(call.label, ": the reference provider failed: ", ref_err.message()));
  }
  r.vs_reference.oracle = "max_err";
  r.vs_reference.tolerance = call.tolerance_vs_reference;
  for (size_t i = 0; i < call.outputs.size(); ++i) {
    r.vs_reference.error = std::max(
        r.vs_reference.error, NormalizedMaxError(call.outputs[i]->Values(), copies[i].Values()));
  }
  return r;
}

}  // namespace teplug::cli
