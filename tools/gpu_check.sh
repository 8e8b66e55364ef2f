#!/bin/bash
# tools/gpu_check.sh: the check a GPU machine runs, in one go (under 8
# minutes on a 16-core machine, build included):
#   1. detects the GPU's arch (nvidia-smi --query-gpu=compute_cap) and builds
#      with -c opt for it alone (--define=teplug_cuda_archs=<arch>);
#   2. runs every test of //native/... (host tests and GPU tests) and fails
#      if a GPU test skipped for want of a device (it must run here);
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
# Exits non-zero when a test, conformance or the main job fails (a numerical failure among
# them), 2 on a usage or environment error; a benchmark ratio below the
# target is reported, not fatal. Everything it writes goes under --out.
#
# Usage: tools/gpu_check.sh [--arch NN] [--out DIR] [--no-bench] [--dry-run]
#   --arch NN    use this arch (e.g. 90) instead of asking nvidia-smi
#   --out DIR    where logs and the report go (default: /tmp/gpu_check)
#   --no-bench   skip step 4
#   --dry-run    print the commands instead of running them
# Sourced with GPU_CHECK_SOURCE_ONLY=1, it only defines its functions (the
# test, tools/gpu_check_test.sh, checks them without a GPU).
# pipefail: a failing step piped into tee counts as failing.
set -uo pipefail

ARCH=""
OUT_DIR="/tmp/gpu_check"
BENCH=1
DRY_RUN=0
BAZEL="${BAZEL:-bazel}"
RATIO_TARGET="0.97"

usage() {
  sed -n '/^# Usage:/,/^#   --dry-run/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

# parse_args ARGS...: sets ARCH, OUT_DIR, BENCH, DRY_RUN; returns 2 (with a
# message on stderr) on an unknown option or a malformed value.
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

# gpu_skips LOG...: the test logs (bazel-testlogs/**/test.log) in which a
# test skipped for want of a CUDA device, one "LOG: line" per skip. On a GPU
# machine every GPU test must run, so any output here is a failure.
gpu_skips() {
  local log
  for log in "$@"; do
    [[ -f "$log" ]] || continue
    grep -H -E '(no CUDA device|^SKIPPED: no CUDA device)' "$log" | grep -v -- '--gtest' || true
  done
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

# run CMD...: runs (or with --dry-run prints) a command.
run() {
  if [[ "$DRY_RUN" == 1 ]]; then
    echo "+ $*"
    return 0
  fi
  "$@"
}

main() {
  parse_args "$@" || exit 2
  local started=$SECONDS failures=0
  if [[ -z "$ARCH" ]]; then
    if ! command -v nvidia-smi >/dev/null; then
      echo "gpu_check: nvidia-smi not found: this is not a GPU machine (or pass --arch)" >&2
      exit 2
    fi
    ARCH="$(arch_from_compute_caps "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader)")" || exit 2
  fi
  # GPUs to run ranks on: nvidia-smi's count, or 1 when it is absent (--arch).
  GPUS=1
  if command -v nvidia-smi >/dev/null; then
    GPUS="$(nvidia-smi --query-gpu=index --format=csv,noheader | grep -c .)"
    [[ "$GPUS" -ge 1 ]] || GPUS=1
  fi
  mkdir -p "$OUT_DIR"
  local flags=(-c opt "--define=teplug_cuda_archs=$ARCH")
  echo "== gpu_check: sm_$ARCH, output in $OUT_DIR"

  echo "== build"
  run "$BAZEL" build "${flags[@]}" //native/... //tools/teplug || exit 1

  echo "== tests of //native/..."
  if ! run "$BAZEL" test "${flags[@]}" --test_output=errors //native/...; then
    echo "gpu_check: FAILED: a test of //native/... failed" >&2
    failures=$((failures + 1))
  fi
  if [[ "$DRY_RUN" == 0 ]]; then
    local logs skips
    logs="$("$BAZEL" info "${flags[@]}" bazel-testlogs)"
    skips="$(gpu_skips $(find "$logs/native" -name test.log))"
    if [[ -n "$skips" ]]; then
      echo "gpu_check: FAILED: GPU tests skipped on a GPU machine:" >&2
      echo "$skips" >&2
      failures=$((failures + 1))
    fi
  fi

  # Every interface of native but the collective, on native's devices. A
  # collective case of conformance puts all its ranks on one device, which
  # NCCL refuses (one GPU per rank): nccl_gpu_test checks NCCL below.
  local bin iface
  bin="$( [[ "$DRY_RUN" == 1 ]] && echo bazel-bin || "$BAZEL" info "${flags[@]}" bazel-bin)"
  for iface in device gemm quantizer; do
    echo "== teplug conformance libteplug_native.so --interface $iface"
    if ! run "$bin/tools/teplug/teplug" conformance "$bin/native/provider/libteplug_native.so" \
        --interface "$iface"; then
      echo "gpu_check: FAILED: $iface conformance" >&2
      failures=$((failures + 1))
    fi
  done

  echo "== teplug conformance: attention on cuda:0 (native/cudnn vs the reference)"
  if ! run "$bin/tools/teplug/teplug" conformance "$bin/native/provider/libteplug_native.so" \
      --interface attention --device cuda:0 | tee "$OUT_DIR/attention_conformance.txt"; then
    echo "gpu_check: FAILED: attention conformance on cuda:0" >&2
    failures=$((failures + 1))
  fi

  echo "== teplug run --device cuda (the main job's GEMMs on the GPU)"
  if ! run "$bin/tools/teplug/teplug" run --device cuda --ranks 1; then
    echo "gpu_check: FAILED: teplug run --device cuda" >&2
    failures=$((failures + 1))
  fi

  # The main job with its ranks in separate processes, one per GPU: the
  # weight gradients' all-reduces go through native's NCCL between
  # processes that meet in a file rendezvous (the unique id as a blob).
  echo "== teplug run: $GPUS rank process(es), one per GPU (all-reduces through NCCL between processes)"
  if ! run "$bin/tools/teplug/teplug" run --launch processes --ranks "$GPUS" --devices "$(cuda_devices "$GPUS")"; then
    echo "gpu_check: FAILED: teplug run --launch processes" >&2
    failures=$((failures + 1))
  fi

  # NCCL through teplug: one rank in this process, then one rank per GPU
  # (threads) when there are several; the test skips the second with a note
  # on a one-GPU machine.
  echo "== NCCL collectives: 1 rank per process, then 1 rank per GPU"
  if ! run "$bin/native/collective/nccl_gpu_test" \
      --gtest_filter='NcclThroughKernelTest.EveryOpOnOneRank:NcclThroughKernelTest.EveryOpOnOneRankPerGpu' \
      | tee "$OUT_DIR/nccl.txt"; then
    echo "gpu_check: FAILED: NCCL collectives (see $OUT_DIR/nccl.txt)" >&2
    failures=$((failures + 1))
  fi

  if [[ "$BENCH" == 1 ]]; then
    echo "== GEMM: teplug vs direct cuBLASLt (medians of 5 interleaved reps)"
    if run "$bin/native/gemm/cublaslt_gemm_benchmark" --benchmark_format=csv >"$OUT_DIR/gemm_bench.csv"; then
      [[ "$DRY_RUN" == 1 ]] || format_report "$OUT_DIR/gemm_bench.csv" | tee "$OUT_DIR/gemm_report.txt"
    else
      echo "gpu_check: the benchmark failed (see $OUT_DIR/gemm_bench.csv)" >&2
      failures=$((failures + 1))
    fi
  fi

  if [[ "$BENCH" == 1 ]]; then
    echo "== attention: teplug vs the same cuDNN frontend graph run directly (medians of 5 interleaved reps)"
    if run "$bin/native/attention/cudnn_attention_benchmark" --benchmark_format=csv \
        >"$OUT_DIR/attention_bench.csv"; then
      [[ "$DRY_RUN" == 1 ]] ||
        format_report "$OUT_DIR/attention_bench.csv" attention | tee "$OUT_DIR/attention_report.txt"
    else
      echo "gpu_check: the attention benchmark failed (see $OUT_DIR/attention_bench.csv)" >&2
      failures=$((failures + 1))
    fi
  fi

  if [[ "$BENCH" == 1 ]]; then
    echo "== all-reduce: teplug vs ncclAllReduce called directly, one rank per GPU (target ratio >= $RATIO_TARGET)"
    if ! run "$bin/native/collective/nccl_allreduce_benchmark" --benchmark_counters_tabular=true \
        | tee "$OUT_DIR/allreduce_bench.txt"; then
      echo "gpu_check: the all-reduce benchmark failed (see $OUT_DIR/allreduce_bench.txt)" >&2
      failures=$((failures + 1))
    fi
  fi

  if [[ "$BENCH" == 1 ]]; then
    echo "== quantize kernels: achieved bandwidth against the device's peak (target >= 0.7)"
    if ! run "$bin/native/quantize/quantize_bandwidth_bench" --benchmark_counters_tabular=true \
        | tee "$OUT_DIR/quantize_bench.txt"; then
      echo "gpu_check: the quantize benchmark failed (see $OUT_DIR/quantize_bench.txt)" >&2
      failures=$((failures + 1))
    fi
  fi

  echo "== gpu_check: $failures failure(s), $((SECONDS - started)) s"
  [[ "$failures" == 0 ]]
}

if [[ "${GPU_CHECK_SOURCE_ONLY:-0}" != 1 ]]; then
  main "$@"
fi
