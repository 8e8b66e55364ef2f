#!/bin/bash
# The cpu provider through the shipped CLI (the first argument) and as a
# plugin (the second): `teplug conformance libteplug_cpu.so` passes every
# contract check and every GEMM and quantizer claim the descriptors make, and
# declares nothing it does not serve; in the CLI, cpu is built in at priority
# 100 and serves an fp32/bf16 GEMM and the quantizer over the reference,
# which still serves what cpu does not declare (fp8 GEMM operands); a
# malformed TEPLUG_CPU_THREADS refuses it.
set -u
TEPLUG="$1"
CPU_SO="$2"
unset TEPLUG_PLUGINS TEPLUG_PLUGIN_PATH NVTE_PLUGIN TEPLUG_CONFIG TEPLUG_LOG
OUT="${TEST_TMPDIR:-/tmp}/cpu_cli_out.txt"
FAILURES=0

fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}

# expect_in TEXT: the last output contains TEXT (fixed string).
expect_in() {
  if ! grep -qF -- "$1" "$OUT"; then
    fail "$LAST: output lacks \"$1\""
    cat "$OUT"
  fi
}

# expect_row INTERFACE IMPLEMENTATION PRIORITY: the last output lists the
# implementation (columns padded to the widest name).
expect_row() {
  if ! grep -qE -- "^ +$1 +$2 +priority $3\$" "$OUT"; then
    fail "$LAST: output lacks a row \"$1 $2 priority $3\""
    cat "$OUT"
  fi
}

LAST="teplug conformance libteplug_cpu.so --json"
"$TEPLUG" conformance "$CPU_SO" --json >"$OUT" || fail "$LAST: exit status $?"
python3 - "$OUT" <<'PY' || fail "$LAST: not every declared GEMM or quantizer claim passed (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"]
assert doc["passed"] is True, doc
assert {r["interface"] for r in rows} == {"gemm", "quantizer"}, "cpu registers IGemm and IQuantizer"
contract = ["refcount", "error_object", "supports_reason", "refused_op", "workspace",
            "struct_sizes", "threads"]
declared = {"gemm": ["contract " + c for c in contract]}
declared["gemm"] += [f"{f}={d}" for f in ("a_dtypes", "b_dtypes", "d_dtypes")
                     for d in ("fp32", "fp16", "bf16")]
declared["gemm"] += ["epilogues=" + e for e in ("bias", "gelu", "gelu_aux", "accumulate")]
declared["quantizer"] = ["contract refcount", "contract threads"]
declared["quantizer"] += ["input_dtypes=" + d for d in ("fp32", "fp16", "bf16")]
declared["quantizer"] += ["output_dtypes=" + d for d in ("fp8_e4m3", "fp8_e5m2")]
declared["quantizer"] += ["scaling_modes=" + m for m in
                          ("per_tensor", "mxfp8_1d32", "block_1d128", "block_2d128")]
declared["quantizer"] += ["features=" + f for f in
                          ("columnwise", "dequantize", "current_scaling", "delayed_scaling")]
for interface, checks in declared.items():
    verdicts = {r["check"]: r["verdict"] for r in rows if r["interface"] == interface}
    for check in checks:
        assert verdicts.get(check) == "pass", (interface, check, verdicts.get(check))
    others = {c: v for c, v in verdicts.items() if c not in checks}
    assert all(v == "not declared" for v in others.values()), (interface, others)
    print(f"conformance {interface}: {len(checks)} declared checks pass, {len(others)} not declared")
PY

LAST="teplug list --no-discovery"
"$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in 'cpu  vendor "teplug"  version 0.1.0'
expect_row 'IGemm/1' 'cpu/onednn-matmul' 100
expect_row 'IQuantizer/1' 'cpu/quantizer' 100

for dtype in fp32 bf16 fp16; do
  LAST="teplug explain gemm --dtype $dtype --no-discovery"
  "$TEPLUG" explain gemm --dtype "$dtype" --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
  expect_in "=> served by cpu/onednn-matmul"
done
LAST="teplug explain gemm --dtype fp8_e4m3 --no-discovery"
"$TEPLUG" explain gemm --dtype fp8_e4m3 --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in "cpu/onednn-matmul  rejected        100  [capability] A dtype fp8_e4m3 not in {fp32, fp16, bf16}"
expect_in "=> served by reference/gemm"

LAST="teplug explain quantizer --op quantize --scaling-mode mxfp8_1d32 --device cpu --no-discovery"
"$TEPLUG" explain quantizer --op quantize --scaling-mode mxfp8_1d32 --dtype fp8_e4m3 --device cpu \
  --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in "=> served by cpu/quantizer"

# A malformed thread budget refuses the built-in cpu provider, naming the
# variable and value; the reference still serves.
LAST="TEPLUG_CPU_THREADS=zero teplug list --no-discovery"
TEPLUG_CPU_THREADS=zero "$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in 'built-in provider cpu refused: teplug_plugin_entry returned invalid_argument: TEPLUG_CPU_THREADS="zero" is not a thread count'
expect_in 'IGemm/1        reference/gemm        priority 0'
LAST="TEPLUG_CPU_THREADS=1 teplug list --no-discovery"
TEPLUG_CPU_THREADS=1 "$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_row 'IGemm/1' 'cpu/onednn-matmul' 100

if [[ "$FAILURES" != 0 ]]; then
  echo "$FAILURES check(s) failed"
  exit 1
fi
echo "all checks passed"
