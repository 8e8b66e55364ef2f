# @com_github_google_benchmark from Debian's libbenchmark-dev.
# Target names mirror upstream Google Benchmark.
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "benchmark",
    linkopts = ["-lbenchmark", "-pthread"],
)

cc_library(
    name = "benchmark_main",
    linkopts = ["-lbenchmark_main", "-lbenchmark", "-pthread"],
)
