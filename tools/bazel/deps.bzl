"""Entry point for workspaces that build teplug, including teplug's own WORKSPACE.

    load("@teplug//tools/bazel:deps.bzl", "teplug_dependencies")
    teplug_dependencies()

Every repository is defined only if the workspace has not defined one of the same name
already, so a consumer that brings its own Abseil, protobuf or GoogleTest keeps them.
Everything comes from the local machine (Debian packages, the CUDA toolkit); nothing is
downloaded, which is what lets Bazel 4.2 build with no network.
"""

load(":abseil_repository.bzl", "system_abseil")
load(":cuda_configure.bzl", "cuda_configure")
load(":cudnn_frontend_configure.bzl", "cudnn_frontend_configure")
load(":offline_stub_repository.bzl", "offline_stub_repository")
load(":protobuf_repository.bzl", "system_protobuf")
load(":system_library_repository.bzl", "system_library_repository")

def _define_once(rule, name, **kwargs):
    """Defines repository `name` with `rule` unless the workspace already has it."""
    if native.existing_rule(name) == None:
        rule(name = name, **kwargs)

def teplug_dependencies():
    """Defines every external repository teplug's BUILD files refer to."""

    # Bazel's own built-in repositories that it would otherwise try to download.
    for stub in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        _define_once(offline_stub_repository, stub, stub = stub)

    _define_once(system_abseil, "com_google_absl")
    _define_once(system_protobuf, "com_google_protobuf")
    _define_once(
        system_library_repository,
        "com_google_googletest",
        build_file = Label("//tools/bazel/system:googletest.BUILD.tpl"),
    )
    _define_once(
        system_library_repository,
        "com_github_google_benchmark",
        build_file = Label("//tools/bazel/system:benchmark.BUILD.tpl"),
    )
    _define_once(
        system_library_repository,
        "teplug_system",
        build_file = Label("//tools/bazel/system:teplug_system.BUILD.tpl"),
        include_dirs = {"mpi_include": "ompi-c"},
        linkopts = {"MPI_LIBS": "ompi-c"},
    )
    _define_once(cuda_configure, "local_cuda")
    _define_once(cudnn_frontend_configure, "cudnn_frontend")
