#!/bin/bash
# Runs gemm_bench on tiny shapes for one round: both variants run, the cpu
# provider serves the teplug one (an fp8 case too), and the ratio lines are printed. Asserts
# no timing.
set -u
out="${TEST_TMPDIR:-/tmp}/gemm_bench_smoke.txt"
"$1" --smoke >"$out" 2>&1 || { cat "$out"; echo "FAIL: gemm_bench --smoke exited with $?"; exit 1; }
cat "$out"
for want in "cpu/onednn-matmul" "fp32/64x48x32" "bf16/64x48x32" "fp8-mxfp8/64x48x32" \
    "teplug/direct throughput"; do
  grep -qF -- "$want" "$out" || { echo "FAIL: the output lacks \"$want\""; exit 1; }
done
if grep -q "not measured" "$out"; then echo "FAIL: a case was not measured"; exit 1; fi
echo "ok"
