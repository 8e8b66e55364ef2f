#!/bin/bash
# The parts of tools/gpu_check.sh that need no GPU: argument parsing, the
# arch from nvidia-smi's output, finding GPU tests that skipped, the report
# table from the benchmark's CSV, and the whole run as a dry run (the
# commands it would issue) and without nvidia-smi.
set -u
SCRIPT="tools/gpu_check.sh"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
FAILURES=0
fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}
# expect_eq WHAT GOT WANT
expect_eq() {
  [[ "$2" == "$3" ]] || fail "$1: got '$2', want '$3'"
}
expect_contains() {
  grep -qF -- "$3" <<<"$2" || fail "$1: output lacks '$3'; it was:
$2"
}

GPU_CHECK_SOURCE_ONLY=1 source "$SCRIPT"

# ---- parse_args
parse_args --arch 90 --out /x/y --no-bench --dry-run
expect_eq "parse_args rc" "$?" 0
expect_eq "ARCH" "$ARCH" 90
expect_eq "OUT_DIR" "$OUT_DIR" /x/y
expect_eq "BENCH" "$BENCH" 0
expect_eq "DRY_RUN" "$DRY_RUN" 1
msg="$(parse_args --arch 9.0 2>&1)"
expect_eq "--arch 9.0 rc" "$?" 2
expect_contains "--arch 9.0" "$msg" "--arch needs a compute capability like 90 (major*10+minor), got '9.0'"
msg="$(parse_args --frobnicate 2>&1)"
expect_eq "unknown rc" "$?" 2
expect_contains "unknown" "$msg" "unknown argument '--frobnicate'"
msg="$(parse_args --out 2>&1)"
expect_eq "--out without dir rc" "$?" 2

# ---- arch_from_compute_caps
expect_eq "one rank device" "$(cuda_devices 1)" "cuda:0"
expect_eq "four rank devices" "$(cuda_devices 4)" "cuda:0,cuda:1,cuda:2,cuda:3"
expect_eq "9.0" "$(arch_from_compute_caps "9.0")" 90
expect_eq "8.9" "$(arch_from_compute_caps " 8.9 ")" 89
expect_eq "two 10.0" "$(arch_from_compute_caps $'10.0\n10.0\n')" 100
msg="$(arch_from_compute_caps "" 2>&1)"
expect_eq "empty rc" "$?" 2
expect_contains "empty" "$msg" "nvidia-smi listed no GPU"
msg="$(arch_from_compute_caps $'9.0\n8.0' 2>&1)"
expect_eq "mixed rc" "$?" 2
expect_contains "mixed" "$msg" "GPUs of different archs (90 and 80); pass --arch"
msg="$(arch_from_compute_caps "[N/A]" 2>&1)"
expect_eq "N/A rc" "$?" 2
expect_contains "N/A" "$msg" "nvidia-smi printed '[N/A]', not a compute capability"

# ---- gpu_skips: which test logs show a GPU test that did not run
mkdir -p "$TMP/logs/a" "$TMP/logs/b" "$TMP/logs/c"
printf '[ RUN      ] T.Gpu\nnative/x_test.cc:9: Skipped\nno CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice (no CUDA-capable device is detected)\n' \
  >"$TMP/logs/a/test.log"
printf '[ RUN      ] T.Gpu\n[       OK ] T.Gpu (3 ms)\n' >"$TMP/logs/b/test.log"
printf 'SKIPPED: no CUDA device: cudaGetDeviceCount returned cudaErrorInsufficientDriver\n' >"$TMP/logs/c/test.log"
skips="$(gpu_skips "$TMP/logs/a/test.log" "$TMP/logs/b/test.log" "$TMP/logs/c/test.log")"
expect_eq "skip count" "$(grep -c . <<<"$skips")" 2
expect_contains "skip a" "$skips" "$TMP/logs/a/test.log:no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice"
expect_contains "skip c" "$skips" "$TMP/logs/c/test.log:SKIPPED: no CUDA device"
expect_eq "no skip" "$(gpu_skips "$TMP/logs/b/test.log")" ""

# ---- format_report: Google Benchmark's CSV (as it prints it) to the table
cat >"$TMP/bench.csv" <<'CSV'
device: NVIDIA H200 (sm_90), cuBLASLt 130100
name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message,"direct_TFLOPs","peak_fraction","ratio","teplug_TFLOPs"
"bf16/4096x4096x4096/iterations:5/manual_time",5,180.2,9.1,us,,,,,,770.5,0.7125,0.9935,765.5
"fp8_e4m3/8192x8192x1024/iterations:5/manual_time",5,120.0,9.0,us,,,,,,1300,0,0.95,1235
CSV
report="$(format_report "$TMP/bench.csv")"
expect_eq "format_report rc" "$?" 0
expect_contains "device line" "$report" "device: NVIDIA H200 (sm_90), cuBLASLt 130100"
expect_contains "header" "$report" "GEMM                         teplug TFLOP/s   direct TFLOP/s   ratio  % of peak  verdict"
expect_contains "bf16 row" "$report" "bf16/4096x4096x4096                   765.5            770.5   0.994      71.2%  ok"
expect_contains "fp8 row" "$report" "fp8_e4m3/8192x8192x1024              1235.0           1300.0   0.950    unknown  below 0.97"
expect_contains "attention header" "$(format_report "$TMP/bench.csv" attention)" "attention                    teplug TFLOP/s"
printf 'name,iterations,real_time\n"x",1,2\n' >"$TMP/plain.csv"
msg="$(format_report "$TMP/plain.csv" 2>&1)"
expect_eq "no counters rc" "$?" 2
expect_contains "no counters" "$msg" "the benchmark CSV lacks its counters"
printf 'SKIPPED: no CUDA device: x\n' >"$TMP/skipped.csv"
msg="$(format_report "$TMP/skipped.csv" 2>&1)"
expect_eq "no rows rc" "$?" 2
expect_contains "no rows" "$msg" "no benchmark rows"

# ---- the whole run, dry: the commands for the given arch, in order
out="$(bash "$SCRIPT" --arch 100 --dry-run --out "$TMP/dry" 2>&1)"
expect_eq "dry run rc" "$?" 0
expect_contains "dry build" "$out" "+ bazel build -c opt --define=teplug_cuda_archs=100 //native/... //tools/teplug"
expect_contains "dry test" "$out" "+ bazel test -c opt --define=teplug_cuda_archs=100 --test_output=errors //native/..."
for iface in device gemm quantizer; do
  expect_contains "dry $iface conformance" "$out" "+ bazel-bin/tools/teplug/teplug conformance bazel-bin/native/provider/libteplug_native.so --interface $iface"
done
expect_contains "dry attention conformance" "$out" "+ bazel-bin/tools/teplug/teplug conformance bazel-bin/native/provider/libteplug_native.so --interface attention --device cuda:0"
expect_contains "dry run --device cuda" "$out" "+ bazel-bin/tools/teplug/teplug run --device cuda --ranks 1"
expect_contains "dry rank processes" "$out" "+ bazel-bin/tools/teplug/teplug run --launch processes --ranks 1 --devices cuda:0"
expect_contains "dry nccl" "$out" "+ bazel-bin/native/collective/nccl_gpu_test --gtest_filter=NcclThroughKernelTest.EveryOpOnOneRank:NcclThroughKernelTest.EveryOpOnOneRankPerGpu"
expect_contains "dry bench" "$(cat "$TMP/dry/gemm_bench.csv")" "+ bazel-bin/native/gemm/cublaslt_gemm_benchmark --benchmark_format=csv"
expect_contains "dry attention bench" "$(cat "$TMP/dry/attention_bench.csv")" "+ bazel-bin/native/attention/cudnn_attention_benchmark --benchmark_format=csv"
order="$(grep -n '^+ ' <<<"$out" | cut -d' ' -f2-3 | tr '\n' ' ')"
expect_contains "dry quantize bench" "$out" "+ bazel-bin/native/quantize/quantize_bandwidth_bench --benchmark_counters_tabular=true"
expect_contains "dry all-reduce bench" "$out" "+ bazel-bin/native/collective/nccl_allreduce_benchmark --benchmark_counters_tabular=true"
expect_eq "dry order" "$order" "bazel build bazel test bazel-bin/tools/teplug/teplug conformance bazel-bin/tools/teplug/teplug conformance bazel-bin/tools/teplug/teplug conformance bazel-bin/tools/teplug/teplug conformance bazel-bin/tools/teplug/teplug run bazel-bin/tools/teplug/teplug run bazel-bin/native/collective/nccl_gpu_test --gtest_filter=NcclThroughKernelTest.EveryOpOnOneRank:NcclThroughKernelTest.EveryOpOnOneRankPerGpu bazel-bin/native/collective/nccl_allreduce_benchmark --benchmark_counters_tabular=true bazel-bin/native/quantize/quantize_bandwidth_bench --benchmark_counters_tabular=true "

# ---- without nvidia-smi and without --arch: a clear refusal
mkdir -p "$TMP/nobin"
for tool in bash sed grep awk mkdir cat; do ln -sf "$(command -v "$tool")" "$TMP/nobin/$tool"; done
msg="$(PATH="$TMP/nobin" bash "$SCRIPT" --out "$TMP/none" 2>&1)"
expect_eq "no nvidia-smi rc" "$?" 2
expect_contains "no nvidia-smi" "$msg" "nvidia-smi not found: this is not a GPU machine (or pass --arch)"

if [[ "$FAILURES" != 0 ]]; then
  echo "$FAILURES check(s) failed"
  exit 1
fi
echo "all checks passed"
