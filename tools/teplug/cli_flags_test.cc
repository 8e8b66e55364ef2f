#include "tools/teplug/cli_flags.h"

#include <gtest/gtest.h>

namespace teplug::cli {
namespace {

FlagSet ExplainFlags() {
  FlagSet f("teplug explain");
  f.AddInt("head-dim", "head dimension", 128, 1, 1024);
  f.AddString("dtype", "DTYPE", "element type", "bf16", {"fp32", "fp16", "bf16"});
  f.AddBool("json", "json output");
  f.AddRepeated("plugin", "PATH", "plugin");
  f.AddDouble("dropout", "dropout", 0.0, 0.0, 0.999);
  return f;
}

TEST(FlagSetTest, ParsesBothSpellingsBoolsRepeatsAndPositionals) {
  FlagSet f = ExplainFlags();
  ASSERT_TRUE(f.Parse({"attention", "--head-dim", "64", "--dtype=fp16", "--json", "--plugin",
                       "a.so", "--plugin=b.so", "--dropout", "0.25"})
                  .ok());
  EXPECT_EQ(f.GetInt("head-dim"), 64);
  EXPECT_EQ(f.GetString("dtype"), "fp16");
  EXPECT_TRUE(f.GetBool("json"));
  EXPECT_EQ(f.GetAll("plugin"), (std::vector<std::string>{"a.so", "b.so"}));
  EXPECT_DOUBLE_EQ(f.GetDouble("dropout"), 0.25);
  EXPECT_EQ(f.positionals(), std::vector<std::string>{"attention"});
  EXPECT_TRUE(f.IsSet("head-dim"));
}

TEST(FlagSetTest, DefaultsApplyWhenNotGiven) {
  FlagSet f = ExplainFlags();
  ASSERT_TRUE(f.Parse({}).ok());
  EXPECT_EQ(f.GetInt("head-dim"), 128);
  EXPECT_EQ(f.GetString("dtype"), "bf16");
  EXPECT_FALSE(f.GetBool("json"));
  EXPECT_FALSE(f.IsSet("head-dim"));
}

TEST(FlagSetTest, UnknownFlagSuggestsTheClosestAndTheHelp) {
  FlagSet f = ExplainFlags();
  absl::Status st = f.Parse({"--hed-dim", "3"});
  EXPECT_EQ(st.message(),
            "unknown flag --hed-dim for `teplug explain`; did you mean --head-dim? (see teplug "
            "explain --help)");
  FlagSet g = ExplainFlags();
  st = g.Parse({"--frobnicate"});
  EXPECT_EQ(st.message(),
            "unknown flag --frobnicate for `teplug explain` (see teplug explain --help)");
}

TEST(FlagSetTest, BadValuesNameFlagValueAndAllowedSet) {
  FlagSet f = ExplainFlags();
  EXPECT_EQ(f.Parse({"--dtype", "bf17"}).message(),
            "bad value \"bf17\" for --dtype of `teplug explain`: expected one of fp32, fp16, bf16 "
            "(did you mean "
            "bf16?) (see teplug explain --help)");
  FlagSet g = ExplainFlags();
  EXPECT_EQ(g.Parse({"--head-dim=0"}).message(),
            "bad value \"0\" for --head-dim of `teplug explain`: expected an integer from 1 to "
            "1024 (see teplug "
            "explain --help)");
  FlagSet h = ExplainFlags();
  EXPECT_NE(h.Parse({"--head-dim", "12x"}).message().find("bad value \"12x\""),
            absl::string_view::npos);
  FlagSet i = ExplainFlags();
  EXPECT_NE(i.Parse({"--dropout", "nan"}).message().find("expected a number from 0 to 0.999"),
            absl::string_view::npos);
  FlagSet j = ExplainFlags();
  EXPECT_NE(j.Parse({"--json=maybe"}).message().find("expected true or false"),
            absl::string_view::npos);
}

TEST(FlagSetTest, MissingValueAndRepeatsOfSingleFlagsAreErrors) {
  FlagSet f = ExplainFlags();
  EXPECT_EQ(
      f.Parse({"--head-dim"}).message(),
      "--head-dim of `teplug explain` needs a value (--head-dim N) (see teplug explain --help)");
  FlagSet g = ExplainFlags();
  EXPECT_NE(g.Parse({"--head-dim", "1", "--head-dim", "2"}).message().find("given twice"),
            absl::string_view::npos);
  FlagSet h = ExplainFlags();
  EXPECT_NE(h.Parse({"-x"}).message().find("unknown option -x"), absl::string_view::npos);
}

TEST(FlagSetTest, HelpStopsParsingAndListsEveryFlag) {
  FlagSet f = ExplainFlags();
  ASSERT_TRUE(f.Parse({"--help", "--bogus"}).ok());
  EXPECT_TRUE(f.help_requested());
  const std::string help = f.FlagsHelp();
  for (const char* flag :
       {"--head-dim N", "--dtype DTYPE", "--json", "--plugin PATH", "--dropout X", "--help"}) {
    EXPECT_NE(help.find(flag), std::string::npos) << flag << " missing from:\n" << help;
  }
  EXPECT_NE(help.find("(fp32|fp16|bf16) [default bf16]"), std::string::npos) << help;
}

TEST(FlagSetTest, DefaultTextReplacesTheStoredDefaultInHelpOnly) {
  FlagSet f("teplug test");
  f.AddInt("heads", "query heads", 16, 1, 64);
  f.AddInt("heads-kv", "key/value heads", 16, 1, 64);
  f.SetDefaultText("heads-kv", "--heads");
  const std::string help = f.FlagsHelp();
  EXPECT_NE(help.find("query heads [default 16]\n"), std::string::npos) << help;
  EXPECT_NE(help.find("key/value heads [default: --heads]\n"), std::string::npos) << help;
  ASSERT_TRUE(f.Parse({}).ok());
  EXPECT_EQ(f.GetInt("heads-kv"), 16);
  EXPECT_FALSE(f.IsSet("heads-kv"));
}

TEST(ClosestMatchTest, OnlyPlausibleTyposAreSuggested) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(ClosestMatch("atention", {"attention", "gemm"}), "attention");
  EXPECT_EQ(ClosestMatch("zzzzzz", {"attention", "gemm"}), "");
}

}  // namespace
}  // namespace teplug::cli
