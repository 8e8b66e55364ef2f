# @com_google_protobuf from Debian's protobuf-compiler and libprotobuf-dev.
# Label names mirror upstream protobuf so native proto rules find them by default.
package(default_visibility = ["//visibility:public"])

sh_binary(
    name = "protoc",
    srcs = ["protoc.sh"],
)

cc_library(
    name = "protobuf",
    linkopts = %{PROTOBUF_LIBS},
)

cc_library(
    name = "protobuf_lite",
    linkopts = ["-lprotobuf-lite", "-pthread"],
)

# Well-known types, with the imports each one declares.
_WELL_KNOWN_DEPS = {
    "any": [],
    "api": ["source_context", "type"],
    "descriptor": [],
    "duration": [],
    "empty": [],
    "field_mask": [],
    "source_context": [],
    "struct": [],
    "timestamp": [],
    "type": ["any", "source_context"],
    "wrappers": [],
}

[proto_library(
    name = proto + "_proto",
    srcs = ["google/protobuf/%s.proto" % proto],
    deps = [":%s_proto" % dep for dep in deps],
) for proto, deps in _WELL_KNOWN_DEPS.items()]

# Their C++ code is already in libprotobuf, so cc_proto_library must not regenerate it.
proto_lang_toolchain(
    name = "cc_toolchain",
    blacklisted_protos = [":%s_proto" % proto for proto in _WELL_KNOWN_DEPS],
    command_line = "--cpp_out=$(OUT)",
    runtime = ":protobuf",
)
