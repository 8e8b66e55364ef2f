// The five comparisons the kernel has overhead targets for, computed
// from benchmark times measured in the same run, and the lines the bench
// prints for them. Kept apart from the benchmarks so the arithmetic and the
// verdicts are unit-tested.
#ifndef TEPLUG_TESTS_BENCH_BENCH_RATIOS_H_
#define TEPLUG_TESTS_BENCH_BENCH_RATIOS_H_

#include <string>
#include <vector>

namespace teplug::bench {

// CPU seconds per iteration of each benchmark (medians over repetitions).
struct BenchTimes {
  double direct_call = 0;     // attention forward through the plugin's own function table
  double selected_call = 0;   // the same through the implementation Kernel::Select returned
  double dispatch_call = 0;   // the same through the dispatching object, decision cached
  double prepared_call = 0;   // the same through a dispatching object prepared for it (Kernel::Prepare)
  double cold_select_64 = 0;  // Kernel::Select among 64 implementations (no cache)
  double create_empty = 0;    // Kernel::Create with no plugins
  double create_50 = 0;       // Kernel::Create loading 50 plugins
};

// The targets, as ratios against the direct call measured in the same run
// (the dispatch's instruction count, the repeatable side of its cost, is
// measured by tools/callgrind_dispatch.sh).
inline constexpr double kMaxSelectedOverDirect = 1.05;
inline constexpr double kMaxDispatchOverDirect = 2.0;  // also for the prepared object
inline constexpr double kMaxColdSelect64Us = 5.0;
inline constexpr double kMaxLoad50Ms = 100.0;

struct RatioLine {
  std::string text;  // e.g. "selected/direct = 1.03x (target <= 1.05x): met"
  bool met = false;
};

// One line per comparison: selected, dispatch, cold selection, load, prepared.
std::vector<RatioLine> ComputeRatios(const BenchTimes& t);

}  // namespace teplug::bench

#endif  // TEPLUG_TESTS_BENCH_BENCH_RATIOS_H_
