#!/usr/bin/env bash
# The main job, from a fresh clone: installs missing system packages
# (tools/setup.sh), builds the teplug CLI, and runs `teplug run` — a small
# transformer block forward and backward through the kernel, every op checked
# against the reference provider and the tool's own naive oracles.
#
#   tools/run.sh                           # defaults, a few seconds once built
#   tools/run.sh --layers 4 --ranks 4      # arguments go to `teplug run`
#   tools/run.sh --help                    # what it does, flags, tolerances
#
# Works from any directory; relative paths in the arguments (--config FILE)
# are read from the directory you called it in. Exits with teplug run's
# status: 0 every op within tolerance, 1 an op failed or exceeded it, 2 usage.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

echo "run.sh: checking system packages (tools/setup.sh)" >&2
"$root/tools/setup.sh" >&2 || exit

echo "run.sh: building //tools/teplug with Bazel (the first build compiles the kernel and the reference provider)" >&2
log="$(mktemp "${TMPDIR:-/tmp}/teplug-build.XXXXXX")"
trap 'rm -f "$log"' EXIT
start=$SECONDS
if ! (cd "$root" && bazel build --noshow_progress //tools/teplug) >"$log" 2>&1; then
  cat "$log" >&2
  echo "run.sh: the build failed (output above)" >&2
  exit 1
fi
bin="$(cd "$root" && bazel info bazel-bin 2>/dev/null)/tools/teplug/teplug"
if [[ ! -x "$bin" ]]; then
  echo "run.sh: the build succeeded but $bin is missing" >&2
  exit 1
fi
echo "run.sh: built in $((SECONDS - start)) s; running: teplug run $*" >&2
echo >&2
exec "$bin" run "$@"
