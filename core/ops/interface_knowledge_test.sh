#!/bin/bash
# Keeps knowledge of each interface inside its module: no file of core/
# outside the interface modules (core/ops/<interface>.cc, <interface>_example.cc) and tests may name
# an interface's args, descriptor or function-table types, its IID or its
# ops. The registry, selector, kernel and loader loop over the module list.
# Comments may name them (as examples); code may not.
#
# Usage: interface_knowledge_test.sh FILE...   (the core sources, from Bazel)
set -u
pattern='Teplug(Gemm|Attention|Quantize|Quantizer|Dequantize|Collective|Comm|Norm)[A-Za-z0-9]*|TeplugDevice(V1|Info|OpenArgs|Context|Caps)|Teplug(Allocate|Copy)Args|kIid(Gemm|Attention|Quantizer|Collective|Norm|Device)V1|TEPLUG_OP_[A-Z]|TEPLUG_NORM_|TEPLUG_DEVICE_OP_|TEPLUG_COPY_|TEPLUG_(GEMM|ATTN|QUANT|NORM)_CAP|TEPLUG_(LAYOUT|MASK|BIAS|RECIPE|EPILOGUE|REDUCE)_'
modules='^core/ops/(gemm|attention|quantizer|collective|norm|device)(_example)?\.(h|cc)$'
found=0
checked=0
for f in "$@"; do
  case "$f" in
    *_test.cc | *_test.h | */testing/* | *_benchmark.cc) continue ;;
  esac
  [[ "$f" =~ $modules ]] && continue
  checked=$((checked + 1))
  # Drop comments (// to end of line) before matching.
  hits=$(sed -e 's#//.*$##' "$f" | grep -nE "$pattern")
  if [ -n "$hits" ]; then
    echo "$f names an interface outside its module:"
    echo "$hits" | sed 's/^/  /'
    found=1
  fi
done
if [ "$checked" -lt 20 ]; then
  echo "only $checked core files were given: the check would prove nothing" >&2
  exit 1
fi
if [ "$found" -ne 0 ]; then
  echo "Move that code into the interface's module (core/ops/<interface>.cc) and reach it through InterfaceModule."
  exit 1
fi
echo "OK: $checked core files name no interface outside core/ops/<interface>.cc"
