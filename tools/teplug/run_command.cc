// `teplug run`: the main job and a benchmark. Runs a small transformer block
// forward and backward through the kernel on --ranks ranks (threads), prints
// per op the interface, the provider that served it, why, its time, its
// speedup over the reference provider, and the error against the reference
// provider and against the tool's independent oracle, then a summary. Exit 0
// when every op is within its tolerance, 1 otherwise (or when an op fails),
// 2 for usage errors.
#include <chrono>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "core/config/default_config.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/command_parse.h"
#include "tools/teplug/commands.h"
#include "tools/teplug/kernel_flags.h"
#include "tools/teplug/launch_plan.h"
#include "tools/teplug/launch_rank.h"
#include "tools/teplug/launch_run.h"
#include "tools/teplug/op_report.h"
#include "tools/teplug/run_devices.h"
#include "tools/teplug/rank_group.h"
#include "tools/teplug/tolerances.h"
#include "tools/teplug/transformer_block.h"

namespace teplug::cli {
namespace {

using core::EscapeUntrustedLines;
using core::EscapeUntrustedText;

constexpr char kRunHelp[] =
    "Usage: teplug run [--layers N] [--batch N] [--seq N] [--heads N] [--head-dim N]\n"
    "                  [--dtype fp32|fp16|bf16] [--ranks N] [--compare reference|none]\n"
    "                  [--device SPEC | --devices SPEC,SPEC,...] [--config FILE]\n"
    "                  [--plugin PATH]...\n"
    "                  [--launch threads|processes]\n"
    "                  [--rank R --rendezvous file:DIR|redis:HOST:PORT/RUN]\n"
    "\n"
    "The main job: a transformer attention block, forward and backward, every op\n"
    "through the kernel, on --ranks data-parallel ranks (threads):\n"
    "  forward:  quantize x and W_qkv to fp8_e4m3 (per-tensor, current scaling),\n"
    "            dequantize x, QKV projection GEMM (fp8), causal attention forward\n"
    "            on the packed bs3hd QKV, quantize O and W_o to MXFP8, output\n"
    "            projection GEMM (MXFP8)\n"
    "  backward: output projection dgrad/wgrad GEMMs, attention backward, QKV\n"
    "            projection dgrad/wgrad GEMMs (weight gradients in fp32)\n"
    "  then:     all-reduce (sum) of every weight gradient across the ranks\n"
    "Uses the embedded default config unless --config or $TEPLUG_CONFIG names one;\n"
    "the header says which (its path, or \"embedded default\").\n"
    "\n"
    "Per op it prints: interface, the provider that served it (after any call-time\n"
    "fallback; the reason then names the first choice that failed), the selection's\n"
    "reason, and:\n"
    "  time               the median of 5 calls through the kernel, timed after the\n"
    "                     op's checked call while nothing else of the job runs\n"
    "                     (compute ops on rank 0, or on every rank with --device\n"
    "                     or --devices; all-reduces on every rank)\n"
    "  first call         the time of the op's first checked call: one-time work a\n"
    "                     provider does on first use (an OpenCL kernel build, a\n"
    "                     cuBLASLt plan, a cuDNN graph) shows here, not in time\n"
    "  speedup            reference time / time, the reference's median of 5 calls\n"
    "                     taken alternately with those 5; above 1 the provider is\n"
    "                     faster; \"-\" with --compare none\n"
    "  vs reference       the same op on the same inputs through the reference\n"
    "                     provider (when the reference served it: 0 by construction;\n"
    "                     \"-\" with --compare none)\n"
    "  independent check  the tool's own naive double-precision loops: GEMM on\n"
    "                     sampled entries, attention forward and backward, quantize\n"
    "                     round trip, decoding of fp8 codes, sum of the ranks' gradients\n"
    "Errors and ops are merged over layers and ranks (worst error shown); each op\n"
    "is timed at its first call.\n"
    "Devices: every rank keeps its tensors in host memory (cpu) unless --device\n"
    "puts every rank on one device (cuda, cuda:1, opencl:0, a kind a loaded plugin\n"
    "names) or --devices gives one device per rank, e.g. --ranks 2 --devices\n"
    "cpu,opencl:0 (as many entries as --ranks). A device is opened through the\n"
    "kernel's IDevice (load its plugin with --plugin). On a device each op's\n"
    "tensors are copied there, the op is selected for that device and runs there,\n"
    "and its outputs are copied back (its time includes the copies); an op that\n"
    "no provider serves on the device is staged to cpu: it runs on host memory,\n"
    "and its row's why says \"staged to cpu:\" with every candidate's reason for\n"
    "the device. The gradients are all-reduced in host memory by the host\n"
    "collective across every rank's vendor. With devices the table has one row\n"
    "per rank and op (a \"rank\" column: rank and device). A device that cannot\n"
    "be opened stops the run with its reason.\n"
    "\n"
    "Ranks are threads of this process unless --launch processes starts --ranks\n"
    "processes of teplug (rank 0 prints the table, the others' reports go to\n"
    "DIR/rank-R.log; how each rank ended is listed last), --rank R runs one rank\n"
    "started by hand (one command per host), or mpirun started this process\n"
    "(rank and size from OMPI_COMM_WORLD_RANK/SIZE or PMI_RANK/SIZE). Rank\n"
    "processes meet in --rendezvous file:DIR, a directory every rank can see (a\n"
    "fresh one per run; --launch processes makes a temporary one when not given),\n"
    "or, for ranks on hosts that share no file system, --rendezvous\n"
    "redis:HOST:PORT/RUN, a Redis server every rank can reach (RUN a name new for\n"
    "every run; each rank then prints its own report).\n"
    "Each rank process gets TEPLUG_CPU_THREADS = cores / ranks on its machine\n"
    "(at least 1) unless it is set; the header shows it. With ranks as processes,\n"
    "the other ranks may still be computing while rank 0 times its ops.\n"
    "\n"
    "--compare none runs no op through the reference provider: no vs-reference\n"
    "errors and no speedup, a pure benchmark (the independent checks still run).\n"
    "\n"
    "Exit status: 0 every op within tolerance, 1 an op exceeded its tolerance or\n"
    "failed, 2 usage error.\n"
    "\n";

}  // namespace

int RunCommand(const std::vector<std::string>& args) {
  FlagSet flags("teplug run");
  flags.AddInt("layers", "transformer layers", 1, 1, 1024);
  flags.AddInt("batch", "sequences per rank", 2, 1, 4096);
  flags.AddInt("seq", "tokens per sequence", 64, 1, 1 << 20);
  flags.AddInt("heads", "attention heads", 4, 1, 1024);
  flags.AddInt("head-dim", "attention head dimension (hidden size = heads * head-dim)", 32, 1,
               1024);
  flags.AddString("dtype", "DTYPE", "activations and weights", "bf16", {"fp32", "fp16", "bf16"});
  flags.AddInt("ranks", "data-parallel ranks for the gradient all-reduce", 2, 1, 64);
  flags.AddInt("seed", "random seed for weights and inputs", 1, 0, INT64_MAX);
  flags.AddString("compare", "reference|none",
                  "compare every op with the reference provider (errors, speedup), or not",
                  "reference", {"reference", "none"});
  flags.AddString("device", "SPEC", "the device every rank's tensors live on (cpu, cuda:0, opencl:0)",
                  "cpu");
  flags.AddString("devices", "SPEC,SPEC,...",
                  "one device per rank, e.g. cpu,opencl:0 (as many as --ranks)");
  AddLaunchFlags(&flags);
  AddKernelFlags(&flags);
  if (auto done = ParseCommandLine(flags, args, kRunHelp + ToleranceTable())) return *done;
  if (!flags.positionals().empty()) {
    return ReportUsage(
        flags, absl::StrCat("`teplug run` takes no arguments, got \"", flags.positionals()[0],
                            "\"; sizes are flags, e.g. --layers 2"));
  }
  BlockShape shape;
  shape.layers = flags.GetInt("layers");
  shape.batch = flags.GetInt("batch");
  shape.seq = flags.GetInt("seq");
  shape.heads = flags.GetInt("heads");
  shape.head_dim = flags.GetInt("head-dim");
  shape.seed = static_cast<uint64_t>(flags.GetInt("seed"));
  sdk::ParseDType(flags.GetString("dtype"), &shape.dtype);
  absl::StatusOr<LaunchPlan> launch =
      PlanLaunch(LaunchRequestFromFlags(flags), ProcessEnvironment(), CoresAvailable());
  if (!launch.ok()) return ReportUsage(flags, std::string(launch.status().message()));
  if (launch->role == LaunchRole::kLauncher) return LaunchRunProcesses(*launch, args);
  absl::StatusOr<std::unique_ptr<LocalRanks>> local = LocalRanks::Enter(*launch);
  if (!local.ok()) {
    std::cerr << "error: teplug run: " << EscapeUntrustedLines(local.status().message(), "  ")
              << "\n";
    return kExitNo;
  }
  const int ranks = launch->world_size;
  absl::Mutex timing_gate;
  JobOptions job;
  job.compare = flags.GetString("compare") == "none" ? Compare::kNone : Compare::kReference;
  job.timing_gate = &timing_gate;

  absl::StatusOr<std::unique_ptr<core::Kernel>> kernel = CreateKernelFromFlags(flags);
  if (!kernel.ok()) {
    std::cerr << "error: " << EscapeUntrustedLines(kernel.status().message(), "  ") << "\n";
    return kExitUsage;
  }
  absl::StatusOr<RankDevices> devices = OpenRankDevices(**kernel, flags, ranks);
  if (!devices.ok()) {
    const bool usage = devices.status().code() == absl::StatusCode::kInvalidArgument;
    std::cerr << "error: teplug run: " << EscapeUntrustedLines(devices.status().message(), "  ")
              << "\n";
    if (usage) std::cerr << "Run 'teplug run --help' for usage.\n";
    return usage ? kExitUsage : kExitNo;
  }
  job.rank_devices = devices->ranks;
  const int64_t hidden = shape.heads * shape.head_dim;
  std::cout << absl::StrFormat(
      "teplug run: %d layer%s, batch %d, seq %d, heads %d, head-dim %d (hidden %d), %s\n"
      "ranks: %s\n",
      shape.layers, shape.layers == 1 ? "" : "s", shape.batch, shape.seq, shape.heads,
      shape.head_dim, hidden, flags.GetString("dtype"), DescribeLaunch(*launch));
  const std::string config = (*kernel)->ConfigSourceName();
  std::cout << "config: "
            << (config == config::kDefaultConfigSourceName ? "embedded default"
                                                           : EscapeUntrustedText(config))
            << "\n";
  std::cout << (job.compare == Compare::kReference
                    ? "compare: every op against the reference provider (vs reference, speedup)\n"
                    : "compare: none (--compare none): no op runs through the reference "
                      "provider; no vs-reference errors, no speedup\n");
  std::vector<std::string> providers;
  for (const core::ProviderListing& p : (*kernel)->ListProviders()) {
    providers.push_back(
        absl::StrCat(EscapeUntrustedText(p.name),
                     p.builtin ? " (built-in)" : absl::StrCat(" (", EscapeUntrustedText(p.source), ")")));
  }
  std::cout << "providers: " << (providers.empty() ? "none" : absl::StrJoin(providers, ", "))
            << "\n";
  for (const core::LoadReportEntry& e : (*kernel)->LoadReport()) {
    if (!e.loaded) {
      std::cout << "refused plugin: " << EscapeUntrustedText(e.path) << " ("
                << EscapeUntrustedText(e.origin) << "): " << EscapeUntrustedText(e.reason) << "\n";
    }
  }
  for (const std::string& line : devices->description) {
    std::cout << EscapeUntrustedText(line) << "\n";
  }
  std::cout << "\n" << std::flush;

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  ProgressFn progress;
  if (shape.layers > 1) {
    progress = [&](const std::string& phase, int64_t layer) {
      std::cerr << absl::StrFormat("progress: layer %d/%d %s done (%.1f s)\n", layer + 1,
                                   shape.layers, phase, elapsed());
    };
  }
  RankGroup& group = (*local)->group();
  std::vector<std::vector<OpResult>> per_rank(static_cast<size_t>(ranks));
  const absl::Status status = group.Run([&](int rank) {
    return RunTransformerBlock(**kernel, shape, job, &group, rank, progress,
                               &per_rank[static_cast<size_t>(rank)]);
  });
  std::vector<OpResult> all;
  for (const auto& v : per_rank) all.insert(all.end(), v.begin(), v.end());
  const std::vector<OpSummary> ops = Summarize(all);
  std::cout << FormatOpTable(ops);
  int failed = 0, served_by_reference = 0;
  std::vector<std::string> failed_names;
  for (const OpSummary& s : ops) {
    if (!s.ok) {
      ++failed;
      failed_names.push_back(s.worst.label);
    }
    served_by_reference += s.worst.served_by_reference ? 1 : 0;
  }
  std::cout << "\n";
  if (!status.ok()) {
    std::cout << "FAILED: the job stopped: " << EscapeUntrustedLines(status.message(), "  ")
              << "\n";
    return kExitNo;
  }
  std::cout << absl::StrFormat("%d ops (%d calls over %d layer%s and %d rank%s) in %.2f s; ",
                               ops.size(), all.size(), shape.layers, shape.layers == 1 ? "" : "s",
                               ranks, ranks == 1 ? "" : "s", elapsed());
  if (failed > 0) {
    std::cout << "FAILED: " << failed << " op" << (failed == 1 ? "" : "s")
              << " exceeded the tolerance: " << absl::StrJoin(failed_names, "; ") << "\n";
    return kExitNo;
  }
  std::cout << "all within tolerance";
  if (served_by_reference == static_cast<int>(ops.size())) {
    std::cout << " (every op was served by the reference provider, so the independent checks are "
                 "what was "
                 "measured)";
  }
  std::cout << "\n";
  return kExitOk;
}

}  // namespace teplug::cli
