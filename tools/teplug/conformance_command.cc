// `teplug conformance PLUGIN.so`: loads a plugin (pre-flight probe first,
// then in-process, in a kernel of its own) beside the built-in reference
// provider (in another kernel: the oracle), runs the contract checks on each
// implementation it registers and the numerics of every capability it
// declares against the reference, and reports pass / FAIL / not checked /
// not declared per interface and capability, with a command line that
// re-runs each failure.
#include <unistd.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/kernel/kernel.h"
#include "core/log/untrusted_text.h"
#include "tools/teplug/command_parse.h"
#include "tools/teplug/commands.h"
#include "tools/teplug/conformance_gemm.h"
#include "tools/teplug/conformance_report.h"
#include "tools/teplug/tolerances.h"

namespace teplug::cli {
namespace {

constexpr char kConformanceHelp[] =
    "Usage: teplug conformance PLUGIN.so [--json] [--quick] [--interface NAME]\n"
    "                          [--case CASE | --check NAME] [--seed N]\n"
    "\n"
    "Proves a plugin right, for its vendor. The plugin is loaded first in a forked\n"
    "child (the pre-flight probe: a plugin that crashes or hangs is reported, not\n"
    "followed), then in-process in a kernel of its own, beside the built-in\n"
    "reference provider (the oracle). For each implementation it registers:\n"
    "\n"
    "  contract  refcount (a call keeps no reference; release decrements),\n"
    "            error_object (a failing call's error is well formed),\n"
    "            supports_reason (supports says why when it says no),\n"
    "            refused_op (what the descriptor does not declare is answered\n"
    "            unsupported or invalid_argument), workspace (the op succeeds with\n"
    "            exactly the workspace it asked for), struct_sizes (v1.0-sized and\n"
    "            larger zero-padded args both work, with the same result),\n"
    "            threads (4 threads calling at once get the single-threaded result)\n"
    "  numerics  every capability it declares (read from its descriptor as\n"
    "            `teplug list` shows it): one case per dtype, epilogue and scaling\n"
    "            mode, plus sampled combinations (fewer with --quick), each run on\n"
    "            random non-zero inputs through the plugin and the reference, the\n"
    "            outputs compared with the tolerances below (max |x - ref| / max |ref|)\n"
    "\n"
    "Covered today: IGemm/1 on host memory (dtypes fp32, fp16, bf16, fp8_e4m3,\n"
    "fp8_e5m2 operands; fp32, fp16, bf16 outputs; bias, gelu, gelu_aux,\n"
    "accumulate; per_tensor and mxfp8_1d32 scaling). Everything else a plugin\n"
    "declares (fp4 operands, fp8 outputs, block scaling, other interfaces, devices\n"
    "other than the CPU) is reported \"not checked\", never as passing.\n"
    "\n"
    "Each failure prints the command that re-runs exactly that case\n"
    "(--case '<case>' --seed N) or check (--check NAME --seed N).\n"
    "On a terminal, progress (cases done of total, current capability) goes to\n"
    "stderr; --json writes only the report.\n"
    "Exit status: 0 when no check failed, 1 when one did (or the plugin was\n"
    "refused), 2 for a usage error.\n";

// "gemm" for "IGemm/1".
std::string ShortInterfaceName(const std::string& listing_name) {
  std::string s = listing_name.substr(0, listing_name.find('/'));
  if (!s.empty() && s[0] == 'I') s = s.substr(1);
  return absl::AsciiStrToLower(s);
}

// Shell single-quoted.
std::string Quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Progress on stderr when it is a terminal and the output is not --json.
class Progress {
 public:
  Progress(bool enabled, int total) : enabled_(enabled && isatty(STDERR_FILENO)), total_(total) {}
  ~Progress() {
    if (enabled_) std::cerr << "\r\x1b[K" << std::flush;
  }
  void Step(const std::string& what) {
    ++done_;
    if (enabled_)
      std::cerr << "\r\x1b[K" << absl::StrFormat("[%d/%d] %s", done_, total_, what) << std::flush;
  }

 private:
  bool enabled_;
  int total_, done_ = 0;
};

// The plugin's kernel: the plugin only, probed first, no environment.
absl::StatusOr<std::unique_ptr<core::Kernel>> PluginKernel(const std::string& path) {
  core::KernelOptions o;
  o.load_builtins = false;
  o.use_environment = false;
  o.plugin_paths = {path};
  o.probe_plugins = true;
  o.log_level = core::LogLevel::kError;
  return core::Kernel::Create(std::move(o));
}

// The oracle: the built-in reference provider only.
absl::StatusOr<std::unique_ptr<core::Kernel>> OracleKernel() {
  core::KernelOptions o;
  o.use_environment = false;
  o.log_level = core::LogLevel::kError;
  return core::Kernel::Create(std::move(o));
}

struct Options {
  std::string plugin, interface_name, only_case, only_check;
  bool quick = false, json = false;
  uint64_t seed = 1;
};

std::string ReproduceCommand(const Options& opt, const std::string& what, uint64_t seed) {
  return absl::StrCat("teplug conformance ", Quoted(opt.plugin), " --interface gemm ", what,
                      " --seed ", seed);
}

// Contract and numerics rows of one GEMM implementation.
void CheckGemm(const Options& opt, const core::Kernel& plugin, const core::Kernel& oracle,
               const core::ProviderListing& provider, const core::ImplementationListing& impl,
               std::vector<ConformanceRow>* rows) {
  const std::vector<std::string> claims = GemmClaims(impl);
  auto row = [&](const std::string& check, Verdict v, const std::string& detail) {
    ConformanceRow r;
    r.interface_name = "gemm";
    r.implementation = impl.name;
    r.check = check;
    r.verdict = v;
    r.detail = detail;
    return r;
  };
  bool on_cpu = false;
  for (const core::CapabilityField& f : impl.capability_fields)
    if (f.name == "devices")
      for (const std::string& d : f.members) on_cpu = on_cpu || d == "cpu";
  if (!on_cpu) {
    for (const std::string& c : claims)
      rows->push_back(row(c, Verdict::kNotChecked, "conformance drives host (cpu) memory only"));
    return;
  }
  std::vector<PlannedGemmCase> plan;
  if (!opt.only_case.empty()) {
    absl::StatusOr<GemmCase> c = ParseGemmCase(opt.only_case);
    if (!c.ok()) return;  // checked before any kernel started
    plan.push_back({*c, opt.seed, ClaimsExercised(*c)});
  } else if (opt.only_check.empty()) {
    plan = PlanGemmCases(claims, opt.quick, opt.seed);
  }
  Progress progress(!opt.json, static_cast<int>(plan.size()) + (opt.only_case.empty() ? 1 : 0));
  if (opt.only_case.empty()) {
    const std::vector<PlannedGemmCase> covering =
        plan.empty() ? PlanGemmCases(claims, true, opt.seed) : plan;
    if (covering.empty()) {
      rows->push_back(row("contract", Verdict::kNotChecked,
                          "no case conformance can build: nothing to call the checks with"));
      return;
    }
    const GemmCase base = covering[0].gemm;
    progress.Step("gemm contract checks");
    for (const ContractOutcome& o :
         RunGemmContractChecks(plugin, provider.name, claims, base, opt.seed, opt.only_check)) {
      ConformanceRow r = row("contract " + o.check, o.passed ? Verdict::kPass : Verdict::kFail, o.detail);
      if (!o.passed) r.reproduce = ReproduceCommand(opt, "--check " + o.check, opt.seed);
      rows->push_back(r);
    }
  }
  // Per claim: the cases that exercised it, its worst error, its first failure.
  std::map<std::string, ConformanceRow> by_claim;
  for (const PlannedGemmCase& p : plan) {
    progress.Step("gemm " + FormatGemmCase(p.gemm));
    const GemmCaseOutcome o = RunGemmCase(plugin, provider.name, oracle, p.gemm, p.seed);
    for (const std::string& claim : p.exercises) {
      auto [it, fresh] = by_claim.try_emplace(claim, row(claim, Verdict::kPass, ""));
      ConformanceRow& r = it->second;
      ++r.cases;
      // The case closest to (or furthest past) its tolerance speaks for the claim.
      if (o.tolerance > 0 && (r.tolerance <= 0 || o.max_error / o.tolerance > r.max_error / r.tolerance)) {
        r.max_error = o.max_error;
        r.tolerance = o.tolerance;
      }
      if (!o.passed && r.verdict == Verdict::kPass) {
        r.verdict = Verdict::kFail;
        r.detail = o.problem.empty()
                       ? absl::StrFormat("case %s: error %.3g > tolerance %.3g", FormatGemmCase(p.gemm),
                                         o.max_error, o.tolerance)
                       : absl::StrCat("case ", FormatGemmCase(p.gemm), ": ", o.problem);
        r.reproduce = ReproduceCommand(opt, "--case " + Quoted(FormatGemmCase(p.gemm)), p.seed);
      }
    }
  }
  if (!opt.only_case.empty() || !opt.only_check.empty()) {
    for (auto& [claim, r] : by_claim) rows->push_back(r);
    return;
  }
  for (const std::string& claim : AllGemmClaims()) {
    const bool declared = std::find(claims.begin(), claims.end(), claim) != claims.end();
    if (auto it = by_claim.find(claim); it != by_claim.end() && declared) {
      rows->push_back(it->second);
    } else if (declared) {
      rows->push_back(row(claim, Verdict::kNotChecked,
                          GemmClaimCheckable(claim) ? "no case could pair it with the other claims"
                                                    : "conformance cannot build this case yet"));
    } else {
      rows->push_back(row(claim, Verdict::kNotDeclared, ""));
    }
  }
}

}  // namespace

int ConformanceCommand(const std::vector<std::string>& args) {
  FlagSet flags("teplug conformance");
  flags.AddBool("json", "the report as JSON on stdout (no progress)");
  flags.AddBool("quick", "one case per capability, no sampled combinations");
  flags.AddString("interface", "NAME", "check only this interface", "",
                  {"gemm", "attention", "quantizer", "collective", "norm", "device"});
  flags.AddString("device", "SPEC", "the device to check on; only cpu (host memory) today", "cpu",
                  {"cpu", "cpu:0"});
  flags.AddString("case", "CASE", "run only this numerics case (as a failure prints it)");
  flags.AddString("check", "NAME", "run only this contract check (refcount, threads, ...)");
  flags.AddInt("seed", "the inputs' random seed (a failure prints the one to reuse)", 1, 0,
               int64_t{1} << 62);
  if (std::optional<int> done = ParseCommandLine(flags, args, kConformanceHelp)) return *done;
  if (flags.positionals().size() != 1)
    return ReportUsage(flags, "give exactly one plugin library (PLUGIN.so)");
  Options opt;
  opt.plugin = flags.positionals()[0];
  opt.json = flags.GetBool("json");
  opt.quick = flags.GetBool("quick");
  opt.interface_name = flags.GetString("interface");
  opt.only_case = flags.GetString("case");
  opt.only_check = flags.GetString("check");
  opt.seed = static_cast<uint64_t>(flags.GetInt("seed"));
  if (!opt.only_case.empty() && !opt.only_check.empty())
    return ReportUsage(flags, "--case and --check each pick one thing to run: give one of them");
  if (!opt.only_case.empty()) {
    if (absl::StatusOr<GemmCase> c = ParseGemmCase(opt.only_case); !c.ok())
      return ReportUsage(flags, std::string(c.status().message()));
  }
  if (!opt.only_check.empty()) {
    const std::vector<std::string> names = GemmContractCheckNames();
    if (std::find(names.begin(), names.end(), opt.only_check) == names.end())
      return ReportUsage(flags, absl::StrCat("--check: unknown check \"", opt.only_check,
                                             "\" (refcount, error_object, supports_reason, "
                                             "refused_op, workspace, struct_sizes, threads)"));
  }
  if ((!opt.only_case.empty() || !opt.only_check.empty()) && opt.interface_name != "gemm")
    return ReportUsage(flags, "--case and --check are GEMM cases today: add --interface gemm");

  absl::StatusOr<std::unique_ptr<core::Kernel>> plugin = PluginKernel(opt.plugin);
  if (!plugin.ok()) {
    std::cerr << "error: cannot start a kernel for " << core::EscapeUntrustedText(opt.plugin) << ": "
              << plugin.status().message() << "\n";
    return kExitNo;
  }
  for (const core::LoadReportEntry& e : (*plugin)->LoadReport()) {
    if (!e.loaded) {
      std::cerr << "error: " << core::RefusalLine(e) << "\n";
      return kExitNo;
    }
  }
  absl::StatusOr<std::unique_ptr<core::Kernel>> oracle = OracleKernel();
  if (!oracle.ok()) {
    std::cerr << "error: cannot start the reference kernel: " << oracle.status().message() << "\n";
    return kExitNo;
  }
  std::vector<ConformanceRow> rows;
  for (const core::ProviderListing& p : (*plugin)->ListProviders()) {
    for (const core::ImplementationListing& impl : p.implementations) {
      const std::string iface = ShortInterfaceName(impl.interface_name);
      if (!opt.interface_name.empty() && iface != opt.interface_name) continue;
      if (iface == "gemm") {
        CheckGemm(opt, **plugin, **oracle, p, impl, &rows);
        continue;
      }
      for (const core::CapabilityField& f : impl.capability_fields) {
        if (!f.is_set || f.name == "devices") continue;
        for (const std::string& m : f.members) {
          ConformanceRow r;
          r.interface_name = iface;
          r.implementation = impl.name;
          r.check = absl::StrCat(f.name, "=", m);
          r.verdict = Verdict::kNotChecked;
          r.detail = "conformance does not check this interface yet";
          rows.push_back(r);
        }
      }
    }
  }
  if (rows.empty()) {
    std::cerr << "error: " << core::EscapeUntrustedText(opt.plugin) << " registers no implementation"
              << (opt.interface_name.empty() ? "" : " of interface " + opt.interface_name) << "\n";
    return kExitNo;
  }
  if (opt.json) {
    PrintConformanceJson(std::cout, opt.plugin, rows);
  } else {
    PrintConformanceText(std::cout, opt.plugin, rows);
  }
  return NoneFailed(rows) ? kExitOk : kExitNo;
}

}  // namespace teplug::cli
