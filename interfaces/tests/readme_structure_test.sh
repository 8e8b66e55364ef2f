#!/usr/bin/env bash
# The plugin contract stays readable and its links stay true:
#  - README.md is under 500 lines (the field reference lives in the headers);
#  - every in-page link [..](#anchor) names a heading of README.md (GitHub's
#    anchor: lower case, punctuation other than - and _ dropped, spaces as -);
#  - every FILE given (the example plugins) is named in README.md, in
#    backquotes, by its path from the repository root.
# Usage: readme_structure_test.sh README.md FILE...
set -euo pipefail
readme="$1"; shift
status=0

lines=$(wc -l < "$readme")
if (( lines >= 500 )); then
  echo "FAIL: $readme has $lines lines; keep it under 500 (field docs belong in the headers)"
  status=1
else
  echo "ok: $readme has $lines lines"
fi

anchors="$(grep -E '^#{1,6} ' "$readme" | sed -E 's/^#+ //' | tr 'A-Z' 'a-z' |
  sed -E 's/[^a-z0-9 _-]//g; s/ /-/g')"
while IFS= read -r link; do
  [[ -z "$link" ]] && continue
  if grep -qxF -- "$link" <<< "$anchors"; then
    echo "ok: #$link is a heading"
  else
    echo "FAIL: $readme links to #$link, which is no heading (headings give: $(tr '\n' ' ' <<< "$anchors"))"
    status=1
  fi
done < <(grep -oE '\]\(#[^)]+\)' "$readme" | sed -E 's/^\]\(#//; s/\)$//' | sort -u)

for src in "$@"; do
  path="interfaces/${src#*interfaces/}"   # the path from the repository root
  if grep -qF -- "\`$path\`" "$readme"; then
    echo "ok: $readme points at $path"
  else
    echo "FAIL: $readme does not name \`$path\`; point readers at the example"
    status=1
  fi
done
exit $status
