#!/usr/bin/env bash
# Installs the Debian 12 packages teplug's build and tests need, and only those that
# are missing. Idempotent: when everything is present it installs nothing and never
# touches the network. `apt-get update` runs only when a package cannot be installed
# from the package lists already on the machine. The CUDA toolkit is optional and not
# installed here (without it, CUDA targets are skipped).
set -euo pipefail

PACKAGES=(
  bazel-bootstrap     # Bazel 4.2.3, the build tool
  g++                 # C++17 compiler used by Bazel's auto-configured toolchain
  python3             # tools/bazel/count_test_results.py (.ci/run's summary)
  pkg-config          # Abseil/protobuf/MPI flags for the generated repositories
  protobuf-compiler   # protoc for proto_library
  libprotobuf-dev     # @com_google_protobuf
  libabsl-dev         # @com_google_absl
  libgtest-dev        # @com_google_googletest
  libbenchmark-dev    # @com_github_google_benchmark
  libgloo-dev         # @teplug_system//:gloo
  libopenmpi-dev      # @teplug_system//:mpi
  openmpi-bin         # mpirun for multi-process collective tests
  redis-server        # a Redis server for the redis: rendezvous tests
  pocl-opencl-icd     # an OpenCL CPU device
  ocl-icd-opencl-dev  # @teplug_system//:opencl
  libclblast-dev      # @teplug_system//:clblast (the opencl provider's GEMM)
  libopenblas-dev     # @teplug_system//:openblas
  libdnnl-dev         # @teplug_system//:dnnl (oneDNN, the cpu provider's GEMM)
  clang-15            # tools/fuzz.sh: the compiler of the libFuzzer builds (--config=fuzz)
  libfuzzer-15-dev    # tools/fuzz.sh: libFuzzer for clang-15 (-fsanitize=fuzzer)
  cmake               # tests/kit: builds plugins and a host against the installed kit
  make                # tests/kit: the build tool of CMake's default generator
  xz-utils            # tools/gpu_check_test.sh: the GPU check's bundle is a .tar.xz
)

# After the packages (python3 among them): the pinned cuDNN frontend headers,
# which are not a Debian package (tools/fetch_cudnn_frontend.sh; offline once fetched).
fetch_cudnn_frontend() { "$(dirname "${BASH_SOURCE[0]}")/fetch_cudnn_frontend.sh"; }

missing=()
for package in "${PACKAGES[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" != "install ok installed" ]]; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#PACKAGES[@]} required packages are installed; nothing to do"
  fetch_cudnn_frontend
  exit 0
fi

if [[ "$(id -u)" == 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "setup: missing packages (${missing[*]}) and not root, no sudo; install them as root" >&2
  exit 1
fi
apt_get=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -q)

# Whether every missing package has an install candidate in the local package lists.
lists_know_all_missing() {
  local package
  for package in "${missing[@]}"; do
    local candidate
    candidate="$(apt-cache policy "$package" 2>/dev/null | awk '/Candidate:/ {print $2}')"
    if [[ -z "$candidate" || "$candidate" == "(none)" ]]; then
      return 1
    fi
  done
}

echo "setup: installing ${#missing[@]} missing package(s): ${missing[*]}"
if ! lists_know_all_missing; then
  echo "setup: the local package lists lack some of them; running apt-get update"
  "${apt_get[@]}" update
  "${apt_get[@]}" install "${missing[@]}"
elif ! "${apt_get[@]}" install "${missing[@]}"; then
  # Stale lists point at versions the archive no longer has: refresh once and retry.
  echo "setup: install failed with the cached package lists; running apt-get update and retrying"
  "${apt_get[@]}" update
  "${apt_get[@]}" install "${missing[@]}"
fi
fetch_cudnn_frontend
echo "setup: done"
