#!/bin/bash
# Runs every kernel benchmark briefly and checks that each ran without error
# and that the four comparisons were printed. Asserts nothing about time:
# timings under `bazel test` (fastbuild, sanitizers, a loaded machine) mean
# nothing; the numbers that count come from `bazel run -c opt`.
set -euo pipefail
bench="$1"
out="${TEST_TMPDIR}/bench_output.txt"
if ! "$bench" --benchmark_min_time=0.001 --benchmark_color=false >"$out" 2>&1; then
  cat "$out"
  echo "FAIL: $bench exited with an error" >&2
  exit 1
fi
cat "$out"
for expected in \
  "BM_DirectCall" "BM_SelectedCall" "BM_DispatchCachedCall" "BM_DispatchCachedCall/real_time/threads:2" "BM_PreparedCall" \
  "BM_ColdSelect64" "BM_CreateKernelEmpty" "BM_CreateKernel50" \
  "BM_Part1_ReadGuard" "BM_Part1_ReadGuardSymmetric" "BM_Part2_BuildSignature" "BM_Part3_CacheHit" \
  "selected/direct = " "dispatch/direct = " "cold selection among 64 = " "load 50 plugins = " "prepared/direct = "; do
  if ! grep -qF -- "$expected" "$out"; then
    echo "FAIL: the output has no \"$expected\"" >&2
    exit 1
  fi
done
echo "PASS: every benchmark ran and the comparisons were printed"
