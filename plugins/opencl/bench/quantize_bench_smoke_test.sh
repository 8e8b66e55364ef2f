#!/bin/bash
# Runs quantize_bench on tiny shapes for one round: both variants run (the MX
# case by both scale rules), opencl serves the teplug one, and the ratio lines
# are printed. Asserts no timing.
set -u
out="${TEST_TMPDIR:-/tmp}/opencl_quantize_bench_smoke.txt"
"$1" --smoke "--plugin=$2" >"$out" 2>&1 || { cat "$out"; echo "FAIL: quantize_bench --smoke exited with $?"; exit 1; }
cat "$out"
for want in "opencl/opencl-quantizer" "per_tensor/fp32/40x96" "mxfp8_1d32/bf16/40x96" \
    "mxfp8_1d32_te_rule/bf16/40x96" "speed over the reference" \
    "TransformerEngine's MX rule over the OCP rule's"; do
  grep -qF -- "$want" "$out" || { echo "FAIL: the output lacks \"$want\""; exit 1; }
done
if grep -q "not measured" "$out"; then echo "FAIL: a case was not measured"; exit 1; fi
echo "ok"
