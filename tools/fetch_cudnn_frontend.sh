#!/usr/bin/env bash
# Fetches the cuDNN frontend headers (NVIDIA's header-only C++ graph API, which
# native/attention builds its fused-attention graphs with) into
# tools/deps/cudnn_frontend-<version>/include, where @cudnn_frontend
# (tools/bazel/cudnn_frontend_configure.bzl) finds them. Debian has no package for
# it; the PyPI wheel nvidia-cudnn-frontend carries the headers. The wheel is pinned
# by version, file name and sha256 and only downloaded (pip download --no-deps),
# never installed. Idempotent: with the headers unpacked it touches nothing and
# needs no network, so the build works offline afterwards.
set -euo pipefail

version="1.16.0"
wheel="nvidia_cudnn_frontend-${version}-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
sha256="5c4a8fc573d85a86e08b15d9bf37f729e2487298781867a492a59cde6ac295e2"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="$root/tools/deps/cudnn_frontend-$version"
if [[ -f "$target/include/cudnn_frontend.h" ]]; then
  echo "cudnn-frontend: $version headers present in ${target#"$root"/}; nothing to do"
  exit 0
fi

command -v python3 >/dev/null || { echo "cudnn-frontend: python3 is needed to fetch the headers" >&2; exit 1; }
download="$root/tools/deps/download"
mkdir -p "$download"
if [[ ! -f "$download/$wheel" ]]; then
  echo "cudnn-frontend: downloading $wheel"
  # The wheel's headers are the same for every Python; pinning the interpreter
  # and platform makes pip choose exactly this file on any machine.
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    --python-version 3.11 --platform manylinux_2_28_x86_64 \
    -d "$download" "nvidia-cudnn-frontend==$version"
fi
actual="$(sha256sum "$download/$wheel" | cut -d' ' -f1)"
if [[ "$actual" != "$sha256" ]]; then
  echo "cudnn-frontend: $wheel has sha256 $actual, expected $sha256; removed it" >&2
  rm -f "$download/$wheel"
  exit 1
fi

staging="$target.partial"
rm -rf "$staging"
mkdir -p "$staging"
python3 - "$download/$wheel" "$staging" <<'PY'
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    members = [n for n in z.namelist() if n.startswith("include/")]
    if not any(n == "include/cudnn_frontend.h" for n in members):
        sys.exit(f"cudnn-frontend: {wheel} has no include/cudnn_frontend.h")
    z.extractall(dest, members)
PY
rm -rf "$target"
mv "$staging" "$target"
echo "cudnn-frontend: $version headers unpacked into ${target#"$root"/}"
