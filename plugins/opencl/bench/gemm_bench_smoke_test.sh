#!/bin/bash
# Runs gemm_bench on a tiny shape for one round: both variants run, opencl
# serves the teplug one, and the ratio line is printed. Asserts no timing.
set -u
out="${TEST_TMPDIR:-/tmp}/opencl_gemm_bench_smoke.txt"
"$1" --smoke "--plugin=$2" >"$out" 2>&1 || { cat "$out"; echo "FAIL: gemm_bench --smoke exited with $?"; exit 1; }
cat "$out"
for want in "opencl/clblast" "fp32/64x48x32" "teplug/direct throughput"; do
  grep -qF -- "$want" "$out" || { echo "FAIL: the output lacks \"$want\""; exit 1; }
done
if grep -q "not measured" "$out"; then echo "FAIL: a case was not measured"; exit 1; fi
echo "ok"
