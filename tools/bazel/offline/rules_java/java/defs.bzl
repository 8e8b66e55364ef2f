"""Offline stand-in for rules_java, for Bazel 4.2 without network.

Bazel's built-in JDK repositories load @rules_java//java:defs.bzl; each rule is bound
to the native rule of the same name.
"""

java_binary = native.java_binary
java_import = native.java_import
java_library = native.java_library
java_runtime = native.java_runtime
java_test = native.java_test
java_toolchain = native.java_toolchain
