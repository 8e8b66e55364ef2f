"""Repository rule exposing the system protobuf (protoc + libprotobuf) as @com_google_protobuf.

Bazel's native proto_library / cc_proto_library look for @com_google_protobuf//:protoc
and @com_google_protobuf//:cc_toolchain by default. This rule provides them from
/usr/bin/protoc and libprotobuf, and mirrors the well-known .proto files so that
proto_library targets can depend on e.g. @com_google_protobuf//:timestamp_proto.
"""

load(":pkg_config.bzl", "pkg_config")

def _system_protobuf_impl(repository_ctx):
    protoc = repository_ctx.which("protoc")
    if protoc == None:
        fail("protoc not found on PATH; run tools/setup.sh (package protobuf-compiler)")

    # Call protoc by its real path so the sandbox's symlinks do not matter.
    repository_ctx.file(
        "protoc.sh",
        "#!/bin/sh\n# Generated: forwards to the system protoc.\nexec '%s' \"$@\"\n" % protoc.realpath,
        executable = True,
    )
    include_dir = pkg_config(repository_ctx, "protobuf", "--variable=includedir")[0]
    proto_dir = repository_ctx.path(include_dir + "/google/protobuf")
    for proto in repository_ctx.attr.well_known_protos:
        source = proto_dir.get_child(proto + ".proto")
        if not source.exists:
            fail("well-known type %s missing at %s; is libprotobuf-dev installed?" % (proto, source))
        repository_ctx.symlink(source, "google/protobuf/%s.proto" % proto)
    repository_ctx.template(
        "BUILD",
        repository_ctx.attr.build_file,
        {"%{PROTOBUF_LIBS}": repr(pkg_config(repository_ctx, "protobuf", "--libs"))},
        executable = False,
    )
    repository_ctx.file("WORKSPACE", "workspace(name = %r)\n" % repository_ctx.name)

system_protobuf = repository_rule(
    implementation = _system_protobuf_impl,
    local = True,
    attrs = {
        "build_file": attr.label(
            default = Label("//tools/bazel/system:protobuf.BUILD.tpl"),
            allow_single_file = True,
        ),
        "well_known_protos": attr.string_list(default = [
            "any",
            "api",
            "descriptor",
            "duration",
            "empty",
            "field_mask",
            "source_context",
            "struct",
            "timestamp",
            "type",
            "wrappers",
        ]),
    },
    doc = "protobuf from the system (protobuf-compiler, libprotobuf-dev), with upstream label names.",
)
