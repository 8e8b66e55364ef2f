"""Offline stand-in for rules_cc, for Bazel 4.2 without network.

Bazel's built-in repositories load @rules_cc//cc:defs.bzl; the real archive cannot be
downloaded here, so each rule is bound to the native rule of the same name.
"""

cc_binary = native.cc_binary
cc_import = native.cc_import
cc_library = native.cc_library
cc_proto_library = native.cc_proto_library
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
