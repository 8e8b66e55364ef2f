// `teplug conformance PLUGIN.so`: loads a plugin (pre-flight probe first,
// then in-process, in a kernel of its own) beside the built-in reference
// provider (in another kernel: the oracle), runs the contract checks on each
// implementation it registers and the numerics of every capability it
// declares against the reference, and reports pass / FAIL / not checked /
// not declared per interface and capability, with a command line that
// re-runs each failure.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/kernel/kernel.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "tools/teplug/command_parse.h"
#include "tools/teplug/commands.h"
#include "tools/teplug/conformance_attention.h"
#include "tools/teplug/conformance_collective.h"
#include "tools/teplug/conformance_contract.h"
#include "tools/teplug/conformance_device.h"
#include "tools/teplug/conformance_gemm.h"
#include "tools/teplug/conformance_interface.h"
#include "tools/teplug/conformance_limit_probes.h"
#include "tools/teplug/conformance_limits.h"
#include "tools/teplug/conformance_norm.h"
#include "tools/teplug/conformance_quantizer.h"
#include "tools/teplug/conformance_report.h"
#include "tools/teplug/conformance_staging.h"
#include "tools/teplug/explain_op.h"
#include "tools/teplug/tolerances.h"

namespace teplug::cli {
namespace {

constexpr char kConformanceHelp[] =
    "Usage: teplug conformance PLUGIN.so [--json] [--quick] [--interface NAME]\n"
    "                          [--device SPEC] [--case CASE | --check NAME] [--seed N]\n"
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
    "            threads (4 threads calling at once get the single-threaded result);\n"
    "            every covered interface gets refcount and threads (each call\n"
    "            checked against the reference) and, but IDevice/1, error_object,\n"
    "            supports_reason and refused_op on a case it must refuse (just past\n"
    "            a declared limit, else in a dtype it does not declare, called on\n"
    "            it directly); IGemm/1 all of them\n"
    "  numerics  every capability it declares (read from its descriptor as\n"
    "            `teplug list` shows it): one case per dtype, epilogue and scaling\n"
    "            mode, plus sampled combinations (fewer with --quick), each run on\n"
    "            random non-zero inputs through the plugin and the reference, the\n"
    "            outputs compared with the tolerances below (max |x - ref| / max |ref|)\n"
    "  limits    every numeric limit it declares (head_dim_min/max/multiple,\n"
    "            max_seqlen_q/kv, max_dim, alignment, hidden_min/max/multiple,\n"
    "            max_world_size): every case above is fitted inside them; per\n"
    "            limit, a case at its edge (the largest value a maximum allows,\n"
    "            the smallest a minimum or multiple allows) must pass the numerics\n"
    "            and a case just past it, called on the implementation directly,\n"
    "            must be refused (unsupported or invalid_argument); GEMM alignment A\n"
    "            keeps M, N and K multiples of 2A elements (aligned in every dtype)\n"
    "\n"
    "Covered today, on host memory: IGemm/1 (contract and numerics: fp32, fp16,\n"
    "bf16, fp8_e4m3, fp8_e5m2, fp4_e2m1 operands; fp32, fp16, bf16, fp8_e4m3,\n"
    "fp8_e5m2 outputs (fp8 D: codes, scale_inv and amax); bias, gelu, gelu_aux,\n"
    "accumulate; per_tensor, mxfp8_1d32, block_1d128 and block_2d128 scaling),\n"
    "IQuantizer/1 (numerics, bit-exact against the reference: fp32, fp16, bf16 to\n"
    "fp8_e4m3, fp8_e5m2 in every scaling mode, current and delayed scaling,\n"
    "columnwise copies, dequantize), INorm/1 (numerics: LayerNorm and RMSNorm,\n"
    "forward and backward, fp32/fp16/bf16 and fp8 outputs, zero-centered gamma),\n"
    "IAttention/1 (numerics: fp32, fp16, bf16, fp8_e4m3, fp8_e5m2 inputs, the\n"
    "15 layouts, packed and THD, every mask and bias, dropout, sliding window, GQA,\n"
    "deterministic (two runs bit-identical), backward (in every case when declared),\n"
    "different head dims), ICollective/1 (every declared op, dtype and reduction\n"
    "on 2 and 3 ranks as threads meeting through an in-process key-value store,\n"
    "uneven counts on 3, each rank's output compared exactly with a host oracle)\n"
    "and IDevice/1 (enumeration, host->device->device->host round trips, streams,\n"
    "refusals).\n"
    "Everything else a plugin declares (fp4 attention, fp4 quantizer outputs)\n"
    "is reported \"not checked\", never as passing, and fails the run.\n"
    "\n"
    "Devices: every device an implementation declares that an IDevice of the\n"
    "plugin serves (as `teplug list` shows them), the CPU as host memory; --device\n"
    "SPEC (cpu, cuda:0, opencl:0, a kind a provider declares) checks that one only.\n"
    "On a device other than the CPU each IGemm/1, IQuantizer/1, INorm/1,\n"
    "IAttention/1 and ICollective/1 case allocates every tensor of its args (each\n"
    "rank's buffers, the communicator created for the device) on the device through\n"
    "the plugin's IDevice, copies the host inputs (and outputs, for accumulate)\n"
    "in, runs the op there on an IDevice stream, synchronises and copies the\n"
    "outputs back; the reference runs on host memory and the outputs are compared\n"
    "as above; IDevice/1's checks open that device instead of cpu:0. Those rows\n"
    "are named \"IMPLEMENTATION on DEVICE\" and their commands carry --device.\n"
    "The contract checks every interface gets (refcount, threads, the refusals),\n"
    "IGemm/1's workspace and struct_sizes (tensors, workspace and stream on the\n"
    "device) and the limit probes run there too. The claims on a declared device\n"
    "that no IDevice of the plugin serves are \"not checked\" (the reason names the\n"
    "device kind).\n"
    "\n"
    "Each failure prints the command that re-runs exactly that case\n"
    "(--interface NAME --case '<case>' --seed N) or check (--check NAME ...).\n"
    "On a terminal, progress (cases done of total, current capability) goes to\n"
    "stderr; --json writes only the report.\n"
    "Exit status: 0 only when every check and every declared capability passed;\n"
    "1 when one failed, when a declared capability could not be checked (\"not\n"
    "checked\" rows: a claim conformance cannot exercise is not proven, and the\n"
    "report says why for each), or when the plugin was refused; 2 for a usage error.\n"
    "\n";

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

// Progress on stderr when it is a terminal and the output is not --json:
// "[cases done/total] current case, about N s left" on one line, erased at the end.
class Progress {
 public:
  Progress(bool enabled, int total)
      : enabled_(enabled && isatty(STDERR_FILENO)),
        total_(total),
        start_(std::chrono::steady_clock::now()) {}
  ~Progress() {
    if (enabled_) std::cerr << "\r\x1b[K" << std::flush;
  }
  // Called before each step; `what` names it.
  void Step(const std::string& what) {
    if (!enabled_) return;
    const double spent =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string left =
        done_ == 0 ? "" : absl::StrFormat(", about %.0f s left", spent / done_ * (total_ - done_));
    std::cerr << "\r\x1b[K"
              << absl::StrFormat("[%d/%d] %s%s", done_, total_, what.substr(0, 100), left)
              << std::flush;
    ++done_;
  }

 private:
  bool enabled_;
  int total_, done_ = 0;
  std::chrono::steady_clock::time_point start_;
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
  std::optional<TeplugDevice> device;  // --device; none: every declared device
  bool quick = false, json = false;
  uint64_t seed = 1;
};

// The covered interfaces.
const std::vector<const InterfaceConformance*>& Covered() {
  static const std::vector<const InterfaceConformance*> kCovered = {
      &GemmConformance(),      &QuantizerConformance(),  &NormConformance(),
      &AttentionConformance(), &CollectiveConformance(), &DeviceConformance()};
  return kCovered;
}
const InterfaceConformance* CoveredInterface(const std::string& name) {
  for (const InterfaceConformance* c : Covered())
    if (name == c->name) return c;
  return nullptr;
}

std::string ReproduceCommand(const Options& opt, const std::string& iface, const std::string& what,
                             uint64_t seed, const CaseDevice* where = nullptr) {
  return absl::StrCat("teplug conformance ", Quoted(opt.plugin), " --interface ", iface, " ", what,
                      " --seed ", seed, where == nullptr ? "" : " --device " + where->spelling);
}

// One place an implementation's cases run: host memory for the CPU, else a
// device some IDevice of the plugin serves, or why neither.
struct Target {
  std::string spelling;     // "cpu", "opencl:0"
  TeplugDevice device{};    // kind CPU: host memory
  std::string unavailable;  // set: the claims are not checked there, for this reason
};

// The devices the plugin's IDevice implementations serve, opened on first use.
class OpenedDevices {
 public:
  explicit OpenedDevices(const core::Kernel& plugin) : plugin_(plugin) {}
  ~OpenedDevices() {
    for (auto& [spelling, d] : opened_) {
      if (d->where.stream != nullptr) d->ctx->DestroyStream(d->where.stream);
    }
  }
  // The opened device, or why it could not be opened.
  absl::StatusOr<const CaseDevice*> Open(const Target& t) {
    if (auto it = opened_.find(t.spelling); it != opened_.end()) return &it->second->where;
    if (!device_) device_ = plugin_.Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
    if (!device_) return absl::NotFoundError("the plugin registers no IDevice");
    auto d = std::make_unique<Opened>();
    d->where.device = t.device;
    d->where.spelling = t.spelling;
    if (sdk::OwnedError e = sdk::DeviceContext::Open(device_.get(), d->where.device, &d->ctx))
      return absl::UnavailableError(absl::StrCat("opening ", t.spelling, " through IDevice: ",
                                                 core::EscapeUntrustedText(e.message())));
    if (sdk::OwnedError e = d->ctx->CreateStream(&d->where.stream))
      return absl::UnavailableError(absl::StrCat("creating a stream on ", t.spelling, ": ",
                                                 core::EscapeUntrustedText(e.message())));
    d->where.ctx = d->ctx.get();
    const CaseDevice* out = &d->where;
    opened_.emplace(t.spelling, std::move(d));
    return out;
  }

 private:
  struct Opened {
    std::unique_ptr<sdk::DeviceContext> ctx;
    CaseDevice where;
  };
  const core::Kernel& plugin_;
  sdk::Ref<TeplugDeviceV1> device_;
  std::map<std::string, std::unique_ptr<Opened>> opened_;
};

// Where `impl`'s cases run: --device's device, or every device kind its
// descriptor declares ("any": the CPU) on every device of that kind an
// IDevice of the plugin serves.
std::vector<Target> TargetsOf(const Options& opt, const core::Kernel& plugin,
                              const core::ImplementationListing& impl) {
  std::vector<std::string> kinds;  // DeviceSupportLabel's first word: "cpu", "opencl", "any"
  for (const core::CapabilityField& f : impl.capability_fields)
    if (f.name == "devices")
      for (const std::string& d : f.members) kinds.push_back(d.substr(0, d.find(' ')));
  const std::shared_ptr<const core::DeviceNames> names = plugin.DeviceNaming();
  auto declares = [&](int32_t kind) {
    for (const std::string& k : kinds)
      if (k == "any" || k == sdk::DeviceKindName(kind)) return true;
    return false;
  };
  const core::DeviceListing served = plugin.ListDevices();
  auto target = [&](const TeplugDevice& d) {
    Target t;
    t.device = d;
    t.spelling = d.kind == TEPLUG_DEVICE_CPU
                     ? "cpu"
                     : absl::StrCat(names->KindSpelling(d.kind), ":", d.ordinal);
    return t;
  };
  std::vector<Target> out;
  if (opt.device.has_value()) {
    Target t = target(*opt.device);
    if (!declares(opt.device->kind)) {
      t.unavailable = absl::StrCat("the implementation declares no ",
                                   names->KindSpelling(opt.device->kind), " device");
    } else if (opt.device->kind != TEPLUG_DEVICE_CPU) {
      t.unavailable = absl::StrCat("no IDevice in the plugin serves ", t.spelling);
      for (const core::ServedDevice& s : served.devices)
        if (s.device.kind == opt.device->kind && s.device.ordinal == opt.device->ordinal)
          t = target(s.device);
    }
    return {t};
  }
  TeplugDevice cpu = sdk::Versioned<TeplugDevice>();
  cpu.kind = TEPLUG_DEVICE_CPU;
  if (declares(TEPLUG_DEVICE_CPU)) out.push_back(target(cpu));
  for (const std::string& k : kinds) {
    if (k == "any" || k == "cpu") continue;
    bool any = false;
    for (const core::ServedDevice& s : served.devices) {
      if (sdk::DeviceKindName(s.device.kind) != k) continue;
      bool seen = false;
      for (const Target& t : out) seen = seen || t.spelling == target(s.device).spelling;
      if (!seen) out.push_back(target(s.device));
      any = true;
    }
    if (!any) {
      Target t;
      t.spelling = k;
      t.unavailable = absl::StrCat("no IDevice in the plugin serves a device of kind ", k);
      out.push_back(t);
    }
  }
  return out;
}

// The interface's plan with every case fitted inside the declared `limits`
// (and the claims each then exercises); a case no fitting can keep legal is
// left out, so the claims only it exercised are reported not checked.
std::vector<PlannedCase> FittedPlan(const InterfaceConformance& ic,
                                    const std::vector<std::string>& claims, bool quick,
                                    uint64_t seed, const std::vector<DeclaredLimit>& limits) {
  std::vector<PlannedCase> fitted;
  for (PlannedCase p : ic.plan(claims, quick, seed)) {
    absl::StatusOr<std::string> text = FitCase(p.text, limits);
    if (!text.ok()) continue;
    absl::StatusOr<std::vector<std::string>> exercised = ic.parse_case(*text);
    if (!exercised.ok()) continue;
    p.text = *text;
    p.exercises = *exercised;
    fitted.push_back(p);
  }
  return fitted;
}

ConformanceRow Row(const std::string& iface, const core::ImplementationListing& impl,
                   const std::string& check, Verdict v, const std::string& detail) {
  ConformanceRow r;
  r.interface_name = iface;
  r.implementation = impl.name;
  r.check = check;
  r.verdict = v;
  r.detail = detail;
  return r;
}

// Contract and numerics rows of one implementation of a covered interface
// on one target: host memory (`where` null) or a device (the implementation
// named "<name> on <device>"; numerics and the shared contract checks).
void CheckOnTarget(const Options& opt, const InterfaceConformance& ic, const core::Kernel& plugin,
                   const core::Kernel& oracle, const core::ProviderListing& provider,
                   core::ImplementationListing impl, const std::vector<std::string>& claims,
                   const CaseDevice* where, std::vector<ConformanceRow>* rows) {
  const std::string iface = ic.name;
  if (where != nullptr) impl.name = absl::StrCat(impl.name, " on ", where->spelling);
  // On a device: the shared contract checks (refcount, threads, the
  // refusals) when the interface can select there, and those of its own
  // checks it runs there (device_contract); the rest run on host memory only.
  std::vector<std::string> on_device = SharedContractCheckNames(ic);
  if (ic.device_contract_names != nullptr)
    for (const std::string& name : ic.device_contract_names()) on_device.push_back(name);
  const bool device_contract = where != nullptr && ic.select_on_device != nullptr;
  if (where != nullptr && !opt.only_check.empty() &&
      (!device_contract ||
       std::find(on_device.begin(), on_device.end(), opt.only_check) == on_device.end())) {
    rows->push_back(Row(iface, impl, "contract " + opt.only_check, Verdict::kNotChecked,
                        "this contract check runs on host (cpu) memory only"));
    return;
  }
  const std::vector<DeclaredLimit> limits =
      ic.limit_rules == nullptr ? std::vector<DeclaredLimit>{}
                                : DeclaredLimits(impl, ic.limit_rules());
  std::vector<PlannedCase> plan;
  if (!opt.only_case.empty()) {
    absl::StatusOr<std::vector<std::string>> exercised = ic.parse_case(opt.only_case);
    if (!exercised.ok()) return;  // checked before any kernel started
    if (std::optional<DeclaredLimit> broken = LimitBroken(opt.only_case, limits)) {
      // A case outside a declared limit: the implementation must refuse it.
      const std::string problem = CheckLimitRefusal(ic, plugin, provider.name, limits,
                                                    opt.only_case, opt.seed, where);
      ConformanceRow r = Row(iface, impl, broken->Claim(),
                             problem.empty() ? Verdict::kPass : Verdict::kFail, problem);
      if (!problem.empty())
        r.reproduce =
            ReproduceCommand(opt, iface, "--case " + Quoted(opt.only_case), opt.seed, where);
      rows->push_back(r);
      return;
    }
    plan.push_back({opt.only_case, opt.seed, *exercised});
  } else if (opt.only_check.empty()) {
    plan = FittedPlan(ic, claims, opt.quick, opt.seed, limits);
  }
  const std::vector<LimitProbe> probes =
      !opt.only_case.empty() || !opt.only_check.empty() || plan.empty()
          ? std::vector<LimitProbe>{}
          : PlanLimitProbes(plan[0].text, limits);
  const bool contract = opt.only_case.empty() && (where == nullptr || device_contract);
  Progress progress(!opt.json,
                    static_cast<int>(plan.size() + probes.size()) + (contract ? 1 : 0));
  if (contract) {
    const std::vector<PlannedCase> covering =
        plan.empty() ? FittedPlan(ic, claims, true, opt.seed, limits) : plan;
    if (covering.empty()) {
      rows->push_back(Row(iface, impl, "contract", Verdict::kNotChecked,
                          "no case conformance can build: nothing to call the checks with"));
    } else {
      progress.Step(iface + " contract checks");
      std::vector<ContractOutcome> outcomes =
          ic.contract != nullptr && where == nullptr
              ? ic.contract(plugin, provider.name, claims, covering[0].text, opt.seed,
                            opt.only_check)
              : RunSharedContractChecks(ic, plugin, provider.name, oracle, claims, limits,
                                        covering[0].text, opt.seed, opt.only_check, where);
      if (where != nullptr && ic.device_contract != nullptr) {
        for (ContractOutcome& o : ic.device_contract(plugin, provider.name, claims,
                                                     covering[0].text, opt.seed, opt.only_check,
                                                     *where))
          outcomes.push_back(std::move(o));
      }
      for (const ContractOutcome& o : outcomes) {
        ConformanceRow r = Row(iface, impl, "contract " + o.check,
                               o.passed ? Verdict::kPass : Verdict::kFail, o.detail);
        if (!o.passed)
          r.reproduce = ReproduceCommand(opt, iface, "--check " + o.check, opt.seed, where);
        rows->push_back(r);
      }
    }
  }
  // Per claim: the cases that exercised it, its worst error, its first failure.
  std::map<std::string, ConformanceRow> by_claim;
  for (const PlannedCase& p : plan) {
    progress.Step(iface + " " + p.text);
    const CaseOutcome o =
        where == nullptr ? ic.run(plugin, provider.name, oracle, p.text, p.seed)
                         : ic.run_on_device(plugin, provider.name, oracle, p.text, p.seed, *where);
    for (const std::string& claim : p.exercises) {
      auto [it, fresh] = by_claim.try_emplace(claim, Row(iface, impl, claim, Verdict::kPass, ""));
      ConformanceRow& r = it->second;
      ++r.cases;
      // The case closest to (or furthest past) its tolerance speaks for the claim.
      if (o.tolerance > 0 &&
          (r.tolerance <= 0 || o.max_error / o.tolerance > r.max_error / r.tolerance)) {
        r.max_error = o.max_error;
        r.tolerance = o.tolerance;
      }
      if (!o.passed && r.verdict == Verdict::kPass) {
        r.verdict = Verdict::kFail;
        r.detail = o.problem.empty() ? absl::StrFormat("case %s: error %.3g > tolerance %.3g",
                                                       p.text, o.max_error, o.tolerance)
                                     : absl::StrCat("case ", p.text, ": ", o.problem);
        r.reproduce = ReproduceCommand(opt, iface, "--case " + Quoted(p.text), p.seed, where);
      }
    }
  }
  if (!opt.only_case.empty() || !opt.only_check.empty()) {
    for (auto& [claim, r] : by_claim) rows->push_back(r);
    return;
  }
  // Each declared limit: its edge case passes, a case just past it is refused.
  for (const LimitProbe& probe : probes) {
    progress.Step(iface + " " + probe.limit.Claim());
    const LimitOutcome o =
        RunLimitProbe(ic, plugin, provider.name, oracle, limits, probe, opt.seed, where);
    ConformanceRow r = Row(iface, impl, probe.limit.Claim(),
                           o.passed ? Verdict::kPass : Verdict::kFail, o.detail);
    r.cases = 1 + (probe.outside.empty() ? 0 : 1);
    r.max_error = o.edge.max_error;
    r.tolerance = o.edge.tolerance;
    if (!o.passed && !o.failed_case.empty())
      r.reproduce = ReproduceCommand(opt, iface, "--case " + Quoted(o.failed_case), opt.seed, where);
    rows->push_back(r);
  }
  for (const std::string& claim : ic.all_claims()) {
    const bool declared = HasClaim(claims, claim);
    if (auto it = by_claim.find(claim); it != by_claim.end() && declared) {
      rows->push_back(it->second);
    } else if (declared) {
      rows->push_back(Row(iface, impl, claim, Verdict::kNotChecked,
                          ic.checkable(claim) ? "no case could pair it with the other claims"
                                              : "conformance cannot build this case yet"));
    } else {
      rows->push_back(Row(iface, impl, claim, Verdict::kNotDeclared, ""));
    }
  }
}

// Every target's rows of one implementation of a covered interface.
void CheckImplementation(const Options& opt, const InterfaceConformance& ic,
                         const core::Kernel& plugin, const core::Kernel& oracle,
                         const core::ProviderListing& provider,
                         const core::ImplementationListing& impl, OpenedDevices* devices,
                         std::vector<ConformanceRow>* rows) {
  std::vector<std::string> claims = DeclaredClaims(impl);
  if (ic.implied_claims != nullptr)
    for (const std::string& c : ic.implied_claims()) claims.push_back(c);
  for (const Target& t : TargetsOf(opt, plugin, impl)) {
    std::string why = t.unavailable;
    const CaseDevice* where = nullptr;
    if (why.empty() && t.device.kind != TEPLUG_DEVICE_CPU) {
      if (ic.run_on_device == nullptr) {
        why = absl::StrCat("conformance runs ", ic.name, " cases on host (cpu) memory only");
      } else if (absl::StatusOr<const CaseDevice*> opened = devices->Open(t); opened.ok()) {
        where = *opened;
      } else {
        why = std::string(opened.status().message());
      }
    }
    if (why.empty()) {
      CheckOnTarget(opt, ic, plugin, oracle, provider, impl, claims, where, rows);
      continue;
    }
    core::ImplementationListing named = impl;
    if (t.device.kind != TEPLUG_DEVICE_CPU)
      named.name = absl::StrCat(impl.name, " on ", t.spelling);
    for (const std::string& c : claims)
      rows->push_back(Row(ic.name, named, c, Verdict::kNotChecked, why));
  }
}

}  // namespace

int ConformanceCommand(const std::vector<std::string>& args) {
  FlagSet flags("teplug conformance");
  flags.AddBool("json", "the report as JSON on stdout (no progress)");
  flags.AddBool("quick", "one case per capability, no sampled combinations");
  flags.AddString("interface", "NAME", "check only this interface", "",
                  {"gemm", "attention", "quantizer", "collective", "norm", "device"});
  flags.AddString("device", "SPEC",
                  "the device to check on: cpu (host memory), cuda:0, opencl:0, a kind a "
                  "provider declares (served by an IDevice of the plugin)",
                  "");
  flags.SetDefaultText("device", "every device the plugin declares and serves");
  flags.AddString("case", "CASE", "run only this numerics case (as a failure prints it)");
  flags.AddString("check", "NAME", "run only this contract check (refcount, threads, ...)");
  flags.AddInt("seed", "the inputs' random seed (a failure prints the one to reuse)", 1, 0,
               int64_t{1} << 62);
  if (std::optional<int> done =
          ParseCommandLine(flags, args, std::string(kConformanceHelp) + ToleranceTable()))
    return *done;
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
  if (!opt.only_case.empty() || !opt.only_check.empty()) {
    const InterfaceConformance* ic = CoveredInterface(opt.interface_name);
    if (ic == nullptr)
      return ReportUsage(flags,
                         "--case and --check run one case of one interface: add --interface "
                         "(gemm, quantizer, norm, attention, collective or device)");
    if (!opt.only_case.empty()) {
      if (absl::StatusOr<std::vector<std::string>> c = ic->parse_case(opt.only_case); !c.ok())
        return ReportUsage(flags, std::string(c.status().message()));
    }
    if (!opt.only_check.empty()) {
      const std::vector<std::string> names =
          ic->contract_names == nullptr ? SharedContractCheckNames(*ic) : ic->contract_names();
      if (std::find(names.begin(), names.end(), opt.only_check) == names.end())
        return ReportUsage(flags,
                           absl::StrCat("--check: unknown ", ic->name, " check \"", opt.only_check,
                                        "\" (checks: ", absl::StrJoin(names, ", "), ")"));
    }
  }

  absl::StatusOr<std::unique_ptr<core::Kernel>> plugin = PluginKernel(opt.plugin);
  if (!plugin.ok()) {
    std::cerr << "error: cannot start a kernel for " << core::EscapeUntrustedText(opt.plugin)
              << ": " << plugin.status().message() << "\n";
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
  if (const std::string spec = flags.GetString("device"); !spec.empty()) {
    absl::StatusOr<TeplugDevice> d = ParseDevice(spec, *(*plugin)->DeviceNaming());
    if (!d.ok()) return ReportUsage(flags, std::string(d.status().message()));
    opt.device = *d;
  }
  OpenedDevices devices(**plugin);
  std::vector<ConformanceRow> rows;
  for (const core::ProviderListing& p : (*plugin)->ListProviders()) {
    for (const core::ImplementationListing& impl : p.implementations) {
      const std::string iface = ShortInterfaceName(impl.interface_name);
      if (!opt.interface_name.empty() && iface != opt.interface_name) continue;
      if (const InterfaceConformance* ic = CoveredInterface(iface)) {
        CheckImplementation(opt, *ic, **plugin, **oracle, p, impl, &devices, &rows);
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
    std::cerr << "error: " << core::EscapeUntrustedText(opt.plugin)
              << " registers no implementation"
              << (opt.interface_name.empty() ? "" : " of interface " + opt.interface_name) << "\n";
    return kExitNo;
  }
  if (opt.json) {
    PrintConformanceJson(std::cout, opt.plugin, rows);
  } else {
    PrintConformanceText(std::cout, opt.plugin, rows);
  }
  return Conforms(rows) ? kExitOk : kExitNo;
}

}  // namespace teplug::cli
