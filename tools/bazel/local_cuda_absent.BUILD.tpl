# Generated @local_cuda without a CUDA toolkit (see //tools/bazel:cuda_configure.bzl).
# Every target is an incompatible stand-in, so dependents are skipped, not failed.
package(default_visibility = ["//visibility:public"])

sh_binary(
    name = "nvcc",
    srcs = ["nvcc.sh"],
    target_compatible_with = ["%{INCOMPATIBLE}"],
)

[cc_library(
    name = name,
    target_compatible_with = ["%{INCOMPATIBLE}"],
) for name in [
    "cuda_headers",
    "cudart",
    "cudart_static",
    "cublas",
    "cublaslt",
    "cudnn",
    "nccl",
    "nvrtc",
]]
