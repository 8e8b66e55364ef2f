#!/bin/bash
# Runs load_scaling_bench once per size and checks that every size loaded
# (the benchmark fails when a plugin does not load all its implementations)
# and that the complexity fit was printed. Asserts nothing about time.
set -euo pipefail
out="${TEST_TMPDIR}/load_scaling_output.txt"
"$1" --benchmark_min_time=0.001 --benchmark_color=false >"$out" 2>&1 || {
  cat "$out"
  echo "FAIL: the benchmark exited with an error" >&2
  exit 1
}
cat "$out"
for n in 1000 5000 10000 20000 _BigO; do
  line=$(grep -F "BM_LoadImplementations/$n " "$out" || grep -F "BM_LoadImplementations$n " "$out" || true)
  if [[ -z "$line" || "$line" == *ERROR* ]]; then
    echo "FAIL: no result for BM_LoadImplementations $n" >&2
    exit 1
  fi
done
echo "PASS: every size loaded and the fit was printed"
