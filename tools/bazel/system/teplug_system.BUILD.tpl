# @teplug_system: accelerator and collective libraries from Debian packages.
package(default_visibility = ["//visibility:public"])

# OpenCL ICD loader (ocl-icd-opencl-dev); PoCL provides a CPU device. The headers'
# target version is pinned to OpenCL 3.0 (what they default to, minus a note per file).
cc_library(
    name = "opencl",
    defines = ["CL_TARGET_OPENCL_VERSION=300"],
    linkopts = ["-lOpenCL"],
)

# CLBlast (libclblast-dev 1.5), the opencl provider's GEMM: BLAS on OpenCL
# buffers, headers in /usr/include (clblast.h, the C++ API).
cc_library(
    name = "clblast",
    linkopts = ["-lclblast"],
    deps = [":opencl"],
)

# Gloo collectives (libgloo-dev); the library lives in /usr/lib.
cc_library(
    name = "gloo",
    linkopts = ["-lgloo", "-pthread"],
)

# OpenMPI (libopenmpi-dev). Its headers are outside /usr/include, so they are mirrored
# into this repository as `mpi_include`. The C++ bindings are deprecated: skip them.
cc_library(
    name = "mpi",
    hdrs = glob(["mpi_include/**/*.h"]),
    defines = ["OMPI_SKIP_MPICXX=1"],
    includes = ["mpi_include"],
    linkopts = %{MPI_LIBS},
)

# OpenBLAS with its CBLAS interface (libopenblas-dev).
cc_library(
    name = "openblas",
    linkopts = ["-lopenblas"],
)

# oneDNN (libdnnl-dev), the CPU provider's matmul, reorders and eltwise primitives.
# Headers in /usr/include/oneapi/dnnl; Debian builds it with the OpenMP (libgomp)
# CPU runtime. No pkg-config file ships with it, so it is linked by name.
cc_library(
    name = "dnnl",
    linkopts = ["-ldnnl"],
)
