#!/usr/bin/env bash
# Writes one of the kit's package files (teplug.pc, teplugConfig.cmake, ...) from its
# template, filling in what the build knows:
#   @VERSION@       teplug's version, read from core/version.cc (its one definition),
#   @VERSION_MAJOR@, @VERSION_MINOR@  and its first two numbers
#   @SONAME@        the SONAME of the built libteplug.so
#   @LIBS_PRIVATE@  -l flags for the libraries libteplug.so needs at run time
#                   (its DT_NEEDED entries beyond the C and C++ runtimes)
#
#   configure_package_file.sh TEMPLATE OUTPUT VERSION_CC LIBTEPLUG_SO
set -euo pipefail

if (($# != 4)); then
  echo "configure_package_file: usage: TEMPLATE OUTPUT VERSION_CC LIBTEPLUG_SO" >&2
  exit 2
fi
template="$1" output="$2" version_cc="$3" library="$4"

version="$(sed -n 's/.*"teplug \([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)".*/\1/p' "$version_cc")"
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "configure_package_file: no single \"teplug X.Y.Z\" string in $version_cc (found '$version')" >&2
  exit 1
fi

dynamic="$(readelf --dynamic --wide "$library")"
soname="$(sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p' <<<"$dynamic")"
if [[ -z "$soname" ]]; then
  echo "configure_package_file: $library has no SONAME (link it with -Wl,-soname)" >&2
  exit 1
fi

libs_private=""
while read -r needed; do
  case "$needed" in
    libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.* | ld-linux*) continue ;;
  esac
  name="${needed#lib}"
  libs_private+="${libs_private:+ }-l${name%%.so*}"
done < <(sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' <<<"$dynamic")

IFS=. read -r major minor _ <<<"$version"
sed -e "s|@VERSION@|$version|g" -e "s|@VERSION_MAJOR@|$major|g" -e "s|@VERSION_MINOR@|$minor|g" -e "s|@SONAME@|$soname|g" -e "s|@LIBS_PRIVATE@|$libs_private|g" \
  "$template" > "$output"
if grep -n '@[A-Z_]*@' "$output" >&2; then
  echo "configure_package_file: $template has a placeholder this script does not fill (above)" >&2
  exit 1
fi
