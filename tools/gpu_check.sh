#!/bin/bash
# tools/gpu_check.sh: the check a GPU machine runs, in one go (under 8
# minutes on a 16-core machine, build included):
#   1. detects the GPU's arch (nvidia-smi --query-gpu=compute_cap) and builds
#      with -c opt for it alone (--define=teplug_cuda_archs=<arch>), or, with
#      --prebuilt DIR, takes the binaries tools/gpu_bundle.sh built for that
#      arch on another machine;
#   2. runs every test of //native/... (host tests and GPU tests) and fails
#      if a GPU test skipped for a reason that does not hold on this machine
#      (no device found, a library not loadable): every test must run here
#      but those that need more GPUs or another arch (LEGITIMATE_SKIPS);
#   3. runs `teplug conformance` on libteplug_native.so's IDevice, IGemm and
#      IQuantizer on its devices, then its attention on cuda:0 (cuDNN fused
#      attention, forward and backward, against the reference on every
#      declared capability), and the main job with its
#      GEMMs on the GPU (`teplug run --device cuda`), then the main job with
#      one rank process per GPU (`--launch processes`: its all-reduces
#      through NCCL between processes), then the NCCL collectives through
#      teplug on one rank and on one rank per GPU (threads);
#   4. runs the GEMM benchmark (native/gemm/cublaslt_gemm_benchmark.cc) and
#      prints one table: GEMM through teplug vs the same cuBLASLt call made
#      directly with the same algorithm, TFLOP/s and the fraction of the
#      device's peak; then attention through teplug vs the same cuDNN
#      frontend graph run directly (native/attention/
#      cudnn_attention_benchmark.cc), bf16 and fp8, forward and backward
#      at sequence 4096 and 8192, in the same table form; then all-reduce
#      through teplug vs ncclAllReduce called directly, one rank per GPU
#      (native/collective/nccl_allreduce_benchmark.cc); then the quantize
#      kernels' benchmark
#      (native/quantize/quantize_bandwidth_bench.cc): achieved bandwidth for
#      64 MiB-1 GiB inputs against the device's peak memory bandwidth.
# Every step runs under `timeout` with its own budget (BUDGET below), so a
# hang costs that step, not the machine's whole command; a step that runs
# out is a failure naming it, and the later steps still run when they can.
# Exits 1 when a test, conformance, the main job or a benchmark fails (a
# numerical failure, a timeout or a GPU test or benchmark that skipped among
# them), 2 on a usage or environment error; a benchmark ratio below the
# target is reported, not fatal. Everything it writes goes under --out (the
# 8 files named in the steps below, no more: a GPU machine returns 8).
#
# What the machine needs. To build (the default): bazel (4.2, Debian's
# bazel-bootstrap), g++, pkg-config, protoc and the Debian 12 libraries
# tools/setup.sh installs (Abseil, protobuf, GoogleTest, Google Benchmark,
# Gloo, oneDNN, OpenMPI's pkg-config module), the CUDA toolkit at CUDA_PATH
# (default /usr/local/cuda) with cuDNN and NCCL in it, and the cuDNN
# frontend headers in tools/deps/ (tools/fetch_cudnn_frontend.sh; not in
# git) or at TEPLUG_CUDNN_FRONTEND. It checks these first and exits 2
# naming each one missing. A machine without them (no bazel, no network)
# runs a bundle instead: on the development machine
# `tools/gpu_bundle.sh --arch NN --out DIR` builds, strips and collects the
# binaries with the libraries they link that the GPU machine lacks; carry
# DIR.tar.xz there and run `tools/gpu_check.sh --prebuilt DIR.tar.xz`
# (tar and xz; a plain DIR works too). That needs only
# the NVIDIA driver, the CUDA runtime libraries, and cuDNN 9 and NCCL 2 (on
# the loader's path, in CUDA_PATH, or from Python's nvidia-* wheels).
#
# Usage: tools/gpu_check.sh [--arch NN] [--out DIR] [--no-bench] [--prebuilt DIR] [--dry-run]
#   --arch NN        use this arch (e.g. 90) instead of asking nvidia-smi
#   --out DIR        where logs and the report go (default: /tmp/gpu_check)
#   --no-bench       skip step 4
#   --prebuilt DIR   run the binaries of a tools/gpu_bundle.sh bundle (its
#                    directory or its .tar.xz), no build
#   --dry-run        print the commands instead of running them
#
# Sourced with GPU_CHECK_SOURCE_ONLY=1, it only defines its functions (the
# test, tools/gpu_check_test.sh, checks them without a GPU; so does
# tools/gpu_bundle.sh, which shares them).
# pipefail: a failing step piped into tee counts as failing.
set -uo pipefail

ARCH=""
OUT_DIR="/tmp/gpu_check"
BENCH=1
DRY_RUN=0
PREBUILT=""
BAZEL="${BAZEL:-bazel}"
# Where --prebuilt looks for cuDNN and NCCL beyond CUDA_PATH: the loader's
# cache and Python's nvidia-* wheels (the test points these elsewhere).
LDCONFIG="${LDCONFIG:-ldconfig}"
PYTHON="${PYTHON:-python3}"
RATIO_TARGET="0.97"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Seconds each step may run before `timeout` stops it (TERM, then KILL
# KILL_AFTER seconds later). A build's steps add up to 465 s (a bundle's to
# less), so with one step hanging to its KILL the whole check still ends
# inside 8 minutes, leaving the machine's 10-minute command room for its
# start and the files' return.
# Each leaves room over what the step should take on a 16-core H200
# machine, the build the least:
KILL_AFTER=10
declare -A BUDGET=(
  # --prebuilt: unpacking the bundle's archive (about 20 MiB of xz, a
  # second or two); it takes the place of the build and `bazel info`.
  [unpack]=20
  # a cold -c opt build for one arch: about 1800 core-seconds (904 s on a
  # 2-core machine) with a critical path of about 130 s, the cuDNN
  # frontend translation units; nvcc compiles one arch.
  [build]=180
  # `bazel info` on a running server answers in about a second.
  [info]=10
  # 31 test binaries, 16 at a time; each GPU one spends most of
  # its time creating its CUDA context and cuDNN/cuBLASLt handles.
  [test]=60
  # conformance: every declared capability against the host reference;
  # GEMM has the most cases, attention builds a cuDNN graph per case.
  [conformance_device]=15
  [conformance_gemm]=25
  [conformance_quantizer]=20
  [conformance_attention]=30
  # the main job (15 ops on one layer) takes about 5 s on the CPU alone;
  # rank processes add their start and NCCL's communicator setup.
  [run_cuda]=15
  [run_processes]=20
  [nccl]=15
  # benchmarks: fixed iteration counts (5 interleaved reps) for GEMM,
  # attention and all-reduce, where cuDNN's graph builds dominate
  # attention's; the quantize benchmark runs 21 cases of Google Benchmark's
  # default 0.5 s minimum each.
  [gemm_bench]=15
  [attention_bench]=30
  [allreduce_bench]=10
  [quantize_bench]=20
)

# Why a GPU test may skip on a one-GPU machine of the arch it was built for:
# each is the start of a GTEST_SKIP() message (grep native/ for GTEST_SKIP
# to see them all). Any other skip there, "no CUDA device", "no GPU", "NCCL
# not loadable" or a skip without a reason, means the test did not check
# what this machine is for, and fails the check.
LEGITIMATE_SKIPS=(
  # tests of the refusal a machine without a GPU gives
  "a GPU is present"
  # ranks on separate GPUs, on a machine with one
  "one GPU: needs 2+"
  # features of one generation, on a GPU of another
  "MXFP8 needs sm_100 or later"
  "cuBLASLt's 1x128/128x128 block scaling is Hopper's"
  "fp8 attention needs sm_90"
)

usage() {
  sed -n '/^# Usage:/,/^#$/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

# parse_args ARGS...: sets ARCH, OUT_DIR, BENCH, PREBUILT, DRY_RUN; returns 2
# (with a message on stderr) on an unknown option or a malformed value.
parse_args() {
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --arch)
        if [[ $# -lt 2 || ! "$2" =~ ^[0-9]{2,3}$ ]]; then
          echo "gpu_check: --arch needs a compute capability like 90 (major*10+minor), got '${2:-}'" >&2
          return 2
        fi
        ARCH="$2"
        shift 2
        ;;
      --out)
        if [[ $# -lt 2 || -z "$2" ]]; then
          echo "gpu_check: --out needs a directory" >&2
          return 2
        fi
        OUT_DIR="$2"
        shift 2
        ;;
      --prebuilt)
        if [[ $# -lt 2 || -z "$2" ]]; then
          echo "gpu_check: --prebuilt needs the directory tools/gpu_bundle.sh wrote" >&2
          return 2
        fi
        PREBUILT="$2"
        shift 2
        ;;
      --no-bench) BENCH=0; shift ;;
      --dry-run) DRY_RUN=1; shift ;;
      -h | --help) usage; exit 0 ;;
      *)
        echo "gpu_check: unknown argument '$1' (see --help)" >&2
        return 2
        ;;
    esac
  done
}

# arch_from_compute_caps TEXT: the arch (major*10+minor) of the first GPU in
# nvidia-smi's `--query-gpu=compute_cap --format=csv,noheader` output
# ("9.0" -> 90, "10.0" -> 100); returns 2 when TEXT has no such line. Every
# GPU listed must have the same arch (one build serves them all).
arch_from_compute_caps() {
  local first="" line arch
  while IFS= read -r line; do
    line="${line//[[:space:]]/}"
    [[ -z "$line" ]] && continue
    if [[ ! "$line" =~ ^([0-9]+)\.([0-9])$ ]]; then
      echo "gpu_check: nvidia-smi printed '$line', not a compute capability like 9.0" >&2
      return 2
    fi
    arch=$((BASH_REMATCH[1] * 10 + BASH_REMATCH[2]))
    if [[ -z "$first" ]]; then
      first="$arch"
    elif [[ "$arch" != "$first" ]]; then
      echo "gpu_check: GPUs of different archs ($first and $arch); pass --arch" >&2
      return 2
    fi
  done <<<"$1"
  if [[ -z "$first" ]]; then
    echo "gpu_check: nvidia-smi listed no GPU" >&2
    return 2
  fi
  echo "$first"
}

# cuda_devices N: "cuda:0,cuda:1,...,cuda:N-1", one device per rank for
# teplug run --devices.
cuda_devices() {
  local i list=""
  for ((i = 0; i < $1; i++)); do list+="${list:+,}cuda:$i"; done
  echo "$list"
}

# budget_total [prebuilt]: the sum of the budgets of the steps a run takes,
# in seconds: with a build, or (prebuilt) with a bundle instead.
budget_total() {
  local step total=0
  for step in "${!BUDGET[@]}"; do
    case "$step" in
      build | info) [[ "${1:-}" == prebuilt ]] && continue ;;
      unpack) [[ "${1:-}" == prebuilt ]] || continue ;;
    esac
    total=$((total + BUDGET[$step]))
  done
  echo "$total"
}

# ---- the build environment

# cudnn_frontend_dir: where @cudnn_frontend looks for the headers
# (tools/bazel/cudnn_frontend_configure.bzl, whose pinned version this reads).
cudnn_frontend_dir() {
  if [[ -n "${TEPLUG_CUDNN_FRONTEND:-}" ]]; then
    echo "$TEPLUG_CUDNN_FRONTEND"
    return
  fi
  local version
  version="$(sed -n 's/^CUDNN_FRONTEND_VERSION = "\(.*\)"$/\1/p' \
    "$ROOT/tools/bazel/cudnn_frontend_configure.bzl" 2>/dev/null)"
  echo "$ROOT/tools/deps/cudnn_frontend-${version:-<version>}"
}

# cuda_library_dir CUDA_ROOT: the folder holding libcudart.so, searched
# where tools/bazel/cuda_configure.bzl searches; empty when none does.
cuda_library_dir() {
  local d
  for d in lib64 lib targets/x86_64-linux/lib; do
    if [[ -e "$1/$d/libcudart.so" ]]; then
      echo "$1/$d"
      return
    fi
  done
}

# check_build_env: whether this machine has what `bazel build //native/...
# //tools/teplug` reads and links. Prints "gpu_check: missing: WHAT (FIX)"
# for each piece absent and returns 2 when any is. The compiler is asked
# (`-print-file-name`, `-E`) so that it searches where the link and the
# compilation will; without CUDA or the frontend headers Bazel would not
# fail but skip the GPU targets, so those are checked here too.
check_build_env() {
  local missing=() cxx="${CXX:-g++}" tool lib header module cuda libdir
  local setup="run tools/setup.sh (Debian 12 with its package archive)"
  command -v "$BAZEL" >/dev/null || missing+=("$BAZEL (Bazel 4.2, Debian's bazel-bootstrap; $setup)")
  for tool in "$cxx:g++" pkg-config:pkg-config protoc:protobuf-compiler; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool%%:*} (package ${tool#*:}; $setup)")
  done
  if command -v pkg-config >/dev/null; then
    # The repository rules ask pkg-config for these (tools/bazel/deps.bzl).
    for module in protobuf:libprotobuf-dev absl_statusor:libabsl-dev ompi-c:libopenmpi-dev; do
      pkg-config --exists "${module%%:*}" 2>/dev/null ||
        missing+=("pkg-config module ${module%%:*} (package ${module#*:}; $setup)")
    done
  fi
  if command -v "$cxx" >/dev/null; then
    for header in gtest/gtest.h:libgtest-dev gmock/gmock.h:libgtest-dev benchmark/benchmark.h:libbenchmark-dev \
        gloo/allreduce_ring.h:libgloo-dev dnnl.hpp:libdnnl-dev google/protobuf/message.h:libprotobuf-dev \
        absl/status/statusor.h:libabsl-dev; do
      echo "#include <${header%%:*}>" | "$cxx" -std=c++17 -E -x c++ - >/dev/null 2>&1 ||
        missing+=("header ${header%%:*} (package ${header#*:}; $setup)")
    done
    for lib in gtest:libgtest-dev gmock:libgtest-dev gtest_main:libgtest-dev benchmark:libbenchmark-dev \
        gloo:libgloo-dev dnnl:libdnnl-dev protobuf:libprotobuf-dev absl_statusor:libabsl-dev; do
      # Shared or static: Debian's GoogleTest has only the archives.
      [[ "$("$cxx" -print-file-name="lib${lib%%:*}.so" 2>/dev/null)" == /* ||
        "$("$cxx" -print-file-name="lib${lib%%:*}.a" 2>/dev/null)" == /* ]] ||
        missing+=("library -l${lib%%:*} (package ${lib#*:}; $setup)")
    done
  fi
  cuda="${CUDA_PATH:-/usr/local/cuda}"
  for header in bin/nvcc include/cuda_runtime.h include/cudnn.h include/nccl.h; do
    [[ -e "$cuda/$header" ]] || missing+=("$cuda/$header (the CUDA toolkit with cuDNN and NCCL; set CUDA_PATH if it is elsewhere)")
  done
  libdir="$(cuda_library_dir "$cuda")"
  if [[ -z "$libdir" ]]; then
    missing+=("$cuda/lib64/libcudart.so (the CUDA toolkit's libraries; set CUDA_PATH if they are elsewhere)")
  else
    for lib in cublas cublasLt cudnn nccl nvrtc; do
      [[ -e "$libdir/lib$lib.so" ]] || missing+=("$libdir/lib$lib.so (the link's -l$lib; install it into the CUDA toolkit)")
    done
  fi
  header="$(cudnn_frontend_dir)/include/cudnn_frontend.h"
  [[ -f "$header" ]] || missing+=("$header (the cuDNN frontend headers: run tools/fetch_cudnn_frontend.sh where PyPI is reachable and carry tools/deps/, or set TEPLUG_CUDNN_FRONTEND)")
  if ((${#missing[@]} > 0)); then
    printf 'gpu_check: missing: %s\n' "${missing[@]}" >&2
    return 2
  fi
}

# find_loadable SONAME DIR...: the first DIR holding SONAME, else the
# directory the loader's cache has it in (empty when it is in neither).
find_loadable() {
  local soname="$1" d
  shift
  for d in "$@"; do
    [[ -n "$d" && -e "$d/$soname" ]] && { echo "$d"; return; }
  done
  d="$( ("$LDCONFIG" -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null) |
    awk -v so="$soname" '$1 == so { sub(/.*=> /, ""); print; exit }')"
  [[ -n "$d" ]] && dirname "$d"
}

# python_nvidia_dirs: the lib folders of Python's nvidia-* wheels (PyTorch's
# cuDNN and NCCL on a machine whose CUDA toolkit lacks them).
python_nvidia_dirs() {
  command -v "$PYTHON" >/dev/null || return 0
  local base
  base="$("$PYTHON" -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null)" || return 0
  [[ -d "$base" ]] && find "$base" -maxdepth 3 -type d -name lib 2>/dev/null | sort
}

# prebuilt_env DIR: checks that bundle DIR fits this machine and prints the
# LD_LIBRARY_PATH its binaries run with: DIR/lib, then the CUDA toolkit's
# libraries, then the folders cuDNN 9 and NCCL 2 are found in (they are
# loaded with dlopen, so ldd does not name them). Returns 2 with a message
# naming each problem: no manifest, a bundle of another arch, a binary
# missing, a library that neither the bundle nor this machine has.
prebuilt_env() {
  local dir="$1" problems=() path cuda libdir soname found line
  local manifest="$dir/manifest.txt" arch
  if [[ ! -f "$manifest" ]]; then
    echo "gpu_check: $manifest not found: --prebuilt needs a directory tools/gpu_bundle.sh wrote" >&2
    return 2
  fi
  arch="$(sed -n 's/^arch: //p' "$manifest")"
  [[ "$arch" == "$ARCH" ]] ||
    problems+=("the bundle is built for sm_${arch:-?}, this GPU is sm_$ARCH: build one with tools/gpu_bundle.sh --arch $ARCH")
  while IFS= read -r path; do
    [[ -f "$dir/$path" ]] || problems+=("$dir/$path (listed in the manifest; rebuild the bundle)")
  done < <(sed -n 's/^\(binary\|test\): //p' "$manifest")
  cuda="${CUDA_PATH:-/usr/local/cuda}"
  libdir="$(cuda_library_dir "$cuda")"
  local ld_path="$dir/lib${libdir:+:$libdir}"
  local -a pydirs=()
  mapfile -t pydirs < <(python_nvidia_dirs)
  for soname in libcudnn.so.9 libnccl.so.2; do
    found="$(find_loadable "$soname" "$dir/lib" "$libdir" "$cuda/lib64" "${pydirs[@]}")"
    if [[ -z "$found" ]]; then
      problems+=("$soname (loaded at run time: put it on the loader's path, in $cuda/lib64, or install the nvidia-${soname%%.so*} Python wheel)")
      continue
    fi
    [[ ":$ld_path:" == *":$found:"* ]] || ld_path+=":$found"
  done
  # A library the binaries link that neither the bundle nor this machine has.
  if command -v ldd >/dev/null; then
    while IFS= read -r path; do
      while IFS= read -r line; do
        problems+=("$path: ${line#"${line%%[![:space:]]*}"} (neither the bundle nor this machine has it)")
      done < <(LD_LIBRARY_PATH="$ld_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$dir/$path" 2>&1 | grep 'not found')
    done < <(sed -n 's/^\(binary\|test\): //p' "$manifest")
  fi
  if ((${#problems[@]} > 0)); then
    printf 'gpu_check: prebuilt: %s\n' "${problems[@]}" >&2
    return 2
  fi
  echo "$ld_path"
}

# ---- skipped tests

# skipped_tests FILE...: one "FILE<TAB>TEST<TAB>REASON" line per skip in
# test output: GoogleTest's (`[ RUN      ] T`, "file:line: Skipped", the
# reason's lines, `[  SKIPPED ] T (N ms)`; REASON is empty for a bare
# GTEST_SKIP()), the benchmarks' own "SKIPPED: REASON" line (TEST "-"), and
# Google Benchmark's SkipWithError ("NAME ERROR OCCURRED: 'REASON'").
skipped_tests() {
  local file
  for file in "$@"; do
    [[ -f "$file" ]] || continue
    awk '
      /^\[ RUN      \] / { test = substr($0, 14); reason = ""; inskip = 0; next }
      test != "" && /: Skipped$/ { inskip = 1; reason = ""; next }
      /^\[  SKIPPED \] .* \([0-9]+ ms\)$/ {
        name = substr($0, 14); sub(/ \([0-9]+ ms\)$/, "", name)
        print FILENAME "\t" name "\t" reason
        test = ""; reason = ""; inskip = 0; next
      }
      inskip { if ($0 != "") reason = reason (reason == "" ? "" : " / ") $0; next }
      /^SKIPPED: / { print FILENAME "\t-\t" substr($0, 10); next }
      /ERROR OCCURRED: \047/ {
        r = $0; sub(/^.*ERROR OCCURRED: \047/, "", r); sub(/\047[[:space:]]*$/, "", r)
        print FILENAME "\t" $1 "\t" r
      }' "$file"
  done
}

# legitimate_skip REASON: whether REASON starts with one of LEGITIMATE_SKIPS.
legitimate_skip() {
  local allowed
  for allowed in "${LEGITIMATE_SKIPS[@]}"; do
    [[ "$1" == "$allowed"* ]] && return 0
  done
  return 1
}

# gpu_skips FILE...: the skips in FILEs (test logs, a test's or a
# benchmark's output) that must not happen on a GPU machine, one
# "FILE: TEST: REASON" line each. On a GPU machine every GPU test must run,
# so any output here is a failure.
gpu_skips() {
  local file test reason
  while IFS=$'\t' read -r file test reason; do
    legitimate_skip "$reason" && continue
    echo "$file: $test: ${reason:-(skipped without a reason)}"
  done < <(skipped_tests "$@")
}

# format_report CSV [WHAT]: a teplug-vs-direct benchmark's
# --benchmark_format=csv output as one table (case, through teplug, direct,
# ratio, % of peak; WHAT, default GEMM, heads the case column), a verdict per
# row against RATIO_TARGET; returns 2 when the CSV has none of the counters.
format_report() {
  awk -F, -v target="$RATIO_TARGET" -v what="${2:-GEMM}" '
    function clean(s) { gsub(/"/, "", s); return s }
    !header && /^device: / { print; next }
    !header && /^name,/ {
      for (i = 1; i <= NF; i++) col[clean($i)] = i
      header = 1
      if (!("teplug_TFLOPs" in col) || !("direct_TFLOPs" in col) || !("ratio" in col) || !("peak_fraction" in col)) {
        print "gpu_check: the benchmark CSV lacks its counters" > "/dev/stderr"
        bad = 1
        exit 2
      }
      printf "%-26s %16s %16s %7s %10s  %s\n", what, "teplug TFLOP/s", "direct TFLOP/s", "ratio", "% of peak", "verdict"
      next
    }
    header && NF >= 4 {
      name = clean($col["name"])
      sub(/\/(iterations|manual_time).*$/, "", name)
      peak = $col["peak_fraction"] + 0
      ratio = $col["ratio"] + 0
      printf "%-26s %16.1f %16.1f %7.3f %10s  %s\n", name, $col["teplug_TFLOPs"], $col["direct_TFLOPs"], ratio,
             (peak > 0 ? sprintf("%.1f%%", 100 * peak) : "unknown"), (ratio >= target ? "ok" : "below " target)
      rows++
    }
    END {
      if (bad) exit 2
      if (!header || rows == 0) { print "gpu_check: no benchmark rows" > "/dev/stderr"; exit 2 }
    }' "$1"
}

# ---- running steps

FAILED=()

# fail_step WHAT: records a failure and says so on stderr.
fail_step() {
  FAILED+=("$1")
  echo "gpu_check: FAILED: $1" >&2
}

# step NAME CMD...: runs (or with --dry-run prints) CMD under NAME's budget.
# Its status is CMD's, or 124/137 when timeout stopped it.
step() {
  local name="$1"
  shift
  if [[ -z "${BUDGET[$name]:-}" ]]; then
    echo "gpu_check: no budget for step '$name'" >&2
    return 2
  fi
  if [[ "$DRY_RUN" == 1 ]]; then
    echo "+ timeout -k $KILL_AFTER ${BUDGET[$name]} $*"
    return 0
  fi
  timeout -k "$KILL_AFTER" "${BUDGET[$name]}" "$@"
}

# verdict NAME RC WHAT: records WHAT as failed when RC is not 0, as timed
# out when timeout stopped step NAME (124: TERM, 137: KILL). Returns RC != 0.
verdict() {
  case "$2" in
    0) return 0 ;;
    124) fail_step "$3: timed out after ${BUDGET[$1]} s (step $1)" ;;
    137) fail_step "$3: killed $KILL_AFTER s after its ${BUDGET[$1]} s budget (step $1)" ;;
    *) fail_step "$3 (exit status $2)" ;;
  esac
  return 1
}

# check_skips WHAT FILE...: fails WHAT (and returns 1) when FILEs show a
# GPU test or benchmark case that skipped for a reason that does not hold
# here, printing them with their reasons (log paths below LOG_ROOT, the
# test logs' folder, without it).
LOG_ROOT=""
check_skips() {
  local what="$1" skips count
  shift
  [[ "$DRY_RUN" == 1 ]] && return 0
  skips="$(gpu_skips "$@")"
  [[ -z "$skips" ]] && return 0
  [[ -n "$LOG_ROOT" ]] && skips="${skips//"$LOG_ROOT/"/}"
  count="$(grep -c . <<<"$skips")"
  fail_step "$what: $count skipped on a GPU machine, the first: $(head -n 1 <<<"$skips")"
  # Ten are enough to see the cause; the output's end is what comes back.
  head -n 10 <<<"$skips" | sed 's/^/  /' >&2
  ((count <= 10)) || echo "  ... and $((count - 10)) more" >&2
  return 1
}

# test_binaries MANIFEST: the tests a bundle's manifest lists, one path each.
test_binaries() {
  sed -n 's/^test: //p' "$1"
}

# run_prebuilt_tests DIR LOGS: runs the bundle's test binaries (as many at a
# time as there are cores), each log in LOGS/<package>/<name>/test.log as
# bazel-testlogs has it, TEST_TMPDIR and TEST_SRCDIR set as `bazel test`
# sets them (the plugin test finds libteplug_native.so through runfiles).
# Every binary is started with what is left of the test budget as its
# timeout, so the step ends within it. Records a failure per test that
# fails, times out or is not started.
run_prebuilt_tests() {
  local dir="$1" logs="$2" runfiles="$2/runfiles" path log left jobs
  local deadline=$((SECONDS + BUDGET[test]))
  jobs="$(nproc 2>/dev/null || echo 4)"
  local -a tests=()
  mapfile -t tests < <(test_binaries "$dir/manifest.txt")
  if [[ "$DRY_RUN" == 1 ]]; then
    for path in "${tests[@]}"; do
      echo "+ timeout -k $KILL_AFTER <left of ${BUDGET[test]}> $dir/$path"
    done
    return 0
  fi
  mkdir -p "$runfiles/teplug/native/provider"
  ln -sf "$(cd "$dir" && pwd)/bin/native/provider/libteplug_native.so" "$runfiles/teplug/native/provider/"
  for path in "${tests[@]}"; do
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
    log="$logs/${path#bin/}"
    mkdir -p "$log/tmp"
    left=$((deadline - SECONDS))
    if ((left <= 0)); then
      echo 125 >"$log/rc"
      continue
    fi
    (
      unset RUNFILES_DIR RUNFILES_MANIFEST_FILE
      cd "$log/tmp" && TEST_TMPDIR="$log/tmp" TEST_SRCDIR="$runfiles" TEST_WORKSPACE=teplug \
        timeout -k "$KILL_AFTER" "$left" "$dir/$path" >"$log/test.log" 2>&1
      echo $? >"$log/rc"
    ) &
  done
  wait
  local rc failed=0
  for path in "${tests[@]}"; do
    log="$logs/${path#bin/}"
    rc="$(cat "$log/rc" 2>/dev/null || echo 125)"
    case "$rc" in
      0) continue ;;
      124 | 137) fail_step "test ${path#bin/}: stopped at the end of the test step's ${BUDGET[test]} s" ;;
      125) fail_step "test ${path#bin/}: not started, the test step's ${BUDGET[test]} s were spent" ;;
      *)
        fail_step "test ${path#bin/} (exit status $rc); the end of its log:"
        tail -n 40 "$log/test.log" | sed 's/^/  /' >&2
        ;;
    esac
    failed=1
  done
  return "$failed"
}

# required_binaries: what steps 3 and 4 run, relative to bazel-bin.
required_binaries() {
  echo tools/teplug/teplug
  echo native/provider/libteplug_native.so
  echo native/collective/nccl_gpu_test
  echo native/gemm/cublaslt_gemm_benchmark
  echo native/attention/cudnn_attention_benchmark
  echo native/collective/nccl_allreduce_benchmark
  echo native/quantize/quantize_bandwidth_bench
}

# summary STARTED: the closing line, naming every failure (the output's end
# is what a GPU machine's caller sees first), and the exit status.
summary() {
  local f
  echo "== gpu_check: ${#FAILED[@]} failure(s), $((SECONDS - $1)) s"
  for f in "${FAILED[@]}"; do echo "   - $f"; done
  ((${#FAILED[@]} == 0))
}

main() {
  parse_args "$@" || exit 2
  local started=$SECONDS
  if [[ -z "$ARCH" ]]; then
    if ! command -v nvidia-smi >/dev/null; then
      echo "gpu_check: nvidia-smi not found: this is not a GPU machine (or pass --arch)" >&2
      exit 2
    fi
    ARCH="$(arch_from_compute_caps "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader)")" || exit 2
  fi
  command -v timeout >/dev/null || { echo "gpu_check: timeout (coreutils) not found" >&2; exit 2; }
  # GPUs to run ranks on: nvidia-smi's count, or 1 when it is absent (--arch).
  GPUS=1
  if command -v nvidia-smi >/dev/null; then
    GPUS="$(nvidia-smi --query-gpu=index --format=csv,noheader | grep -c .)"
    [[ "$GPUS" -ge 1 ]] || GPUS=1
  fi
  mkdir -p "$OUT_DIR" && OUT_DIR="$(cd "$OUT_DIR" && pwd)" || {
    echo "gpu_check: --out: cannot create '$OUT_DIR'" >&2
    exit 2
  }
  local flags=(-c opt "--define=teplug_cuda_archs=$ARCH") bin testlogs rc
  # Test logs of --prebuilt, outside --out: only its 8 files come back.
  local work="${TMPDIR:-/tmp}/gpu_check_work.$$"

  if [[ -n "$PREBUILT" ]]; then
    # The bundle travels as the archive gpu_bundle.sh writes beside it (a
    # fifth of its size); a dry run unpacks it too, to list its tests.
    if [[ -f "$PREBUILT" && "$PREBUILT" == *.tar.xz ]]; then
      echo "== unpacking $PREBUILT"
      mkdir -p "$work/bundle"
      DRY_RUN=0 step unpack tar -xJf "$PREBUILT" -C "$work/bundle"
      verdict unpack $? "unpacking $PREBUILT" || exit 2
      PREBUILT="$(dirname "$(find "$work/bundle" -maxdepth 2 -name manifest.txt | head -n 1)")"
    fi
    PREBUILT="$(cd "$PREBUILT" 2>/dev/null && pwd)" || {
      echo "gpu_check: --prebuilt: no directory '$PREBUILT'" >&2
      exit 2
    }
    local ld_path
    ld_path="$(prebuilt_env "$PREBUILT")" || exit 2
    export LD_LIBRARY_PATH="$ld_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "== gpu_check: sm_$ARCH, output in $OUT_DIR, binaries of $PREBUILT ($(sed -n 's/^commit: //p' "$PREBUILT/manifest.txt"))"
    echo "== LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    bin="$PREBUILT/bin"
    testlogs="$work/testlogs"
    echo "== tests of //native/... (the bundle's test binaries)"
    run_prebuilt_tests "$PREBUILT" "$testlogs"
  else
    if [[ "$DRY_RUN" == 0 ]]; then
      if ! check_build_env; then
        echo "gpu_check: this machine cannot build teplug; install what is listed, or build a bundle on the development machine (tools/gpu_bundle.sh --arch $ARCH --out DIR), carry DIR here and run tools/gpu_check.sh --prebuilt DIR" >&2
        exit 2
      fi
      cd "$ROOT" || exit 2
    fi
    echo "== gpu_check: sm_$ARCH, output in $OUT_DIR"

    echo "== build"
    step build "$BAZEL" build "${flags[@]}" //native/... //tools/teplug
    rc=$?
    if ! verdict build "$rc" "the build of //native/... //tools/teplug"; then
      summary "$started"
      exit 1
    fi
    if [[ "$DRY_RUN" == 1 ]]; then
      bin=bazel-bin
      testlogs=bazel-testlogs
    else
      local info
      info="$(step info "$BAZEL" info "${flags[@]}" bazel-bin bazel-testlogs)"
      rc=$?
      verdict info "$rc" "bazel info" || { summary "$started"; exit 1; }
      bin="$(sed -n 's/^bazel-bin: //p' <<<"$info")"
      testlogs="$(sed -n 's/^bazel-testlogs: //p' <<<"$info")"
      # Without CUDA or the frontend headers Bazel skips the GPU targets
      # instead of failing (check_build_env catches the usual causes).
      local missing=() path
      while IFS= read -r path; do [[ -e "$bin/$path" ]] || missing+=("$path"); done < <(required_binaries)
      if ((${#missing[@]} > 0)); then
        echo "gpu_check: the build skipped ${missing[*]}: it did not find the CUDA toolkit or the cuDNN frontend headers (bazel query @local_cuda//:defs.bzl, @cudnn_frontend//:defs.bzl)" >&2
        summary "$started"
        exit 2
      fi
    fi

    # --nocache_test_results: a result cached where there was no GPU (its
    # GPU tests skipped) must not stand for a run on this one.
    echo "== tests of //native/..."
    step test "$BAZEL" test "${flags[@]}" --nocache_test_results --test_output=errors //native/...
    verdict test $? "a test of //native/..."
  fi
  LOG_ROOT="$testlogs"
  if [[ "$DRY_RUN" == 0 && -d "$testlogs/native" ]]; then
    local -a logs=()
    mapfile -t logs < <(find "$testlogs/native" -name test.log)
    check_skips "GPU tests of //native/..." "${logs[@]}"
  fi

  # Every interface of native but the collective, on native's devices. A
  # collective case of conformance puts all its ranks on one device, which
  # NCCL refuses (one GPU per rank): nccl_gpu_test checks NCCL below.
  local iface
  for iface in device gemm quantizer; do
    echo "== teplug conformance libteplug_native.so --interface $iface"
    step "conformance_$iface" "$bin/tools/teplug/teplug" conformance "$bin/native/provider/libteplug_native.so" \
      --interface "$iface"
    verdict "conformance_$iface" $? "$iface conformance"
  done

  echo "== teplug conformance: attention on cuda:0 (native/cudnn vs the reference)"
  step conformance_attention "$bin/tools/teplug/teplug" conformance "$bin/native/provider/libteplug_native.so" \
    --interface attention --device cuda:0 | tee "$OUT_DIR/attention_conformance.txt"
  verdict conformance_attention $? "attention conformance on cuda:0"

  echo "== teplug run --device cuda (the main job's GEMMs on the GPU)"
  step run_cuda "$bin/tools/teplug/teplug" run --device cuda --ranks 1
  verdict run_cuda $? "teplug run --device cuda"

  # The main job with its ranks in separate processes, one per GPU: the
  # weight gradients' all-reduces go through native's NCCL between
  # processes that meet in a file rendezvous (the unique id as a blob).
  echo "== teplug run: $GPUS rank process(es), one per GPU (all-reduces through NCCL between processes)"
  step run_processes "$bin/tools/teplug/teplug" run --launch processes --ranks "$GPUS" --devices "$(cuda_devices "$GPUS")"
  verdict run_processes $? "teplug run --launch processes"

  # NCCL through teplug: one rank in this process, then one rank per GPU
  # (threads) when there are several; the test skips the second with a note
  # on a one-GPU machine.
  echo "== NCCL collectives: 1 rank per process, then 1 rank per GPU"
  step nccl "$bin/native/collective/nccl_gpu_test" \
    --gtest_filter='NcclThroughKernelTest.EveryOpOnOneRank:NcclThroughKernelTest.EveryOpOnOneRankPerGpu' \
    | tee "$OUT_DIR/nccl.txt"
  verdict nccl $? "NCCL collectives (see $OUT_DIR/nccl.txt)" && check_skips "NCCL collectives" "$OUT_DIR/nccl.txt"

  if [[ "$BENCH" == 1 ]]; then
    # A benchmark that printed no rows (it skipped, say) fails: its table
    # is what this step is for.
    echo "== GEMM: teplug vs direct cuBLASLt (medians of 5 interleaved reps)"
    step gemm_bench "$bin/native/gemm/cublaslt_gemm_benchmark" --benchmark_format=csv >"$OUT_DIR/gemm_bench.csv"
    if verdict gemm_bench $? "the GEMM benchmark (see $OUT_DIR/gemm_bench.csv)" && [[ "$DRY_RUN" == 0 ]]; then
      check_skips "the GEMM benchmark" "$OUT_DIR/gemm_bench.csv" &&
        { format_report "$OUT_DIR/gemm_bench.csv" | tee "$OUT_DIR/gemm_report.txt" ||
          fail_step "the GEMM benchmark's table (see $OUT_DIR/gemm_bench.csv)"; }
    fi

    echo "== attention: teplug vs the same cuDNN frontend graph run directly (medians of 5 interleaved reps)"
    step attention_bench "$bin/native/attention/cudnn_attention_benchmark" --benchmark_format=csv \
      >"$OUT_DIR/attention_bench.csv"
    if verdict attention_bench $? "the attention benchmark (see $OUT_DIR/attention_bench.csv)" &&
        [[ "$DRY_RUN" == 0 ]]; then
      check_skips "the attention benchmark" "$OUT_DIR/attention_bench.csv" &&
        { format_report "$OUT_DIR/attention_bench.csv" attention | tee "$OUT_DIR/attention_report.txt" ||
          fail_step "the attention benchmark's table (see $OUT_DIR/attention_bench.csv)"; }
    fi

    echo "== all-reduce: teplug vs ncclAllReduce called directly, one rank per GPU (target ratio >= $RATIO_TARGET)"
    step allreduce_bench "$bin/native/collective/nccl_allreduce_benchmark" --benchmark_counters_tabular=true \
      | tee "$OUT_DIR/allreduce_bench.txt"
    verdict allreduce_bench $? "the all-reduce benchmark (see $OUT_DIR/allreduce_bench.txt)" &&
      check_skips "the all-reduce benchmark" "$OUT_DIR/allreduce_bench.txt"

    echo "== quantize kernels: achieved bandwidth against the device's peak (target >= 0.7)"
    step quantize_bench "$bin/native/quantize/quantize_bandwidth_bench" --benchmark_counters_tabular=true \
      | tee "$OUT_DIR/quantize_bench.txt"
    verdict quantize_bench $? "the quantize benchmark (see $OUT_DIR/quantize_bench.txt)" &&
      check_skips "the quantize benchmark" "$OUT_DIR/quantize_bench.txt"
  fi

  [[ -n "$PREBUILT" ]] && rm -rf "$work"
  summary "$started"
}

if [[ "${GPU_CHECK_SOURCE_ONLY:-0}" != 1 ]]; then
  main "$@"
fi
