#!/bin/bash
# Runs attention_bench on tiny sizes for one round: every variant (forward
# and backward) runs and the ratio lines are printed. Asserts no timing.
set -u
out="${TEST_TMPDIR:-/tmp}/attention_bench_smoke.txt"
"$1" --smoke >"$out" 2>&1 || { cat "$out"; echo "FAIL: attention_bench --smoke exited with $?"; exit 1; }
cat "$out"
for want in "fp32/b1_s64_d32_h2" "bf16/b1_s64_d32_h2" "bwd_bf16/bs3hd_causal/b2_s64_d32_h4" "attention/gemm" \
  "speedup over reference"; do
  grep -qF -- "$want" "$out" || { echo "FAIL: the output lacks \"$want\""; exit 1; }
done
if grep -q "not measured" "$out"; then echo "FAIL: a case was not measured"; exit 1; fi
echo "ok"
