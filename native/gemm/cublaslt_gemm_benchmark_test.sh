#!/bin/bash
# The GEMM benchmark links and runs: without a GPU it prints the driver's
# reason and exits 0; with one it prints every case with the ratio counter.
set -u
BENCH=native/gemm/cublaslt_gemm_benchmark
OUT="${TEST_TMPDIR:-/tmp}/gemm_bench_out.txt"
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
for c in bf16/4096x4096x4096 bf16/8192x8192x1024 fp8_e4m3/4096x4096x4096 fp8_e4m3/8192x8192x1024; do
  if ! grep -q "^$c.*ratio=" "$OUT"; then
    echo "FAIL: no result for $c"
    exit 1
  fi
done
echo "all cases ran"
