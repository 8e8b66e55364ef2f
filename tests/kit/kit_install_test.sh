#!/usr/bin/env bash
# Installs the teplug kit into a temporary PREFIX, moves the tree elsewhere (the kit
# must be relocatable; a relative PREFIX is taken from where `bazel run` started),
# and then uses only the moved tree, as a vendor without our source would:
#   - libteplug.so exports exactly the functions teplug_kernel.h declares, and every
#     installed binary's dependencies resolve (ldd);
#   - plain CMake (find_package(teplug)) builds the installed examples: the C and C++
#     plugins through teplug_add_plugin and host_gemm, a C host on teplug_kernel.h;
#     a request for a newer or (while the major version is 0) another minor version
#     is refused; teplug::cli and TEPLUG_PLUGIN_DIR point into the moved tree;
#   - pkg-config + gcc/g++ build the same plugins and host_gemm as a C++ host;
#   - host_gemm loads each plugin (and the installed reference plugin) into a kernel,
#     dispatches a GEMM with a bias and checks every element; the decision record
#     must name the plugin's implementation;
#   - the installed `teplug list` loads the built plugins and names them.
# When libteplug.so was built with a sanitizer (--config=asan, ubsan, tsan), the
# programs built here get the same -fsanitize flag, which the sanitizer runtimes need.
#
#   kit_install_test.sh INSTALL    # INSTALL: //tools/package:install
set -euo pipefail
umask 022  # the plugin loader refuses group- or other-writable plugin files

install_kit="$1"
# Absolute: one install below runs from another directory.
[[ "$install_kit" == /* ]] || install_kit="$PWD/$install_kit"
tmp="${TEST_TMPDIR:?run this under bazel test}"

fail() {
  echo "kit_install_test: FAILED: $*" >&2
  exit 1
}
step() { echo "kit_install_test: $*"; }
# must_contain TEXT WANTED WHAT: fails, showing TEXT, unless it contains WANTED.
must_contain() {
  if [[ "$1" != *"$2"* ]]; then
    printf '%s\n' "$1" >&2
    fail "$3: the output above does not contain '$2'"
  fi
}

for tool in cmake make gcc g++ pkg-config nm readelf ldd; do
  command -v "$tool" > /dev/null || fail "$tool is not installed (tools/setup.sh installs it)"
done

step "installing into a staging prefix, then moving the tree"
staging="$tmp/staging/prefix"
"$install_kit" "$staging"
mkdir -p "$tmp/moved"
mv "$staging" "$tmp/moved/kit"
prefix="$tmp/moved/kit"
if grep -rl "$tmp/staging" "$prefix"; then
  fail "the files above name the prefix they were installed into: the tree is not relocatable"
fi
# `bazel run` passes the directory it was started from: a relative PREFIX is below it.
mkdir -p "$tmp/started_here"
(cd / && BUILD_WORKING_DIRECTORY="$tmp/started_here" "$install_kit" relative/prefix > /dev/null) ||
  fail "install with the relative PREFIX relative/prefix failed"
[[ -f "$tmp/started_here/relative/prefix/lib/pkgconfig/teplug.pc" ]] ||
  fail "install with the relative PREFIX relative/prefix did not install below BUILD_WORKING_DIRECTORY"

for file in include/teplug/teplug.h include/teplug/teplug_kernel.h include/teplug/sdk/plugin.hpp \
  lib/libteplug.so lib/pkgconfig/teplug.pc lib/cmake/teplug/teplugConfig.cmake \
  lib/cmake/teplug/teplugConfigVersion.cmake bin/teplug lib/teplug/libteplug_reference.so \
  share/teplug/plugin_exports.lds share/teplug/examples/CMakeLists.txt; do
  [[ -f "$prefix/$file" ]] || fail "the kit lacks $file"
done

step "checking what libteplug.so exports and what the binaries need"
library="$(readlink -f "$prefix/lib/libteplug.so")"
# --extern-only: the global symbols a host can bind to (a thread-local the
# library keeps private still has a local entry in .dynsym for its TLS
# relocation).
exported="$(nm -D --defined-only --extern-only "$library" | awk '{print $3}' | sort)"
declared="$(grep -o '\bteplug_[a-z_]*(' "$prefix/include/teplug/teplug_kernel.h" | tr -d '(' | sort -u)"
[[ -n "$declared" ]] || fail "found no function declarations in teplug_kernel.h"
if [[ "$exported" != "$declared" ]]; then
  diff <(echo "$declared") <(echo "$exported") >&2 || true
  fail "libteplug.so exports (>) differ from the functions teplug_kernel.h declares (<)"
fi
for binary in "$library" "$prefix/bin/teplug" "$prefix/lib/teplug/libteplug_reference.so"; do
  if ldd "$binary" | grep 'not found'; then
    fail "$binary has unresolved dependencies (above)"
  fi
done

sanitize=""
needed="$(readelf --dynamic --wide "$library")"
[[ "$needed" == *"[libasan.so"* ]] && sanitize+=" -fsanitize=address"
[[ "$needed" == *"[libubsan.so"* ]] && sanitize+=" -fsanitize=undefined"
[[ "$needed" == *"[libtsan.so"* ]] && sanitize+=" -fsanitize=thread"
export CFLAGS="$sanitize" CXXFLAGS="$sanitize" LDFLAGS="$sanitize"
[[ -z "$sanitize" ]] || step "libteplug.so is sanitized: building with$sanitize"

# check_plugin PLUGIN NAME: PLUGIN exports only the entry, and host_gemm ($host) gets
# the right GEMM from it, served by the implementation NAME.
check_plugin() {
  local plugin="$1" name="$2" exports output
  exports="$(nm -D --defined-only --extern-only "$plugin" | awk '{print $3}')"
  [[ "$exports" == "teplug_plugin_entry" ]] ||
    fail "$plugin exports '$exports', want only teplug_plugin_entry"
  output="$("$host" "$plugin")" || fail "$host $plugin exited with $?"
  must_contain "$output" "gemm: 22.5 27 49.5 63" "$host $plugin"
  must_contain "$output" "$name  chosen" "$host $plugin (decision record)"
}

step "building the installed examples with CMake"
cmake_build="$tmp/cmake-build"
cmake -S "$prefix/share/teplug/examples" -B "$cmake_build" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/cmake.log" 2>&1 ||
  { cat "$tmp/cmake.log" >&2; fail "cmake could not configure the installed examples"; }
cmake --build "$cmake_build" > "$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log" >&2; fail "the installed examples do not build with CMake"; }
host="$cmake_build/host_gemm"
check_plugin "$cmake_build/libteplug_minimal_c.so" "minimal_c/naive-fp32"
check_plugin "$cmake_build/libteplug_minimal_cpp.so" "minimal_cpp/naive-fp32"
output="$("$host" "$prefix/lib/teplug/libteplug_reference.so")" || fail "host_gemm on the installed reference plugin exited with $?"
must_contain "$output" "gemm: 22.5 27 49.5 63" "host_gemm on the installed reference plugin"
must_contain "$output" "reference/gemm" "host_gemm on the installed reference plugin (decision record)"

step "checking which versions find_package(teplug VERSION) accepts"
version="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion teplug)"
IFS=. read -r major minor patch <<<"$version"
# find_package_status VERSION: whether a CMake project asking for teplug VERSION
# configures (0) or not (1, with CMake's reason in $tmp/find_VERSION.log).
find_package_status() {
  local project="$tmp/find_$1"
  mkdir -p "$project"
  cat > "$project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.17)
project(wants LANGUAGES NONE)
find_package(teplug $1 REQUIRED)
get_target_property(cli teplug::cli IMPORTED_LOCATION)
message(STATUS "found: \${teplug_VERSION} cli=\${cli} plugins=\${TEPLUG_PLUGIN_DIR}")
CMAKE
  cmake -S "$project" -B "$project/build" -DCMAKE_PREFIX_PATH="$prefix" > "$project.log" 2>&1
}
find_package_status "$major.$minor" || { cat "$tmp/find_$major.$minor.log" >&2; fail "find_package(teplug $major.$minor) failed against teplug $version"; }
# What the config file says, with paths as the moved tree has them.
must_contain "$(cat "$tmp/find_$major.$minor.log")" \
  "found: $version cli=$prefix/bin/teplug plugins=$prefix/lib/teplug" "find_package(teplug $major.$minor)"
# Refused: a newer major, minor or patch; while the major is 0, an older minor.
refused=("$((major + 1)).0" "$major.$((minor + 1))" "$major.$minor.$((patch + 1))")
if ((major == 0 && minor > 0)); then
  refused+=("$major.$((minor - 1))")
fi
for request in "${refused[@]}"; do
  if find_package_status "$request"; then
    fail "find_package(teplug $request) accepted teplug $version"
  fi
  must_contain "$(cat "$tmp/find_$request.log")" "version: $version" "find_package(teplug $request)"
done

step "building the same sources with pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cflags="$(pkg-config --cflags teplug)"
include_dir="$(sed -n 's/^-I\([^ ]*\) *$/\1/p' <<<"$cflags")"
[[ -n "$include_dir" && "$(realpath "$include_dir")" == "$(realpath "$prefix/include")" ]] ||
  fail "pkg-config --cflags teplug gave '$cflags', want -I naming $prefix/include"
examples="$prefix/share/teplug/examples"
version_script="$(pkg-config --variable=plugin_version_script teplug)"
plugin_flags=(-O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror
  "-Wl,--version-script=$version_script" "-Wl,--no-undefined")
pc_build="$tmp/pkg-config-build"
mkdir -p "$pc_build"
# shellcheck disable=SC2046,SC2086  # pkg-config's and the sanitizer's flags are word lists
{
  gcc $CFLAGS -std=c99 -pedantic "${plugin_flags[@]}" $(pkg-config --cflags teplug) \
    "$examples/c_plugin/minimal_plugin.c" -o "$pc_build/libteplug_minimal_c.so" $LDFLAGS &&
  g++ $CXXFLAGS -std=c++17 "${plugin_flags[@]}" $(pkg-config --cflags teplug) \
    "$examples/cpp_plugin/minimal_plugin.cc" -o "$pc_build/libteplug_minimal_cpp.so" $LDFLAGS &&
  # The C host compiled as C++: teplug_kernel.h must give C++ hosts C linkage.
  g++ $CXXFLAGS -std=c++17 -x c++ -Wall -Wextra -Werror "$examples/host/host_gemm.c" -x none \
    $(pkg-config --cflags --libs teplug) "-Wl,-rpath,$prefix/lib" -o "$pc_build/host_gemm" $LDFLAGS
} || fail "the installed examples do not build with pkg-config"
host="$pc_build/host_gemm"
check_plugin "$pc_build/libteplug_minimal_c.so" "minimal_c/naive-fp32"
check_plugin "$pc_build/libteplug_minimal_cpp.so" "minimal_cpp/naive-fp32"

step "listing the built plugins with the installed teplug"
output="$("$prefix/bin/teplug" list --no-discovery --plugin "$cmake_build/libteplug_minimal_cpp.so" \
  --plugin "$pc_build/libteplug_minimal_c.so")" || fail "teplug list exited with $?"
must_contain "$output" "minimal_cpp/naive-fp32" "teplug list"
must_contain "$output" "minimal_c/naive-fp32" "teplug list"
must_contain "$output" "refused plugins (0)" "teplug list"

step "conformance of the built plugins with the installed teplug"
for plugin in "$cmake_build/libteplug_minimal_cpp.so" "$pc_build/libteplug_minimal_c.so"; do
  output="$("$prefix/bin/teplug" conformance --quick "$plugin")" ||
    fail "teplug conformance $plugin exited with $?: $output"
  must_contain "$output" "pass         contract threads" "teplug conformance"
done

step "PASSED (teplug $version installed, moved, and used through CMake and pkg-config)"
