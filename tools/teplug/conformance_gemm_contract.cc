// The contract checks of IGemm/1 (RunGemmContractChecks, conformance_gemm.h).
#include <cstring>
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

namespace teplug::cli {

std::vector<std::string> GemmContractCheckNames() {
  return {"refcount",  "error_object", "supports_reason", "refused_op",
          "workspace", "struct_sizes", "threads"};
}

std::vector<ContractOutcome> RunGemmContractChecks(const core::Kernel& plugin,
                                                   const std::string& provider,
                                                   const std::vector<std::string>& claims,
                                                   const GemmCase& base, uint64_t seed,
                                                   const std::string& only) {
  std::vector<ContractOutcome> results;
  const GemmInputs in = MakeInputs(base, seed);
  GemmOutputs first = MakeOutputs(base, in);
  const TeplugGemmArgs first_args = ArgsFor(base, in, &first);
  absl::StatusOr<core::Selection> s =
      plugin.Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, &first_args, provider);
  std::string base_problem;
  if (!s.ok()) {
    base_problem = absl::StrCat("the plugin does not serve the base case ", FormatGemmCase(base),
                                ": ", KernelMessageHead(s.status().message()));
  } else if (std::string e = CallWithWorkspace(GemmOf(*s), first_args); !e.empty()) {
    base_problem = absl::StrCat("the base case failed: ", e);
  }
  TeplugGemmV1* g = s.ok() ? GemmOf(*s) : nullptr;
  // For calls made to fail: the workspace the base case asked for.
  std::vector<uint8_t> workspace;
  if (g != nullptr) {
    size_t bytes = 0;
    if (TakeError(g->vtbl->workspace_size(g, &first_args, &bytes), "workspace_size").empty())
      workspace.resize(bytes);
  }
  const std::vector<double> want = first.d.Values();
  // Runs the base case with `edit` applied to fresh args; "" when it
  // succeeds with the base case's result.
  auto same_result = [&](const std::function<std::string(TeplugGemmArgs*, GemmOutputs*)>& run) {
    GemmOutputs out = MakeOutputs(base, in);
    TeplugGemmArgs args = ArgsFor(base, in, &out);
    if (std::string e = run(&args, &out); !e.empty()) return e;
    return out.d.Values() == want ? std::string()
                                  : std::string("the result differs from the first call's");
  };
  for (const std::string& check : GemmContractCheckNames()) {
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
            [&](TeplugGemmArgs* a, GemmOutputs*) { return CallWithWorkspace(g, *a); });
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
      o.detail =
          same_result([&](TeplugGemmArgs* a, GemmOutputs*) { return CallWithWorkspace(g, *a); });
      if (!o.detail.empty())
        o.detail = absl::StrCat("with exactly the workspace it asked for: ", o.detail);
    } else if (check == "struct_sizes") {
      const size_t v1 = TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream);
      o.detail = same_result([&](TeplugGemmArgs* a, GemmOutputs*) {
        a->struct_size = v1;
        return CallWithWorkspace(g, *a);
      });
      if (!o.detail.empty()) {
        o.detail = absl::StrCat("args with struct_size ", v1, " (v1.0): ", o.detail);
      } else {
        o.detail = same_result([&](TeplugGemmArgs* a, GemmOutputs*) {
          // A newer host's larger args, the extra bytes zero.
          std::vector<uint8_t> bigger(sizeof(TeplugGemmArgs) + 64, 0);
          a->struct_size = bigger.size();
          std::memcpy(bigger.data(), a, sizeof *a);
          size_t bytes = 0;
          auto* big = reinterpret_cast<TeplugGemmArgs*>(bigger.data());
          if (std::string e = TakeError(g->vtbl->workspace_size(g, big, &bytes), "workspace_size");
              !e.empty())
            return e;
          std::vector<uint8_t> workspace(bytes);
          big->workspace = bytes == 0 ? nullptr : workspace.data();
          big->workspace_size = bytes;
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
