// The contract checks of IGemm/1 (RunGemmContractChecks, conformance_gemm.h).
#include <cstring>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/teplug.h"
#include "tools/teplug/conformance_contract.h"
#include "tools/teplug/conformance_gemm.h"
#include "tools/teplug/conformance_gemm_call.h"
#include "tools/teplug/conformance_interface.h"
#include "tools/teplug/conformance_staging.h"
#include "tools/teplug/op_tensors.h"

namespace teplug::cli {

std::vector<std::string> GemmContractCheckNames() {
  return {"refcount",  "error_object", "supports_reason", "refused_op",
          "workspace", "struct_sizes", "threads"};
}

std::vector<std::string> GemmDeviceContractCheckNames() { return {"workspace", "struct_sizes"}; }

std::vector<ContractOutcome> RunGemmContractChecks(const core::Kernel& plugin,
                                                   const std::string& provider,
                                                   const std::vector<std::string>& claims,
                                                   const GemmCase& base, uint64_t seed,
                                                   const std::string& only,
                                                   const CaseDevice* where) {
  std::vector<ContractOutcome> results;
  // Runs the base case on fresh inputs (staged on `where`'s device when
  // given) with `call` making the op; "" and D's values in `d`, or the problem.
  using Call = std::function<std::string(TeplugGemmArgs*, DeviceStaging*)>;
  auto run_base = [&](const Call& call, std::vector<double>* d) -> std::string {
    GemmInputs in = MakeInputs(base, seed);  // not const: staging moves it
    GemmOutputs out = MakeOutputs(base, in);
    TeplugGemmArgs args = ArgsFor(base, in, &out);
    DeviceStaging staging(where);
    if (std::string e = staging.Stage(StagedTensorsOf(args)); !e.empty()) return e;
    if (std::string e = call(&args, &staging); !e.empty()) return e;
    if (std::string e = staging.Finish(); !e.empty()) return e;
    *d = out.d.Values();
    return "";
  };
  absl::StatusOr<core::Selection> s = absl::UnknownError("not selected");
  std::vector<double> want;
  std::string base_problem = run_base(
      [&](TeplugGemmArgs* a, DeviceStaging* staging) -> std::string {
        s = plugin.Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, a, provider);
        if (!s.ok()) {
          return absl::StrCat("the plugin does not serve the base case ", FormatGemmCase(base),
                              ": ", KernelMessageHead(s.status().message()));
        }
        if (std::string e = CallWithWorkspace(GemmOf(*s), *a, staging); !e.empty())
          return absl::StrCat("the base case failed: ", e);
        return "";
      },
      &want);
  TeplugGemmV1* g = s.ok() ? GemmOf(*s) : nullptr;
  const GemmInputs in = MakeInputs(base, seed);
  // For calls made to fail (on host memory): the workspace the base case asked for.
  std::vector<uint8_t> workspace;
  if (g != nullptr && where == nullptr) {
    GemmOutputs out = MakeOutputs(base, in);
    const TeplugGemmArgs args = ArgsFor(base, in, &out);
    size_t bytes = 0;
    if (TakeError(g->vtbl->workspace_size(g, &args, &bytes), "workspace_size").empty())
      workspace.resize(bytes);
  }
  // Runs the base case with `call` making the op; "" when it succeeds with
  // the base case's result.
  auto same_result = [&](const Call& call) {
    std::vector<double> got;
    if (std::string e = run_base(call, &got); !e.empty()) return e;
    return got == want ? std::string() : std::string("the result differs from the first call's");
  };
  const std::vector<std::string> names =
      where == nullptr ? GemmContractCheckNames() : GemmDeviceContractCheckNames();
  for (const std::string& check : names) {
    if (!only.empty() && check != only) continue;
    ContractOutcome o{check, false, ""};
    if (!base_problem.empty()) {
      o.detail = base_problem;
      results.push_back(o);
      continue;
    }
    auto* object = reinterpret_cast<TeplugObject*>(g);
    if (check == "refcount") {
      o.detail = CheckRefcountAround(object, [&] {
        return same_result(
            [&](TeplugGemmArgs* a, DeviceStaging* st) { return CallWithWorkspace(g, *a, st); });
      });
    } else if (check == "error_object") {
      GemmOutputs out = MakeOutputs(base, in);
      TeplugGemmArgs args = WithWorkspace(ArgsFor(base, in, &out), &workspace);
      args.d = nullptr;
      o.detail = CheckErrorObject(g->vtbl->gemm(g, &args), "gemm with d NULL");
    } else if (check == "supports_reason" || check == "refused_op") {
      int32_t undeclared = 0;
      for (int32_t d = 1; d < TEPLUG_DTYPE_COUNT_ && undeclared == 0; ++d)
        if (d != TEPLUG_DTYPE_E8M0 && !HasClaim(claims, Claim("a_dtypes", sdk::DTypeName(d))))
          undeclared = d;
      if (undeclared == 0) {
        o.passed = true;
        o.detail = "every dtype is declared: nothing to refuse";
        results.push_back(o);
        continue;
      }
      HostTensor odd("a", undeclared,
                     {base.trans_a ? base.k : base.m, base.trans_a ? base.m : base.k});
      GemmOutputs out = MakeOutputs(base, in);
      TeplugGemmArgs args = WithWorkspace(ArgsFor(base, in, &out), &workspace);
      args.a = odd.tensor();
      const std::string what =
          absl::StrCat("a gemm with an undeclared a dtype (", sdk::DTypeName(undeclared), ")");
      o.detail = check == "supports_reason"
                     ? CheckSupportsReason(g->vtbl->supports, object, TEPLUG_OP_GEMM, &args, what)
                     : CheckRefused(g->vtbl->gemm(g, &args), what);
    } else if (check == "workspace") {
      o.detail = same_result(
          [&](TeplugGemmArgs* a, DeviceStaging* st) { return CallWithWorkspace(g, *a, st); });
      if (!o.detail.empty())
        o.detail = absl::StrCat("with exactly the workspace it asked for: ", o.detail);
    } else if (check == "struct_sizes") {
      const size_t v1 = TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream);
      o.detail = same_result([&](TeplugGemmArgs* a, DeviceStaging* st) {
        a->struct_size = v1;
        return CallWithWorkspace(g, *a, st);
      });
      if (!o.detail.empty()) {
        o.detail = absl::StrCat("args with struct_size ", v1, " (v1.0): ", o.detail);
      } else {
        o.detail = same_result([&](TeplugGemmArgs* a, DeviceStaging* st) {
          // A newer host's larger args, the extra bytes zero.
          std::vector<uint8_t> bigger(sizeof(TeplugGemmArgs) + 64, 0);
          a->struct_size = bigger.size();
          std::memcpy(bigger.data(), a, sizeof *a);
          size_t bytes = 0;
          auto* big = reinterpret_cast<TeplugGemmArgs*>(bigger.data());
          if (std::string e = TakeError(g->vtbl->workspace_size(g, big, &bytes), "workspace_size");
              !e.empty())
            return e;
          if (std::string e = st->Workspace(bytes, &big->workspace); !e.empty()) return e;
          big->workspace_size = bytes;
          big->stream = st->stream();
          return TakeError(g->vtbl->gemm(g, big), "gemm");
        });
        if (!o.detail.empty())
          o.detail = absl::StrCat("args with struct_size ", sizeof(TeplugGemmArgs) + 64,
                                  " (zero-padded): ", o.detail);
      }
    } else if (check == "threads") {
      // A larger case, so that calls overlap: each takes long enough for
      // the other threads to start.
      GemmCase big = base;
      big.m = big.n = 128;
      const GemmInputs big_in = MakeInputs(big, seed);
      GemmOutputs single = MakeOutputs(big, big_in);
      o.detail = CallWithWorkspace(g, ArgsFor(big, big_in, &single));
      const std::vector<double> single_result = single.d.Values();
      if (o.detail.empty()) {
        o.detail = CheckConcurrentCalls([&] {
          GemmOutputs out = MakeOutputs(big, big_in);
          if (std::string e = CallWithWorkspace(g, ArgsFor(big, big_in, &out)); !e.empty())
            return e;
          return out.d.Values() == single_result
                     ? std::string()
                     : std::string("the result differs from the single-threaded call's");
        });
      }
    }
    o.passed = o.detail.empty();
    results.push_back(o);
  }
  return results;
}

}  // namespace teplug::cli
