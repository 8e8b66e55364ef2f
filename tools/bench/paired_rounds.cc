#include "tools/bench/paired_rounds.h"

#include <algorithm>

namespace teplug::bench {

void KeepTimes::ReportRuns(const std::vector<Run>& runs) {
  for (const Run& run : runs) {
    if (!run.error_occurred) times_[run.benchmark_name()].push_back(run.GetAdjustedRealTime());
  }
  ConsoleReporter::ReportRuns(runs);
}

std::vector<double> KeepTimes::Rounds(const std::string& variant,
                                      const std::string& case_name) const {
  std::vector<double> out;
  const std::string prefix = variant + "/" + case_name + "/round";
  // The map orders the names, so round N's time comes before round N+1's
  // (fewer than ten rounds).
  for (const auto& [name, times] : times_)
    if (name.rfind(prefix, 0) == 0) out.insert(out.end(), times.begin(), times.end());
  return out;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

std::vector<double> PairedRatios(const std::vector<double>& num, const std::vector<double>& den) {
  std::vector<double> out;
  for (size_t r = 0; r < std::min(num.size(), den.size()); ++r) out.push_back(num[r] / den[r]);
  return out;
}

double MedianOfPairedRatios(const std::vector<double>& num, const std::vector<double>& den) {
  return Median(PairedRatios(num, den));
}

}  // namespace teplug::bench
