#!/bin/bash
# A teplug-vs-direct GPU benchmark links and runs: without a GPU it prints
# the driver's reason and exits 0; with one it prints every named case with
# its ratio counter, or a line "left out: PREFIX/ (why)" for the cases under
# PREFIX/ the GPU cannot run (fp8 attention below sm_90).
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
  if grep -q "^$c.*ratio=" "$OUT"; then continue; fi
  if grep -q "^left out: ${c%%/*}/ " "$OUT"; then
    echo "$c: $(grep -m1 "^left out: ${c%%/*}/ " "$OUT")"
    continue
  fi
  echo "FAIL: no result for $c"
  exit 1
done
echo "all cases ran"
