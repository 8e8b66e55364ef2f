#!/bin/bash
# The parts of tools/gpu_check.sh and tools/gpu_bundle.sh that need no GPU:
# argument parsing, the arch from nvidia-smi's output, the step budgets and
# timeouts, which skipped GPU tests fail the check, the report table from
# the benchmark's CSV, the build-environment check, the whole run as a dry
# run and without nvidia-smi, the bundle's contents (fake bazel, ldd and
# binaries), and --prebuilt run end to end on a bundle of fake binaries.
set -u
SCRIPT="tools/gpu_check.sh"
BUNDLE="tools/gpu_bundle.sh"
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
expect_lacks() {
  ! grep -qF -- "$3" <<<"$2" || fail "$1: output has '$3'; it was:
$2"
}

GPU_CHECK_SOURCE_ONLY=1 source "$SCRIPT"

# ---- parse_args
parse_args --arch 90 --out /x/y --no-bench --dry-run --prebuilt /b
expect_eq "parse_args rc" "$?" 0
expect_eq "ARCH" "$ARCH" 90
expect_eq "OUT_DIR" "$OUT_DIR" /x/y
expect_eq "BENCH" "$BENCH" 0
expect_eq "DRY_RUN" "$DRY_RUN" 1
expect_eq "PREBUILT" "$PREBUILT" /b
ARCH="" OUT_DIR=/tmp/gpu_check BENCH=1 DRY_RUN=0 PREBUILT=""
msg="$(parse_args --arch 9.0 2>&1)"
expect_eq "--arch 9.0 rc" "$?" 2
expect_contains "--arch 9.0" "$msg" "--arch needs a compute capability like 90 (major*10+minor), got '9.0'"
msg="$(parse_args --frobnicate 2>&1)"
expect_eq "unknown rc" "$?" 2
expect_contains "unknown" "$msg" "unknown argument '--frobnicate'"
msg="$(parse_args --out 2>&1)"
expect_eq "--out without dir rc" "$?" 2
msg="$(parse_args --prebuilt 2>&1)"
expect_eq "--prebuilt without dir rc" "$?" 2
msg="$(bash "$SCRIPT" --help)"
expect_contains "help" "$msg" "--prebuilt DIR   run the binaries of a tools/gpu_bundle.sh bundle (its"
expect_contains "help" "$msg" "--dry-run        print the commands instead of running them"

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

# ---- budgets: all steps, one hang's KILL grace included, inside 8 minutes
for mode in build prebuilt; do
  total="$(budget_total "$mode")"
  ((total + KILL_AFTER < 480)) || fail "$mode: budgets add up to $total s (+$KILL_AFTER s grace), not under 480 s"
done
expect_eq "a build's budgets" "$(budget_total)" 465
expect_eq "a bundle's budgets" "$(budget_total prebuilt)" 295
for name in unpack build info test conformance_device conformance_gemm conformance_quantizer conformance_attention \
    run_cuda run_processes nccl gemm_bench attention_bench allreduce_bench quantize_bench; do
  [[ -n "${BUDGET[$name]:-}" ]] || fail "no budget for step $name"
done

# ---- step and verdict: a step that runs out is a failure naming it
FAILED=()
BUDGET[nccl]=1 KILL_AFTER=1
step nccl sleep 5
rc=$?
expect_eq "timed-out step rc" "$rc" 124
msg="$(verdict nccl "$rc" "NCCL collectives" 2>&1)"
expect_eq "verdict of a timeout" "$msg" "gpu_check: FAILED: NCCL collectives: timed out after 1 s (step nccl)"
step nccl bash -c 'trap "" TERM; sleep 5'
rc=$?
expect_eq "step ignoring TERM rc" "$rc" 137
msg="$(verdict nccl "$rc" "NCCL collectives" 2>&1)"
expect_eq "verdict of a kill" "$msg" "gpu_check: FAILED: NCCL collectives: killed 1 s after its 1 s budget (step nccl)"
step nccl false
msg="$(verdict nccl $? "NCCL collectives" 2>&1)"
expect_eq "verdict of a failure" "$msg" "gpu_check: FAILED: NCCL collectives (exit status 1)"
step nccl true
verdict nccl $? "NCCL collectives" || fail "verdict of a success"
verdict nccl 124 "NCCL collectives" 2>/dev/null
expect_eq "failures recorded" "${FAILED[*]}" "NCCL collectives: timed out after 1 s (step nccl)"
BUDGET[nccl]=15 KILL_AFTER=10 FAILED=()

# ---- gpu_skips: which skipped tests fail the check on a GPU machine
mkdir -p "$TMP/logs/a" "$TMP/logs/b" "$TMP/logs/c" "$TMP/logs/d" "$TMP/logs/e"
# GoogleTest's output as it prints it: reasons native/ gives (no device, no
# GPU, NCCL not loadable, a bare skip) next to ones that hold on one H200.
cat >"$TMP/logs/a/test.log" <<'LOG'
exec ${PAGER:-/usr/bin/less} "$0" || exit 1
[==========] Running 5 tests from 2 test suites.
[ RUN      ] CudaSmoke.Runs
native/smoke/cuda_smoke_test.cc:49: Skipped
no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice (no CUDA-capable device is detected), count 0

[  SKIPPED ] CudaSmoke.Runs (0 ms)
[ RUN      ] MxRule.MatchesTransformerEngine
native/quantize/mx_transformer_engine_rule_gpu_test.cc:29: Skipped
no GPU: cudaGetDeviceCount returned cudaErrorInsufficientDriver (CUDA driver version is insufficient for CUDA runtime version), count 0
[  SKIPPED ] MxRule.MatchesTransformerEngine (1 ms)
[ RUN      ] NcclLibraryTest.InstalledLibraryResolvesEveryFunction
native/collective/nccl_support_test.cc:72: Skipped
NCCL not loadable: libnccl.so.2: cannot open shared object file: No such file or directory
[  SKIPPED ] NcclLibraryTest.InstalledLibraryResolvesEveryFunction (0 ms)
[ RUN      ] Bare.Skip
native/x_test.cc:3: Skipped

[  SKIPPED ] Bare.Skip (0 ms)
[ RUN      ] Gemm/CublasLtGpuTest.Matches/mxfp8
native/gemm/cublaslt_gemm_gpu_test.cc:208: Skipped
MXFP8 needs sm_100 or later; cuda:0 is sm_90
[  SKIPPED ] Gemm/CublasLtGpuTest.Matches/mxfp8 (0 ms)
[==========] 5 tests from 2 test suites ran. (4 ms total)
[  SKIPPED ] 5 tests, listed below:
[  SKIPPED ] CudaSmoke.Runs
[  SKIPPED ] MxRule.MatchesTransformerEngine
LOG
cat >"$TMP/logs/b/test.log" <<'LOG'
[ RUN      ] T.Gpu
[       OK ] T.Gpu (3 ms)
[ RUN      ] NcclThroughKernelTest.EveryOpOnOneRankPerGpu
native/collective/nccl_gpu_test.cc:277: Skipped
one GPU: needs 2+ for ranks on separate GPUs
[  SKIPPED ] NcclThroughKernelTest.EveryOpOnOneRankPerGpu (0 ms)
[ RUN      ] CudnnAttentionGpuTest.WithoutAGpu
native/attention/cudnn_attention_gpu_test.cc:76: Skipped
a GPU is present
[  SKIPPED ] CudnnAttentionGpuTest.WithoutAGpu (0 ms)
[ RUN      ] Gemm/CublasLtGpuTest.Matches/block_1x128
native/gemm/cublaslt_gemm_gpu_test.cc:210: Skipped
cuBLASLt's 1x128/128x128 block scaling is Hopper's; cuda:0 is sm_100
[  SKIPPED ] Gemm/CublasLtGpuTest.Matches/block_1x128 (0 ms)
LOG
# A benchmark's own skip line (in the benchmark smoke test's log or its CSV)
# and Google Benchmark's SkipWithError.
printf 'SKIPPED: no CUDA device: cudaGetDeviceCount returned cudaErrorInsufficientDriver\n' >"$TMP/logs/c/test.log"
cat >"$TMP/logs/d/test.log" <<'LOG'
Benchmark                                                Time             CPU   Iterations
BM_Copy/64/manual_time                          ERROR OCCURRED: 'no GPU: cudaGetDeviceCount returned cudaErrorNoDevice'
LOG
printf '[ RUN      ] T.Gpu\n[       OK ] T.Gpu (3 ms)\n' >"$TMP/logs/e/test.log"
expect_eq "every skip parsed" "$(skipped_tests "$TMP"/logs/*/test.log | wc -l)" 10
expect_contains "skip reason kept" "$(skipped_tests "$TMP/logs/b/test.log")" \
  "$TMP/logs/b/test.log	NcclThroughKernelTest.EveryOpOnOneRankPerGpu	one GPU: needs 2+ for ranks on separate GPUs"
skips="$(gpu_skips "$TMP"/logs/*/test.log)"
expect_eq "bad skip count" "$(grep -c . <<<"$skips")" 6
expect_contains "no CUDA device" "$skips" \
  "$TMP/logs/a/test.log: CudaSmoke.Runs: no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice (no CUDA-capable device is detected), count 0"
expect_contains "no GPU" "$skips" "$TMP/logs/a/test.log: MxRule.MatchesTransformerEngine: no GPU: cudaGetDeviceCount returned"
expect_contains "NCCL not loadable" "$skips" \
  "$TMP/logs/a/test.log: NcclLibraryTest.InstalledLibraryResolvesEveryFunction: NCCL not loadable: libnccl.so.2"
expect_contains "bare skip" "$skips" "$TMP/logs/a/test.log: Bare.Skip: (skipped without a reason)"
expect_contains "benchmark skip" "$skips" "$TMP/logs/c/test.log: -: no CUDA device: cudaGetDeviceCount"
expect_contains "SkipWithError" "$skips" "$TMP/logs/d/test.log: BM_Copy/64/manual_time: no GPU: cudaGetDeviceCount returned cudaErrorNoDevice"
expect_lacks "needs sm_100 is legitimate" "$skips" "mxfp8"
expect_eq "legitimate skips only" "$(gpu_skips "$TMP/logs/b/test.log" "$TMP/logs/e/test.log")" ""
legitimate_skip "one GPU: needs 2+ for ranks" || fail "one GPU is a legitimate skip"
legitimate_skip "no GPU: one GPU: needs 2+" && fail "a reason is matched from its start"
# check_skips: the verdict, each offending test printed with its reason.
FAILED=()
msg="$(check_skips "GPU tests of //native/..." "$TMP/logs/a/test.log" "$TMP/logs/b/test.log" 2>&1)"
expect_contains "check_skips verdict" "$msg" "gpu_check: FAILED: GPU tests of //native/...: 4 skipped on a GPU machine, the first: $TMP/logs/a/test.log: CudaSmoke.Runs: no CUDA device:"
expect_contains "check_skips names the test" "$msg" "  $TMP/logs/a/test.log: CudaSmoke.Runs: no CUDA device:"
expect_lacks "check_skips passes a legitimate one" "$msg" "EveryOpOnOneRankPerGpu"
check_skips "x" "$TMP/logs/a/test.log" 2>/dev/null && fail "check_skips rc on a bad skip"
expect_contains "check_skips records it" "${FAILED[*]}" "x: 4 skipped on a GPU machine, the first: $TMP/logs/a/test.log: CudaSmoke.Runs"
LOG_ROOT="$TMP/logs"
msg="$(check_skips "z" "$TMP/logs/c/test.log" 2>&1)"
expect_contains "check_skips below the log root" "$msg" "  c/test.log: -: no CUDA device"
for _ in $(seq 12); do sed -n 2p "$TMP/logs/d/test.log"; done >"$TMP/many.txt"
msg="$(check_skips "many" "$TMP/many.txt" 2>&1)"
expect_eq "check_skips lists ten" "$(grep -c 'BM_Copy' <<<"$msg")" 11
expect_contains "check_skips counts the rest" "$msg" "  ... and 2 more"
LOG_ROOT=""
check_skips "y" "$TMP/logs/b/test.log" || fail "check_skips rc on legitimate skips"
FAILED=()

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

# ---- check_build_env: each missing piece named, 2; nothing when all is there
mkdir -p "$TMP/nobin"
for tool in bash sed grep awk mkdir cat; do ln -sf "$(command -v "$tool")" "$TMP/nobin/$tool"; done
msg="$(PATH="$TMP/nobin" BAZEL=bazel CXX=g++ CUDA_PATH="$TMP/nocuda" TEPLUG_CUDNN_FRONTEND="$TMP/nofrontend" \
  check_build_env 2>&1)"
expect_eq "bare machine rc" "$?" 2
for piece in "missing: bazel (Bazel 4.2, Debian's bazel-bootstrap; run tools/setup.sh" \
    "missing: g++ (package g++" "missing: pkg-config (package pkg-config" "missing: protoc (package protobuf-compiler" \
    "missing: $TMP/nocuda/bin/nvcc" "missing: $TMP/nocuda/include/cudnn.h" "missing: $TMP/nocuda/include/nccl.h" \
    "missing: $TMP/nocuda/lib64/libcudart.so" \
    "missing: $TMP/nofrontend/include/cudnn_frontend.h (the cuDNN frontend headers: run tools/fetch_cudnn_frontend.sh"; do
  expect_contains "bare machine" "$msg" "$piece"
done
# A machine with everything: fake tools answering as present, a fake CUDA
# tree and frontend; then one library and one CUDA library taken away.
mkdir -p "$TMP/envbin" "$TMP/cuda/bin" "$TMP/cuda/include" "$TMP/cuda/lib64" "$TMP/frontend/include"
for tool in bazel protoc; do printf '#!/bin/bash\nexit 0\n' >"$TMP/envbin/$tool"; done
printf '#!/bin/bash\n[[ "$1" == --exists ]] && ! grep -qx "$2" "%s/absent" 2>/dev/null\n' "$TMP" >"$TMP/envbin/pkg-config"
cat >"$TMP/envbin/g++" <<EOF
#!/bin/bash
# -print-file-name=LIB: a path when LIB is present; -E: the included header.
for a in "\$@"; do
  case "\$a" in
    -print-file-name=*) n="\${a#*=}"; grep -qx "\$n" "$TMP/absent" 2>/dev/null && echo "\$n" || echo "/usr/lib/\$n"; exit 0 ;;
  esac
done
h="\$(sed -n 's/#include <\(.*\)>/\1/p')"
! grep -qx "\$h" "$TMP/absent" 2>/dev/null
EOF
chmod +x "$TMP"/envbin/*
touch "$TMP/cuda/bin/nvcc" "$TMP/cuda/include/"{cuda_runtime.h,cudnn.h,nccl.h} "$TMP/frontend/include/cudnn_frontend.h"
for lib in cudart cublas cublasLt cudnn nccl nvrtc; do touch "$TMP/cuda/lib64/lib$lib.so"; done
touch "$TMP/cuda/lib64/libcudnn.so.9" "$TMP/cuda/lib64/libnccl.so.2"
env_ok() { PATH="$TMP/envbin:$TMP/nobin" BAZEL=bazel CXX=g++ CUDA_PATH="$TMP/cuda" TEPLUG_CUDNN_FRONTEND="$TMP/frontend" "$@"; }
msg="$(env_ok check_build_env 2>&1)"
expect_eq "full machine rc" "$?" 0
expect_eq "full machine says nothing" "$msg" ""
# GoogleTest as Debian has it, archives only, is present.
printf 'dnnl.hpp\nlibdnnl.so\nlibdnnl.a\nompi-c\nlibgtest.so\nlibgmock.so\n' >"$TMP/absent"
rm "$TMP/cuda/lib64/libnccl.so"
msg="$(env_ok check_build_env 2>&1)"
expect_eq "partial machine rc" "$?" 2
expect_contains "header" "$msg" "missing: header dnnl.hpp (package libdnnl-dev"
expect_contains "library" "$msg" "missing: library -ldnnl (package libdnnl-dev"
expect_contains "pkg-config module" "$msg" "missing: pkg-config module ompi-c (package libopenmpi-dev"
expect_contains "CUDA library" "$msg" "missing: $TMP/cuda/lib64/libnccl.so (the link's -lnccl"
expect_eq "only those" "$(grep -c 'missing:' <<<"$msg")" 4
rm "$TMP/absent"
touch "$TMP/cuda/lib64/libnccl.so"

# ---- the whole run, dry: the commands for the given arch, in order, each
# under its step's budget
out="$(bash "$SCRIPT" --arch 100 --dry-run --out "$TMP/dry" 2>&1)"
expect_eq "dry run rc" "$?" 0
expect_contains "dry build" "$out" "+ timeout -k 10 180 bazel build -c opt --define=teplug_cuda_archs=100 //native/... //tools/teplug"
expect_contains "dry test" "$out" "+ timeout -k 10 60 bazel test -c opt --define=teplug_cuda_archs=100 --nocache_test_results --test_output=errors //native/..."
expect_contains "dry device conformance" "$out" "+ timeout -k 10 15 bazel-bin/tools/teplug/teplug conformance bazel-bin/native/provider/libteplug_native.so --interface device"
expect_contains "dry gemm conformance" "$out" "+ timeout -k 10 25 bazel-bin/tools/teplug/teplug conformance bazel-bin/native/provider/libteplug_native.so --interface gemm"
expect_contains "dry quantizer conformance" "$out" "+ timeout -k 10 20 bazel-bin/tools/teplug/teplug conformance bazel-bin/native/provider/libteplug_native.so --interface quantizer"
expect_contains "dry attention conformance" "$out" "+ timeout -k 10 30 bazel-bin/tools/teplug/teplug conformance bazel-bin/native/provider/libteplug_native.so --interface attention --device cuda:0"
expect_contains "dry run --device cuda" "$out" "+ timeout -k 10 15 bazel-bin/tools/teplug/teplug run --device cuda --ranks 1"
expect_contains "dry rank processes" "$out" "+ timeout -k 10 20 bazel-bin/tools/teplug/teplug run --launch processes --ranks 1 --devices cuda:0"
expect_contains "dry nccl" "$out" "+ timeout -k 10 15 bazel-bin/native/collective/nccl_gpu_test --gtest_filter=NcclThroughKernelTest.EveryOpOnOneRank:NcclThroughKernelTest.EveryOpOnOneRankPerGpu"
expect_contains "dry bench" "$(cat "$TMP/dry/gemm_bench.csv")" "+ timeout -k 10 15 bazel-bin/native/gemm/cublaslt_gemm_benchmark --benchmark_format=csv"
expect_contains "dry attention bench" "$(cat "$TMP/dry/attention_bench.csv")" "+ timeout -k 10 30 bazel-bin/native/attention/cudnn_attention_benchmark --benchmark_format=csv"
expect_contains "dry quantize bench" "$out" "+ timeout -k 10 20 bazel-bin/native/quantize/quantize_bandwidth_bench --benchmark_counters_tabular=true"
expect_contains "dry all-reduce bench" "$out" "+ timeout -k 10 10 bazel-bin/native/collective/nccl_allreduce_benchmark --benchmark_counters_tabular=true"
expect_contains "dry summary" "$out" "== gpu_check: 0 failure(s)"
order="$(grep '^+ ' <<<"$out" | cut -d' ' -f6-7 | tr '\n' ' ')"
expect_eq "dry order" "$order" "bazel build bazel test bazel-bin/tools/teplug/teplug conformance bazel-bin/tools/teplug/teplug conformance bazel-bin/tools/teplug/teplug conformance bazel-bin/tools/teplug/teplug conformance bazel-bin/tools/teplug/teplug run bazel-bin/tools/teplug/teplug run bazel-bin/native/collective/nccl_gpu_test --gtest_filter=NcclThroughKernelTest.EveryOpOnOneRank:NcclThroughKernelTest.EveryOpOnOneRankPerGpu bazel-bin/native/collective/nccl_allreduce_benchmark --benchmark_counters_tabular=true bazel-bin/native/quantize/quantize_bandwidth_bench --benchmark_counters_tabular=true "
expect_eq "dry run writes 8 files at most" "$(($(find "$TMP/dry" -type f | wc -l) <= 8))" 1

# ---- without nvidia-smi and without --arch: a clear refusal
msg="$(PATH="$TMP/nobin" bash "$SCRIPT" --out "$TMP/none" 2>&1)"
expect_eq "no nvidia-smi rc" "$?" 2
expect_contains "no nvidia-smi" "$msg" "nvidia-smi not found: this is not a GPU machine (or pass --arch)"

# ---- the build environment is checked before building: 2, each piece named
msg="$(PATH="$TMP/nobin:$(dirname "$(command -v timeout)")" BAZEL=no-such-bazel CUDA_PATH="$TMP/nocuda" \
  bash "$SCRIPT" --arch 90 --out "$TMP/noenv" 2>&1)"
expect_eq "no build environment rc" "$?" 2
expect_contains "no bazel" "$msg" "gpu_check: missing: no-such-bazel (Bazel 4.2"
expect_contains "no CUDA" "$msg" "gpu_check: missing: $TMP/nocuda/bin/nvcc"
expect_contains "what to do" "$msg" "build a bundle on the development machine (tools/gpu_bundle.sh --arch 90 --out DIR), carry DIR here and run tools/gpu_check.sh --prebuilt DIR"
expect_lacks "nothing run" "$msg" "== build"

# ---- gpu_bundle.sh: which libraries travel
GPU_BUNDLE_SOURCE_ONLY=1 source "$BUNDLE"
expect_eq "label path" "$(label_path //native/gemm:cublaslt_gemm_gpu_test)" "native/gemm/cublaslt_gemm_gpu_test"
LDD_TEXT="	linux-vdso.so.1 (0x00007ffd)
	libnative_Sgemm_Slibalgorithm_Ucache.so => /b/_solib_k8/libnative_Sgemm_Slibalgorithm_Ucache.so (0x7f01)
	libabsl_statusor.so.20220623 => /lib/x86_64-linux-gnu/libabsl_statusor.so.20220623 (0x7f02)
	libprotobuf.so.32 => /lib/x86_64-linux-gnu/libprotobuf.so.32 (0x7f03)
	libcudart.so.13 => /usr/local/cuda/lib64/libcudart.so.13 (0x7f04)
	libcupti.so.13 => /opt/cuda-13.0/extras/CUPTI/lib64/libcupti.so.13 (0x7f05)
	libstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x7f06)
	libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x7f07)
	libgcc_s.so.1 => /lib/x86_64-linux-gnu/libgcc_s.so.1 (0x7f08)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x7f09)
	libcuda.so.1 => /usr/lib/x86_64-linux-gnu/libcuda.so.1 (0x7f10)
	/lib64/ld-linux-x86-64.so.2 (0x7f11)"
libs="$(bundled_libraries /opt/cuda-13.0 <<<"$LDD_TEXT")"
expect_eq "bundled libraries rc" "$?" 0
expect_eq "bundled libraries" "$libs" "libnative_Sgemm_Slibalgorithm_Ucache.so	/b/_solib_k8/libnative_Sgemm_Slibalgorithm_Ucache.so
libabsl_statusor.so.20220623	/lib/x86_64-linux-gnu/libabsl_statusor.so.20220623
libprotobuf.so.32	/lib/x86_64-linux-gnu/libprotobuf.so.32"
msg="$(bundled_libraries /opt/cuda <<<"	libgloo.so.0 => not found" 2>&1)"
expect_eq "not found rc" "$?" 1
expect_contains "not found" "$msg" "gpu_bundle: libgloo.so.0 not found (ldd)"
msg="$(bundle_parse_args --arch 90 2>&1)"
expect_eq "bundle without --out rc" "$?" 2
expect_contains "bundle without --out" "$msg" "--arch and --out are needed"
out="$(bash "$BUNDLE" --arch 90 --out "$TMP/nobundle" --dry-run 2>&1)"
expect_eq "bundle dry run rc" "$?" 0
expect_contains "bundle dry build" "$out" "+ bazel build -c opt --define=teplug_cuda_archs=90 //native/... //tools/teplug"
mkdir -p "$TMP/small"
head -c 2048 /dev/zero >"$TMP/small/f"
CARRY_LIMIT_BYTES=1024 bundle_size_report "$TMP/small" "$TMP/small/f" >/dev/null 2>&1 && fail "an oversized bundle passes"
CARRY_LIMIT_BYTES=$((1 << 20)) bundle_size_report "$TMP/small" "$TMP/small/f" >/dev/null || fail "a small bundle fails"
CARRY_LIMIT_BYTES=4096 bundle_size_report "$TMP/small" "$TMP/small/f" 4000 >/dev/null 2>&1 &&
  fail "a bundle that fits only without the tree passes"

# ---- gpu_bundle.sh end to end on fake bazel, ldd and binaries
FAKE_BIN="$TMP/bazel-bin"
mkdir -p "$FAKE_BIN/_solib_k8" "$TMP/syslib"
fake_binary() {  # PATH [SCRIPT]: an executable that runs SCRIPT (bash)
  mkdir -p "$(dirname "$1")"
  printf '#!/bin/bash\n%s\n' "${2:-exit 0}" >"$1"
  chmod +x "$1"
}
# Fake GPU programs: the tests print GoogleTest's output; one of them skips
# for want of a GPU, which --prebuilt must catch.
fake_binary "$FAKE_BIN/tools/teplug/teplug" 'echo "teplug $*"; [[ "$LD_LIBRARY_PATH" == "$BUNDLE_LIB:"* ]]'
fake_binary "$FAKE_BIN/native/provider/libteplug_native.so"
fake_binary "$FAKE_BIN/native/gemm/cublaslt_gemm_benchmark" "cat '$TMP/bench.csv'"
fake_binary "$FAKE_BIN/native/attention/cudnn_attention_benchmark" "cat '$TMP/bench.csv'"
fake_binary "$FAKE_BIN/native/collective/nccl_allreduce_benchmark" 'echo "BM_AllReduce/1 ratio=0.99"'
fake_binary "$FAKE_BIN/native/quantize/quantize_bandwidth_bench" 'echo "BM_Copy/64/manual_time 1 ms"'
fake_binary "$FAKE_BIN/native/collective/nccl_gpu_test" "cat '$TMP/logs/e/test.log' '$TMP/logs/b/test.log'"
fake_binary "$FAKE_BIN/native/gemm/good_test" \
  "[[ -e \$TEST_SRCDIR/teplug/native/provider/libteplug_native.so && -d \$TEST_TMPDIR ]] || exit 3; cat '$TMP/logs/e/test.log'"
fake_binary "$FAKE_BIN/native/smoke/skipping_test" "sed -n 3,7p '$TMP/logs/a/test.log'"
fake_binary "$FAKE_BIN/native/smoke/failing_test" 'echo "[  FAILED  ] X.Y"; exit 1'
echo lib >"$FAKE_BIN/_solib_k8/libnative_Sfoo.so"
echo lib >"$TMP/syslib/libgloo.so.0"
fake_binary "$TMP/envbin/fake-ldd" "case \"\$1\" in
  */tools/teplug/teplug) printf '\tlibgloo.so.0 => $TMP/syslib/libgloo.so.0 (0x1)\n\tlibc.so.6 => /lib/libc.so.6 (0x2)\n' ;;
  *) printf '\tlibnative_Sfoo.so => $FAKE_BIN/_solib_k8/libnative_Sfoo.so (0x1)\n\tlibcudart.so.13 => $TMP/cuda/lib64/libcudart.so.13 (0x2)\n\tlibcupti.so.13 => $TMP/cuda/lib64/libcupti.so.13 (0x3)\n' ;;
esac"
fake_binary "$TMP/envbin/fake-bazel" "case \"\$1\" in
  build) echo \"fake bazel \$*\" ;;
  info) echo '$FAKE_BIN' ;;
  query) printf '//native/gemm:good_test\n//native/smoke:skipping_test\n//native/collective:nccl_gpu_test\n' ;;
esac"
out="$(PATH="$TMP/envbin:$PATH" BAZEL=fake-bazel LDD=fake-ldd STRIP=true CXX=g++ CUDA_PATH="$TMP/cuda" \
  TEPLUG_CUDNN_FRONTEND="$TMP/frontend" bash "$BUNDLE" --arch 90 --out "$TMP/bundle" 2>&1)"
expect_eq "bundle rc" "$?" 0
expect_contains "bundle build" "$out" "fake bazel build -c opt --define=teplug_cuda_archs=90 //native/... //tools/teplug"
expect_contains "bundle counts" "$out" "== 6 binaries, 3 tests, 2 libraries"
expect_contains "bundle size" "$out" "== bundle: $TMP/bundle holds"
expect_contains "bundle archive" "$out" "== to carry: the archive and the working tree's"
[[ -f "$TMP/bundle.tar.xz" ]] || fail "no bundle archive"
expect_eq "bundle files" "$(cd "$TMP/bundle" && find . -type f | sort | tr '\n' ' ')" "./bin/native/attention/cudnn_attention_benchmark ./bin/native/collective/nccl_allreduce_benchmark ./bin/native/collective/nccl_gpu_test ./bin/native/gemm/cublaslt_gemm_benchmark ./bin/native/gemm/good_test ./bin/native/provider/libteplug_native.so ./bin/native/quantize/quantize_bandwidth_bench ./bin/native/smoke/skipping_test ./bin/tools/teplug/teplug ./lib/libgloo.so.0 ./lib/libnative_Sfoo.so ./manifest.txt "
manifest="$(cat "$TMP/bundle/manifest.txt")"
expect_contains "manifest arch" "$manifest" "arch: 90"
expect_contains "manifest binary" "$manifest" "binary: bin/tools/teplug/teplug"
expect_contains "manifest test" "$manifest" "test: bin/native/collective/nccl_gpu_test"
expect_lacks "nccl_gpu_test once" "$manifest" "binary: bin/native/collective/nccl_gpu_test"

# ---- --prebuilt: the bundle's binaries, no build, LD_LIBRARY_PATH=DIR/lib first
prebuilt() {
  env BUNDLE_LIB="$TMP/bundle/lib" CUDA_PATH="$TMP/cuda" LDCONFIG=true PYTHON=false PATH="$PATH" \
    bash "$SCRIPT" --arch 90 "$@"
}
out="$(prebuilt --prebuilt "$TMP/bundle" --out "$TMP/pre_dry" --dry-run 2>&1)"
expect_eq "prebuilt dry rc" "$?" 0
expect_contains "prebuilt library path" "$out" "== LD_LIBRARY_PATH=$TMP/bundle/lib:$TMP/cuda/lib64"
expect_contains "prebuilt dry test" "$out" "+ timeout -k 10 <left of 60> $TMP/bundle/bin/native/gemm/good_test"
expect_contains "prebuilt dry conformance" "$out" "+ timeout -k 10 15 $TMP/bundle/bin/tools/teplug/teplug conformance $TMP/bundle/bin/native/provider/libteplug_native.so --interface device"
expect_contains "prebuilt dry nccl" "$out" "+ timeout -k 10 15 $TMP/bundle/bin/native/collective/nccl_gpu_test --gtest_filter="
expect_lacks "prebuilt does not build" "$out" "== build"
# Run for real on the fakes: the GPU test that skipped for want of a GPU is
# the one failure, named with its reason; the legitimate skips pass.
out="$(prebuilt --prebuilt "$TMP/bundle" --out "$TMP/pre" 2>&1)"
expect_eq "prebuilt rc with a bad skip" "$?" 1
expect_contains "prebuilt bad skip" "$out" "gpu_check: FAILED: GPU tests of //native/...: 1 skipped on a GPU machine, the first: native/smoke/skipping_test/test.log: CudaSmoke.Runs: no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice"
expect_contains "prebuilt summary names it" "$out" "   - GPU tests of //native/...: 1 skipped on a GPU machine, the first: native/smoke/skipping_test/test.log: CudaSmoke.Runs"
expect_contains "prebuilt one failure" "$out" "== gpu_check: 1 failure(s)"
expect_contains "prebuilt report" "$(cat "$TMP/pre/gemm_report.txt")" "bf16/4096x4096x4096                   765.5"
expect_eq "prebuilt writes 8 files" "$(find "$TMP/pre" -type f | wc -l)" 8
# The archive as it travels: unpacked, then the same run.
out="$(prebuilt --prebuilt "$TMP/bundle.tar.xz" --out "$TMP/pre_xz" --no-bench 2>&1)"
expect_eq "prebuilt archive rc with a bad skip" "$?" 1
expect_contains "prebuilt archive unpacked" "$out" "== unpacking $TMP/bundle.tar.xz"
expect_contains "prebuilt archive bad skip" "$out" "1 skipped on a GPU machine, the first: native/smoke/skipping_test/test.log: CudaSmoke.Runs"
expect_contains "prebuilt archive's binaries" "$out" "binaries of ${TMPDIR:-/tmp}/gpu_check_work."
grep -v '^test: bin/native/smoke/skipping_test$' "$TMP/bundle/manifest.txt" >"$TMP/m" && cp "$TMP/m" "$TMP/bundle/manifest.txt"
out="$(prebuilt --prebuilt "$TMP/bundle" --out "$TMP/pre" 2>&1)"
expect_eq "prebuilt rc without it" "$?" 0
expect_contains "prebuilt passes" "$out" "== gpu_check: 0 failure(s)"
cp "$FAKE_BIN/native/smoke/failing_test" "$TMP/bundle/bin/native/smoke/"
echo "test: bin/native/smoke/failing_test" >>"$TMP/bundle/manifest.txt"
out="$(prebuilt --prebuilt "$TMP/bundle" --out "$TMP/pre" --no-bench 2>&1)"
expect_eq "prebuilt rc with a failing test" "$?" 1
expect_contains "prebuilt failing test" "$out" "gpu_check: FAILED: test native/smoke/failing_test (exit status 1); the end of its log:"
expect_contains "prebuilt failing test's log" "$out" "  [  FAILED  ] X.Y"
# A bundle that does not fit this machine: 2, before running anything.
out="$(prebuilt --prebuilt "$TMP/bundle" --out "$TMP/pre" --arch 100 2>&1)"
expect_eq "prebuilt other arch rc" "$?" 2
expect_contains "prebuilt other arch" "$out" "the bundle is built for sm_90, this GPU is sm_100: build one with tools/gpu_bundle.sh --arch 100"
rm "$TMP/cuda/lib64/libnccl.so.2"
out="$(prebuilt --prebuilt "$TMP/bundle" --out "$TMP/pre" 2>&1)"
expect_eq "prebuilt without NCCL rc" "$?" 2
expect_contains "prebuilt without NCCL" "$out" "gpu_check: prebuilt: libnccl.so.2 (loaded at run time"
msg="$(prebuilt --prebuilt "$TMP/nobundle" --out "$TMP/pre" 2>&1)"
expect_eq "prebuilt no bundle rc" "$?" 2

if [[ "$FAILURES" != 0 ]]; then
  echo "$FAILURES check(s) failed"
  exit 1
fi
echo "all checks passed"
