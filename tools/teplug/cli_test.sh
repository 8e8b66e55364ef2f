#!/bin/bash
# Runs the real `teplug` binary for one subcommand (the first argument) on
# real inputs and checks its output: golden files where the output is stable
# (paths of plugin libraries normalised to <DIR>), exit statuses and key
# phrases elsewhere. Set TEPLUG_UPDATE_GOLDENS=<dir> to write the goldens
# there instead of comparing. The binary is the CLI with only the reference
# built in (:teplug_without_native), so the output is the same on builds with
# and without CUDA.
set -u

TEPLUG=tools/teplug/teplug_without_native
DATA=tools/teplug/testdata
FAKE_FAST=core/kernel/testing/libteplug_fake_fast.so
FAKE_WIDE=core/kernel/testing/libteplug_fake_wide.so
HOSTILE=tests/hostile/libteplug_hostile_abi_mismatch.so
FORGED_TEXT=tests/hostile/libteplug_hostile_forged_text.so
FORGED_REFUSAL=tests/hostile/libteplug_hostile_forged_refusal.so
CRASHING=tests/hostile/libteplug_crashing_abort_in_entry.so
REFERENCE_SO=plugins/reference/libteplug_reference.so
MINIMAL_C=interfaces/examples/libteplug_minimal_c.so
NAMED_DEVICES=tests/hostile/libteplug_hostile_named_devices.so
unset TEPLUG_PLUGINS TEPLUG_PLUGIN_PATH NVTE_PLUGIN TEPLUG_CONFIG TEPLUG_LOG

FAILURES=0
OUT="${TEST_TMPDIR:-/tmp}/teplug_out.txt"
ERR="${TEST_TMPDIR:-/tmp}/teplug_err.txt"

fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}

# run_teplug ARGS...: runs the binary, stdout in $OUT, stderr in $ERR, status in $STATUS.
run_teplug() {
  "$TEPLUG" "$@" >"$OUT" 2>"$ERR"
  STATUS=$?
  LAST="teplug $*"
}

expect_status() {
  if [[ "$STATUS" != "$1" ]]; then
    fail "$LAST: exit status $STATUS, expected $1"
    echo "--- stdout"; cat "$OUT"; echo "--- stderr"; cat "$ERR"
  fi
}

# expect_in FILE TEXT: FILE contains TEXT (fixed string).
expect_in() {
  if ! grep -qF -- "$2" "$1"; then
    fail "$LAST: output lacks \"$2\""
    echo "--- $(basename "$1")"; cat "$1"
  fi
}

normalise() {
  sed -E -e 's#(^|[ ("])/[^ ()"]*/(libteplug_[a-z0-9_]+\.so)#\1<DIR>/\2#g' \
    -e 's#"host CPU \([0-9]+ threads\)"  [0-9.]+ GiB#"host CPU (<N> threads)"  <M> GiB#' "$1"
}

# expect_golden NAME: normalised stdout equals testdata/NAME.golden.
expect_golden() {
  if [[ -n "${TEPLUG_UPDATE_GOLDENS:-}" ]]; then
    normalise "$OUT" >"$TEPLUG_UPDATE_GOLDENS/$1.golden"
    return
  fi
  if ! diff -u "$DATA/$1.golden" <(normalise "$OUT"); then
    fail "$LAST: stdout differs from $DATA/$1.golden (diff above)"
  fi
}

# forged_name_copy PLUGIN: copies PLUGIN into a fresh 0755 directory under a
# file name holding a newline, a forged log header, ESC and 0xFF; prints it.
forged_name_copy() {
  local dir="${TEST_TMPDIR:-/tmp}/forged_$(basename "$1" .so)"
  mkdir -p "$dir" && chmod 0755 "$dir"
  local to="$dir/libteplug_evil"$'\n'"teplug WARN: forged"$'\x1b'"[31m"$'\xff'".so"
  cp "$1" "$to" && chmod 0755 "$to"
  printf '%s' "$to"
}

# check_forged_output: the JSON or table in $OUT and the log lines in $ERR of
# `teplug list` with hostile_forged_text and a forged-name copy of
# hostile_forged_refusal. Decodes strictly as UTF-8 (a stray 0xFF fails).
check_forged_output() {
  python3 - "$OUT" "$ERR" "$1" <<'PY'
import json, sys
out = open(sys.argv[1], "rb").read().decode("utf-8")  # strict: raises on invalid UTF-8
err = open(sys.argv[2], "rb").read().decode("utf-8")
forged = ("\\x0ateplug WARN: plugin /opt/other/libteplug_other.so (api) refused: forged"
          "\\x0d\\x1b[2J\\x1b]0;owned\\x07\\xff")
name = "libteplug_evil\\x0ateplug WARN: forged\\x1b[31m\\xff.so"
reason = "teplug_plugin_entry returned internal: hostile_forged_refusal" + forged

def printable_lines(text, what):
    assert text.endswith("\n"), (what, text)
    lines = text[:-1].split("\n")
    for line in lines:
        bad = [c for c in line if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F]
        assert not bad, (what, line, bad)
    return lines

# stderr: the plugin's own WARN line and the refusal, one line each.
log = printable_lines(err, "stderr")
assert len(log) == 2, log
assert log[0] == "teplug WARN: plugin libteplug_hostile_forged_text.so: about to register" + forged, log[0]
assert log[1].startswith("teplug WARN: plugin /") and log[1].endswith(name + " (api) refused: " + reason), log[1]

if sys.argv[3] == "json":
    doc = json.loads(out)
    [p] = [p for p in doc["providers"] if p["name"] == "hostile_forged_text"]
    assert p["vendor"] == "acme" + forged, p["vendor"]
    assert p["version"] == "1.0" + forged, p["version"]
    [r] = doc["refused"]
    assert r["path"].endswith("/" + name), r["path"]
    assert r["reason"] == reason, r["reason"]
else:
    lines = printable_lines(out, "stdout")
    assert any('vendor "acme' + forged + '"  version 1.0' + forged in l for l in lines), out
    assert any(l.endswith(name + " (api): " + reason) for l in lines), out
PY
}

test_list() {
  run_teplug list --no-discovery --plugin "$FAKE_FAST" --plugin "$HOSTILE" --plugin "$REFERENCE_SO"
  expect_status 0
  expect_golden list_with_refused
  # Refusals are also logged on stderr, once each.
  expect_in "$ERR" "ABI mismatch"

  # The names a provider declares are listed with it, and used in its capabilities.
  run_teplug list --no-discovery --plugin "$NAMED_DEVICES"
  expect_status 0
  expect_in "$OUT" "    names: device kind 1100 = gaudi, vendor 0x1da3 = habana"
  expect_in "$OUT" "      devices:        cpu, gaudi habana"

  run_teplug list --json --no-discovery --plugin "$FAKE_FAST" --plugin "$HOSTILE"
  expect_status 0
  python3 - "$OUT" <<'PY' || fail "list --json: key fields missing or wrong (see above)"
import json, sys
doc = json.load(open(sys.argv[1]))
providers = {p["name"]: p for p in doc["providers"]}
assert set(providers) == {"fast", "reference"}, providers.keys()
ref = providers["reference"]
assert ref["builtin"] is True and ref["source"] == "built-in", ref
assert ref["abi_min"] == "1.0", ref
interfaces = sorted(i["interface"] for i in ref["implementations"])
assert interfaces == ["IAttention/1", "ICollective/1", "IDevice/1", "IGemm/1", "INorm/1", "IQuantizer/1"], interfaces
devices = doc["devices"]
assert len(devices) == 1 and doc["device_problems"] == [], doc
cpu = devices[0]
assert cpu["device"] == "cpu:0" and cpu["kind"] == "cpu" and cpu["ordinal"] == 0, cpu
assert cpu["implementation"] == "reference/cpu" and cpu["name"].startswith("host CPU"), cpu
assert cpu["memory_bytes"] > 0 and cpu["host_pointers_usable"] is True, cpu
assert all(i["capability"] for i in ref["implementations"])
fast = providers["fast"]
assert fast["builtin"] is False and fast["source"].endswith("libteplug_fake_fast.so"), fast
assert [i["default_priority"] for i in fast["implementations"]] == [200, 200], fast
# Every field of each capability descriptor, structured: sets as lists of
# names, limits as numbers.
fields = {i["name"]: i["capability_fields"] for i in ref["implementations"] + fast["implementations"]}
assert list(fields["reference/gemm"]) == ["devices", "a_dtypes", "b_dtypes", "d_dtypes", "epilogues",
                                          "scaling_modes", "alignment", "max_dim"], fields["reference/gemm"]
assert fields["reference/gemm"]["epilogues"] == ["bias", "gelu", "gelu_aux", "accumulate"], fields
assert fields["reference/gemm"]["max_dim"] == 0 and fields["reference/gemm"]["devices"] == ["cpu"], fields
assert fields["fast/attn"]["head_dim_max"] == 128 and fields["fast/attn"]["head_dim_multiple"] == 8, fields
assert fields["fast/attn"]["mask_types"] == ["none", "causal"], fields
assert fields["reference/norm"]["features"] == ["backward", "zero_centered_gamma", "mx_te_scale"], fields
assert "reserved0" not in fields["reference/norm"], fields
assert fields["reference/collective"]["ops"][0] == "all_reduce", fields
refused = doc["refused"]
assert len(refused) == 1 and refused[0]["path"].endswith("libteplug_hostile_abi_mismatch.so"), refused
assert "ABI mismatch" in refused[0]["reason"] and refused[0]["origin"] == "api", refused
PY

  # Text from plugins and file names is escaped in the table, the JSON and
  # the log lines; --json is strict UTF-8.
  local forged_path
  forged_path=$(forged_name_copy "$FORGED_REFUSAL")
  for format in json table; do
    run_teplug list $([[ $format == json ]] && echo --json) --no-discovery --plugin "$FORGED_TEXT" \
      --plugin "$forged_path"
    expect_status 0
    check_forged_output "$format" || fail "$LAST: forged text not escaped (see above)"
  done
  # A plugin that aborts in its entry is probed by default: listed as refused
  # with the signal, while the good plugin is listed.
  run_teplug list --no-discovery --plugin "$FAKE_FAST" --plugin "$CRASHING"
  expect_status 0
  expect_in "$OUT" "fast"
  expect_in "$OUT" "pre-flight probe: killed by SIGABRT during teplug_plugin_entry"
  # --probe off loads it in-process: the command dies of the abort.
  run_teplug list --no-discovery --probe off --plugin "$CRASHING"
  [[ "$STATUS" == 134 ]] || fail "$LAST: exit status $STATUS, expected 134 (SIGABRT) without the probe"

  # The three discovery variables are read without --no-discovery and all
  # ignored with it (the tool hands the core its switch TEPLUG_PLUGINS=none).
  local env=(TEPLUG_PLUGINS="$PWD/$FAKE_FAST" TEPLUG_PLUGIN_PATH="$PWD/$(dirname "$HOSTILE")"
    NVTE_PLUGIN="$PWD/$FAKE_WIDE")
  for discovery in on off; do
    env "${env[@]}" "$TEPLUG" list --json $([[ $discovery == off ]] && echo --no-discovery) \
      >"$OUT" 2>"$ERR" || fail "list with discovery $discovery: exit status $?"
    python3 - "$OUT" "$discovery" <<'PY' || fail "list with discovery $discovery: providers or refusals wrong"
import json, sys
doc = json.load(open(sys.argv[1]))
names = sorted(p["name"] for p in doc["providers"])
origins = [r["origin"].split(" ")[0] for r in doc["refused"]]
if sys.argv[2] == "on":
    # TEPLUG_PLUGIN_PATH is tests/hostile: hostile_forged_text and
    # hostile_named_devices load; the ABI-mismatch plugin, the forged refusal
    # and the one that aborts (refused by the default probe instead of killing
    # the command) are refused.
    assert names == ["fast", "hostile_forged_text", "hostile_named_devices", "reference", "wide"], names
    assert origins == ["TEPLUG_PLUGIN_PATH"] * 3, origins
    reasons = sorted(r["reason"] for r in doc["refused"])
    assert any("ABI mismatch" in r for r in reasons), reasons
    assert "pre-flight probe: killed by SIGABRT during teplug_plugin_entry" in reasons, reasons
else:
    assert names == ["reference"] and origins == [], (names, origins)
PY
  done
}

test_explain() {
  run_teplug explain attention --dtype bf16 --layout bshd --head-dim 128 --seq-q 4096 --seq-kv 4096 \
    --mask-type causal --device cpu --no-discovery
  expect_status 0
  expect_in "$OUT" "reference/attention  chosen"
  expect_in "$OUT" "=> served by reference/attention"

  # A device no provider serves: the rejection names the device; exit 1.
  run_teplug explain attention --device cuda:0 --arch 90 --vendor nvidia --no-discovery
  expect_status 1
  expect_in "$OUT" "[device] device cuda:0 (nvidia, arch 90) not in {cpu}"
  expect_in "$OUT" "=> no provider can serve this op"

  # A vendor device kind and vendor by the names a provider declares, or by
  # number; the record names them. Without that provider the names are a
  # usage error that says which names are known.
  for device in "--device gaudi:0 --vendor habana" "--device 1100:0 --vendor 0x1da3"; do
    # shellcheck disable=SC2086  # $device is two flags
    run_teplug explain gemm --dtype fp32 $device --no-discovery --plugin "$NAMED_DEVICES"
    expect_status 0
    expect_in "$OUT" " on gaudi:0 (habana)"
    expect_in "$OUT" "=> served by hostile_named_devices/counted-gemm"
  done
  run_teplug explain gemm --dtype fp32 --device gaudi:0 --no-discovery
  expect_status 2
  expect_in "$ERR" "bad value \"gaudi:0\" for --device: expected cpu, cuda, opencl, a vendor kind number >= 1024 or a kind a loaded provider names (declared: none)"
  run_teplug explain gemm --dtype fp32 --device gaudi:0 --vendor habanna --no-discovery --plugin "$NAMED_DEVICES"
  expect_status 2
  expect_in "$ERR" "(declared: habana (0x1da3))"

  # A config rule that denies: the rule is cited with file:line; exit 1.
  run_teplug explain gemm --dtype fp8_e4m3 --m 256 --n 512 --k 128 --config "$DATA/deny_fp8_gemm.textproto" \
    --no-discovery
  expect_status 1
  expect_golden explain_deny

  # The same, with a config file whose name forges a verdict line and clears
  # the screen: the rule cites it escaped; still five printable lines.
  local forged_config="${TEST_TMPDIR:-/tmp}/deny"$'\n'"=> served by forged"$'\x1b'"[2J"$'\xff'".textproto"
  cp "$DATA/deny_fp8_gemm.textproto" "$forged_config"
  run_teplug explain gemm --dtype fp8_e4m3 --m 256 --n 512 --k 128 --config "$forged_config" \
    --no-discovery
  expect_status 1
  python3 - "$OUT" <<'PY' || fail "$LAST: the config's name is not escaped (see above)"
import sys
out = open(sys.argv[1], "rb").read().decode("utf-8")  # strict
lines = out[:-1].split("\n")
assert len(lines) == 5, lines
assert all(c >= " " and not 0x7F <= ord(c) <= 0x9F for l in lines for c in l), lines
assert lines[3].endswith("/deny\\x0a=> served by forged\\x1b[2J\\xff.textproto:3)"), lines[3]
assert lines[4] == "=> no provider can serve this op", lines[4]
PY

  # The same GEMM in bf16 does not match the rule and is served.
  run_teplug explain gemm --dtype bf16 --m 256 --n 512 --k 128 --config "$DATA/deny_fp8_gemm.textproto" \
    --no-discovery
  expect_status 0

  # A prefer rule beats priorities: wide (100) over fast (200).
  run_teplug explain attention --head-dim 64 --mask-type causal --config "$DATA/prefer_wide.textproto" \
    --plugin "$FAKE_FAST" --plugin "$FAKE_WIDE" --no-discovery
  expect_status 0
  expect_golden explain_prefer

  # Capability limits with values: fast serves head_dim <= 128 only.
  run_teplug explain attention --head-dim 192 --mask-type causal --plugin "$FAKE_FAST" --no-discovery
  expect_status 0
  expect_in "$OUT" "head_dim_qk 192 > max 128"

  # A plugin that aborts in its entry is probed by default: explain still
  # answers, and the refusal is logged.
  run_teplug explain gemm --dtype bf16 --m 256 --n 512 --k 128 --plugin "$CRASHING" --no-discovery
  expect_status 0
  expect_in "$ERR" "pre-flight probe: killed by SIGABRT during teplug_plugin_entry"

  # Rules match a GEMM's M and each operand's dtype: M=1024 is denied, 1023 is not.
  run_teplug explain gemm --dtype fp8_e4m3 --m 1024 --n 512 --k 128 \
    --config "$DATA/deny_big_gemm.textproto" --no-discovery
  expect_status 1
  expect_in "$OUT" "reference/gemm  rejected          0  [config] denied  config rule \"no-big-fp8-gemm-on-reference\" ($DATA/deny_big_gemm.textproto:3)"
  run_teplug explain gemm --dtype fp8_e4m3 --m 1023 --n 512 --k 128 \
    --config "$DATA/deny_big_gemm.textproto" --no-discovery
  expect_status 0
  expect_in "$OUT" "=> served by reference/gemm"

  # Every interface can be explained; quantizer and collective too.
  run_teplug explain quantizer --op quantize --scaling-mode mxfp8_1d32 --dtype fp8_e4m3 --no-discovery
  expect_status 0
  expect_in "$OUT" "reference/quantizer  chosen"
  # Collectives are decided at comm_create, so that is what explain shows;
  # a per-call op is a usage error that says so.
  run_teplug explain collective --world-size 4 --no-discovery
  expect_status 0
  expect_in "$OUT" "ICollective/1 collective comm_create rank 0 of 4 (1 host) on cpu:0"
  expect_in "$OUT" "reference/collective  chosen"
  # Ranks on two hosts: the reference's shared memory serves one host only,
  # and this build has no collective that crosses hosts.
  run_teplug explain collective --world-size 4 --hosts 2 --no-discovery
  expect_status 1
  expect_in "$OUT" "ICollective/1 collective comm_create rank 0 of 4 (2 hosts) on cpu:0"
  expect_in "$OUT" "reference/collective  rejected          0  [capability] ranks on 2 hosts; serves ranks on one host only (features one_host)"
  expect_in "$OUT" "=> no provider can serve this op"
  run_teplug explain norm --norm-type rmsnorm --rows 8 --hidden-size 4096 --dtype bf16 --output-dtype fp8_e4m3 \
    --scaling-mode mxfp8_1d32 --zero-centered-gamma --no-discovery
  expect_status 0
  expect_in "$OUT" "INorm/1 norm forward rmsnorm bf16[8,4096] hidden=4096 zero_centered_gamma on cpu:0"
  expect_in "$OUT" "reference/norm  chosen"
  run_teplug explain norm --op backward --hidden-size 8192 --no-discovery \
    --config "$DATA/norm_rules.textproto"
  expect_status 1
  expect_in "$OUT" "[config] denied"
  expect_in "$OUT" "config rule \"no-wide-layernorm-backward\""
  run_teplug explain norm --op backward --hidden-size 4096 --no-discovery --config "$DATA/norm_rules.textproto"
  expect_status 0
  run_teplug explain collective --op all_reduce --no-discovery
  expect_status 2
  expect_in "$ERR" "--op all_reduce: collectives are decided once per communicator, at comm_create"

  # Usage errors: exit 2 with the fix.
  run_teplug explain attention --hed-dim 128
  expect_status 2
  expect_in "$ERR" "unknown flag --hed-dim for \`teplug explain\`; did you mean --head-dim? (see teplug explain --help)"
  run_teplug explain atention
  expect_status 2
  expect_in "$ERR" "did you mean attention?"
  run_teplug explain attention --op gemm
  expect_status 2
  expect_in "$ERR" "use forward or backward"
  # A parameter of another op is refused, not ignored.
  run_teplug explain attention --m 64 --no-discovery
  expect_status 2
  expect_in "$ERR" "--m is not a parameter of attention forward; its parameters: --dtype, --layout, --mask-type,"

  # The flags of fact parameters accept exactly what a config rule on the
  # fact accepts: both lists come from the interface's vocabulary.
  local rule="${TEST_TMPDIR:-/tmp}/bogus_fact.textproto"
  for case in "gemm dtype" "attention layout" "attention mask_type" "norm norm_type" "quantizer scaling_mode"; do
    local interface="${case% *}" fact="${case#* }"
    printf 'rules {\n  name: "r"\n  match { interfaces: "%s" facts { fact: "%s" values: "bogus" } }\n  deny: "reference"\n}\n' \
      "$interface" "$fact" >"$rule"
    run_teplug validate "$rule" --no-discovery
    expect_status 1
    local from_config
    from_config=$(cat "$OUT" "$ERR" | grep -o 'expected one of: .*' | head -1 | sed 's/^expected one of: //')
    run_teplug explain "$interface" "--${fact//_/-}" bogus --no-discovery
    expect_status 2
    local from_flag
    from_flag=$(grep -o 'expected one of [^(]*' "$ERR" | sed 's/^expected one of //; s/ $//')
    if [[ -z "$from_flag" || "$from_flag" != "$from_config" ]]; then
      fail "$LAST: --${fact//_/-} accepts \"$from_flag\", a rule's $fact accepts \"$from_config\""
    fi
  done
  run_teplug explain
  expect_status 2
  expect_in "$ERR" "name the interface"
}

test_validate() {
  run_teplug validate "$DATA/several_errors.textproto"
  expect_status 1
  expect_golden validate_several_errors

  run_teplug validate "$DATA/unknown_names.textproto" --no-discovery
  expect_status 1
  expect_golden validate_unknown_names

  run_teplug validate "$DATA/clean.textproto" --no-discovery
  expect_status 0
  expect_in "$OUT" "clean.textproto: OK"

  # Warnings (a rule that can never match, an allow list that leaves an
  # interface with no provider) are printed but do not fail the check.
  run_teplug validate "$DATA/warnings_only.textproto" --no-discovery
  expect_status 0
  expect_golden validate_warnings_only

  # A refused required plugin does not hide the rest: provider names are
  # still checked against the providers that did load.
  local required_config="${TEST_TMPDIR:-/tmp}/required.textproto"
  printf 'plugins { path: "gone/libteplug_gone.so" required: true }\nrules { name: "r" deny: "acme" }\n' \
    >"$required_config"
  run_teplug validate "$required_config" --no-discovery
  expect_status 1
  expect_in "$OUT" "required.textproto:2:19: rules[0].deny[0]: unknown provider \"acme\"; known providers: reference"
  expect_in "$OUT" "required.textproto:1: plugin"
  expect_in "$OUT" "it is marked required, so teplug refuses to start with this config"
  expect_in "$OUT" "required.textproto: 2 problems"

  # JSON: an unknown key gets a did-you-mean from the schema.
  local json_config="${TEST_TMPDIR:-/tmp}/typo.json"
  printf '{"rules": [{"name": "r", "deny": ["reference"],\n  "match": {"mask_type": ["causal"]}}]}\n' >"$json_config"
  run_teplug validate "$json_config" --no-discovery
  expect_status 1
  expect_in "$OUT" "typo.json:2:13: unknown field \"mask_type\" in rules[0].match (a Match); did you mean \"mask_types\"?"

  # Device kind and vendor names are known once a provider declares them.
  run_teplug validate "$DATA/gaudi_rules.textproto" --no-discovery
  expect_status 1
  expect_in "$OUT" "gaudi_rules.textproto:6:11: rules[0].match.device_kinds[0]: unknown device kind \"gaudi\"; expected cpu, cuda, opencl, a vendor kind number (1024 or more, or vendor1024) or a name a loaded provider declares (declared: none)"
  expect_in "$OUT" "rules[0].match.vendors[0]: unknown vendor \"habana\""
  expect_in "$OUT" "gaudi_rules.textproto: 2 problems"
  run_teplug validate "$DATA/gaudi_rules.textproto" --no-discovery --plugin "$NAMED_DEVICES"
  expect_status 0

  # A plugin's provider name becomes known when the plugin is given.
  run_teplug validate "$DATA/prefer_wide.textproto" --no-discovery
  expect_status 1
  expect_in "$OUT" "unknown provider \"wide\""
  run_teplug validate "$DATA/prefer_wide.textproto" --no-discovery --plugin "$FAKE_WIDE"
  expect_status 0

  # A config naming a plugin whose file name and refusal forge log lines:
  # one problem line, escaped.
  local forged_path config="${TEST_TMPDIR:-/tmp}/forged.textproto"
  forged_path=$(forged_name_copy "$FORGED_REFUSAL")
  python3 - "$(dirname "$forged_path")" "$config" <<'PY'
import sys
name = 'libteplug_evil\\nteplug WARN: forged\\033[31m\\377.so'  # text-format escapes
open(sys.argv[2], "w").write('plugins { path: "%s/%s" }\n' % (sys.argv[1], name))
PY
  run_teplug validate "$config" --no-discovery
  expect_status 1
  python3 - "$OUT" <<'PY' || fail "$LAST: refusal not one escaped line (see above)"
import sys
out = open(sys.argv[1], "rb").read().decode("utf-8")
lines = out[:-1].split("\n")
assert len(lines) == 2, lines  # the refusal, then the count
assert all(c >= " " and not 0x7F <= ord(c) <= 0x9F for l in lines for c in l), lines
assert "libteplug_evil\\x0ateplug WARN: forged\\x1b[31m\\xff.so refused: " in lines[0], lines[0]
assert "hostile_forged_refusal\\x0ateplug WARN: plugin /opt/other" in lines[0], lines[0]
PY
  # A config plugin that aborts in its entry is a refused plugin (probed by
  # default), not a crash of validate.
  local crashing_config="${TEST_TMPDIR:-/tmp}/crashing.textproto"
  printf 'plugins { path: "%s" }\n' "$PWD/$CRASHING" >"$crashing_config"
  run_teplug validate "$crashing_config" --no-discovery
  expect_status 1
  expect_in "$OUT" "refused: pre-flight probe: killed by SIGABRT during teplug_plugin_entry"

  run_teplug validate "$DATA/does_not_exist.textproto"
  expect_status 2
  expect_in "$ERR" "cannot read config file \"$DATA/does_not_exist.textproto\""
  run_teplug validate
  expect_status 2
  expect_in "$ERR" "teplug validate FILE"
}

# check_run_speedups reference|none: every op line of the run report in $OUT
# has a time and a first call in ms above 0 and, comparing with the reference, a speedup above
# 0 ("1.02x"), or "-" with --compare none. Times are never compared.
check_run_speedups() {
  python3 - "$OUT" "$1" <<'PY' || fail "$LAST: time or speedup column wrong (see above)"
import re, sys
lines = [l for l in open(sys.argv[1]) if re.match(r"(fwd|bwd|comm) ", l)]
assert lines, "no op lines"
for line in lines:
    m = re.search(r'" +([0-9.]+) ms +([0-9.]+) ms +(\S+) ', line)
    assert m, line
    assert float(m.group(1)) > 0 and float(m.group(2)) > 0, line
    if sys.argv[2] == "none":
        assert m.group(3) == "-", line
    else:
        assert re.fullmatch(r"[0-9]+\.[0-9]+x", m.group(3)) and float(m.group(3)[:-1]) > 0, line
PY
}

# Every op line of a run report names an interface, a provider and a quoted reason.
check_run_lines() {
  local ops
  ops=$(grep -cE '^(fwd|bwd|comm) ' "$OUT")
  if [[ "$ops" != "$1" ]]; then
    fail "$LAST: $ops op lines, expected $1"
    cat "$OUT"
  fi
  if grep -E '^(fwd|bwd|comm) ' "$OUT" | grep -vqE ' I(Gemm|Attention|Quantizer|Collective)/1 +[a-z0-9_]+/[a-z0-9_-]+ +"[^"]+" '; then
    fail "$LAST: an op line lacks interface, provider or reason"
    cat "$OUT"
  fi
}

test_run() {
  run_teplug run --layers 2 --batch 1 --seq 16 --heads 2 --head-dim 32 --ranks 2 --no-discovery
  expect_status 0
  check_run_lines 15
  check_run_speedups reference
  expect_in "$OUT" "config: embedded default"
  expect_in "$OUT" "compare: every op against the reference provider"
  expect_in "$OUT" "all within tolerance"
  expect_in "$OUT" "served by reference, error 0 by construction"
  expect_in "$OUT" "naive attention backward"
  expect_in "$ERR" "progress: layer 2/2 forward done"

  run_teplug run --dtype fp32 --batch 1 --seq 8 --heads 1 --head-dim 32 --ranks 3 --no-discovery
  expect_status 0
  expect_in "$OUT" "all_reduce sum dw_qkv (fp32, 3 ranks)"

  # A provider that writes wrong numbers is caught: fast's GEMM only stamps
  # fp32 outputs with 1.0, so the run must fail, naming the GEMMs.
  run_teplug run --batch 1 --seq 16 --heads 2 --head-dim 32 --ranks 1 --no-discovery --plugin "$FAKE_FAST"
  expect_status 1
  expect_in "$OUT" "fast/gemm"
  expect_in "$OUT" "FAILED:"
  expect_in "$OUT" "gemm out_proj wgrad (fp32 out)"

  # A GEMM provider ranked first that answers UNAVAILABLE, returns an error
  # object with a NULL destroy, or throws a C++ exception: the run falls back
  # to the reference, says so once, finishes, and credits the provider that
  # served each op (the reference), naming the first choice that failed.
  for c in unavailable_gemm null_destroy throw_gemm; do
    run_teplug run --dtype fp32 --batch 1 --seq 8 --heads 1 --head-dim 32 --ranks 1 --no-discovery \
      --plugin "tests/hostile/libteplug_call_$c.so"
    expect_status 0
    expect_in "$OUT" "all within tolerance"
    expect_in "$ERR" "call_$c/gemm"
    expect_in "$ERR" "falling back to reference/"
    if ! grep -qE "^bwd +gemm qkv_proj wgrad \(fp32 out\) +IGemm/1 +reference/gemm +\"fallback: the first choice, call_$c/gemm, failed at call time\"" "$OUT"; then
      fail "$LAST: the fp32 wgrad GEMM is not credited to reference/gemm after the fallback"
      cat "$OUT"
    fi
    if grep -E '^(fwd|bwd|comm) ' "$OUT" | grep -q "call_$c/gemm  "; then
      fail "$LAST: an op is credited to call_$c/gemm, which served none"
      cat "$OUT"
    fi
  done

  # --compare none: no reference comparison and no speedup; the header says
  # so. The GEMMs pinned to minimal_c are served by it and not compared.
  run_teplug run --dtype fp32 --batch 1 --seq 8 --heads 1 --head-dim 32 --ranks 2 --no-discovery \
    --compare none --plugin "$MINIMAL_C" --config "$DATA/pin_fp32_gemm.textproto"
  expect_status 0
  check_run_lines 15
  check_run_speedups none
  expect_in "$OUT" "config: $DATA/pin_fp32_gemm.textproto"
  expect_in "$OUT" "compare: none (--compare none): no op runs through the reference provider"
  if grep -E '^(fwd|bwd|comm) ' "$OUT" | grep -q "max_err"; then
    fail "$LAST: an op was compared with the reference under --compare none"
    cat "$OUT"
  fi
  # The header names the config $TEPLUG_CONFIG chose.
  TEPLUG_CONFIG="$DATA/clean.textproto" "$TEPLUG" run --dtype fp32 --batch 1 --seq 8 --heads 1 \
    --head-dim 32 --ranks 1 --no-discovery >"$OUT" 2>"$ERR"
  STATUS=$?
  LAST="TEPLUG_CONFIG=$DATA/clean.textproto teplug run"
  expect_status 0
  expect_in "$OUT" "config: $DATA/clean.textproto"

  # An allow list that pins fp32 GEMMs to another provider does not stop the
  # run's own comparison with the reference (requested by name, so exempt).
  run_teplug run --dtype fp32 --batch 1 --seq 8 --heads 1 --head-dim 32 --ranks 1 --no-discovery \
    --plugin "$MINIMAL_C" --config "$DATA/pin_fp32_gemm.textproto"
  expect_status 0
  expect_in "$OUT" "all within tolerance"
  expect_in "$OUT" "gemm qkv_proj wgrad (fp32 out)"
  expect_in "$OUT" "minimal_c/naive-fp32"
  check_run_speedups reference

  # A config rule reaches the run: denying the only GEMM provider stops it.
  run_teplug run --batch 1 --seq 16 --heads 2 --head-dim 32 --ranks 1 --no-discovery \
    --config "$DATA/deny_fp8_gemm.textproto"
  expect_status 1
  expect_in "$OUT" "no provider can serve it"
  expect_in "$OUT" "no-fp8-gemm-on-reference"

  run_teplug run --hed-dim 3
  expect_status 2
  expect_in "$ERR" "unknown flag --hed-dim for \`teplug run\`; did you mean --head-dim? (see teplug run --help)"
  run_teplug run --compare nothing
  expect_status 2
  expect_in "$ERR" "bad value \"nothing\" for --compare of \`teplug run\`: expected one of reference, none"
  run_teplug run --dtype fp9
  expect_status 2
  expect_in "$ERR" "bad value \"fp9\" for --dtype of \`teplug run\`: expected one of fp32, fp16, bf16"
  run_teplug run --layers 0
  expect_status 2
  expect_in "$ERR" "expected an integer from 1 to 1024"
  run_teplug run --seq
  expect_status 2
  expect_in "$ERR" "--seq of \`teplug run\` needs a value"
  run_teplug run --config "$DATA/nope.textproto"
  expect_status 2
  expect_in "$ERR" "cannot read config file \"$DATA/nope.textproto\" given by --config"
  run_teplug run --config "$DATA/several_errors.textproto"
  expect_status 2
  expect_in "$ERR" "several_errors.textproto:12:1: log_level"
  expect_in "$ERR" "teplug validate FILE"
}

test_help() {
  for cmd in list explain validate run; do
    run_teplug "$cmd" --help
    expect_status 0
    expect_in "$OUT" "Usage: teplug $cmd"
    expect_in "$OUT" "--help"
    # One default per flag (a flag whose default follows another flag or the
    # op says so instead of printing its stored value).
    if grep -n "\[default.*\[default" "$OUT"; then fail "$LAST: a flag shows two defaults (above)"; fi
  done
  run_teplug explain --help
  expect_in "$OUT" "attention: key/value heads [default: --heads]"
  expect_in "$OUT" "[default: bf16; quantizer fp8_e4m3]"
  # The help's examples run: their flags are ones the modules declare.
  local examples="${TEST_TMPDIR:-/tmp}/explain_examples.txt"
  sed -n '/^Examples:/,/^$/p' "$OUT" | sed -e ':a' -e '/\\$/N; s/\\\n *//; ta' | grep '^  teplug explain ' >"$examples"
  [[ $(wc -l <"$examples") -ge 4 ]] || fail "teplug explain --help: fewer than 4 examples found"
  while read -r _ _ example; do
    # shellcheck disable=SC2086  # each example is several arguments
    run_teplug explain $example --no-discovery
    [[ "$STATUS" == 2 ]] && fail "$LAST: the help's example is a usage error: $(cat "$ERR")"
  done <"$examples"
  run_teplug run --help
  # The table is printed from OutputTolerance, the values the job checks with.
  expect_in "$OUT" "attention backward    1e-4   4e-3   3.1e-2"
  run_teplug --help
  expect_status 0
  expect_in "$OUT" "Commands:"
  run_teplug
  expect_status 2
  run_teplug lst
  expect_status 2
  expect_in "$ERR" "unknown command \"lst\"; did you mean list?"
}

CONFORMANCE_PLUGINS=tools/teplug/conformance_plugins

# expect_reproduced CHECK: the first "reproduce:" line of $OUT, run, fails
# the same way: exit 1, CHECK failing again, and for a numerics case the same
# case with the same error ("case ...: error E > tolerance T").
expect_reproduced() {
  local command same
  command=$(grep -m1 -F "reproduce: teplug conformance" "$OUT" | sed -e 's/^ *reproduce: teplug //')
  same=$(grep -m1 -o 'case [^ ]*: error [^ ]* > tolerance [^ ]*' "$OUT")
  if [[ -z "$command" ]]; then
    fail "$LAST: no reproducing command printed"
    return
  fi
  eval "run_teplug $command"
  expect_status 1
  expect_in "$OUT" "FAIL         $1"
  [[ -n "$same" ]] && expect_in "$OUT" "$same"
}

test_conformance() {
  # What conformance cannot build is reported as not checked, with its
  # reason, never as passing, and fails the run: a plugin claiming int8 GEMM
  # operands, right about everything else, exits 1 saying so.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_uncheckable_claim.so"
  expect_status 1
  expect_in "$OUT" "pass         a_dtypes=bf16"
  expect_in "$OUT" "not checked  a_dtypes=int8                 conformance cannot build this case yet"
  expect_in "$OUT" "0 failed, 1 not checked"
  expect_in "$OUT" "not proven: a declared capability conformance cannot check counts as a failure"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_uncheckable_claim.so" --json
  expect_status 1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["passed"] is False, d' "$OUT" ||
    fail "$LAST: --json does not say passed false"
  # The reference conforms: every claim it declares is checked and passes.
  run_teplug conformance "$REFERENCE_SO"
  expect_status 0
  expect_in "$OUT" "0 failed, 0 not checked"
  expect_in "$OUT" "every declared capability passed"
  grep -E "^  not checked" "$OUT" && fail "$LAST: the reference has claims not checked (above)"
  expect_in "$OUT" "pass         contract threads"
  expect_in "$OUT" "pass         epilogues=gelu_aux"
  expect_in "$OUT" "pass         scaling_modes=mxfp8_1d32"
  expect_in "$OUT" "pass         scaling_modes=block_1d128"
  expect_in "$OUT" "pass         scaling_modes=block_2d128"
  expect_in "$OUT" "pass         d_dtypes=fp8_e5m2"
  expect_in "$OUT" "pass         b_dtypes=fp4_e2m1"
  expect_in "$OUT" "pass         features=dequantize"
  expect_in "$OUT" "pass         features=columnwise"
  expect_in "$OUT" "pass         features=delayed_scaling"
  expect_in "$OUT" "pass         ops=reduce_scatter"
  expect_in "$OUT" "pass         ops=barrier"
  expect_in "$OUT" "pass         ops=recv"
  expect_in "$OUT" "pass         reductions=avg"
  expect_in "$OUT" "pass         dtypes=uint8"
  expect_in "$OUT" "pass         calls=memory"
  expect_in "$OUT" "pass         calls=refusals"
  expect_in "$OUT" "pass         norm_types=rmsnorm"
  expect_in "$OUT" "pass         features=zero_centered_gamma"
  expect_in "$OUT" "pass         mask_types=causal_bottom_right"
  expect_in "$OUT" "pass         features=gqa"
  expect_in "$OUT" "pass         layouts=thd_thd_thd"
  expect_in "$OUT" "0 failed"
  # Not a terminal: no progress on stderr; --json is only the report.
  [[ -s "$ERR" ]] && fail "$LAST: stderr not empty: $(cat "$ERR")"
  run_teplug conformance "$REFERENCE_SO" --quick --interface collective
  expect_status 0
  expect_in "$OUT" "0 failed, 0 not checked"
  expect_in "$OUT" "every declared capability passed"
  run_teplug conformance "$REFERENCE_SO" --json --quick --interface gemm
  expect_status 0
  [[ -s "$ERR" ]] && fail "$LAST: stderr not empty: $(cat "$ERR")"
  python3 - "$OUT" <<'PY' || fail "conformance --json: not the expected report (see above)"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["passed"] is True, doc["passed"]
rows = doc["rows"]
assert {r["interface"] for r in rows} == {"gemm"}, rows
verdicts = {r["check"]: r["verdict"] for r in rows}
assert verdicts["contract refcount"] == "pass", verdicts
assert verdicts["a_dtypes=bf16"] == "pass", verdicts
assert verdicts["a_dtypes=int8"] == "not declared", verdicts
assert verdicts["a_dtypes=fp4_e2m1"] == "pass", verdicts
assert verdicts["scaling_modes=block_2d128"] == "pass", verdicts
assert verdicts["d_dtypes=fp8_e4m3"] == "pass", verdicts
assert not [r for r in rows if r["verdict"] == "fail"], rows
PY

  # The example plugins the project ships conform.
  run_teplug conformance "$MINIMAL_C"
  expect_status 0
  expect_in "$OUT" "pass         epilogues=accumulate"
  run_teplug conformance interfaces/examples/libteplug_minimal_cpp.so --quick
  expect_status 0

  # An honest small plugin passes; each copy that lies about one thing fails
  # naming that check, and its reproducing command fails the same way.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_honest.so"
  expect_status 0
  expect_in "$OUT" "pass         d_dtypes=bf16"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_numbers.so"
  expect_status 1
  expect_in "$OUT" "pass         d_dtypes=fp32"
  expect_in "$OUT" "FAIL         d_dtypes=bf16"
  expect_in "$OUT" "> tolerance 0.0156"
  expect_in "$OUT" "reproduce: teplug conformance"
  expect_reproduced "a_dtypes="
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_quantizer_numbers.so"
  expect_status 1
  expect_in "$OUT" "FAIL         scaling_modes=per_tensor"
  expect_in "$OUT" "--interface quantizer --case 'input_dtype=fp32,output_dtype=fp8_e4m3,"
  expect_reproduced "output_dtypes=fp8_e4m3"
  # Block scaling, column-wise output and delayed scaling are exercised: a
  # GEMM reading every block with its row's first scale, and a quantizer
  # that writes neither its block scales nor a column-wise copy, fail them.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_block_scales.so"
  expect_status 1
  expect_in "$OUT" "FAIL         scaling_modes=block_1d128"
  expect_in "$OUT" "--interface gemm --case 'a_dtype=fp8_e4m3,b_dtype=fp8_e4m3,d_dtype=fp32,scaling=block_1d128,"
  expect_in "$OUT" ",m=17,n=24,k=160'"
  expect_reproduced "scaling_modes=block_1d128"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_quantizer_block_claims.so"
  expect_status 1
  expect_in "$OUT" "FAIL         scaling_modes=block_1d128"
  expect_in "$OUT" "FAIL         features=columnwise"
  expect_in "$OUT" "FAIL         features=delayed_scaling"
  expect_in "$OUT" "not bit-exact (quantizer.h defines every bit): codes byte 0 is 0x38"
  expect_in "$OUT" "--interface quantizer --case 'input_dtype=fp32,output_dtype=fp8_e4m3,scaling=per_tensor,recipe=delayed,"
  expect_reproduced "features=delayed_scaling"
  # A quantizer right bit for bit but for its untransposed column-wise copy:
  # the columnwise cases fail on that copy's bytes, the same case without
  # the copy passes.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_columnwise_untransposed.so"
  expect_status 1
  expect_in "$OUT" "FAIL         features=columnwise"
  expect_in "$OUT" "not bit-exact (quantizer.h defines every bit): columnwise_data byte"
  expect_reproduced "features=columnwise"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_columnwise_untransposed.so" \
    --interface quantizer --seed 3 \
    --case 'input_dtype=fp32,output_dtype=fp8_e4m3,scaling=per_tensor,recipe=current,columnwise=0,dequantize=0,rows=17,cols=64'
  expect_status 0
  expect_in "$OUT" "pass         features=current_scaling"
  # An MXFP8 quantizer right by the OCP rule that declares TransformerEngine's
  # rule but never reads mx_scale_rule: its OCP cases pass, the TE ones fail
  # on their scales.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_mx_rule_ignored.so"
  expect_status 1
  expect_in "$OUT" "FAIL         features=mx_te_scale"
  expect_in "$OUT" "not bit-exact (quantizer.h defines every bit): codes byte"
  expect_in "$OUT" ",mx_scale_rule=transformer_engine'"
  expect_reproduced "features=mx_te_scale"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_mx_rule_ignored.so" \
    --interface quantizer --seed 3 \
    --case 'input_dtype=fp32,output_dtype=fp8_e4m3,scaling=mxfp8_1d32,recipe=current,columnwise=0,dequantize=0,rows=17,cols=64'
  expect_status 0
  expect_in "$OUT" "pass         scaling_modes=mxfp8_1d32"
  # Collectives run on 2 and 3 ranks against an exact host oracle: an
  # all_reduce that leaves one rank out fails.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_collective_ignores_rank.so"
  expect_status 1
  expect_in "$OUT" "FAIL         ops=all_reduce"
  expect_in "$OUT" "the exact host oracle says"
  expect_in "$OUT" "--interface collective --case 'op=all_reduce,dtype=fp32,reduce=sum,world=2,"
  expect_reproduced "ops=all_reduce"
  # A device whose device-to-device copy drops a byte fails its memory round trip.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_device_short_copy.so"
  expect_status 1
  expect_in "$OUT" "FAIL         calls=memory"
  expect_in "$OUT" "pass         calls=refusals"
  expect_in "$OUT" "host->device->device->host: byte 4098 came back"
  expect_in "$OUT" "--interface device --case 'check=memory,bytes=4099,stream=0'"
  expect_reproduced "calls=memory"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_device_ordinal.so"
  expect_status 1
  expect_in "$OUT" "pass         calls=memory"
  expect_in "$OUT" "FAIL         calls=refusals"
  expect_in "$OUT" "open of ordinal 8 (not served) succeeded; it must be refused with a reason"
  expect_reproduced "calls=refusals"
  # A GEMM, a quantizer and an RMSNorm that serve only opencl:0, a device whose memory
  # hides behind opaque handles (host pointers passed to them crash or are
  # refused): every declared device is checked by default, each case staged
  # there through the plugin's IDevice, and the plugin passes.
  local OPAQUE="$CONFORMANCE_PLUGINS/libteplug_conformance_opaque_device"
  run_teplug conformance "${OPAQUE}_honest.so"
  expect_status 0
  expect_in "$OUT" "gemm conformance_opaque_device_honest/opaque_gemm on opencl:0"
  expect_in "$OUT" "quantizer conformance_opaque_device_honest/opaque_quantizer on opencl:0"
  expect_in "$OUT" "device conformance_opaque_device_honest/opaque_device on opencl:0"
  expect_in "$OUT" "pass         a_dtypes=fp32"
  expect_in "$OUT" "pass         scaling_modes=per_tensor"
  expect_in "$OUT" "norm conformance_opaque_device_honest/opaque_rmsnorm on opencl:0"
  expect_in "$OUT" "pass         norm_types=rmsnorm"
  expect_in "$OUT" "pass         calls=memory"
  run_teplug conformance "${OPAQUE}_honest.so" --interface gemm --device opencl:0 --json
  expect_status 0
  expect_in "$OUT" '"implementation": "conformance_opaque_device_honest/opaque_gemm on opencl:0"'
  # A device the implementations do not declare, or that no IDevice serves,
  # leaves the claims not checked, saying why.
  run_teplug conformance "${OPAQUE}_honest.so" --interface gemm --device cuda:0
  expect_status 1
  expect_in "$OUT" "not checked  a_dtypes=fp32                 the implementation declares no cuda device"
  run_teplug conformance "${OPAQUE}_honest.so" --interface gemm --device opencl:1
  expect_status 1
  expect_in "$OUT" "not checked  a_dtypes=fp32                 no IDevice in the plugin serves opencl:1"
  run_teplug conformance "${OPAQUE}_without_idevice.so"
  expect_status 1
  expect_in "$OUT" "not checked  d_dtypes=fp32                 no IDevice in the plugin serves a device of kind opencl"
  # Ops that leave an output in their own memory instead of the device's fail,
  # with a command that re-runs the case on that device.
  run_teplug conformance "${OPAQUE}_forgets_copy.so" --interface gemm
  expect_status 1
  expect_in "$OUT" "FAIL         d_dtypes=fp32"
  expect_in "$OUT" "--seed 1 --device opencl:0"
  expect_reproduced "d_dtypes=fp32"
  run_teplug conformance "${OPAQUE}_forgets_copy.so" --interface quantizer --device opencl:0
  expect_status 1
  expect_in "$OUT" "FAIL         output_dtypes=fp8_e4m3"
  expect_in "$OUT" "scale_inv byte 0 is 0x00"
  expect_reproduced "output_dtypes=fp8_e4m3"
  run_teplug conformance "${OPAQUE}_forgets_copy.so" --interface norm
  expect_status 1
  expect_in "$OUT" "FAIL         norm_types=rmsnorm"
  expect_reproduced "norm_types=rmsnorm"
  # The fp32 attention on opencl:0: Q, K, V, O, the gradients and cu_seqlens
  # all staged there; ignoring cu_seqlens fails there as on the host.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_opaque_device_honest.so" --quick
  expect_status 0
  expect_in "$OUT" "attention conformance_attention_opaque_device_honest/fp32 on opencl:0"
  expect_in "$OUT" "pass         mask_types=padding"
  expect_in "$OUT" "pass         features=backward"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_opaque_device_padding.so" --quick
  expect_status 1
  expect_in "$OUT" "FAIL         mask_types=padding"
  expect_reproduced "mask_types=padding"
  # On a device the shared contract checks run there too; a plugin keeping
  # references fails them with a command naming the device. IGemm/1's own
  # checks run on host memory only, and asked for on a device say so.
  run_teplug conformance "${OPAQUE}_honest.so" --interface quantizer --check threads
  expect_status 0
  expect_in "$OUT" "pass         contract threads"
  run_teplug conformance "${OPAQUE}_refcount.so" --interface norm
  expect_status 1
  expect_in "$OUT" "FAIL         contract refcount"
  expect_in "$OUT" "--check refcount --seed 1 --device opencl:0"
  expect_reproduced "contract refcount"
  # Every interface's refusals are checked, on the device too: a supports
  # that says no without a reason, an implementation that serves a dtype it
  # does not declare.
  run_teplug conformance "${OPAQUE}_no_reason.so" --interface norm
  expect_status 1
  expect_in "$OUT" "pass         contract refused_op"
  expect_in "$OUT" "FAIL         contract supports_reason"
  expect_in "$OUT" "supports said no to the norm forward without a reason"
  expect_in "$OUT" "--check supports_reason --seed 1 --device opencl:0"
  expect_reproduced "contract supports_reason"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_norm_any_dtype.so"
  expect_status 1
  expect_in "$OUT" "pass         norm_types=rmsnorm"
  expect_in "$OUT" "FAIL         contract refused_op"
  expect_in "$OUT" "norm forward succeeded; what the descriptor does not declare must be answered"
  expect_reproduced "contract refused_op"
  # IGemm/1's workspace and struct_sizes run on the device too: the honest GEMM
  # needs the workspace it asks for in the device's memory and passes; one that
  # asks for none, or refuses args of another struct_size than its own, fails.
  run_teplug conformance "${OPAQUE}_honest.so" --interface gemm --check workspace
  expect_status 0
  expect_in "$OUT" "pass         contract workspace"
  run_teplug conformance "${OPAQUE}_honest.so" --interface gemm
  expect_status 0
  expect_in "$OUT" "pass         contract struct_sizes"
  expect_in "$OUT" "pass         contract threads"
  run_teplug conformance "${OPAQUE}_workspace.so" --interface gemm --check workspace
  expect_status 1
  expect_in "$OUT" "FAIL         contract workspace"
  expect_in "$OUT" "needs 256 bytes of workspace on opencl:0"
  expect_in "$OUT" "--check workspace --seed 1 --device opencl:0"
  expect_reproduced "contract workspace"
  run_teplug conformance "${OPAQUE}_struct_size.so" --interface gemm
  expect_status 1
  expect_in "$OUT" "pass         a_dtypes=fp32"
  expect_in "$OUT" "pass         contract workspace"
  expect_in "$OUT" "FAIL         contract struct_sizes"
  expect_in "$OUT" "struct_size is not sizeof(TeplugGemmArgs)"
  expect_reproduced "contract struct_sizes"
  # A bad --device is a usage error naming it.
  run_teplug conformance "${OPAQUE}_honest.so" --device warp:0
  expect_status 2
  expect_in "$ERR" 'bad value "warp:0" for --device'
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_norm_numbers.so"
  expect_status 1
  expect_in "$OUT" "FAIL         norm_types=rmsnorm"
  expect_in "$OUT" "pass         contract refcount"
  expect_in "$OUT" "--interface norm --case 'norm_type=rmsnorm,input_dtype=fp32,"
  expect_reproduced "norm_types=rmsnorm"
  # An RMSNorm writing MXFP8 y by the OCP rule while declaring TransformerEngine's:
  # its fp32 cases pass, the TE case fails on y's block scales.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_norm_mx_rule.so"
  expect_status 1
  expect_in "$OUT" "pass         output_dtypes=fp32"
  expect_in "$OUT" "FAIL         features=mx_te_scale"
  expect_in "$OUT" "y's MX block scale"
  expect_in "$OUT" ",mx_scale_rule=transformer_engine'"
  expect_reproduced "features=mx_te_scale"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_norm_mx_rule.so" \
    --interface norm --seed 5 \
    --case 'norm_type=rmsnorm,input_dtype=fp32,weight_dtype=fp32,output_dtype=fp8_e4m3,scaling=mxfp8_1d32,zero_centered_gamma=0,backward=0,rows=17,hidden=64'
  expect_status 0
  expect_in "$OUT" "pass         scaling_modes=mxfp8_1d32"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_numbers.so"
  expect_status 1
  expect_in "$OUT" "FAIL         layouts=bshd_bshd_bshd"
  expect_in "$OUT" "--interface attention --case 'qkv_dtype=fp32,layout=bshd_bshd_bshd,mask=none,"
  expect_reproduced "mask_types=none"
  # Every attention claim of the reference is checked (packed and THD
  # layouts, padding masks, biases, fp8, dropout, backward, ...), and an
  # honest small attention passes where each liar fails on what it lies about.
  run_teplug conformance "$REFERENCE_SO" --interface attention --quick
  expect_status 0
  expect_in "$OUT" "pass         features=backward"
  expect_in "$OUT" "pass         qkv_dtypes=fp8_e5m2"
  grep "^  not checked" "$OUT" && fail "$LAST: attention claims not checked (above)"
  expect_in "$OUT" ", 0 not checked,"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_honest.so" --quick
  expect_status 0
  expect_in "$OUT" "pass         mask_types=padding"
  expect_in "$OUT" "pass         features=backward"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_padding.so" --quick
  expect_status 1
  expect_in "$OUT" "pass         mask_types=none"
  expect_in "$OUT" "FAIL         mask_types=padding"
  expect_in "$OUT" "where the reference has -inf (a padding row"
  expect_in "$OUT" "--interface attention --case 'qkv_dtype=fp32,layout=bshd_bshd_bshd,mask=padding,"
  expect_reproduced "mask_types=padding"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_backward.so" --quick
  expect_status 1
  expect_in "$OUT" "FAIL         features=backward"
  expect_in "$OUT" "> tolerance 0.0001 in dq"
  expect_reproduced "features=backward"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_nondeterministic.so" --quick
  expect_status 1
  expect_in "$OUT" "FAIL         features=deterministic"
  expect_in "$OUT" "deterministic=1 but two backward runs wrote different dq"
  expect_reproduced "features=deterministic"
  # Declared limits: cases stay inside them, each is probed at its edge and
  # just outside it (refused). A plugin whose limits exclude the default
  # sizes passes; one whose kernel breaks inside its declared head dims fails
  # at the edge, with the case to re-run.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_head_dim_limits.so" --quick
  expect_status 0
  expect_in "$OUT" "pass         head_dim_max=128 (head_dim, head_dim_v)"
  expect_in "$OUT" "pass         head_dim_multiple=16 (head_dim, head_dim_v)"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_head_dim_limits.so" \
    --interface attention --case 'qkv_dtype=fp32,head_dim=144,head_dim_v=144'
  expect_status 0
  expect_in "$OUT" "pass         head_dim_max=128 (head_dim, head_dim_v)"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_attention_above_64.so" --quick
  expect_status 1
  expect_in "$OUT" "FAIL         head_dim_max=128 (head_dim, head_dim_v)"
  expect_in "$OUT" "pass         mask_types=padding"
  expect_in "$OUT" "head_dim=128,head_dim_v=128' --seed"
  expect_reproduced "qkv_dtypes=fp32"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_norm_hidden_multiple.so"
  expect_status 0
  expect_in "$OUT" "pass         hidden_multiple=48 (hidden)"
  expect_in "$OUT" "pass         norm_types=rmsnorm"
  # An implementation that serves what its limits say it does not fails the
  # refusal, and the case re-runs the refusal.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_max_dim.so" --quick
  expect_status 1
  expect_in "$OUT" "pass         a_dtypes=fp32"
  expect_in "$OUT" "FAIL         max_dim=48 (m)"
  expect_in "$OUT" "m=49,n=24,k=48: gemm succeeded; what the descriptor does not declare must be answered unsupported"
  expect_reproduced "max_dim=48 (m)"
  # A collective on a device: every rank's buffers live there (opaque
  # handles that crash when read as host pointers), and a liar fails there
  # with a command carrying --device.
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_collective_opaque_device_honest.so"
  expect_status 0
  expect_in "$OUT" "collective conformance_collective_opaque_device_honest/all_ranks on opencl:0"
  expect_in "$OUT" "pass         ops=all_reduce"
  expect_in "$OUT" "pass         contract threads"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_collective_opaque_device_ignores_rank.so"
  expect_status 1
  expect_in "$OUT" "FAIL         ops=all_reduce"
  expect_in "$OUT" "--interface collective --case 'op=all_reduce,dtype=fp32,"
  expect_in "$OUT" " --device opencl:0"
  expect_reproduced "ops=all_reduce"
  run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_norm_refcount.so"
  expect_status 1
  expect_in "$OUT" "pass         norm_types=rmsnorm"
  expect_in "$OUT" "FAIL         contract refcount"
  expect_in "$OUT" "--interface norm --check refcount --seed"
  expect_reproduced "contract refcount"
  local lie check
  for lie in refcount:refcount reason:supports_reason threads:threads; do
    check=${lie#*:}
    run_teplug conformance "$CONFORMANCE_PLUGINS/libteplug_conformance_${lie%%:*}.so"
    expect_status 1
    expect_in "$OUT" "FAIL         contract $check"
    expect_in "$OUT" "--check $check --seed"
    expect_reproduced "contract $check"
  done

  # The plugin is probed before it is loaded in-process: a plugin that
  # aborts while loading is refused, and conformance says so.
  run_teplug conformance "$CRASHING"
  expect_status 1
  expect_in "$ERR" "refused"
  run_teplug conformance "$HOSTILE"
  expect_status 1
  expect_in "$ERR" "ABI mismatch"

  # Usage errors name what was wrong.
  run_teplug conformance "$REFERENCE_SO" --interface gemm --case 'a_dtype=bf16,mm=3'
  expect_status 2
  expect_in "$ERR" 'unknown key "mm"'
  run_teplug conformance "$REFERENCE_SO" --case 'a_dtype=bf16'
  expect_status 2
  expect_in "$ERR" "add --interface (gemm, quantizer, norm, attention, collective or device)"
  run_teplug conformance "$REFERENCE_SO" --interface gemm --check refcnt
  expect_status 2
  expect_in "$ERR" 'unknown gemm check "refcnt"'
  run_teplug conformance
  expect_status 2
  run_teplug conformance --help
  expect_status 0
  expect_in "$OUT" "host memory: IGemm/1 (contract and numerics"
  expect_in "$OUT" "[--device SPEC] [--case CASE | --check NAME] [--seed N]"
  expect_in "$OUT" "On a device other than the CPU each IGemm/1, IQuantizer/1, INorm/1,"
  expect_in "$OUT" "accumulate; per_tensor, mxfp8_1d32, block_1d128 and block_2d128 scaling),"
  expect_in "$OUT" "IQuantizer/1 (numerics, bit-exact against the reference"
  expect_in "$OUT" "INorm/1 (numerics"
  expect_in "$OUT" "IAttention/1 (numerics: fp32, fp16, bf16, fp8_e4m3, fp8_e5m2"
  expect_in "$OUT" "different head dims), ICollective/1 (every declared op, dtype and reduction"
  expect_in "$OUT" "on 2 and 3 ranks as threads meeting through an in-process key-value store,"
  expect_in "$OUT" "is reported \"not checked\", never as passing,"
  expect_in "$OUT" "when a declared capability could not be checked"
  expect_in "$OUT" "gemm fp8 D            fp8_e4m3 0.125, fp8_e5m2 0.25"
  expect_in "$OUT" "holds quantize to the reference bit for bit"
}

case "${1:-}" in
  list) test_list ;;
  conformance) test_conformance ;;
  explain) test_explain ;;
  validate) test_validate ;;
  run) test_run ;;
  help) test_help ;;
  *) echo "usage: cli_test.sh list|explain|validate|run|help|conformance"; exit 2 ;;
esac
if [[ "$FAILURES" != 0 ]]; then
  echo "$FAILURES check(s) failed"
  exit 1
fi
echo "all checks passed"
