// Every interface module's example ops (core/kernel/examples.h): the
// parameters cover the facts the op feeds, the parameters named after a fact
// accept exactly the vocabulary's values, and the values round-trip: an op
// built from random parameter values is well formed and described with
// facts equal to the values given.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/kernel/examples.h"
#include "core/ops/modules.h"
#include "gtest/gtest.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

using Kind = ExampleParam::Kind;

const config::FactSpec* FindFact(const config::InterfaceVocabulary& v, const std::string& name) {
  for (const config::FactSpec& f : v.facts) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TeplugDevice Cpu() {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_CPU;
  return d;
}

// A random value `p` accepts: often a bound, else uniform.
std::string RandomValue(const ExampleParam& p, std::mt19937_64& rng) {
  const int pick = static_cast<int>(rng() % 3);
  switch (p.kind) {
    case Kind::kName:
      return p.values[rng() % p.values.size()];
    case Kind::kInteger: {
      if (pick == 0) return absl::StrCat(p.min);
      if (pick == 1) return absl::StrCat(p.max);
      return absl::StrCat(std::uniform_int_distribution<int64_t>(p.min, p.max)(rng));
    }
    case Kind::kReal:
      return absl::StrCat(std::uniform_real_distribution<double>(p.real_min, p.real_max)(rng));
    case Kind::kSwitch:
      return pick == 0 ? "true" : "false";
  }
  return "";
}

// Whether the fact `fact` of `d` is `value` (a group name stands for its members).
::testing::AssertionResult FactIs(const OpDescription& d, const config::FactSpec& fact,
                                  const std::string& value) {
  const config::OpFacts facts = d.Facts();
  const config::OpFacts::Value* got = facts.Find(fact.name);
  if (got == nullptr) return ::testing::AssertionFailure() << "the op has no fact " << fact.name;
  if (fact.kind == config::FactKind::kInteger) {
    if (got->known && absl::StrCat(got->number) == value) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << fact.name << " = " << got->number << ", given " << value;
  }
  if (got->text == value) return ::testing::AssertionSuccess();
  for (const auto& [group, members] : fact.groups) {
    if (group == value &&
        std::find(members.begin(), members.end(), std::string(got->text)) != members.end()) {
      return ::testing::AssertionSuccess();
    }
  }
  return ::testing::AssertionFailure()
         << fact.name << " = \"" << got->text << "\", given \"" << value << "\"";
}

// The op built from `values`, described.
OpDescription BuildAndDescribe(const InterfaceModule& m, const OpSpec& op,
                               const ExampleValueMap& values) {
  absl::StatusOr<std::unique_ptr<ExampleOp>> built =
      BuildExampleOp(m.name(), op.name, values, Cpu());
  EXPECT_TRUE(built.ok()) << built.status();
  if (!built.ok()) return {};
  EXPECT_TRUE(sdk::SameIid((*built)->iid, m.iid()));
  EXPECT_EQ((*built)->op, op.op);
  absl::StatusOr<OpDescription> d = DescribeOp(m, (*built)->op, (*built)->args);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *d : OpDescription{};
}

class ExampleOpsTest : public ::testing::TestWithParam<const InterfaceModule*> {};

// Every fact of the interface's vocabulary is set by some op's parameter,
// every fact an op's description has is set by one of its parameters, and a
// parameter named after a fact accepts exactly the values a rule on it does.
TEST_P(ExampleOpsTest, ParametersCoverTheFacts) {
  const InterfaceModule& m = *GetParam();
  const config::InterfaceVocabulary v = m.Vocabulary();
  std::set<std::string> covered;
  for (const OpSpec* op : m.ops()) {
    SCOPED_TRACE(absl::StrCat(m.name(), " ", op->name));
    absl::StatusOr<std::vector<ExampleParam>> params = m.ExampleParams(*op);
    const bool undecided = std::any_of(v.undecided_ops.begin(), v.undecided_ops.end(),
                                       [&](const auto& u) { return u.first == op->name; });
    // The ops without examples are exactly those the config says are not decided per call.
    ASSERT_EQ(params.ok(), !undecided) << params.status();
    if (!params.ok()) {
      EXPECT_EQ(params.status().code(), absl::StatusCode::kFailedPrecondition);
      continue;
    }
    std::set<std::string> own;
    for (const ExampleParam& p : *params) {
      SCOPED_TRACE(p.name);
      for (const std::string& fact : p.facts) {
        const config::FactSpec* spec = FindFact(v, fact);
        ASSERT_NE(spec, nullptr) << fact << " is not a fact of " << m.name();
        EXPECT_EQ(p.kind == Kind::kInteger, spec->kind == config::FactKind::kInteger) << fact;
        own.insert(fact);
      }
      if (const config::FactSpec* named = FindFact(v, p.name)) {
        EXPECT_NE(std::find(p.facts.begin(), p.facts.end(), p.name), p.facts.end())
            << "named after a fact it does not set";
        if (named->kind == config::FactKind::kName) {
          std::vector<std::string> expected;
          for (const auto& group : named->groups) expected.push_back(group.first);
          expected.insert(expected.end(), named->values.begin(), named->values.end());
          EXPECT_EQ(p.values, expected);
        }
      }
      if (p.kind == Kind::kName) {
        EXPECT_FALSE(p.values.empty());
      }
    }
    const OpDescription d = BuildAndDescribe(m, *op, {});
    const config::OpFacts facts = d.Facts();
    for (int i = 0; i < facts.num_facts; ++i) {
      EXPECT_EQ(own.count(std::string(facts.facts[i].name)), 1u)
          << "the op feeds the fact " << facts.facts[i].name << " but no parameter sets it";
    }
    covered.insert(own.begin(), own.end());
  }
  for (const config::FactSpec& f : v.facts)
    EXPECT_EQ(covered.count(f.name), 1u) << "no example sets " << f.name;
}

// Random values of the fact parameters (the others at their defaults, which
// follow them) come back as the described op's facts; random values of every
// parameter build a well-formed op.
TEST_P(ExampleOpsTest, ValuesRoundTripThroughTheDescription) {
  const InterfaceModule& m = *GetParam();
  const config::InterfaceVocabulary v = m.Vocabulary();
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE(absl::StrCat("seed ", seed));
  std::mt19937_64 rng(seed);
  for (const OpSpec* op : m.ops()) {
    absl::StatusOr<std::vector<ExampleParam>> params = m.ExampleParams(*op);
    if (!params.ok()) continue;
    for (int round = 0; round < 200; ++round) {
      ExampleValueMap facts_only, all;
      for (const ExampleParam& p : *params) {
        all[p.name] = RandomValue(p, rng);
        if (!p.facts.empty()) facts_only[p.name] = RandomValue(p, rng);
      }
      SCOPED_TRACE(absl::StrCat(m.name(), " ", op->name, " round ", round));
      const OpDescription d = BuildAndDescribe(m, *op, facts_only);
      if (d.spec == nullptr) return;
      for (const ExampleParam& p : *params) {
        for (const std::string& fact : p.facts) {
          EXPECT_TRUE(FactIs(d, *FindFact(v, fact), facts_only.at(p.name)))
              << "parameter " << p.name;
        }
      }
      if (BuildAndDescribe(m, *op, all).spec == nullptr) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryInterface, ExampleOpsTest,
                         ::testing::ValuesIn(InterfaceModules().begin(), InterfaceModules().end()),
                         [](const auto& info) { return std::string(info.param->name()); });

// `teplug explain` gives a parameter name one flag for every op: the name
// must mean one kind of value in every module.
TEST(ExampleOpsNamesTest, ANameHasOneKindAcrossInterfaces) {
  std::map<std::string, std::pair<Kind, std::string>> seen;  // name -> kind, where first seen
  for (const ExampleInterface& i : ExampleInterfaces()) {
    for (const std::string& op : i.ops) {
      absl::StatusOr<std::vector<ExampleParam>> params = ExampleParams(i.name, op);
      ASSERT_TRUE(params.ok()) << params.status();
      for (const ExampleParam& p : *params) {
        const std::string where = absl::StrCat(i.name, " ", op);
        auto [it, first] = seen.insert({p.name, {p.kind, where}});
        EXPECT_TRUE(first || it->second.first == p.kind)
            << p.name << " of " << where << " is another kind than in " << it->second.second;
      }
    }
  }
  EXPECT_GT(seen.size(), 10u);
}

// Values an op does not take are refused with the parameter named.
TEST(ExampleOpsErrorsTest, NamesTheParameterAndWhatItAccepts) {
  absl::StatusOr<std::unique_ptr<ExampleOp>> op =
      BuildExampleOp("gemm", "gemm", {{"head_dim", "64"}}, Cpu());
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().message().substr(0, 43), "gemm gemm has no parameter \"head_dim\"; its ");
  op = BuildExampleOp("norm", "forward", {{"norm_type", "batchnorm"}}, Cpu());
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(
      op.status().message(),
      "bad value \"batchnorm\" for norm_type of norm forward: expected one of layernorm, rmsnorm");
  op = BuildExampleOp("gemm", "gemm", {{"m", "0"}}, Cpu());
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().message(),
            "bad value \"0\" for m of gemm gemm: expected an integer from 1 to 1099511627776");
  op = BuildExampleOp("gemmm", "gemm", {}, Cpu());
  EXPECT_EQ(op.status().code(), absl::StatusCode::kNotFound);
  op = BuildExampleOp("collective", "all_reduce", {}, Cpu());
  EXPECT_EQ(op.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(op.status().message().find("decided once per communicator"), std::string::npos);
}

}  // namespace
}  // namespace teplug::core
