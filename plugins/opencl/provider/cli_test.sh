#!/bin/bash
# The opencl plugin through the shipped CLI (the first argument) with the
# plugin (the second): `teplug list --plugin libteplug_opencl.so` shows the
# provider with its IDevice and IGemm and the ICD loader's first device as
# opencl:0; `teplug conformance libteplug_opencl.so` runs its cases on opencl:0
# through the plugin's IDevice and every declared claim passes; without the
# plugin the list names nothing OpenCL-specific (the provider is never built in).
set -u
TEPLUG="$1"
OPENCL_SO="$2"
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
assert impls == {"opencl/clblast on opencl:0", "opencl/opencl on opencl:0"}, impls
checks = {r["check"] for r in rows if r["implementation"].startswith("opencl/clblast")}
for claim in ["a_dtypes=fp16", "b_dtypes=fp32", "d_dtypes=fp16", "epilogues=gelu_aux",
              "epilogues=accumulate", "contract threads"]:
    assert claim in checks, (claim, sorted(checks))
print(f"conformance: {len(rows)} checks pass on opencl:0")
PY

LAST="teplug list --no-discovery"
"$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
if grep -qi 'opencl' "$OUT"; then
  fail "$LAST: names OpenCL without the plugin"
  cat "$OUT"
fi

[ "$FAILURES" -eq 0 ] && echo "PASS" && exit 0
exit 1
