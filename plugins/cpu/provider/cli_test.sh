#!/bin/bash
# The cpu provider through the shipped CLI (the first argument) and as a
# plugin (the second): `teplug conformance libteplug_cpu.so` passes every
# contract check and every GEMM and attention claim the descriptors make, and
# declares nothing they do not serve; in the CLI, cpu is built in at priority 100 and
# serves an fp32/bf16 GEMM over the reference, which still serves what cpu
# does not declare (fp8 operands); a malformed TEPLUG_CPU_THREADS refuses it.
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

# expect_match REGEX: some line of the last output matches (extended regex;
# `teplug list` aligns its columns to the longest name).
expect_match() {
  if ! grep -qE -- "$1" "$OUT"; then
    fail "$LAST: output has no line matching \"$1\""
    cat "$OUT"
  fi
}

LAST="teplug conformance libteplug_cpu.so --interface gemm --json"
"$TEPLUG" conformance "$CPU_SO" --interface gemm --json >"$OUT" || fail "$LAST: exit status $?"
python3 - "$OUT" <<'PY' || fail "$LAST: not every declared GEMM claim passed (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"]
assert doc["passed"] is True, doc
assert {r["interface"] for r in rows} == {"gemm"}, "--interface gemm checks IGemm only"
verdicts = {r["check"]: r["verdict"] for r in rows}
contract = ["refcount", "error_object", "supports_reason", "refused_op", "workspace",
            "struct_sizes", "threads"]
declared = ["contract " + c for c in contract]
declared += [f"{f}={d}" for f in ("a_dtypes", "b_dtypes", "d_dtypes")
             for d in ("fp32", "fp16", "bf16")]
declared += ["epilogues=" + e for e in ("bias", "gelu", "gelu_aux", "accumulate")]
for check in declared:
    assert verdicts.get(check) == "pass", (check, verdicts.get(check))
others = {c: v for c, v in verdicts.items() if c not in declared}
assert all(v == "not declared" for v in others.values()), others
print(f"conformance: {len(declared)} declared checks pass, {len(others)} not declared")
PY

LAST="teplug conformance libteplug_cpu.so --interface attention --json"
"$TEPLUG" conformance "$CPU_SO" --interface attention --json >"$OUT" || fail "$LAST: exit status $?"
python3 - "$OUT" <<'PY' || fail "$LAST: not every declared attention claim passed (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"]
assert doc["passed"] is True, doc
assert {r["interface"] for r in rows} == {"attention"}, "--interface attention checks IAttention only"
verdicts = {r["check"]: r["verdict"] for r in rows}
layouts = ["sb3hd", "sbh3d", "sbhd_sb2hd", "sbhd_sbh2d", "sbhd_sbhd_sbhd", "bs3hd", "bsh3d",
           "bshd_bs2hd", "bshd_bsh2d", "bshd_bshd_bshd", "t3hd", "th3d", "thd_t2hd", "thd_th2d",
           "thd_thd_thd"]
masks = ["none", "padding", "causal", "padding_causal", "causal_bottom_right",
         "padding_causal_bottom_right"]
declared = ["contract refcount", "contract threads"]
declared += ["qkv_dtypes=" + d for d in ("fp32", "fp16", "bf16")]
declared += ["layouts=" + l for l in layouts] + ["mask_types=" + m for m in masks]
declared += ["bias_types=" + b for b in ("none", "pre_scale", "post_scale", "alibi")]
declared += ["features=" + f for f in ("dropout", "sliding_window", "gqa", "deterministic",
                                       "different_head_dims")]
for check in declared:
    assert verdicts.get(check) == "pass", (check, verdicts.get(check))
others = {c: v for c, v in verdicts.items() if c not in declared}
assert all(v == "not declared" for v in others.values()), others
print(f"attention conformance: {len(declared)} declared checks pass, {len(others)} not declared")
PY

LAST="teplug list --no-discovery"
"$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in 'cpu  vendor "teplug"  version 0.1.0'
expect_match 'IGemm/1 +cpu/onednn-matmul +priority 100'
expect_match 'IAttention/1 +cpu/flash-attention +priority 100'

for dtype in fp32 bf16 fp16; do
  LAST="teplug explain gemm --dtype $dtype --no-discovery"
  "$TEPLUG" explain gemm --dtype "$dtype" --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
  expect_in "=> served by cpu/onednn-matmul"
done
LAST="teplug explain gemm --dtype fp8_e4m3 --no-discovery"
"$TEPLUG" explain gemm --dtype fp8_e4m3 --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in "cpu/onednn-matmul  rejected        100  [capability] A dtype fp8_e4m3 not in {fp32, fp16, bf16}"
expect_in "=> served by reference/gemm"

# A malformed thread budget refuses the built-in cpu provider, naming the
# variable and value; the reference still serves.
LAST="TEPLUG_CPU_THREADS=zero teplug list --no-discovery"
TEPLUG_CPU_THREADS=zero "$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in 'built-in provider cpu refused: teplug_plugin_entry returned invalid_argument: TEPLUG_CPU_THREADS="zero" is not a thread count'
expect_in 'IGemm/1        reference/gemm        priority 0'
LAST="TEPLUG_CPU_THREADS=1 teplug list --no-discovery"
TEPLUG_CPU_THREADS=1 "$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_match 'IGemm/1 +cpu/onednn-matmul +priority 100'

if [[ "$FAILURES" != 0 ]]; then
  echo "$FAILURES check(s) failed"
  exit 1
fi
echo "all checks passed"
