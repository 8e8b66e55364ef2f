#!/bin/bash
# Instructions per call of a kernel call path, counted by callgrind (repeatable,
# unlike times on a shared machine): the direct call through the plugin's own
# table, the call through Kernel::Select's implementation, the call through the
# dispatching object with its decision cached, and the call through a
# dispatching object prepared for the op (Kernel::Prepare). Prints each per
# call and the instructions each adds over direct.
#
#   tools/callgrind_dispatch.sh [CALLS]     (default 20000; builds with -c opt)
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-20000}
bazel build -c opt //tests/bench:dispatch_instructions //tests/bench:bench_noop >/dev/null 2>&1 ||
  bazel build -c opt //tests/bench:dispatch_instructions //tests/bench:bench_noop
bin=bazel-bin/tests/bench/dispatch_instructions
plugin=$(ls bazel-bin/tests/bench/libteplug_bench_noop.so)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declare -A per_call
for path in DirectCalls SelectedCalls DispatchedCalls PreparedCalls; do
  valgrind --tool=callgrind --callgrind-out-file="$tmp/$path.out" \
    --toggle-collect="teplug::bench::$path(*)" "$bin" "$plugin" "$calls" >/dev/null 2>"$tmp/$path.log" ||
    { cat "$tmp/$path.log"; exit 1; }
  total=$(callgrind_annotate "$tmp/$path.out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  per_call[$path]=$((total / calls))
  echo "$path: ${per_call[$path]} instructions per call ($total for $calls calls)"
done
echo "dispatch - direct: $((per_call[DispatchedCalls] - per_call[DirectCalls])) instructions per call"
echo "prepared - direct: $((per_call[PreparedCalls] - per_call[DirectCalls])) instructions per call"
echo "selected - direct: $((per_call[SelectedCalls] - per_call[DirectCalls])) instructions per call"
