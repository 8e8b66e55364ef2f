// The plans of the interfaces this file's conformance covers: a plugin
// that declares every claim gets every checkable claim exercised (quick and
// full), no case exercises a claim that was not declared, and each case's
// text parses back to the claims it was planned for (so the printed --case
// command re-runs the same thing).
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/teplug/conformance_collective.h"
#include "tools/teplug/conformance_device.h"
#include "tools/teplug/conformance_gemm.h"
#include "tools/teplug/conformance_quantizer.h"

namespace teplug::cli {
namespace {

class PlanTest : public ::testing::TestWithParam<const InterfaceConformance*> {};

TEST_P(PlanTest, EveryCheckableClaimIsExercisedAndCasesParseBack) {
  const InterfaceConformance& ic = *GetParam();
  const std::vector<std::string> claims = ic.all_claims();
  for (bool quick : {true, false}) {
    std::set<std::string> exercised;
    for (const PlannedCase& p : ic.plan(claims, quick, 11)) {
      absl::StatusOr<std::vector<std::string>> parsed = ic.parse_case(p.text);
      ASSERT_TRUE(parsed.ok()) << p.text << ": " << parsed.status();
      EXPECT_EQ(*parsed, p.exercises) << p.text;
      exercised.insert(p.exercises.begin(), p.exercises.end());
    }
    for (const std::string& claim : claims)
      EXPECT_EQ(exercised.count(claim) == 1, ic.checkable(claim)) << ic.name << " " << claim;
  }
}

TEST_P(PlanTest, NoCaseExercisesAnUndeclaredClaim) {
  const InterfaceConformance& ic = *GetParam();
  const std::vector<std::string> all = ic.all_claims();
  // Every other checkable claim: each plan must stay inside it.
  std::vector<std::string> some;
  for (size_t i = 0; i < all.size(); ++i)
    if (i % 2 == 0 || !ic.checkable(all[i])) some.push_back(all[i]);
  for (const PlannedCase& p : ic.plan(some, false, 5))
    for (const std::string& e : p.exercises)
      EXPECT_TRUE(HasClaim(some, e)) << ic.name << " " << p.text << " exercises undeclared " << e;
}

INSTANTIATE_TEST_SUITE_P(Interfaces, PlanTest,
                         ::testing::Values(&GemmConformance(), &QuantizerConformance(),
                                           &CollectiveConformance(), &DeviceConformance()),
                         [](const auto& info) { return std::string(info.param->name); });

TEST(CollectivePlan, RunsTwoAndThreeRanksAndUnevenCounts) {
  std::set<std::string> texts;
  for (const PlannedCase& p :
       CollectiveConformance().plan(CollectiveConformance().all_claims(), true, 1))
    texts.insert(p.text);
  EXPECT_EQ(texts.count("op=all_reduce,dtype=fp32,reduce=sum,world=2,count=37,uneven=0"), 1u);
  EXPECT_EQ(texts.count("op=all_reduce,dtype=fp32,reduce=sum,world=3,count=37,uneven=0"), 1u);
  EXPECT_EQ(texts.count("op=all_gather,dtype=fp32,reduce=sum,world=3,count=37,uneven=1"), 1u);
  EXPECT_EQ(texts.count("op=reduce_scatter,dtype=fp32,reduce=sum,world=3,count=37,uneven=1"), 1u);
  EXPECT_EQ(texts.count("op=send_recv,dtype=fp32,reduce=sum,world=3,count=37,uneven=0"), 1u);
}

TEST(CasesText, BadValuesAreNamed) {
  absl::StatusOr<std::vector<std::string>> c =
      CollectiveConformance().parse_case("op=all_reduce,uneven=1");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("0 outside all_gather and reduce_scatter"), std::string::npos)
      << c.status();
  c = QuantizerConformance().parse_case("scaling=mxfp8_1d32,recipe=delayed");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("current outside per_tensor scaling"), std::string::npos)
      << c.status();
  c = DeviceConformance().parse_case("check=memroy");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("device_info, memory, streams or refusals"),
            std::string::npos)
      << c.status();
}

}  // namespace
}  // namespace teplug::cli
