#!/usr/bin/env bash
# A built plugin exports exactly one dynamic symbol: its entry point.
set -euo pipefail
status=0
for so in "$@"; do
  syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sort)
  if [ "$syms" != "teplug_plugin_entry" ]; then
    echo "FAIL: $so exports: $(echo $syms)"; status=1
  else
    echo "ok: $so exports only teplug_plugin_entry"
  fi
done
exit $status
