# Generated @local_cuda for a CUDA toolkit that is present (see //tools/bazel:cuda_configure.bzl).
package(default_visibility = ["//visibility:public"])

# --config=nocuda (--define=teplug_cuda=off) makes everything here incompatible.
_CUDA_ONLY = select({
    "%{CUDA_OFF}": ["%{INCOMPATIBLE}"],
    "//conditions:default": [],
})

_LIBRARY_DIR = "%{LIBRARY_DIR}"

sh_binary(
    name = "nvcc",
    srcs = ["nvcc.sh"],
)

cc_library(
    name = "cuda_headers",
    hdrs = glob(["include/**"]),
    includes = ["include"],
    target_compatible_with = _CUDA_ONLY,
)

# One shared library of the toolkit, found through an rpath to the toolkit's lib folder.
[cc_library(
    name = name,
    linkopts = ["-L" + _LIBRARY_DIR, "-Wl,-rpath," + _LIBRARY_DIR] + ["-l" + lib for lib in libs],
    target_compatible_with = _CUDA_ONLY,
    deps = [":cuda_headers"],
) for name, libs in {
    "cudart": ["cudart"],
    "cublas": ["cublas", "cublasLt", "cudart"],
    "cublaslt": ["cublasLt", "cudart"],
    "cudnn": ["cudnn", "cudart"],
    "nccl": ["nccl", "cudart"],
    "nvrtc": ["nvrtc"],
}.items()]

# The CUDA runtime linked statically: a binary or plugin using it needs no
# libcudart.so where it runs (the runtime finds the driver, libcuda.so.1, by
# itself and reports cudaErrorInsufficientDriver when there is none), so a
# host that links the native provider still starts on machines without CUDA.
cc_library(
    name = "cudart_static",
    linkopts = ["-L" + _LIBRARY_DIR, "-l:libcudart_static.a", "-ldl", "-lrt", "-lpthread"],
    target_compatible_with = _CUDA_ONLY,
    deps = [":cuda_headers"],
)
