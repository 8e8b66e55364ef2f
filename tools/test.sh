#!/usr/bin/env bash
# The test command: installs missing system packages, runs every Bazel test, then
# builds and runs the consumer workspace (tests/consumer/run.sh).
#
#   tools/test.sh                          # every test, plain build
#   tools/test.sh --sanitizers             # then again under asan+ubsan in one build
#                                          # (whole tree) and tsan (core, interfaces,
#                                          # tests, tools)
#   tools/test.sh --fuzz SECONDS           # then each fuzz target for SECONDS (tools/fuzz.sh)
#   tools/test.sh -- --config=opt          # arguments after -- go to every `bazel test`
#
# CI (.ci/run) runs `tools/test.sh --sanitizers --fuzz 60`. With CI=true it adds
# --config=ci. Results for .ci/run's summary are written to $TEPLUG_TEST_RESULTS
# (default: .test-results/ in the clone): bazel_events.json and
# bazel_events.<config>.json (Bazel's build events of each run), consumer.rc and
# fuzz.<target>.rc (exit statuses). Every part runs even when an earlier one failed;
# the exit status is non-zero when any part failed.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

sanitizers=false
fuzz_seconds=""
bazel_args=()
while (($# > 0)); do
  case "$1" in
    --sanitizers) sanitizers=true ;;
    --fuzz)
      if [[ $# -lt 2 || ! "$2" =~ ^[0-9]+$ ]]; then
        echo "test: --fuzz needs a number of seconds" >&2
        exit 2
      fi
      fuzz_seconds="$2"
      shift
      ;;
    --) shift; bazel_args+=("$@"); break ;;
    --config=*|--test_*|-c|--compilation_mode=*) bazel_args+=("$1") ;;
    *)
      echo "test: unknown argument '$1' (see the header of tools/test.sh)" >&2
      exit 2
      ;;
  esac
  shift
done

tools/setup.sh || exit

results="${TEPLUG_TEST_RESULTS:-$root/.test-results}"
mkdir -p "$results"
rm -f "$results"/bazel_events*.json "$results"/*.rc

flags=()
if [[ "${CI:-}" == "true" ]]; then
  flags+=(--config=ci)
fi

failed_parts=()
# bazel_run NAME [bazel test arguments...]: one `bazel test`, its events in
# bazel_events[.NAME].json.
bazel_run() {
  local name="$1"
  shift
  local events="$results/bazel_events${name:+.$name}.json"
  echo "test: bazel test ${flags[*]} ${bazel_args[*]} $*"
  local start=$SECONDS
  bazel test "${flags[@]}" --build_event_json_file="$events" "${bazel_args[@]}" "$@" ||
    failed_parts+=("bazel test ${name:-plain}")
  echo "test: bazel test ${name:-plain} took $((SECONDS - start)) s"
}

bazel_run "" //...

tests/consumer/run.sh
consumer_status=$?
echo "$consumer_status" > "$results/consumer.rc"
((consumer_status == 0)) || failed_parts+=("consumer")

if $sanitizers; then
  # One build with both: the same reports as two, for one build and one test pass.
  bazel_run asan_ubsan --config=asan_ubsan //...
  # Debian's Abseil, protobuf and OpenMPI are not built for TSan; the trees below
  # are the ones whose threads teplug owns (see .bazelrc's tsan section).
  bazel_run tsan --config=tsan //core/... //interfaces/... //tests/... //tools/...
fi

if [[ -n "$fuzz_seconds" ]]; then
  for target in $(tools/fuzz.sh --list); do
    tools/fuzz.sh "$target" "$fuzz_seconds"
    status=$?
    echo "$status" > "$results/fuzz.$target.rc"
    ((status == 0)) || failed_parts+=("fuzz $target")
  done
fi

if ((${#failed_parts[@]} > 0)); then
  echo "test: FAILED: ${failed_parts[*]}" >&2
  exit 1
fi
echo "test: all passed"
