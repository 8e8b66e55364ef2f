# @com_google_googletest from Debian's libgtest-dev (static libgtest.a / libgmock.a).
# Target names mirror upstream GoogleTest so consumers can swap in the real repository.
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "gtest",
    linkopts = ["-lgmock", "-lgtest", "-pthread"],
)

# The static archives need gtest_main ahead of gtest on the link line, so the
# order is spelled out here rather than left to dependency order.
cc_library(
    name = "gtest_main",
    linkopts = ["-lgtest_main", "-lgmock", "-lgtest", "-pthread"],
)
