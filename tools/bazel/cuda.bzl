"""CUDA support: cuda_library and the CUDA-only compatibility marker.

    load("//tools/bazel:cuda.bzl", "CUDA_ONLY", "cuda_library", "host_grid_library")

    cuda_library(name = "kernels", srcs = ["k.cu"], hdrs = ["k.h"], deps = ["//interfaces"])
    cc_test(name = "t", ..., target_compatible_with = CUDA_ONLY)
    host_grid_library(name = "kernels_on_host", srcs = ["k.cu"], hdrs = ["k.h"])  # tests

A target marked CUDA-only is incompatible (reported SKIPPED, never FAILED) when the
toolkit is absent (@local_cuda's CUDA_AVAILABLE is False, e.g. CUDA_PATH=/nonexistent)
or when building with --config=nocuda (--define=teplug_cuda=off).
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("@local_cuda//:defs.bzl", "CUDA_AVAILABLE")
load(":absolute_label.bzl", "absolute_label")

# GPU architectures compiled to SASS; PTX of the newest one is embedded for later GPUs.
CUDA_ARCHITECTURES = ["80", "90", "100"]

_INCOMPATIBLE = absolute_label(Label("//tools/bazel:incompatible"))
_CUDA_OFF = absolute_label(Label("//tools/bazel:cuda_off"))

def cuda_compatible():
    """Returns a target_compatible_with value that skips the target without CUDA."""
    if not CUDA_AVAILABLE:
        return [_INCOMPATIBLE]
    return select({
        _CUDA_OFF: [_INCOMPATIBLE],
        "//conditions:default": [],
    })

# The same as cuda_compatible(), for `target_compatible_with = CUDA_ONLY`.
CUDA_ONLY = cuda_compatible()

def _nvcc_arguments(ctx, cc_toolchain, compilation, src, obj):
    """Builds the nvcc command line compiling one .cu file to a position-independent .o."""
    args = ctx.actions.args()
    args.add("-ccbin", cc_toolchain.compiler_executable)
    args.add_all(["-x", "cu", "-std=c++17", "-O3", "-Xcompiler", "-fPIC"])
    # A kernel that spills or keeps a per-thread array in local memory (an
    # array indexed by a run-time value) fails to build: per-thread arrays
    # stay in registers, which the bandwidth-bound kernels rely on.
    args.add_all(["-Xptxas", "-warn-lmem-usage,-warn-spills,-Werror"])
    # --define=teplug_cuda_archs=90 (comma-separated) compiles for those only
    # (tools/gpu_check.sh builds for the GPU it runs on).
    archs = ctx.var.get("teplug_cuda_archs", "")
    archs = archs.split(",") if archs else CUDA_ARCHITECTURES
    for arch in archs:
        args.add("-gencode", "arch=compute_%s,code=sm_%s" % (arch, arch))
    newest = archs[-1]
    args.add("-gencode", "arch=compute_%s,code=compute_%s" % (newest, newest))
    args.add_all(compilation.defines, format_each = "-D%s")
    args.add_all(compilation.local_defines, format_each = "-D%s")

    # Workspace-relative includes ("interfaces/...") from this target's own repository.
    own_root = ctx.label.workspace_root or "."
    args.add("-I" + own_root)
    args.add("-I" + ctx.bin_dir.path + ("/" + ctx.label.workspace_root if ctx.label.workspace_root else ""))
    args.add_all(compilation.quote_includes, format_each = "-I%s")
    args.add_all(compilation.includes, format_each = "-I%s")
    args.add_all(compilation.system_includes, before_each = "-isystem")
    args.add_all(ctx.attr.copts)
    args.add("-c", src)
    args.add("-o", obj)
    return args

def _cuda_objects_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    compilation = cc_common.merge_cc_infos(
        cc_infos = [dep[CcInfo] for dep in ctx.attr.deps],
    ).compilation_context
    inputs = depset(ctx.files.hdrs, transitive = [compilation.headers])
    objects = []
    for src in ctx.files.srcs:
        obj = ctx.actions.declare_file("_cuda_objs/%s/%s.o" % (ctx.label.name, src.basename[:-len(".cu")]))
        ctx.actions.run(
            executable = ctx.executable._nvcc,
            arguments = [_nvcc_arguments(ctx, cc_toolchain, compilation, src, obj)],
            inputs = depset([src], transitive = [inputs, cc_toolchain.all_files]),
            outputs = [obj],
            mnemonic = "NvccCompile",
            progress_message = "Compiling CUDA %s" % src.short_path,
            use_default_shell_env = True,
        )
        objects.append(obj)
    return [DefaultInfo(files = depset(objects))]

_cuda_objects = rule(
    implementation = _cuda_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"], mandatory = True),
        "hdrs": attr.label_list(allow_files = True),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
        "_nvcc": attr.label(default = "@local_cuda//:nvcc", executable = True, cfg = "exec"),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    doc = "Compiles .cu files with nvcc into object files for a cc_library.",
)

def cuda_library(name, srcs, hdrs = [], deps = [], copts = [], target_compatible_with = [], runtime = "@local_cuda//:cudart", **kwargs):
    """A cc_library whose .cu sources are compiled by nvcc (sm_80, sm_90, sm_100 + PTX).

    Usable in static libraries, tests and linkshared plugins (objects are -fPIC). The
    .cu files see the include paths and defines of `deps`. A kernel that spills or uses
    local memory is a build error (ptxas -warn-lmem-usage,-warn-spills,-Werror). Without CUDA the library is
    incompatible, so everything depending on it is skipped.

    Args:
      name: the cc_library's name.
      srcs: .cu files (plain .cc files belong in a cc_library dep).
      hdrs: headers of this library, visible to dependents and to the .cu files.
      deps: cc_library dependencies; `runtime` is always added.
      copts: extra nvcc options.
      target_compatible_with: further constraints, on top of CUDA-only.
      runtime: the CUDA runtime linked: the shared @local_cuda//:cudart, or
        @local_cuda//:cudart_static for code linked into the native provider
        (which must start where libcudart.so is not installed).
      **kwargs: passed to cc_library (visibility, alwayslink, ...).
    """
    compatible = cuda_compatible() + target_compatible_with
    all_deps = deps + [runtime]
    objects = []
    if CUDA_AVAILABLE:
        _cuda_objects(
            name = name + "_cuda_objects",
            srcs = srcs,
            hdrs = hdrs,
            deps = all_deps,
            copts = copts,
            target_compatible_with = compatible,
            visibility = ["//visibility:private"],
        )
        objects = [":" + name + "_cuda_objects"]
    native.cc_library(
        name = name,
        srcs = objects,
        hdrs = hdrs,
        deps = all_deps,
        target_compatible_with = compatible,
        **kwargs
    )

_HOST_GRID = absolute_label(Label("//native/device:host_grid"))

def host_grid_library(name, srcs, hdrs = [], deps = [], **kwargs):
    """The .cu files of a cuda_library compiled as plain C++ for the host grid.

    //native/device:host_grid stands in for the CUDA runtime (blocks run in turn, a
    block's threads as fibers), so tests run the very kernels without a GPU or the CUDA
    toolkit. The kernels must launch through native/device/kernel_launch.cuh. Test-only.

    Args:
      name: the cc_library's name.
      srcs: the .cu files.
      hdrs: headers the .cu files include from their own package.
      deps: cc_library dependencies (the host grid is always added).
      **kwargs: passed to cc_library.
    """
    outs = [name + "/" + src[:-len(".cu")] + ".cc" for src in srcs]
    native.genrule(
        name = name + "_sources",
        testonly = True,
        srcs = srcs,
        outs = outs,
        cmd = " && ".join(["cp $(location %s) $(location %s)" % (s, o) for s, o in zip(srcs, outs)]),
    )
    native.cc_library(
        name = name,
        testonly = True,
        srcs = [":" + name + "_sources"],
        hdrs = hdrs,
        # Kernels read 16-byte vectors through uint4 pointers, as CUDA allows;
        # the host compiler does not know CUDA's #pragma unroll.
        copts = ["-fno-strict-aliasing", "-Wno-unknown-pragmas"],
        local_defines = ["TEPLUG_HOST_GRID"],
        deps = deps + [_HOST_GRID],
        **kwargs
    )

def if_cuda(if_true, if_false = []):
    """Selects `if_true` on CUDA builds and `if_false` without CUDA or with --config=nocuda.

    For targets that stay compatible everywhere but link CUDA-only parts when they can,
    e.g. a host's list of built-in providers: `deps = if_cuda(["//native/provider:builtin"])`.
    """
    if not CUDA_AVAILABLE:
        return if_false
    return select({
        _CUDA_OFF: if_false,
        "//conditions:default": if_true,
    })
