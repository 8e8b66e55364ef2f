#!/usr/bin/env bash
# README.md embeds the example plugins verbatim (section 6): the first fenced
# code block after the heading that names a file, in backquotes, must be that
# file, byte for byte. Usage: readme_examples_test.sh README.md FILE...
set -euo pipefail
readme="$1"; shift
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
status=0
for src in "$@"; do
  block="$tmp/$(basename "$src").from_readme"
  awk -v name="\`$src\`" '
    state == 0 && /^#/ && index($0, name) { state = 1; next }
    state == 1 && /^```/ { state = 2; next }
    state == 2 && /^```/ { state = 3; exit }
    state == 2 { print }
    END { exit state == 3 ? 0 : 1 }' "$readme" > "$block" || {
    echo "FAIL: $readme has no heading naming \`$src\` followed by a closed code block"
    status=1
    continue
  }
  if diff -u --label "$src (README copy)" --label "$src" "$block" "$src"; then
    echo "ok: $readme embeds $src verbatim"
  else
    echo "FAIL: the copy of $src in $readme differs (diff above); paste the file into it"
    status=1
  fi
done
exit $status
