#!/usr/bin/env bash
# TEPLUG_DECLARE_LAST_FIELD must fail the build when a field follows the one
# declared last, in C99 and in C++, and pass when the declaration is right.
set -euo pipefail
hdr_dir="$(dirname "$1")/.."   # $1 = path of teplug/abi_base.h
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
cat > "$tmp/ok.c" <<'SRC'
#include "teplug/abi_base.h"
typedef struct S { size_t struct_size; int64_t a; int64_t b; } S;
TEPLUG_DECLARE_LAST_FIELD(S, b);
int main(void) { return 0; }
SRC
sed 's/TEPLUG_DECLARE_LAST_FIELD(S, b)/TEPLUG_DECLARE_LAST_FIELD(S, a)/' "$tmp/ok.c" > "$tmp/bad.c"
for compiler in "gcc -std=c99 -pedantic -Werror -Wall -Wextra" "g++ -std=c++17 -x c++ -Werror -Wall"; do
  $compiler -I"$hdr_dir" -c "$tmp/ok.c" -o "$tmp/ok.o" || { echo "FAIL: correct declaration rejected by $compiler"; exit 1; }
  if $compiler -I"$hdr_dir" -c "$tmp/bad.c" -o "$tmp/bad.o" 2>"$tmp/err.txt"; then
    echo "FAIL: $compiler accepted a field after the declared last one"; exit 1
  fi
  echo "ok: $compiler rejects a misdeclared last field: $(grep -m1 -o 'last_field[a-zA-Z_]*\|must be the last field' "$tmp/err.txt" || true)"
done
