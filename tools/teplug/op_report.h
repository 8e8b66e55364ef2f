// What the main job measured for each op call, and the per-op table it
// prints: interface, chosen provider, why, time, the error against the
// reference provider and against the tool's independent oracle, each with
// its tolerance, and OK/FAIL.
#ifndef TEPLUG_TOOLS_TEPLUG_OP_REPORT_H_
#define TEPLUG_TOOLS_TEPLUG_OP_REPORT_H_

#include <string>
#include <vector>

namespace teplug::cli {

// One error measurement: NormalizedMaxError against some oracle.
struct ErrorCheck {
  std::string oracle;  // "naive gemm", "round trip", ...; "" = not measured
  double error = 0;
  double tolerance = 0;
  std::string skipped;  // why it was not measured, or ""
  bool ok() const { return oracle.empty() || !skipped.empty() || error <= tolerance; }
};

// One op call on one rank in one layer.
struct OpResult {
  std::string step;            // "fwd", "bwd", "comm"
  std::string label;           // "gemm qkv_proj (fp8 per_tensor)"
  std::string interface_name;  // "IGemm/1"
  std::string implementation;  // "reference/gemm"
  std::string why;             // the decision record's reason for the chosen one
  double millis = 0;
  bool chosen_is_reference = false;
  ErrorCheck vs_reference;  // measured only when the chosen provider is not the reference
  ErrorCheck independent;
  bool ok() const { return vs_reference.ok() && independent.ok(); }
};

// All calls of one op label, merged over layers and ranks: worst errors,
// mean time, every implementation that served it.
struct OpSummary {
  OpResult worst;  // label/interface/why of the first call; errors are the maxima
  int calls = 0;
  double total_millis = 0;
  std::vector<std::string> implementations;
  bool ok = true;
};

// Merges results by label, in order of first appearance.
std::vector<OpSummary> Summarize(const std::vector<OpResult>& results);

// The table, one line per op label, columns aligned.
std::string FormatOpTable(const std::vector<OpSummary>& ops);

// "1.2e-03" style, "0" for exactly zero.
std::string FormatError(double e);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_OP_REPORT_H_
