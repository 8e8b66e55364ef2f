// `teplug explain <interface> [op fields]`: the decision record for one op
// as a table (candidate, verdict, priority, reason, config rule). Exit 0 when
// a provider can serve the op, 1 when none can, 2 for usage errors.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/kernel/examples.h"
#include "core/log/untrusted_text.h"
#include "tools/teplug/command_parse.h"
#include "tools/teplug/commands.h"
#include "tools/teplug/explain_op.h"
#include "tools/teplug/kernel_flags.h"

namespace teplug::cli {
namespace {

using core::EscapeUntrustedLines;
using core::EscapeUntrustedText;

// "attention|gemm|...": the interfaces, from the kernel's module list.
std::string InterfaceChoice() {
  std::vector<std::string> names;
  for (const core::ExampleInterface& i : core::ExampleInterfaces()) names.push_back(i.name);
  return absl::StrJoin(names, "|");
}

std::string ExplainHelp() {
  return absl::StrCat(
      "Usage: teplug explain <", InterfaceChoice(), "> [--op OP] [op parameters] [--config FILE]\n"
      "\n"
      "Shows which provider would serve one op and why: every candidate\n"
      "implementation with its verdict (chosen, outranked, rejected), priority,\n"
      "the reason (capability limits with the values that failed), and the config\n"
      "rule (file:line) that applied. Nothing runs: the op is described by its\n"
      "shapes and types only.\n"
      "\n"
      "The op parameters are the interface modules' own: a parameter that alone sets a\n"
      "config fact is named after it (--mask-type, --b-dtype, --hidden-size) and\n"
      "accepts the values a config rule on that fact accepts.\n"
      "\n"
      "Examples:\n"
      "  teplug explain attention --dtype bf16 --layout bshd --head-dim 128 --seq-q 4096 \\\n"
      "      --seq-kv 4096 --mask-type causal --device cpu\n"
      "  teplug explain gemm --m 4096 --n 4096 --k 4096 --dtype fp8_e4m3 --scaling-mode mxfp8_1d32\n"
      "  teplug explain quantizer --op quantize --scaling-mode mxfp8_1d32 --dtype fp8_e4m3\n"
      "  teplug explain collective --world-size 8 --device cuda:0\n"
      "  teplug explain norm --norm-type rmsnorm --hidden-size 4096 --output-dtype fp8_e4m3\n"
      "\n"
      "Exit status: 0 a provider can serve the op, 1 none can, 2 usage error.\n");
}

// Every text of the record that a plugin or a config file could have
// supplied (a `supports` reason, a rule's file name) is printed escaped.
void PrintRecord(const core::DecisionRecord& r) {
  std::cout << r.interface_name << " " << EscapeUntrustedText(r.op_summary) << "\n";
  if (!r.requested_provider.empty())
    std::cout << "requested provider: " << EscapeUntrustedText(r.requested_provider) << "\n";
  std::cout << "strict: "
            << (r.strict ? absl::StrCat("yes (", EscapeUntrustedText(r.StrictSource()), ")")
                         : "no (may fall back)")
            << "\n";
  struct Row {
    std::string implementation, reason, rule;
  };
  std::vector<Row> rows;
  size_t wc = 9, wr = 6;
  for (const auto& c : r.candidates) {
    const std::string rule = r.Rule(c);
    Row row{EscapeUntrustedText(c.implementation()),
            EscapeUntrustedText(absl::StrCat("[", core::StageName(c.stage), "] ", r.Reason(c))),
            rule.empty() ? "-" : EscapeUntrustedText(rule)};
    wc = std::max(wc, row.implementation.size());
    wr = std::max(wr, row.reason.size());
    rows.push_back(std::move(row));
  }
  const int icw = static_cast<int>(wc), irw = static_cast<int>(wr);
  std::cout << absl::StrFormat("  %-*s  %-9s  %8s  %-*s  %s\n", icw, "candidate", "verdict",
                               "priority", irw, "reason", "config rule");
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    const auto& c = r.candidates[i];
    std::cout << absl::StrFormat("  %-*s  %-9s  %8d  %-*s  %s\n", icw, rows[i].implementation,
                                 core::VerdictName(c.verdict), c.priority, irw, rows[i].reason,
                                 rows[i].rule);
  }
  if (r.candidates.empty()) std::cout << "  (no implementation of this interface is registered)\n";
  if (r.served()) {
    std::cout << "=> served by " << EscapeUntrustedText(r.chosen()->implementation()) << "\n";
  } else {
    std::cout << "=> no provider can serve this op\n";
  }
}

}  // namespace

int ExplainCommand(const std::vector<std::string>& args) {
  FlagSet flags("teplug explain");
  AddOpFlags(&flags);
  flags.AddString("provider", "NAME", "explain the choice restricted to this provider");
  AddKernelFlags(&flags, ProbeDefault::kOn);
  if (auto done = ParseCommandLine(flags, args, ExplainHelp())) return *done;
  if (flags.positionals().size() != 1) {
    return ReportUsage(
        flags, flags.positionals().empty()
                   ? absl::StrCat("name the interface: teplug explain <", InterfaceChoice(), ">")
                   : absl::StrCat("one interface expected, got ", flags.positionals().size(),
                                  " arguments"));
  }
  // The kernel first: its providers may name device kinds and vendors the
  // flags use.
  absl::StatusOr<std::unique_ptr<core::Kernel>> kernel = CreateKernelFromFlags(flags);
  if (!kernel.ok()) {
    std::cerr << "error: " << EscapeUntrustedLines(kernel.status().message(), "  ") << "\n";
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<core::ExampleOp>> op =
      BuildExplainedOp(flags.positionals()[0], flags, *(*kernel)->DeviceNaming());
  if (!op.ok()) {
    std::cerr << "error: " << EscapeUntrustedLines(op.status().message(), "  ") << "\n";
    return kExitUsage;
  }
  absl::StatusOr<core::DecisionRecord> record =
      (*kernel)->Explain((*op)->iid, (*op)->op, (*op)->args, flags.GetString("provider"));
  if (!record.ok()) {
    std::cerr << "error: the op described by these flags is malformed: "
              << EscapeUntrustedLines(record.status().message(), "  ")
              << " (see teplug explain --help)\n";
    return kExitUsage;
  }
  PrintRecord(*record);
  return record->served() ? kExitOk : kExitNo;
}

}  // namespace teplug::cli
