# The consumer's own @com_google_googletest, marked so main.cc can tell it was kept.
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "gtest",
    defines = ["TEPLUG_CONSUMER_OWN_GOOGLETEST=1"],
    linkopts = ["-lgmock", "-lgtest", "-pthread"],
)

cc_library(
    name = "gtest_main",
    defines = ["TEPLUG_CONSUMER_OWN_GOOGLETEST=1"],
    linkopts = ["-lgtest_main", "-lgmock", "-lgtest", "-pthread"],
)
