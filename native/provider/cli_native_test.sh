#!/bin/bash
# The shipped CLI with native built in (CUDA builds): `teplug list` shows the
# provider, its IDevice, IGemm, IQuantizer, ICollective and IAttention at
# priority 300; without a GPU, `teplug explain device|gemm|quantizer|attention
# --device cuda` say why native cannot serve in the CUDA runtime's words
# (attention on a device that names its arch: cuDNN's rule and values), and
# `teplug run --device cuda` stops with that reason; and the binary needs
# neither libcudart.so (the runtime is linked statically) nor libcublasLt.so,
# libnccl.so or libcudnn.so (loaded on first use) to start, so it runs on
# machines without CUDA.
set -u
TEPLUG=tools/teplug/teplug
unset TEPLUG_PLUGINS TEPLUG_PLUGIN_PATH NVTE_PLUGIN TEPLUG_CONFIG TEPLUG_LOG
FAILURES=0
OUT="${TEST_TMPDIR:-/tmp}/native_cli_out.txt"

fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}

# expect_in TEXT: the last output contains TEXT (fixed string).
expect_in() {
  if ! grep -qF -- "$1" "$OUT"; then
    fail "$LAST: output lacks \"$1\""
    cat "$OUT"
  fi
}

# expect_match REGEX: the last output has a line matching REGEX (extended).
expect_match() {
  if ! grep -qE -- "$1" "$OUT"; then
    fail "$LAST: output lacks a line matching \"$1\""
    cat "$OUT"
  fi
}

LAST="teplug list --no-discovery"
"$TEPLUG" list --no-discovery >"$OUT" 2>&1 || fail "$LAST: exit status $?"
expect_in 'native  vendor "teplug"  version 0.1.0'
expect_match 'IDevice/1 +native/cuda +priority 300'
expect_match 'IGemm/1 +native/cublaslt +priority 300'
expect_match 'IQuantizer/1 +native/quantizer +priority 300'
expect_match 'ICollective/1 +native/nccl +priority 300'
expect_match 'IAttention/1 +native/cudnn +priority 300'

if grep -qE '^  cuda:[0-9]+  native/cuda' "$OUT"; then
  echo "a GPU is present: the no-GPU explanation is not checked"
else
  LAST="teplug explain device --device cuda --no-discovery"
  "$TEPLUG" explain device --device cuda --no-discovery >"$OUT" 2>&1
  expect_in 'native/cuda    rejected        300  [supports] native: no CUDA device: cudaGetDeviceCount returned cuda'
  LAST="teplug explain quantizer --device cuda --no-discovery"
  "$TEPLUG" explain quantizer --device cuda --scaling-mode mxfp8_1d32 --no-discovery >"$OUT" 2>&1
  expect_match 'native/quantizer +rejected +300  \[supports\] native: no CUDA device: cudaGetDeviceCount returned cuda'
  LAST="teplug explain gemm --device cuda --no-discovery"
  "$TEPLUG" explain gemm --device cuda --no-discovery >"$OUT" 2>&1
  expect_match 'native/cublaslt +rejected +300  \[supports\] native gemm: no CUDA device: cudaGetDeviceCount returned cuda'
  LAST="teplug explain attention --device cuda --no-discovery"
  "$TEPLUG" explain attention --device cuda --no-discovery >"$OUT" 2>&1
  expect_match 'native/cudnn +rejected +300  \[supports\] native attention: no CUDA device: cudaGetDeviceCount returned cuda'
  # A device that names its arch gets cuDNN's rule and values (the support table's cases)
  # when cuDNN attention is built in; built without the frontend headers, that reason.
  explain_attention() {
    LAST="teplug explain attention --device cuda $*"
    "$TEPLUG" explain attention --device cuda --no-discovery "$@" >"$OUT" 2>&1
  }
  explain_attention --arch 90 --bias-type pre_scale
  expect_match 'native/cudnn .*\[capability\] bias pre_scale not in \{none, post_scale, alibi\}'
  explain_attention --arch 90 --dtype fp32
  expect_match 'native/cudnn .*\[capability\] q dtype fp32 not in \{fp16, bf16, fp8_e4m3\}'
  explain_attention --arch 80 --op backward --head-dim 256
  if grep -q "cuDNN attention is not built in" "$OUT"; then
    expect_match 'native/cudnn .*native attention: cuDNN attention is not built in: the cuDNN frontend headers were missing when teplug was built '
    echo "SKIP: cuDNN's rule table through the CLI: this build has no cuDNN frontend (tools/fetch_cudnn_frontend.sh)"
  else
    expect_match 'native/cudnn .*cuDNN [0-9.]+ on sm_80: head_dim 256 backward needs sm_90'
    explain_attention --arch 89 --layout thd --mask-type padding
    expect_match 'native/cudnn .*cuDNN [0-9.]+ on sm_89: thd layouts need sm_90'
    explain_attention --arch 80 --op backward --deterministic
    expect_match 'native/cudnn .*cuDNN [0-9.]+ on sm_80: deterministic backward needs sm_90'
    explain_attention --arch 80 --bias-type alibi --mask-type causal
    expect_match 'native/cudnn .*cuDNN [0-9.]+ on sm_80: alibi needs sm_90'
    explain_attention --arch 90 --mask-type causal_bottom_right --seq-q 1024 --seq-kv 512
    expect_match 'native/cudnn .*cuDNN [0-9.]+ on sm_90: mask causal_bottom_right needs max_seqlen_q <= max_seqlen_kv, got 1024 > 512'
    explain_attention --arch 89 --dtype fp8_e4m3
    expect_match 'native/cudnn .*cuDNN [0-9.]+ on sm_89: fp8 needs sm_90'
    explain_attention --arch 90 --dtype fp8_e4m3 --op backward --head-dim 64
    expect_match 'native/cudnn .*cuDNN [0-9.]+ on sm_90: fp8 backward with head_dim 64, mask none on sm_90 is not served'
  fi
  LAST="teplug run --device cuda"
  "$TEPLUG" run --device cuda --no-discovery >"$OUT" 2>&1
  status=$?
  [[ "$status" == 1 ]] || fail "$LAST: exit status $status, expected 1"
  expect_in "error: teplug run: cannot open rank 0's device cuda:0: "
  expect_in '[supports] native: no CUDA device: cudaGetDeviceCount returned cuda'
fi

LAST="ldd $TEPLUG"
ldd "$TEPLUG" >"$OUT" 2>&1
if grep -qE 'libcudart|libcublas|libnccl|libcudnn' "$OUT"; then
  fail "$LAST: the CLI links libcudart.so, libcublasLt.so, libnccl.so or libcudnn.so dynamically"
  cat "$OUT"
fi

if [[ "$FAILURES" != 0 ]]; then
  echo "$FAILURES check(s) failed"
  exit 1
fi
echo "all checks passed"
