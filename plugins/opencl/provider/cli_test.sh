#!/bin/bash
# The opencl plugin through the shipped CLI (the first argument) with the
# plugin (the second): `teplug list --plugin libteplug_opencl.so` shows the
# provider with its IDevice, IGemm, IQuantizer and IAttention and the ICD
# loader's first device as opencl:0; `teplug conformance libteplug_opencl.so`
# runs its cases on opencl:0 through the plugin's IDevice and every declared
# claim passes, and `--interface attention` checks every declared attention
# claim (none left "not checked"); without the
# plugin the list names nothing OpenCL-specific (the provider is never built in).
# With the example config (the third argument): `teplug validate` accepts it,
# `teplug explain --device opencl:0` shows its rule applied, and the mixed
# vendor run `teplug run --ranks 2 --devices cpu,opencl:0` puts rank 0 on cpu
# providers and rank 1's GEMMs on opencl, stages what nothing serves on
# opencl:0 to cpu with the reason, and all-reduces across both within
# tolerance; a --devices list of the wrong length is a usage error.
set -u
TEPLUG="$1"
OPENCL_SO="$2"
MIXED_CONFIG="$3"
unset TEPLUG_PLUGINS TEPLUG_PLUGIN_PATH NVTE_PLUGIN TEPLUG_CONFIG TEPLUG_LOG
OUT="${TEST_TMPDIR:-/tmp}/opencl_cli_out.txt"
FAILURES=0

fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}

LAST="teplug list --plugin libteplug_opencl.so"
"$TEPLUG" list --plugin "$OPENCL_SO" >"$OUT" 2>&1 || fail "$LAST: exit status $?"
grep -qE '^  opencl +vendor "teplug"' "$OUT" || fail "$LAST: no opencl provider"
grep -qE 'IDevice/1 +opencl/opencl +priority 200' "$OUT" || fail "$LAST: no IDevice/1 opencl/opencl"
grep -qE 'IGemm/1 +opencl/clblast +priority 200' "$OUT" || fail "$LAST: no IGemm/1 opencl/clblast"
grep -qE 'IAttention/1 +opencl/attention +priority 200' "$OUT" ||
  fail "$LAST: no IAttention/1 opencl/attention"
grep -qE 'IQuantizer/1 +opencl/opencl-quantizer +priority 200' "$OUT" ||
  fail "$LAST: no IQuantizer/1 opencl/opencl-quantizer"
grep -qE '^  opencl:0 \(.*arch [0-9]+\)  opencl/opencl  "' "$OUT" || fail "$LAST: no device opencl:0"
[ "$FAILURES" -eq 0 ] || cat "$OUT"

LAST="teplug conformance libteplug_opencl.so --json"
"$TEPLUG" conformance "$OPENCL_SO" --json >"$OUT" 2>&1 || fail "$LAST: exit status $?"
python3 - "$OUT" <<'PY' || fail "$LAST: not every declared claim passed on opencl:0 (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["passed"] is True, [r for r in doc["rows"] if r["verdict"] not in ("pass", "not declared")]
rows = [r for r in doc["rows"] if r["verdict"] == "pass"]
impls = {r["implementation"] for r in rows}
assert impls == {"opencl/clblast on opencl:0", "opencl/opencl on opencl:0",
                 "opencl/attention on opencl:0", "opencl/opencl-quantizer on opencl:0"}, impls
assert not [r for r in doc["rows"] if r["verdict"] == "not checked"], "a claim is not checked"
checks = {r["check"] for r in rows if r["implementation"].startswith("opencl/clblast")}
for claim in ["a_dtypes=fp16", "b_dtypes=fp32", "d_dtypes=fp16", "epilogues=gelu_aux",
              "epilogues=accumulate", "contract threads", "a_dtypes=bf16", "a_dtypes=fp8_e4m3",
              "b_dtypes=fp8_e5m2", "scaling_modes=per_tensor", "scaling_modes=mxfp8_1d32"]:
    assert claim in checks, (claim, sorted(checks))
quant = {r["check"] for r in rows if r["implementation"].startswith("opencl/opencl-quantizer")}
for claim in ["input_dtypes=fp32", "input_dtypes=fp16", "input_dtypes=bf16",
              "output_dtypes=fp8_e4m3", "output_dtypes=fp8_e5m2", "scaling_modes=per_tensor",
              "scaling_modes=mxfp8_1d32", "features=columnwise", "features=dequantize",
              "features=current_scaling", "features=delayed_scaling", "features=mx_te_scale"]:
    assert claim in quant, (claim, sorted(quant))
print(f"conformance: {len(rows)} checks pass on opencl:0")
PY

LAST="teplug conformance libteplug_opencl.so --device opencl:0 --interface attention --json"
"$TEPLUG" conformance "$OPENCL_SO" --device opencl:0 --interface attention --json >"$OUT" 2>&1 ||
  fail "$LAST: exit status $?"
python3 - "$OUT" <<'PY' || fail "$LAST: an attention claim failed or was not checked (above)"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"]
assert doc["passed"] is True, [r for r in rows if r["verdict"] not in ("pass", "not declared")]
unchecked = [r["check"] for r in rows if r["verdict"] not in ("pass", "not declared")]
assert not unchecked, unchecked
passed = {r["check"] for r in rows if r["verdict"] == "pass"
          and r["implementation"] == "opencl/attention on opencl:0"}
want = (["qkv_dtypes=" + d for d in ("fp32", "fp16", "bf16")] +
        ["layouts=" + l for l in ("sb3hd", "sbh3d", "sbhd_sb2hd", "sbhd_sbh2d", "sbhd_sbhd_sbhd",
                                  "bs3hd", "bsh3d", "bshd_bs2hd", "bshd_bsh2d", "bshd_bshd_bshd",
                                  "t3hd", "th3d", "thd_t2hd", "thd_th2d", "thd_thd_thd")] +
        ["mask_types=" + m for m in ("none", "padding", "causal", "padding_causal",
                                     "causal_bottom_right", "padding_causal_bottom_right")] +
        ["bias_types=" + b for b in ("none", "pre_scale", "post_scale", "alibi")] +
        ["features=" + f for f in ("sliding_window", "gqa", "deterministic", "backward",
                                   "different_head_dims")] +
        ["contract refcount", "contract threads"])
missing = [c for c in want if c not in passed]
assert not missing, missing
print(f"attention conformance: {len(passed)} checks pass on opencl:0, 0 not checked")
PY

LAST="teplug list --no-discovery"
"$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
if grep -qi 'opencl' "$OUT"; then
  fail "$LAST: names OpenCL without the plugin"
  cat "$OUT"
fi

LAST="teplug validate mixed_vendor.textproto --plugin libteplug_opencl.so"
"$TEPLUG" validate "$MIXED_CONFIG" --plugin "$OPENCL_SO" >"$OUT" 2>&1 || fail "$LAST: exit status $?"
grep -q 'mixed_vendor.textproto: OK' "$OUT" || { fail "$LAST: not OK"; cat "$OUT"; }

LAST="teplug explain gemm --dtype fp32 --device opencl:0 --config mixed_vendor.textproto"
"$TEPLUG" explain gemm --dtype fp32 --m 64 --n 64 --k 64 --device opencl:0 --plugin "$OPENCL_SO" \
  --config "$MIXED_CONFIG" >"$OUT" 2>&1 || fail "$LAST: exit status $?"
grep -qE '^  opencl/clblast +chosen .*preferred \(#1\) by config rule "opencl-gemm-on-opencl" \(.*mixed_vendor.textproto:[0-9]+\)' "$OUT" ||
  { fail "$LAST: opencl/clblast not chosen by the rule"; cat "$OUT"; }
grep -q '=> served by opencl/clblast' "$OUT" || fail "$LAST: not served by opencl/clblast"

LAST="teplug explain gemm --dtype fp8_e4m3 --d-dtype fp32 --device opencl:0 --config mixed_vendor.textproto"
"$TEPLUG" explain gemm --dtype fp8_e4m3 --d-dtype fp32 --m 64 --n 64 --k 64 --device opencl:0 \
  --plugin "$OPENCL_SO" --config "$MIXED_CONFIG" >"$OUT" 2>&1
grep -qE '^  opencl/clblast +rejected .*\[config\] denied .*config rule "no-fp8-gemm-on-opencl"' "$OUT" ||
  { fail "$LAST: opencl/clblast not denied by the fp8 rule"; cat "$OUT"; }

LAST="teplug run --ranks 2 --devices cpu,opencl:0 --config mixed_vendor.textproto"
"$TEPLUG" run --ranks 2 --devices cpu,opencl:0 --dtype fp32 --batch 1 --seq 16 --heads 2 \
  --head-dim 16 --plugin "$OPENCL_SO" --config "$MIXED_CONFIG" >"$OUT" 2>&1 ||
  fail "$LAST: exit status $?"
python3 - "$OUT" <<'PY' || { fail "$LAST: the table is not as expected (above)"; cat "$OUT"; }
import re, sys
text = open(sys.argv[1]).read()
assert re.search(r"^rank 1: opencl:0 .* through opencl/opencl", text, re.M), "no rank 1 device line"
rows = {}
for line in text.splitlines():
    m = re.match(r"^(fwd|bwd|comm)  +(rank \d \S+)  +(.+?)  +(I\w+/1)  +(\S+)  +\"(.*)\"  +"
                 r"([0-9.]+) ms  +([0-9.]+) ms  +(\S+)  +.*  (OK|FAIL)$", line)
    if m:
        rows[(m.group(2), m.group(3))] = {"provider": m.group(5), "why": m.group(6),
                                          "first": float(m.group(8)), "speedup": m.group(9),
                                          "verdict": m.group(10)}
assert len(rows) == 30, f"{len(rows)} rows, expected 15 ops on each of 2 ranks"
assert all(r["verdict"] == "OK" for r in rows.values()), [k for k, r in rows.items() if r["verdict"] != "OK"]
rank0 = {k: r for k, r in rows.items() if k[0] == "rank 0 cpu:0"}
rank1 = {k: r for k, r in rows.items() if k[0] == "rank 1 opencl:0"}
assert len(rank0) == 15 and len(rank1) == 15, (len(rank0), len(rank1))
# Each rank times its own ops after their first call (a speedup against the
# reference on every row), and shows that first call, where one-time kernel
# builds land, in a column of its own.
for k, r in rows.items():
    assert re.fullmatch(r"[0-9]+\.[0-9]+x", r["speedup"]), (k, r)
    assert r["first"] > 0, (k, r)
assert re.search(r"^step +rank +op +interface +provider +why +time +first call +speedup ", text, re.M)
for k, r in rank0.items():
    assert r["provider"].split("/")[0] in ("cpu", "reference"), (k, r)
    assert "staged" not in r["why"], (k, r)
# Rank 1's fp32 GEMMs run on the OpenCL device, chosen by the config's rule.
for op in ["gemm out_proj dgrad", "gemm out_proj wgrad (fp32 out)", "gemm qkv_proj dgrad",
           "gemm qkv_proj wgrad (fp32 out)"]:
    r = rank1[("rank 1 opencl:0", op)]
    assert r["provider"] == "opencl/clblast", (op, r)
    assert 'config rule "opencl-gemm-on-opencl"' in r["why"], (op, r)
# Attention runs on the OpenCL device's kernels, preferred by the config's rule;
# quantization on the provider's quantizer kernels.
for op in ["attention forward (bs3hd causal fp32)", "attention backward (bs3hd causal fp32)"]:
    r = rank1[("rank 1 opencl:0", op)]
    assert r["provider"] == "opencl/attention", (op, r)
    assert 'config rule "opencl-attention-on-opencl"' in r["why"], (op, r)
for op in ["quantize x -> fp8_e4m3 per_tensor", "dequantize x -> fp32",
           "quantize o -> fp8_e4m3 mxfp8_1d32"]:
    assert rank1[("rank 1 opencl:0", op)]["provider"] == "opencl/opencl-quantizer", op
# The fp8 GEMMs, which the config denies opencl, are staged to cpu with every
# candidate's reason.
staged = {k[1]: r for k, r in rank1.items() if r["why"].startswith("staged to cpu: ")}
for op in ["gemm qkv_proj (fp8 per_tensor)", "gemm out_proj (mxfp8)"]:
    assert op in staged, (op, sorted(staged))
    assert staged[op]["provider"].split("/")[0] in ("cpu", "reference"), (op, staged[op])
    assert "nothing serves it on opencl:0: " in staged[op]["why"], (op, staged[op])
    assert re.search(r'opencl/clblast: denied by config rule "no-fp8-gemm-on-opencl" '
                     r'\(.*mixed_vendor.textproto:[0-9]+\)', staged[op]["why"]), (op, staged[op])
# The gradients are all-reduced across both vendors through the host collective.
for name in ["dw_o", "dw_qkv"]:
    for who in ["rank 0 cpu:0", "rank 1 opencl:0"]:
        r = rows[(who, f"all_reduce sum {name} (fp32, 2 ranks)")]
        assert r["verdict"] == "OK", (who, name, r)
    assert rows[("rank 1 opencl:0", f"all_reduce sum {name} (fp32, 2 ranks)")]["why"].startswith(
        "staged to cpu: the gradient is in host memory (copied back from opencl:0")
assert re.search(r"\b(?:sum in double) [0-9.e+-]+ \(tol", text), "no independent all-reduce check"
assert "all within tolerance" in text, "the run's summary is not 'all within tolerance'"
print(f"mixed run: {len(rank1)} ops on rank 1 (opencl:0), {len(staged)} staged to cpu")
PY

LAST="teplug run --ranks 3 --devices cpu,opencl:0"
"$TEPLUG" run --ranks 3 --devices cpu,opencl:0 --plugin "$OPENCL_SO" >"$OUT" 2>&1
status=$?
[ "$status" -eq 2 ] || fail "$LAST: exit status $status, expected 2 (usage)"
grep -q 'error: teplug run: --devices "cpu,opencl:0" names 2 devices but --ranks is 3' "$OUT" ||
  { fail "$LAST: no error naming the count"; cat "$OUT"; }

LAST="teplug run --ranks 2 --devices cpu,opencl:9"
"$TEPLUG" run --ranks 2 --devices cpu,opencl:9 --plugin "$OPENCL_SO" >"$OUT" 2>&1
status=$?
[ "$status" -eq 1 ] || fail "$LAST: exit status $status, expected 1"
{ grep -q "error: teplug run: cannot open rank 1's device opencl:9: " "$OUT" &&
  grep -q 'opencl:9 does not exist' "$OUT"; } ||
  { fail "$LAST: no error naming the rank, the device and the device's reason"; cat "$OUT"; }

[ "$FAILURES" -eq 0 ] && echo "PASS" && exit 0
exit 1
