#!/usr/bin/env bash
# Builds teplug's fuzz targets with clang-15 + libFuzzer + ASan + UBSan and runs
# each for SECONDS on its seed corpus (tests/fuzz/corpus/TARGET).
#
#   tools/fuzz.sh [TARGET|all] [SECONDS]      TARGET: config, registrar, op; default all 60
#   tools/fuzz.sh --list                      the target names, one a line
#
# Prints, per target, the executions it reached, its coverage and any crash file;
# exits non-zero when a target crashed (or failed a fuzz check) or did not build.
# Needs clang-15 and libfuzzer-15-dev (tools/setup.sh installs them).
#
# Environment:
#   TEPLUG_FUZZ_OUTPUT_BASE  Bazel output base of the clang build
#                            (default ~/.cache/teplug-fuzz/<hash of this checkout's
#                            path>: one per checkout, since an output base is bound
#                            to the workspace it was first used with; kept apart from the
#                            gcc build so neither rebuilds the other)
#   TEPLUG_FUZZ_WORK         where corpora grown by the run, logs and crash files
#                            go (default ${TMPDIR:-/tmp}/teplug-fuzz); the seed
#                            corpus in the tree is only read
#   TEPLUG_FUZZ_ARGS         extra libFuzzer flags (e.g. "-jobs=2")
set -euo pipefail

readonly ALL_TARGETS=(config registrar op)

usage() {
  echo "usage: tools/fuzz.sh [TARGET|all] [SECONDS]   (TARGET: ${ALL_TARGETS[*]})" >&2
  exit 2
}

if [[ "${1:-}" == --list ]]; then
  printf '%s\n' "${ALL_TARGETS[@]}"
  exit 0
fi

target="${1:-all}"
seconds="${2:-60}"
[[ "$seconds" =~ ^[0-9]+$ ]] || usage
if [[ "$target" == all ]]; then
  targets=("${ALL_TARGETS[@]}")
elif [[ " ${ALL_TARGETS[*]} " == *" $target "* ]]; then
  targets=("$target")
else
  usage
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."
for tool in clang-15 bazel; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool not found; run tools/setup.sh" >&2; exit 1; }
done

checkout_id="$(pwd -P | sha256sum | cut -c1-16)"
output_base="${TEPLUG_FUZZ_OUTPUT_BASE:-$HOME/.cache/teplug-fuzz/$checkout_id}"
work="${TEPLUG_FUZZ_WORK:-${TMPDIR:-/tmp}/teplug-fuzz}"
# The clang server is idle between runs: let it go after five minutes.
bazel=(bazel --output_base="$output_base" --max_idle_secs=300)

labels=()
for t in "${targets[@]}"; do labels+=("//tests/fuzz:${t}_fuzzer"); done
mkdir -p "$work"
echo "fuzz: building ${labels[*]} with clang-15 (--config=fuzz, output base $output_base)"
if ! "${bazel[@]}" build --config=fuzz "${labels[@]}" >"$work/build.log" 2>&1; then
  tail -n 60 "$work/build.log" >&2
  echo "fuzz: the build failed (full log: $work/build.log)" >&2
  exit 1
fi
bin="$("${bazel[@]}" info --config=fuzz bazel-bin 2>/dev/null)"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

failed=()
for t in "${targets[@]}"; do
  dir="$work/$t"
  mkdir -p "$dir/corpus" "$dir/crashes"
  log="$dir/fuzz.log"
  dict=()
  [[ -f "tests/fuzz/$t.dict" ]] && dict=("-dict=tests/fuzz/$t.dict")
  echo "fuzz: $t for ${seconds}s (log $log)"
  rc=0
  # New inputs go to $dir/corpus (first directory); the seeds are only read.
  # shellcheck disable=SC2086
  "$bin/tests/fuzz/${t}_fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
    -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$dir/crashes/" "${dict[@]}" \
    ${TEPLUG_FUZZ_ARGS:-} "$dir/corpus" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  coverage="$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)"
  corpus_size="$(find "$dir/corpus" -type f | wc -l)"
  echo "fuzz: $t: ${executions:-?} executions, ${coverage:-no coverage line}, $corpus_size inputs in $dir/corpus"
  if ((rc != 0)); then
    failed+=("$t")
    echo "fuzz: $t FAILED (exit $rc); the end of its log:" >&2
    tail -n 40 "$log" >&2
    crash_files="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log")"
    echo "fuzz: $t crash file(s): ${crash_files:-none written}" >&2
  fi
done

if ((${#failed[@]} > 0)); then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} target(s) ran ${seconds}s without a crash"
