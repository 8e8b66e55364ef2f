#!/bin/bash
# Runs attention_bench on a tiny shape for one round: both variants run,
# opencl/attention serves the device one and reference/attention the host one,
# and the speed-up line is printed. Asserts no timing.
set -u
out="${TEST_TMPDIR:-/tmp}/opencl_attention_bench_smoke.txt"
"$1" --smoke "--plugin=$2" >"$out" 2>&1 || {
  cat "$out"
  echo "FAIL: attention_bench --smoke exited with $?"
  exit 1
}
cat "$out"
for want in "opencl/attention" "reference/attention" "fp32/b1_h2_s32_d16/none" \
  "opencl speed-up over the reference"; do
  grep -qF -- "$want" "$out" || { echo "FAIL: the output lacks \"$want\""; exit 1; }
done
if grep -q "not measured" "$out"; then echo "FAIL: a case was not measured"; exit 1; fi
echo "ok"
