// The record's text is produced from its verdicts' values: every stage, every
// reason a candidate can be rejected for, every way one can be chosen or
// outranked, and the strict source, each formatted from a hand-built verdict
// into the exact text `teplug explain`, strict errors and logs show. Also:
// the device-name spelling applies to reasons only, and a record read from
// many threads at once yields the same text (it is immutable; tsan checks).
#include "core/select/decision_record.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/config/config_loader.h"
#include "core/select/testing/gemm_implementation.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

using Why = CandidateVerdict::Why;

TeplugDeviceSupport Cuda() { return {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_ANY, 0, 0}; }

TeplugDevice HostCpu() {
  TeplugDevice d{};
  d.struct_size = sizeof(TeplugDevice);
  d.kind = TEPLUG_DEVICE_CPU;
  return d;
}

std::shared_ptr<const Implementation> Impl(const std::string& provider) {
  return TestGemmImplementation(provider, {Cuda()}, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32), nullptr, 0);
}

config::CompiledRule Rule(const std::string& name, int line) {
  config::CompiledRule r;
  r.name = name;
  r.source_name = "cfg.textproto";
  r.line = line;
  return r;
}

// A record over the implementations of providers "a", "b", "c" with a config
// read from cfg.textproto; verdicts are added by each test.
class DecisionRecordTest : public ::testing::Test {
 protected:
  DecisionRecordTest() {
    rec_.interface_name = "IGemm/1";
    rec_.op_summary = "gemm fp32 2x2x2 on cpu:0";
    rec_.pool = std::make_shared<const ImplementationList>(ImplementationList{Impl("a"), Impl("b"), Impl("c")});
    rec_.config = config::ConfigSnapshot::Create(*config::ParseConfigText("", "cfg.textproto"), 1);
  }
  CandidateVerdict Candidate(size_t index, core::Verdict verdict, int32_t priority = 0) const {
    CandidateVerdict v;
    v.impl = (*rec_.pool)[index].get();
    v.index = index;
    v.verdict = verdict;
    v.priority = priority;
    return v;
  }
  CandidateVerdict Rejected(size_t index, Stage stage, Why why) const {
    CandidateVerdict v = Candidate(index, core::Verdict::kRejected);
    v.stage = stage;
    v.why = why;
    return v;
  }
  // A verdict refused for `r`, appended to the record's refusals.
  CandidateVerdict RefusedBy(size_t index, Stage stage, const Refusal& r) {
    CandidateVerdict v = Rejected(index, stage, Why::kRefused);
    v.reason = static_cast<uint32_t>(rec_.refusals.size());
    rec_.refusals.push_back(r);
    return v;
  }
  // The reason of the record's only rejected candidate `v` (beside a chosen "a").
  std::string ReasonOfRejected(const CandidateVerdict& v) {
    rec_.candidates = {Candidate(0, core::Verdict::kChosen), v};
    return rec_.Reason(rec_.candidates[1]);
  }

  DecisionRecord rec_;
};

TEST_F(DecisionRecordTest, EveryStageAndVerdictHasItsName) {
  EXPECT_STREQ(StageName(Stage::kRequest), "request");
  EXPECT_STREQ(StageName(Stage::kConfig), "config");
  EXPECT_STREQ(StageName(Stage::kDevice), "device");
  EXPECT_STREQ(StageName(Stage::kCapability), "capability");
  EXPECT_STREQ(StageName(Stage::kSupports), "supports");
  EXPECT_STREQ(StageName(Stage::kRanking), "ranking");
  EXPECT_STREQ(VerdictName(core::Verdict::kChosen), "chosen");
  EXPECT_STREQ(VerdictName(core::Verdict::kOutranked), "outranked");
  EXPECT_STREQ(VerdictName(core::Verdict::kRejected), "rejected");
}

TEST_F(DecisionRecordTest, EachRejectionFormatsItsReasonFromItsValues) {
  rec_.requested_provider = "a";
  EXPECT_EQ(ReasonOfRejected(Rejected(1, Stage::kRequest, Why::kNotRequested)), "not the requested provider \"a\"");
  EXPECT_EQ(ReasonOfRejected(Rejected(1, Stage::kConfig, Why::kDisabled)),
            "provider disabled in config cfg.textproto");

  const config::CompiledRule deny = Rule("no-b", 3);
  CandidateVerdict denied = Rejected(1, Stage::kConfig, Why::kDenied);
  denied.rule = &deny;
  EXPECT_EQ(ReasonOfRejected(denied), "denied");
  EXPECT_EQ(rec_.Rule(rec_.candidates[1]), "config rule \"no-b\" (cfg.textproto:3)");

  const config::CompiledRule allow = Rule("only-a", 5);
  CandidateVerdict not_allowed = Rejected(1, Stage::kConfig, Why::kNotAllowed);
  not_allowed.rule = &allow;
  EXPECT_EQ(ReasonOfRejected(not_allowed), "not in the allow list");
  EXPECT_EQ(rec_.Rule(rec_.candidates[1]), "config rule \"only-a\" (cfg.textproto:5)");

  CandidateVerdict device =
      RefusedBy(1, Stage::kDevice, *CheckDevice(rec_.pool->at(1)->capability.devices, HostCpu()));
  EXPECT_EQ(ReasonOfRejected(device), "device cpu:0 not in {cuda}");
  EXPECT_EQ(rec_.Rule(rec_.candidates[1]), "");

  CandidateVerdict capability = RefusedBy(
      1, Stage::kCapability, ValueRefusal(Refusal::Kind::kAbove, "head_dim_qk", 320, 256));
  EXPECT_EQ(ReasonOfRejected(capability), "head_dim_qk 320 > max 256");

  CandidateVerdict declined = Rejected(1, Stage::kSupports, Why::kExplained);
  declined.reason = static_cast<uint32_t>(rec_.explanations.size());
  rec_.explanations.push_back("no tuned kernel");
  EXPECT_EQ(ReasonOfRejected(declined), "no tuned kernel");
}

TEST_F(DecisionRecordTest, ChosenSaysWhyAndWhetherItWasAlone) {
  rec_.candidates = {Candidate(0, core::Verdict::kChosen, 7)};
  EXPECT_EQ(rec_.Reason(rec_.candidates[0]), "priority 7 (the only candidate that accepts the op)");
  rec_.candidates.push_back(Rejected(1, Stage::kConfig, Why::kDenied));
  EXPECT_EQ(rec_.Reason(rec_.candidates[0]), "priority 7 (the only candidate that accepts the op)");
  rec_.candidates.insert(rec_.candidates.begin() + 1, Candidate(2, core::Verdict::kOutranked, 1));
  EXPECT_EQ(rec_.Reason(rec_.candidates[0]), "priority 7");
  rec_.candidates[0].priority_from_config = true;
  EXPECT_EQ(rec_.Reason(rec_.candidates[0]), "priority 7 (config override)");
  EXPECT_EQ(rec_.Rule(rec_.candidates[0]), "");

  const config::CompiledRule prefer = Rule("pick-a", 9);
  rec_.prefer_rule = &prefer;
  rec_.candidates[0].prefer_rank = 1;
  EXPECT_EQ(rec_.Reason(rec_.candidates[0]), "preferred (#2) by config rule \"pick-a\" (cfg.textproto:9)");
  EXPECT_EQ(rec_.Rule(rec_.candidates[0]), "config rule \"pick-a\" (cfg.textproto:9)");
}

TEST_F(DecisionRecordTest, OutrankedNamesTheWinnerAndWhatDecided) {
  const config::CompiledRule prefer = Rule("pick-a", 9);
  rec_.prefer_rule = &prefer;
  rec_.candidates = {Candidate(0, core::Verdict::kChosen, 1), Candidate(1, core::Verdict::kOutranked, 5)};
  CandidateVerdict& winner = rec_.candidates[0];
  const CandidateVerdict& other = rec_.candidates[1];
  winner.prefer_rank = 0;
  EXPECT_EQ(rec_.Reason(other), "outranked by a/gemm (preferred by config rule \"pick-a\" (cfg.textproto:9))");
  rec_.candidates[1].prefer_rank = 1;
  EXPECT_EQ(rec_.Reason(other),
            "outranked by a/gemm (earlier in the prefer list of config rule \"pick-a\" (cfg.textproto:9))");
  winner.prefer_rank.reset();
  rec_.candidates[1].prefer_rank.reset();
  winner.priority = 9;
  EXPECT_EQ(rec_.Reason(other), "outranked by a/gemm (priority 9 > 5)");
  winner.priority = 5;
  EXPECT_EQ(rec_.Reason(other), "outranked by a/gemm (same priority 5, name order)");
  EXPECT_EQ(rec_.Rule(other), "");
}

TEST_F(DecisionRecordTest, ARequestedProviderExemptFromAnAllowListSaysSo) {
  config::CompiledRule pin = Rule("pin", 1);
  pin.allow = {"b", "c"};
  rec_.candidates = {Candidate(0, core::Verdict::kChosen, 2)};
  rec_.candidates[0].allow_exempted_by = &pin;
  EXPECT_EQ(rec_.Reason(rec_.candidates[0]),
            "priority 2 (the only candidate that accepts the op); allowed because requested explicitly "
            "(config rule \"pin\" (cfg.textproto:1) allows only b, c)");
}

TEST_F(DecisionRecordTest, StrictSourceNamesWhatDecided) {
  EXPECT_EQ(rec_.StrictSource(), "");
  rec_.strict_by = DecisionRecord::StrictBy::kApi;
  EXPECT_EQ(rec_.StrictSource(), "API option");
  rec_.strict_by = DecisionRecord::StrictBy::kConfig;
  EXPECT_EQ(rec_.StrictSource(), "config cfg.textproto");
  const config::CompiledRule strict = Rule("strict-gemm", 4);
  rec_.strict_by = DecisionRecord::StrictBy::kRule;
  rec_.strict_rule = &strict;
  EXPECT_EQ(rec_.StrictSource(), "config rule \"strict-gemm\" (cfg.textproto:4)");
}

// Renames "cpu" in whatever it is given, to see where it is applied.
class UpperCpu : public ReasonSpelling {
 public:
  std::string Rename(absl::string_view text) const override {
    std::string out(text);
    for (size_t at = out.find("cpu"); at != std::string::npos; at = out.find("cpu", at)) out.replace(at, 3, "CPU");
    return out;
  }
};

TEST_F(DecisionRecordTest, TheSpellingAppliesToReasonsOnly) {
  rec_.spelling = std::make_shared<const UpperCpu>();
  CandidateVerdict device =
      RefusedBy(1, Stage::kDevice, *CheckDevice(rec_.pool->at(1)->capability.devices, HostCpu()));
  const config::CompiledRule deny = Rule("cpu-rule", 2);
  device.rule = &deny;
  EXPECT_EQ(ReasonOfRejected(device), "device CPU:0 not in {cuda}");
  EXPECT_EQ(rec_.Rule(rec_.candidates[1]), "config rule \"cpu-rule\" (cfg.textproto:2)");
  EXPECT_EQ(rec_.op_summary, "gemm fp32 2x2x2 on cpu:0");
}

TEST_F(DecisionRecordTest, FormatAndOneLineLayOutEveryVerdict) {
  rec_.strict = true;
  rec_.strict_by = DecisionRecord::StrictBy::kApi;
  rec_.requested_provider = "";
  const config::CompiledRule deny = Rule("no-c", 3);
  CandidateVerdict denied = Rejected(2, Stage::kConfig, Why::kDenied);
  denied.rule = &deny;
  rec_.candidates = {Candidate(0, core::Verdict::kChosen, 3), Candidate(1, core::Verdict::kOutranked, 1), denied};
  EXPECT_EQ(rec_.Format(),
            "IGemm/1 gemm fp32 2x2x2 on cpu:0\n"
            "strict: yes (API option)\n"
            "  candidate  verdict    priority  reason\n"
            "  a/gemm     chosen            3  [ranking] priority 3\n"
            "  b/gemm     outranked         1  [ranking] outranked by a/gemm (priority 3 > 1)\n"
            "  c/gemm     rejected          0  [config] denied\n"
            "                                  by config rule \"no-c\" (cfg.textproto:3)\n");
  EXPECT_EQ(rec_.OneLine(), "gemm fp32 2x2x2 on cpu:0 -> a/gemm: priority 3 (1 outranked, 1 rejected)");

  rec_.candidates = {denied};
  rec_.strict = false;
  EXPECT_EQ(rec_.Format(),
            "IGemm/1 gemm fp32 2x2x2 on cpu:0\n"
            "  candidate  verdict    priority  reason\n"
            "  c/gemm     rejected          0  [config] denied\n"
            "                                  by config rule \"no-c\" (cfg.textproto:3)\n"
            "  => no provider can serve this op\n");
  EXPECT_EQ(rec_.OneLine(), "gemm fp32 2x2x2 on cpu:0 -> no provider (1 rejected)");
}

// Text is produced on every read from values that never change: threads
// sharing a record (as they share a cached decision) read it concurrently.
TEST_F(DecisionRecordTest, ConcurrentReadersSeeTheSameText) {
  rec_.spelling = std::make_shared<const UpperCpu>();
  CandidateVerdict device =
      RefusedBy(1, Stage::kDevice, *CheckDevice(rec_.pool->at(1)->capability.devices, HostCpu()));
  rec_.candidates = {Candidate(0, core::Verdict::kChosen, 3), device};
  const DecisionRecord& shared = rec_;
  const std::string expected = shared.Format();
  std::vector<std::string> seen(4);
  std::vector<std::thread> readers;
  for (size_t t = 0; t < seen.size(); ++t) {
    readers.emplace_back([&shared, &seen, t] {
      for (int i = 0; i < 200; ++i) seen[t] = shared.Format() + shared.OneLine();
    });
  }
  for (std::thread& r : readers) r.join();
  for (const std::string& s : seen) EXPECT_EQ(s, expected + shared.OneLine());
}

}  // namespace
}  // namespace teplug::core
