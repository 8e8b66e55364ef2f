#!/usr/bin/env bash
# Builds and runs tests/consumer, a separate Bazel workspace that depends on this
# clone of teplug through local_repository + teplug_dependencies(), and checks what
# the binary prints. Exits non-zero, saying what differed, on any mismatch.
#
# Its Bazel server uses its own --output_user_root under /tmp, so it never waits on
# (or disturbs) the lock of the main workspace.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
output_root="${TEPLUG_CONSUMER_OUTPUT_ROOT:-/tmp/teplug-consumer-$(id -u)}"
cd "$root/tests/consumer"

echo "consumer: building //:consumer_main against teplug at $root"
# --symlink_prefix=/ keeps bazel-* symlinks out of the source tree.
actual="$(bazel --output_user_root="$output_root" --max_idle_secs=120 \
  run --symlink_prefix=/ --override_repository=teplug="$root" //:consumer_main)"

expected="cpp: teplug 0.1.0
c: teplug 0.1.0
kernel: providers reference; gemm correct
googletest: consumer's own"
if [[ "$actual" != "$expected" ]]; then
  echo "consumer: FAILED: //:consumer_main printed:" >&2
  echo "$actual" >&2
  echo "consumer: expected:" >&2
  echo "$expected" >&2
  exit 1
fi
echo "consumer: PASSED (teplug linked from another workspace, a GEMM served by the kernel; its own googletest kept)"
