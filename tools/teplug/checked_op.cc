#include "tools/teplug/checked_op.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "core/boundary/plugin_call.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cli {
namespace {

// A direct call into the reference implementation: through the plugin call
// boundary like every call into a provider.
TeplugError* CallReference(const core::Selection& ref, const OpCall& call, const void* args) {
  return core::CallPlugin({ref.implementation->QualifiedName(), call.label},
                          [&] { return call.invoke(ref.implementation->object.get(), args); });
}

// Copies of `outputs` for a run whose results must not reach the job's tensors.
std::vector<HostTensor> CopiesOf(const std::vector<HostTensor*>& outputs, const std::string& suffix) {
  std::vector<HostTensor> copies;
  for (const HostTensor* out : outputs) copies.push_back(out->Clone(out->name() + suffix));
  return copies;
}
std::vector<HostTensor*> PointersTo(std::vector<HostTensor>& tensors) {
  std::vector<HostTensor*> out;
  for (HostTensor& t : tensors) out.push_back(&t);
  return out;
}

}  // namespace

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string TimedCallName(int rep) {
  return rep < 0 ? "the warm-up call" : absl::StrCat("timed call ", rep + 1);
}

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

absl::StatusOr<core::Selection> SelectReference(const core::Kernel& kernel, const TeplugIID& iid,
                                                int32_t op, const void* args,
                                                const std::string& label) {
  absl::StatusOr<core::Selection> ref = kernel.Select(iid, op, args, kReferenceProvider);
  if (!ref.ok()) {
    return absl::Status(ref.status().code(),
                        absl::StrCat(label, ": cannot compare with the reference provider: ",
                                     ref.status().message()));
  }
  return ref;
}

absl::StatusOr<OpResult> RunCheckedOp(const core::Kernel& kernel, TeplugObject* dispatcher,
                                      const OpCall& call, Compare compare) {
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
  const std::string& first_choice = record->chosen()->implementation();

  // The reference run writes into copies taken before the provider runs.
  std::vector<HostTensor> copies;
  if (compare == Compare::kReference) copies = CopiesOf(call.outputs, ".reference");

  core::ServedByRecorder served;
  const auto start = std::chrono::steady_clock::now();
  sdk::OwnedError err(call.invoke(dispatcher, call.args));
  r.millis = MillisSince(start);
  if (!err.ok()) {
    return absl::InternalError(
        absl::StrCat(call.label, ": ", first_choice, " failed: ", err.message()));
  }
  r.implementation = served.last().empty() ? first_choice : served.last();
  r.why = r.implementation == first_choice
              ? record->Reason(*record->chosen())
              : absl::StrCat("fallback: the first choice, ", first_choice, ", failed at call time");
  r.served_by_reference = ProviderOf(r.implementation) == kReferenceProvider;
  if (r.served_by_reference || compare == Compare::kNone) return r;

  std::vector<HostTensor*> ref_outputs = PointersTo(copies);
  const void* ref_args = call.rebind(ref_outputs);
  absl::StatusOr<core::Selection> ref =
      SelectReference(kernel, call.iid, call.op, ref_args, call.label);
  if (!ref.ok()) return ref.status();
  sdk::OwnedError ref_err(CallReference(*ref, call, ref_args));
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

absl::StatusOr<OpTiming> TimeOp(const core::Kernel& kernel, TeplugObject* dispatcher,
                                const OpCall& call, Compare compare) {
  std::vector<HostTensor> copies = CopiesOf(call.outputs, ".timed");
  std::vector<HostTensor*> outputs = PointersTo(copies);
  const void* args = call.rebind(outputs);
  std::optional<core::Selection> ref;
  if (compare == Compare::kReference) {
    absl::StatusOr<core::Selection> selected =
        SelectReference(kernel, call.iid, call.op, args, call.label);
    if (!selected.ok()) return selected.status();
    ref = *std::move(selected);
  }
  // One untimed call of each first: a first call may set up state (caches,
  // buffers) that the timed calls should not pay for.
  std::vector<double> provider_millis, reference_millis;
  for (int rep = -1; rep < OpTiming::kTimedReps; ++rep) {
    auto start = std::chrono::steady_clock::now();
    sdk::OwnedError err(call.invoke(dispatcher, args));
    if (rep >= 0) provider_millis.push_back(MillisSince(start));
    if (!err.ok()) {
      return absl::InternalError(absl::StrCat(call.label, ": ", TimedCallName(rep), " failed: ",
                                              err.message()));
    }
    if (!ref) continue;
    start = std::chrono::steady_clock::now();
    sdk::OwnedError ref_err(CallReference(*ref, call, args));
    if (rep >= 0) reference_millis.push_back(MillisSince(start));
    if (!ref_err.ok()) {
      return absl::InternalError(absl::StrCat(call.label, ": ", TimedCallName(rep),
                                              " of the reference provider failed: ",
                                              ref_err.message()));
    }
  }
  OpTiming t;
  t.timed = true;
  t.compared = ref.has_value();
  t.provider_millis = Median(provider_millis);
  t.reference_millis = Median(reference_millis);
  return t;
}

}  // namespace teplug::cli
