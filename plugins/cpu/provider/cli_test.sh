#!/bin/bash
# The cpu provider through the shipped CLI (the first argument) and as a
# plugin (the second): `teplug conformance libteplug_cpu.so` passes every
# contract check and every GEMM, attention, quantizer and collective claim the
# descriptors make, and declares nothing it does not serve (its Gloo
# collective meets over loopback here); in the CLI, cpu is built in at
# priority 100 and serves an fp32/bf16 GEMM and the quantizer over the
# reference, which still serves what cpu does not declare (fp8 GEMM
# operands); its Gloo collective sits below the reference's shared-memory one
# until a config rule prefers it; a malformed TEPLUG_CPU_THREADS refuses it.
set -u
TEPLUG="$1"
CPU_SO="$2"
unset TEPLUG_PLUGINS TEPLUG_PLUGIN_PATH NVTE_PLUGIN TEPLUG_CONFIG TEPLUG_LOG
export TEPLUG_GLOO_IFNAME=lo
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

# expect_match REGEX: the last output has a line matching REGEX (extended).
expect_match() {
  if ! grep -qE -- "$1" "$OUT"; then
    fail "$LAST: no line matches /$1/"
    cat "$OUT"
  fi
}

LAST="teplug conformance libteplug_cpu.so --json"
"$TEPLUG" conformance "$CPU_SO" --json >"$OUT" || fail "$LAST: exit status $?"
python3 - "$OUT" <<'PY' || fail "$LAST: not every declared claim passed (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"]
assert doc["passed"] is True, doc
assert {r["interface"] for r in rows} == {"gemm", "attention", "quantizer", "collective"}, "cpu registers IGemm, IAttention, IQuantizer, ICollective"
def declared_checks(interface, contract, claims):
    verdicts = {r["check"]: r["verdict"] for r in rows if r["interface"] == interface}
    declared = ["contract " + c for c in contract] + claims
    for check in declared:
        assert verdicts.get(check) == "pass", (interface, check, verdicts.get(check))
    others = {c: v for c, v in verdicts.items() if c not in declared}
    assert all(v == "not declared" for v in others.values()), (interface, others)
    print(f"conformance {interface}: {len(declared)} declared checks pass, {len(others)} not declared")
declared_checks("gemm", ["refcount", "error_object", "supports_reason", "refused_op", "workspace",
                         "struct_sizes", "threads"],
                [f"{f}={d}" for f in ("a_dtypes", "b_dtypes", "d_dtypes")
                 for d in ("fp32", "fp16", "bf16")] +
                [f"{f}={d}" for f in ("a_dtypes", "b_dtypes") for d in ("fp8_e4m3", "fp8_e5m2")] +
                ["scaling_modes=" + m for m in
                 ("per_tensor", "mxfp8_1d32", "block_1d128", "block_2d128")] +
                ["epilogues=" + e for e in ("bias", "gelu", "gelu_aux", "accumulate")])
declared_checks("collective", ["refcount", "error_object", "supports_reason", "refused_op",
                              "threads"],
                ["dtypes=" + d for d in ("fp32", "fp16", "bf16", "int8", "int32", "int64", "uint8")] +
                ["ops=" + o for o in ("all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                      "send", "recv", "barrier")] +
                ["reductions=" + r for r in ("sum", "prod", "min", "max", "avg")])
layouts = ["sb3hd", "sbh3d", "sbhd_sb2hd", "sbhd_sbh2d", "sbhd_sbhd_sbhd", "bs3hd", "bsh3d",
           "bshd_bs2hd", "bshd_bsh2d", "bshd_bshd_bshd", "t3hd", "th3d", "thd_t2hd", "thd_th2d",
           "thd_thd_thd"]
masks = ["none", "padding", "causal", "padding_causal", "causal_bottom_right",
         "padding_causal_bottom_right"]
declared_checks("attention", ["refcount", "error_object", "supports_reason", "refused_op",
                             "threads"],
                ["qkv_dtypes=" + d for d in ("fp32", "fp16", "bf16")] +
                ["layouts=" + l for l in layouts] + ["mask_types=" + m for m in masks] +
                ["bias_types=" + b for b in ("none", "pre_scale", "post_scale", "alibi")] +
                ["features=" + f for f in ("dropout", "sliding_window", "gqa", "deterministic",
                                           "backward", "different_head_dims")])
declared_checks("quantizer", ["refcount", "error_object", "supports_reason", "refused_op",
                             "threads"],
                ["input_dtypes=" + d for d in ("fp32", "fp16", "bf16")] +
                ["output_dtypes=" + d for d in ("fp8_e4m3", "fp8_e5m2")] +
                ["scaling_modes=" + m for m in
                 ("per_tensor", "mxfp8_1d32", "block_1d128", "block_2d128")] +
                ["features=" + f for f in
                 ("columnwise", "dequantize", "current_scaling", "delayed_scaling",
                  "mx_te_scale")])
PY

LAST="teplug list --no-discovery"
"$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in 'cpu  vendor "teplug"  version 0.1.0'
expect_match 'IGemm/1 +cpu/onednn-matmul +priority 100'
expect_match 'IAttention/1 +cpu/flash-attention +priority 100'
expect_match 'IQuantizer/1 +cpu/quantizer +priority 100'

for dtype in fp32 bf16 fp16; do
  LAST="teplug explain gemm --dtype $dtype --no-discovery"
  "$TEPLUG" explain gemm --dtype "$dtype" --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
  expect_in "=> served by cpu/onednn-matmul"
done
# fp8 operands (every row-wise scaling mode) are decoded for oneDNN; an fp8 D
# is not served, and the reference serves it.
for mode in per_tensor mxfp8_1d32 block_1d128 block_2d128; do
  LAST="teplug explain gemm --dtype fp8_e4m3 --scaling-mode $mode --no-discovery"
  "$TEPLUG" explain gemm --dtype fp8_e4m3 --d-dtype bf16 --scaling-mode "$mode" --no-discovery \
    >"$OUT" 2>&1 || fail "$LAST: exit status $?"
  expect_in "=> served by cpu/onednn-matmul"
done
LAST="teplug explain gemm --dtype fp8_e4m3 --d-dtype fp8_e4m3 --no-discovery"
"$TEPLUG" explain gemm --dtype fp8_e4m3 --d-dtype fp8_e4m3 --no-discovery >"$OUT" 2>&1 ||
  fail "$LAST: exit status $?"
expect_match 'cpu/onednn-matmul +rejected +100 +\[capability\] D dtype fp8_e4m3 not in \{fp32, fp16, bf16\}'
expect_in "=> served by reference/gemm"

# Between ranks on one host the reference's shared-memory collective serves;
# a rule preferring cpu (ranks across hosts) picks Gloo, citing the rule.
LAST="teplug list --no-discovery"
"$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_match 'ICollective/1 +cpu/gloo +priority -100'
LAST="teplug explain collective --world-size 2 --no-discovery"
"$TEPLUG" explain collective --world-size 2 --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in "=> served by reference/collective"
CONFIG="${TEST_TMPDIR:-/tmp}/gloo_across_hosts.textproto"
cat >"$CONFIG" <<'CFG'
rules {
  name: "ranks-across-hosts"
  match { interfaces: "collective" }
  prefer: "cpu"
}
CFG
LAST="teplug explain collective --world-size 2 --config gloo_across_hosts.textproto"
"$TEPLUG" explain collective --world-size 2 --config "$CONFIG" --no-discovery >"$OUT" 2>&1 ||
  fail "$LAST: exit status $?"
expect_in "=> served by cpu/gloo"
expect_in "ranks-across-hosts"

LAST="teplug explain quantizer --op quantize --scaling-mode mxfp8_1d32 --device cpu --no-discovery"
"$TEPLUG" explain quantizer --op quantize --scaling-mode mxfp8_1d32 --dtype fp8_e4m3 --device cpu \
  --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in "=> served by cpu/quantizer"

# A malformed thread budget refuses the built-in cpu provider, naming the
# variable and value; the reference still serves.
LAST="TEPLUG_CPU_THREADS=zero teplug list --no-discovery"
TEPLUG_CPU_THREADS=zero "$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in 'built-in provider cpu refused: teplug_plugin_entry returned invalid_argument: TEPLUG_CPU_THREADS="zero" is not a thread count'
expect_match 'IGemm/1 +reference/gemm +priority 0'
LAST="TEPLUG_CPU_THREADS=1 teplug list --no-discovery"
TEPLUG_CPU_THREADS=1 "$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_match 'IGemm/1 +cpu/onednn-matmul +priority 100'

if [[ "$FAILURES" != 0 ]]; then
  echo "$FAILURES check(s) failed"
  exit 1
fi
echo "all checks passed"
