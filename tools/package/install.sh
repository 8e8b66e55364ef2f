#!/usr/bin/env bash
# Installs the teplug kit into PREFIX:
#
#   bazel run //tools/package:install -- PREFIX     # -c opt for a release build
#
# PREFIX may be relative (to the directory bazel was run from) and need not exist.
# What goes where is the manifest written by //tools/package:kit (install_tree.bzl);
# README.md in this directory lists the tree. Existing files are replaced; nothing
# else in PREFIX is touched. Every path in the installed package files is relative
# to the file, so the tree can be moved afterwards.
set -euo pipefail

if (($# != 1)) || [[ -z "$1" || "$1" == -* ]]; then
  echo "install: usage: bazel run //tools/package:install -- PREFIX" >&2
  exit 2
fi
prefix="$1"
if [[ "$prefix" != /* ]]; then
  prefix="${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix"
fi

# The runfiles tree: a test's (RUNFILES_DIR / TEST_SRCDIR) or this binary's own.
runfiles="${RUNFILES_DIR:-${TEST_SRCDIR:-}}"
if [[ -z "$runfiles" ]]; then
  runfiles="$0.runfiles"
fi
manifest="$runfiles/teplug/tools/package/kit.manifest"
if [[ ! -f "$manifest" ]]; then
  echo "install: the kit's manifest is not at $manifest; run this through bazel run" >&2
  exit 1
fi

count=0
while IFS=$'\t' read -r kind source destination mode; do
  target="$prefix/$destination"
  mkdir -p "$(dirname "$target")"
  case "$kind" in
    file)
      if [[ ! -f "$runfiles/$source" ]]; then
        echo "install: $source (for $destination) is missing from the runfiles at $runfiles" >&2
        exit 1
      fi
      rm -f "$target"
      install -m "$mode" "$runfiles/$source" "$target"
      ;;
    link)
      ln -sfn "$source" "$target"
      ;;
    *)
      echo "install: $manifest has an entry of unknown kind '$kind'" >&2
      exit 1
      ;;
  esac
  count=$((count + 1))
done < "$manifest"
echo "install: $count files into $prefix"
