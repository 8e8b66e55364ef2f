#include "tools/teplug/conformance_gemm.h"

#include <algorithm>
#include <set>

#include "gtest/gtest.h"

namespace teplug::cli {
namespace {

TEST(GemmCaseText, FormatThenParseGivesTheSameCase) {
  GemmCase c;
  c.a_dtype = TEPLUG_DTYPE_FP8_E4M3;
  c.b_dtype = TEPLUG_DTYPE_FP8_E5M2;
  c.d_dtype = TEPLUG_DTYPE_BF16;
  c.scaling = TEPLUG_SCALING_MXFP8_1D32;
  c.bias = c.gelu_aux = true;
  c.trans_b = false;
  c.m = 3;
  c.n = 5;
  c.k = 96;
  absl::StatusOr<GemmCase> back = ParseGemmCase(FormatGemmCase(c));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(FormatGemmCase(*back), FormatGemmCase(c));
  EXPECT_EQ(FormatGemmCase(c),
            "a_dtype=fp8_e4m3,b_dtype=fp8_e5m2,d_dtype=bf16,scaling=mxfp8_1d32,bias=1,gelu=0,"
            "gelu_aux=1,accumulate=0,trans_a=0,trans_b=0,m=3,n=5,k=96");
}

TEST(GemmCaseText, BadKeysAndValuesAreNamed) {
  absl::StatusOr<GemmCase> c = ParseGemmCase("a_dtype=bf16,mm=3");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("unknown key \"mm\""), std::string::npos) << c.status();
  c = ParseGemmCase("a_dtype=bf17");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("a_dtype=bf17"), std::string::npos) << c.status();
  c = ParseGemmCase("m=0");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("[1, 4096]"), std::string::npos) << c.status();
}

// Every claim conformance can build is exercised by at least one planned
// case, and no case exercises a claim that was not made.
TEST(PlanGemmCases, CoversEveryCheckableClaimAndNothingUndeclared) {
  const std::vector<std::string> claims = {"a_dtypes=fp32",
                                           "a_dtypes=bf16",
                                           "a_dtypes=fp8_e4m3",
                                           "b_dtypes=fp32",
                                           "b_dtypes=bf16",
                                           "b_dtypes=fp8_e4m3",
                                           "d_dtypes=fp32",
                                           "d_dtypes=bf16",
                                           "epilogues=bias",
                                           "epilogues=gelu",
                                           "epilogues=gelu_aux",
                                           "epilogues=accumulate",
                                           "scaling_modes=per_tensor",
                                           "scaling_modes=mxfp8_1d32",
                                           "a_dtypes=fp4_e2m1"};
  for (bool quick : {true, false}) {
    std::set<std::string> exercised;
    const std::vector<PlannedGemmCase> plan = PlanGemmCases(claims, quick, 7);
    for (const PlannedGemmCase& p : plan) {
      for (const std::string& e : p.exercises) {
        EXPECT_NE(std::find(claims.begin(), claims.end(), e), claims.end())
            << FormatGemmCase(p.gemm) << " exercises undeclared " << e;
        exercised.insert(e);
      }
    }
    for (const std::string& claim : claims) {
      EXPECT_EQ(exercised.count(claim) == 1, GemmClaimCheckable(claim)) << claim;
    }
    if (!quick) {
      EXPECT_GT(plan.size(), PlanGemmCases(claims, true, 7).size());
    }
  }
}

// fp4 operands, fp8 outputs and block scaling are exercised, with cases
// that can catch what they get wrong: block-scaled operands span two
// 128-element blocks along K (block_2d128 also two row blocks of A), an fp8
// D never accumulates (its old codes have no scale) and fp4 K stays even.
TEST(PlanGemmCases, BlockScalingFp4AndFp8OutputCasesSpanWhatTheyCheck) {
  const std::vector<std::string> claims = {"a_dtypes=fp32",
                                           "b_dtypes=fp32",
                                           "a_dtypes=fp4_e2m1",
                                           "b_dtypes=fp4_e2m1",
                                           "a_dtypes=fp8_e4m3",
                                           "b_dtypes=fp8_e4m3",
                                           "d_dtypes=fp32",
                                           "d_dtypes=fp8_e4m3",
                                           "d_dtypes=fp8_e5m2",
                                           "epilogues=accumulate",
                                           "epilogues=bias",
                                           "scaling_modes=block_1d128",
                                           "scaling_modes=block_2d128"};
  std::set<std::string> exercised;
  for (const PlannedGemmCase& p : PlanGemmCases(claims, false, 3)) {
    const GemmCase& c = p.gemm;
    for (const std::string& e : p.exercises) exercised.insert(e);
    const std::string text = FormatGemmCase(c);
    if (c.scaling == TEPLUG_SCALING_BLOCK_1D128 || c.scaling == TEPLUG_SCALING_BLOCK_2D128)
      EXPECT_GT(c.k, 128) << text;
    if (c.scaling == TEPLUG_SCALING_BLOCK_2D128) EXPECT_GT(c.m, 128) << text;
    if (c.d_dtype == TEPLUG_DTYPE_FP8_E4M3 || c.d_dtype == TEPLUG_DTYPE_FP8_E5M2)
      EXPECT_FALSE(c.accumulate) << text;
    if (c.a_dtype == TEPLUG_DTYPE_FP4_E2M1 || c.b_dtype == TEPLUG_DTYPE_FP4_E2M1)
      EXPECT_EQ(c.k % 2, 0) << text;
    ASSERT_TRUE(ParseGemmCase(text).ok()) << text;
  }
  for (const std::string& claim : claims) EXPECT_EQ(exercised.count(claim), 1u) << claim;
  absl::StatusOr<GemmCase> odd = ParseGemmCase("a_dtype=fp4_e2m1,b_dtype=fp4_e2m1,k=33");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("even with an fp4_e2m1 operand"), std::string::npos)
      << odd.status();
}

TEST(PlanGemmCases, SeedsDifferPerCaseAndFollowTheSeed) {
  const std::vector<std::string> claims = {"a_dtypes=fp32", "b_dtypes=fp32", "d_dtypes=fp32",
                                           "d_dtypes=bf16"};
  const std::vector<PlannedGemmCase> a = PlanGemmCases(claims, true, 1);
  const std::vector<PlannedGemmCase> b = PlanGemmCases(claims, true, 2);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_NE(a[0].seed, a[1].seed);
  EXPECT_NE(a[0].seed, b[0].seed);
}

}  // namespace
}  // namespace teplug::cli
