#!/usr/bin/env bash
# The test command: installs missing system packages, runs every Bazel test, then
# builds and runs the consumer workspace (tests/consumer/run.sh).
#
#   tools/test.sh                  # everything
#   tools/test.sh --config=asan    # extra arguments go to `bazel test`
#
# With CI=true it adds --config=ci. Results for .ci/run's summary are written to
# $TEPLUG_TEST_RESULTS (default: .test-results/ in the clone): bazel_events.json
# (Bazel's build events) and consumer.rc (the consumer test's exit status).
# Exits non-zero when either part failed.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

tools/setup.sh || exit

results="${TEPLUG_TEST_RESULTS:-$root/.test-results}"
mkdir -p "$results"
rm -f "$results/bazel_events.json" "$results/consumer.rc"

flags=()
if [[ "${CI:-}" == "true" ]]; then
  flags+=(--config=ci)
fi

echo "test: bazel test ${flags[*]} $* //..."
bazel test "${flags[@]}" --build_event_json_file="$results/bazel_events.json" "$@" //...
bazel_status=$?

tests/consumer/run.sh
consumer_status=$?
echo "$consumer_status" > "$results/consumer.rc"

if ((bazel_status != 0 || consumer_status != 0)); then
  echo "test: FAILED (bazel test exit status $bazel_status, consumer exit status $consumer_status)" >&2
  exit 1
fi
echo "test: all passed"
