#!/usr/bin/env bash
# libteplug_reference.so exports exactly one dynamic symbol: its entry point
# (everything else, including the statically linked adapter, stays hidden).
set -euo pipefail
syms=$(nm -D --defined-only "$1" | awk '{print $3}' | sort)
if [ "$syms" != "teplug_plugin_entry" ]; then
  echo "FAIL: $1 exports: $(echo $syms)"
  exit 1
fi
echo "ok: $1 exports only teplug_plugin_entry"
