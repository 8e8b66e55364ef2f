// What the providers' paired benchmarks share: a reporter that keeps each
// run's time and hands back one variant's times of one case in round order,
// and medians over rounds (of times, and of per-round ratios, which pair runs
// made under the same load). Benchmarks are named "<variant>/<case>/round<N>".
#ifndef TEPLUG_TOOLS_BENCH_PAIRED_ROUNDS_H_
#define TEPLUG_TOOLS_BENCH_PAIRED_ROUNDS_H_

#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace teplug::bench {

// Keeps each run's wall time per iteration, by benchmark name.
class KeepTimes : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override;
  // Times of `variant` on `case_name`, in round order (fewer than ten rounds).
  std::vector<double> Rounds(const std::string& variant, const std::string& case_name) const;

 private:
  std::map<std::string, std::vector<double>> times_;
};

// The median of `v` (the mean of the middle two for an even count); 0 for none.
double Median(std::vector<double> v);
// num[r] / den[r] for each round both have.
std::vector<double> PairedRatios(const std::vector<double>& num, const std::vector<double>& den);
// The median over rounds of num[r] / den[r].
double MedianOfPairedRatios(const std::vector<double>& num, const std::vector<double>& den);

}  // namespace teplug::bench

#endif  // TEPLUG_TOOLS_BENCH_PAIRED_ROUNDS_H_
