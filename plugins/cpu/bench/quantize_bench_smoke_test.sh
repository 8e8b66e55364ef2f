#!/bin/bash
# Runs quantize_bench on small inputs for one round: both variants run, the cpu
# provider serves the quantize one, and the ratio lines are printed. Asserts
# no timing.
set -u
out="${TEST_TMPDIR:-/tmp}/quantize_bench_smoke.txt"
"$1" --smoke >"$out" 2>&1 || { cat "$out"; echo "FAIL: quantize_bench --smoke exited with $?"; exit 1; }
cat "$out"
for want in "cpu/quantizer" "fp32/per_tensor_current" "bf16/mxfp8" "bf16/mxfp8_te_rule" "quantize/memcpy bandwidth"; do
  grep -qF -- "$want" "$out" || { echo "FAIL: the output lacks \"$want\""; exit 1; }
done
if grep -q "not measured" "$out"; then echo "FAIL: a case was not measured"; exit 1; fi
echo "ok"
