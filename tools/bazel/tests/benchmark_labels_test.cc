// Proves @com_github_google_benchmark links: a registered benchmark runs and reports.
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "gtest/gtest.h"

namespace {

// Collects the names of the runs the library reports instead of printing them.
class RecordingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) names.push_back(run.benchmark_name());
  }
  std::vector<std::string> names;
};

void BM_Accumulate(benchmark::State& state) {
  int total = 0;
  for (auto _ : state) benchmark::DoNotOptimize(total += 1);
}

TEST(BenchmarkLabelsTest, RegisteredBenchmarkRunsOnce) {
  benchmark::RegisterBenchmark("BM_Accumulate", BM_Accumulate)->Iterations(10);
  int argc = 1;
  char arg0[] = "benchmark_labels_test";
  char* argv[] = {arg0, nullptr};
  benchmark::Initialize(&argc, argv);
  RecordingReporter reporter;
  EXPECT_EQ(benchmark::RunSpecifiedBenchmarks(&reporter), 1u);
  ASSERT_EQ(reporter.names.size(), 1u);
  EXPECT_EQ(reporter.names[0], "BM_Accumulate/iterations:10");
}

}  // namespace
