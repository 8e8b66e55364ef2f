// What the main job measured for each op call, and the per-op table it
// prints: interface, the provider that served it, why, time, speedup over
// the reference provider, the error against the reference provider and
// against the tool's independent oracle, each with its tolerance, and OK/FAIL.
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

// The op timed apart from its checked call (nothing else of the job runs
// meanwhile): the median of kTimedReps calls through the dispatching object,
// and, when the job compares with the reference, of as many calls through the
// reference provider, the two kinds of call alternating so that a change in
// the machine's load touches both alike.
struct OpTiming {
  static constexpr int kTimedReps = 5;
  bool timed = false;
  bool compared = false;  // reference_millis was measured
  double provider_millis = 0;
  double reference_millis = 0;
  // reference / provider: above 1, the provider is faster. Only when compared.
  double Speedup() const { return reference_millis / provider_millis; }
};

// The median of `values` (the mean of the middle two for an even count); 0
// for none.
double Median(std::vector<double> values);

// One op call on one rank in one layer.
struct OpResult {
  std::string step;            // "fwd", "bwd", "comm"
  // "rank 1 opencl:0" when the job shows a row per rank (`teplug run
  // --devices`); "" merges the rank's calls with the other ranks'.
  std::string device;
  std::string label;           // "gemm qkv_proj (fp8 per_tensor)"
  std::string interface_name;  // "IGemm/1"
  // The implementation that served the call ("reference/gemm"): the first
  // choice, or the one the dispatcher fell back to when that one failed.
  std::string implementation;
  std::string why;  // the decision record's reason, or which first choice it fell back from
  double millis = 0;  // the checked call
  bool served_by_reference = false;
  OpTiming timing;  // measured on one rank, for the first call of each label
  ErrorCheck vs_reference;  // measured only when the reference did not serve the call
  ErrorCheck independent;
  bool ok() const { return vs_reference.ok() && independent.ok(); }
};

// All calls of one op label, merged over layers and ranks: worst errors,
// the timing, the first and the mean time of the checked calls, every
// implementation that served it.
struct OpSummary {
  OpResult worst;  // label/interface/why of the first call; errors are the maxima
  int calls = 0;
  // The first checked call's time: where one-time work a provider does on
  // first use (a kernel build, a plan, a graph) shows, apart from "time".
  double first_millis = 0;
  double total_millis = 0;
  std::vector<std::string> implementations;
  bool ok = true;
};

// Merges results by device and label, in order of first appearance.
std::vector<OpSummary> Summarize(const std::vector<OpResult>& results);

// The table, one line per op label (and rank, with a "rank" column, when
// the results name their devices), columns aligned. "time" is the timed
// median when the op was timed (else the checked calls' mean); "first call"
// the first checked call's time; "speedup" is reference time / provider
// time, "-" when the op was not compared.
std::string FormatOpTable(const std::vector<OpSummary>& ops);

// "1.2e-03" style, "0" for exactly zero.
std::string FormatError(double e);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_OP_REPORT_H_
