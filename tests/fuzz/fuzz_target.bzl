"""teplug_fuzz_target: one fuzz target, built two ways.

    teplug_fuzz_target(name = "config", srcs = ["config_fuzzer.cc"], deps = [...])

defines
  :config_fuzzer              the libFuzzer binary (tagged manual; build it with
                              --config=fuzz, as tools/fuzz.sh does)
  :config_fuzzer_replay_test  a cc_test for the plain build: replay_main.cc runs
                              every file of corpus/config and a few hundred
                              deterministic pseudo-random inputs through the same
                              LLVMFuzzerTestOneInput
"""

def teplug_fuzz_target(name, srcs, deps = [], random_inputs = 300):
    corpus = "corpus/" + name
    native.cc_binary(
        name = name + "_fuzzer",
        testonly = True,
        srcs = srcs,
        linkopts = ["-fsanitize=fuzzer"],
        tags = ["manual"],
        deps = deps,
    )
    native.cc_test(
        name = name + "_fuzzer_replay_test",
        size = "small",
        srcs = srcs + ["replay_main.cc"],
        args = [
            "tests/fuzz/" + corpus,
            "--random=%d" % random_inputs,
        ],
        data = native.glob([corpus + "/**"]),
        deps = deps,
    )
