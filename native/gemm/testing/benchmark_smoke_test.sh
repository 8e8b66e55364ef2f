#!/bin/bash
# A teplug-vs-direct GPU benchmark links and runs: without a GPU it prints
# the driver's reason and exits 0; with one it prints every named case with
# its ratio counter.
# Usage: benchmark_smoke_test.sh BENCHMARK CASE...
set -u
BENCH="$1"
shift
OUT="${TEST_TMPDIR:-/tmp}/$(basename "$BENCH")_out.txt"
"$BENCH" --benchmark_min_time=0 >"$OUT" 2>&1
rc=$?
cat "$OUT"
if [[ $rc != 0 ]]; then
  echo "FAIL: exit status $rc"
  exit 1
fi
if grep -q '^SKIPPED: no CUDA device: cudaGetDeviceCount ' "$OUT"; then
  echo "skipped without a GPU, as expected"
  exit 0
fi
for c in "$@"; do
  if ! grep -q "^$c.*ratio=" "$OUT"; then
    echo "FAIL: no result for $c"
    exit 1
  fi
done
echo "all cases ran"
