#!/bin/sh
# Writes a C++ source defining teplug::config::kDefaultConfigText with the
# contents of a textproto file, for the "default_config_text" genrule.
# Usage: embed_default_config.sh <input.textproto> <output.cc>
set -eu
input="$1"
output="$2"
delimiter="teplug_cfg"
if grep -q ")${delimiter}\"" "$input"; then
  echo "embed_default_config.sh: $input contains the raw-string delimiter )${delimiter}\"" >&2
  exit 1
fi
{
  echo "// Generated from $input by embed_default_config.sh; do not edit."
  echo "#include \"core/config/default_config.h\""
  echo "namespace teplug::config {"
  echo "const char* const kDefaultConfigText = R\"${delimiter}("
  cat "$input"
  echo ")${delimiter}\";"
  echo "}  // namespace teplug::config"
} > "$output"
