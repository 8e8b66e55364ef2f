#!/bin/bash
# Runs every probe benchmark briefly and checks that each ran without error
# (a plugin refused by the probe would be an error). Asserts nothing about
# time; the numbers that count come from `bazel run -c opt`.
set -euo pipefail
bench="$1"
out="${TEST_TMPDIR}/probe_bench_output.txt"
if ! "$bench" --benchmark_min_time=0.001 --benchmark_color=false >"$out" 2>&1; then
  cat "$out"
  echo "FAIL: $bench exited with an error" >&2
  exit 1
fi
cat "$out"
if grep -q "ERROR OCCURRED" "$out"; then
  echo "FAIL: a benchmark reported an error" >&2
  exit 1
fi
for expected in "BM_Probe/0/" "BM_Probe/1024/" "BM_LoadWithoutProbe" "BM_LoadWithProbe"; do
  if ! grep -qF -- "$expected" "$out"; then
    echo "FAIL: the output has no \"$expected\"" >&2
    exit 1
  fi
done
echo "PASS: every probe benchmark ran"
