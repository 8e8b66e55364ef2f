#!/bin/bash
# tools/gpu_bundle.sh: builds, on the development machine, what
# tools/gpu_check.sh runs on a GPU machine, for one arch, and collects it in
# one directory, so that a GPU machine without bazel, the Debian libraries
# or a network runs `tools/gpu_check.sh --prebuilt DIR`:
#   DIR/bin/<package>/<name>  teplug, libteplug_native.so, the benchmarks and
#                             every cc_test of //native/..., built with -c opt
#                             --define=teplug_cuda_archs=NN (as gpu_check
#                             builds) and stripped;
#   DIR/lib/<soname>          every shared library they link (ldd) but those
#                             the GPU machine has of its own (glibc's,
#                             libstdc++ and libgcc_s, the NVIDIA driver's, the
#                             CUDA toolkit's), Bazel's own libraries of the
#                             tests among them (tests link dynamically);
#   DIR/manifest.txt          the arch, the commit, each binary
#                             ("binary: bin/..."), each test ("test: bin/...");
#   DIR.tar.xz                all of DIR, what travels to the GPU machine.
# cuDNN and NCCL stay out too (native loads them with dlopen, the smoke
# test links them): the GPU machine must have them, and gpu_check
# --prebuilt finds them there. Its glibc and libstdc++ must be at least as
# new as this machine's. It prints the sizes and the
# largest files, and exits 1 when the archive and the working tree do not
# fit in the 64 MiB a device machine takes; 2 on a usage or environment
# error. Put DIR under .gpu_bundle/ in the repository (e.g.
# .gpu_bundle/sm90), which .gitignore ignores: a device machine carries only
# ignored paths that are named to it.
#
# Usage: tools/gpu_bundle.sh --arch NN --out DIR [--dry-run]
#   --arch NN    the GPU's compute capability, major*10+minor (90: H100, H200)
#   --out DIR    where the bundle goes (its bin/, lib/, manifest.txt and DIR.tar.xz are replaced)
#   --dry-run    print the build and query commands instead of running them
#
# Sourced with GPU_BUNDLE_SOURCE_ONLY=1, it only defines its functions (the
# test, tools/gpu_check_test.sh, checks them). LDD and STRIP name the tools
# it uses (default ldd and strip).
set -uo pipefail

GPU_CHECK_SOURCE_ONLY=1 source "$(dirname "${BASH_SOURCE[0]}")/gpu_check.sh"

BUNDLE_DIR=""
LDD="${LDD:-ldd}"
STRIP="${STRIP:-strip}"
# What a device machine carries: the working tree and carried paths together.
CARRY_LIMIT_BYTES=$((64 * 1024 * 1024))

bundle_usage() {
  sed -n '/^# Usage:/,/^#$/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

# bundle_parse_args ARGS...: sets ARCH, BUNDLE_DIR, DRY_RUN; returns 2 on a
# usage error.
bundle_parse_args() {
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --arch)
        if [[ $# -lt 2 || ! "$2" =~ ^[0-9]{2,3}$ ]]; then
          echo "gpu_bundle: --arch needs a compute capability like 90 (major*10+minor), got '${2:-}'" >&2
          return 2
        fi
        ARCH="$2"
        shift 2
        ;;
      --out)
        if [[ $# -lt 2 || -z "$2" ]]; then
          echo "gpu_bundle: --out needs a directory" >&2
          return 2
        fi
        BUNDLE_DIR="$2"
        shift 2
        ;;
      --dry-run) DRY_RUN=1; shift ;;
      -h | --help) bundle_usage; exit 0 ;;
      *)
        echo "gpu_bundle: unknown argument '$1' (see --help)" >&2
        return 2
        ;;
    esac
  done
  if [[ -z "$ARCH" || -z "$BUNDLE_DIR" ]]; then
    echo "gpu_bundle: --arch and --out are needed (no GPU here to ask for the arch)" >&2
    return 2
  fi
}

# label_path LABEL: where bazel-bin holds LABEL's output (//a/b:c -> a/b/c).
label_path() {
  local label="${1#//}"
  echo "${label%%:*}/${label#*:}"
}

# system_library SONAME PATH CUDA_ROOT...: whether the GPU machine has this
# library of its own: glibc's, the C++ runtime, the NVIDIA driver's, or
# anything under a CUDA_ROOT (the toolkit, with cuDNN and NCCL when they
# live there).
system_library() {
  local soname="$1" path="$2" root
  shift 2
  case "$soname" in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libmvec.so.* | libpthread.so.* | libdl.so.* | \
      librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | libnsl.so.* | libBrokenLocale.so.*) return 0 ;;
    libstdc++.so.* | libgcc_s.so.*) return 0 ;;
    libcuda.so.* | libnvidia-*.so.* | libnvcuvid.so.*) return 0 ;;
    libcudart.so.* | libcublas.so.* | libcublasLt.so.* | libnvrtc*.so.* | libnvJitLink.so.* | libcudnn*.so.* | \
      libnccl.so.*) return 0 ;;
  esac
  for root in "$@"; do
    [[ -n "$root" && "$path" == "$root"/* ]] && return 0
  done
  return 1
}

# bundled_libraries CUDA_ROOT...: reads ldd's output on stdin and prints
# "SONAME<TAB>PATH" for each library the bundle must carry; a library ldd
# did not find is named on stderr and makes it return 1.
bundled_libraries() {
  local line soname path missing=0
  while IFS= read -r line; do
    if [[ "$line" =~ ^[[:space:]]*([^[:space:]]+)\ =\>\ not\ found ]]; then
      echo "gpu_bundle: ${BASH_REMATCH[1]} not found (ldd)" >&2
      missing=1
    elif [[ "$line" =~ ^[[:space:]]*([^[:space:]]+)\ =\>\ ([^[:space:]]+)\ \( ]]; then
      soname="${BASH_REMATCH[1]}"
      path="${BASH_REMATCH[2]}"
      system_library "$soname" "$path" "$@" || printf '%s\t%s\n' "$soname" "$path"
    fi
  done
  return "$missing"
}

# tree_bytes: the size of what a device machine is sent beside carried
# paths: the repository's tracked and untracked-but-not-ignored files.
tree_bytes() {
  git -C "$ROOT" ls-files -z -co --exclude-standard 2>/dev/null |
    (cd "$ROOT" && xargs -0 -r du -cb 2>/dev/null) | awk 'END { print $1 + 0 }'
}

# bundle_size_report DIR ARCHIVE [TREE_BYTES]: DIR's size and the largest
# files in it, and whether ARCHIVE (what travels) fits with the working
# tree in what a device machine takes; returns 1 when it does not.
bundle_size_report() {
  local bytes archive tree="${3:-0}"
  bytes="$(du -sb "$1" | cut -f1)"
  archive="$(stat -c %s "$2")"
  echo "== bundle: $1 holds $(find "$1" -type f | wc -l) files, $bytes bytes ($((bytes / 1048576)) MiB); $2: $archive bytes ($((archive / 1048576)) MiB)"
  echo "== to carry: the archive and the working tree's $tree bytes, $(((archive + tree) / 1048576)) MiB of the $((CARRY_LIMIT_BYTES / 1048576)) MiB a device machine takes"
  echo "== largest files:"
  find "$1" -type f -printf '%s %P\n' | sort -rn | head -n 12 |
    awk '{ printf "  %8.1f MiB  %s\n", $1 / 1048576, $2 }'
  if ((archive + tree > CARRY_LIMIT_BYTES)); then
    echo "gpu_bundle: $2 and the working tree are over the $((CARRY_LIMIT_BYTES / 1048576)) MiB a device machine takes" >&2
    return 1
  fi
}

bundle_main() {
  bundle_parse_args "$@" || exit 2
  local flags=(-c opt "--define=teplug_cuda_archs=$ARCH")
  if [[ "$DRY_RUN" == 1 ]]; then
    echo "+ $BAZEL build ${flags[*]} //native/... //tools/teplug"
    echo "+ $BAZEL query kind(cc_test, tests(//native/...))"
    echo "+ $BAZEL info ${flags[*]} bazel-bin"
    return 0
  fi
  if ! check_build_env 2> >(sed 's/^gpu_check:/gpu_bundle:/' >&2); then
    echo "gpu_bundle: install what is listed: the bundle is built where teplug builds" >&2
    exit 2
  fi
  cd "$ROOT" || exit 2
  mkdir -p "$BUNDLE_DIR" && BUNDLE_DIR="$(cd "$BUNDLE_DIR" && pwd)" || exit 2

  echo "== build (sm_$ARCH)"
  "$BAZEL" build "${flags[@]}" //native/... //tools/teplug || exit 1
  local bin tests
  bin="$("$BAZEL" info "${flags[@]}" bazel-bin)" || exit 1
  tests="$("$BAZEL" query 'kind(cc_test, tests(//native/...))' 2>/dev/null | sort)" || exit 1

  rm -rf "${BUNDLE_DIR:?}/bin" "${BUNDLE_DIR:?}/lib" "${BUNDLE_DIR:?}/manifest.txt" "${BUNDLE_DIR:?}.tar.xz"
  mkdir -p "$BUNDLE_DIR/bin" "$BUNDLE_DIR/lib"
  local -a entries=()
  local path label
  # nccl_gpu_test is one of the tests (gpu_check runs it again on its own).
  while IFS= read -r path; do entries+=("binary:$path"); done < <(required_binaries | grep -v '^native/collective/nccl_gpu_test$')
  while IFS= read -r label; do entries+=("test:$(label_path "$label")"); done <<<"$tests"

  local cuda_root entry kind missing=0
  cuda_root="$(readlink -f "${CUDA_PATH:-/usr/local/cuda}")"
  local -A libs=()
  local soname lib
  local commit
  if commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)"; then
    git -C "$ROOT" diff --quiet HEAD 2>/dev/null || commit+=" with uncommitted changes"
  else
    commit="unknown"
  fi
  printf 'arch: %s\ncommit: %s\nbuilt: %s on %s\n' "$ARCH" "$commit" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(uname -n)" \
    >"$BUNDLE_DIR/manifest.txt"
  for entry in "${entries[@]}"; do
    kind="${entry%%:*}"
    path="${entry#*:}"
    if [[ ! -e "$bin/$path" ]]; then
      echo "gpu_bundle: $bin/$path was not built (the build skipped it: no CUDA toolkit or cuDNN frontend headers?)" >&2
      missing=1
      continue
    fi
    mkdir -p "$BUNDLE_DIR/bin/$(dirname "$path")"
    cp -L "$bin/$path" "$BUNDLE_DIR/bin/$path" && chmod u+w "$BUNDLE_DIR/bin/$path"
    "$STRIP" --strip-unneeded "$BUNDLE_DIR/bin/$path" || missing=1
    echo "$kind: bin/$path" >>"$BUNDLE_DIR/manifest.txt"
    while IFS=$'\t' read -r soname lib; do
      [[ -n "$soname" ]] && libs[$soname]="$lib"
    done < <("$LDD" "$bin/$path" | bundled_libraries "$cuda_root" /usr/local/cuda "${CUDA_PATH:-}") || missing=1
  done
  for soname in "${!libs[@]}"; do
    cp -L "${libs[$soname]}" "$BUNDLE_DIR/lib/$soname" && chmod u+w "$BUNDLE_DIR/lib/$soname"
    "$STRIP" --strip-unneeded "$BUNDLE_DIR/lib/$soname" || missing=1
  done
  ((missing == 0)) || { echo "gpu_bundle: the bundle is incomplete (see above)" >&2; exit 1; }
  echo "== $(grep -c '^binary: ' "$BUNDLE_DIR/manifest.txt") binaries, $(grep -c '^test: ' "$BUNDLE_DIR/manifest.txt") tests, ${#libs[@]} libraries"
  # The binaries share most of their bytes (each GPU one holds the same
  # kernels' fat binary): xz makes the bundle about a sixth of its size.
  echo "== packing $BUNDLE_DIR.tar.xz"
  tar -C "$(dirname "$BUNDLE_DIR")" -cJf "$BUNDLE_DIR.tar.xz" "$(basename "$BUNDLE_DIR")" || exit 1
  bundle_size_report "$BUNDLE_DIR" "$BUNDLE_DIR.tar.xz" "$(tree_bytes)" || exit 1
  echo "== carry ${BUNDLE_DIR#"$ROOT"/}.tar.xz (inside the repository; .gitignore ignores .gpu_bundle/) and run: tools/gpu_check.sh --prebuilt ${BUNDLE_DIR#"$ROOT"/}.tar.xz"
}

if [[ "${GPU_BUNDLE_SOURCE_ONLY:-0}" != 1 ]]; then
  bundle_main "$@"
fi
