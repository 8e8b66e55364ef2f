// An op has one spelling: its name within its interface, the word a config
// rule's `ops` uses. Wherever an op is named outside its interface (op
// summaries in records, logs and errors) the interface name comes first,
// exactly as a rule writes `interfaces` and `ops`. These tests hold every
// module's ops, their summaries, the SDK's names (teplug/sdk/names.hpp) and
// the config to that one spelling.
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/config/config_loader.h"
#include "core/config/rule_vocabulary.h"
#include "core/config/vocabulary_lookup.h"
#include "core/ops/interface_module.h"
#include "gtest/gtest.h"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

// Args for an op without examples (a collective call), built from its field
// table alone, so such ops of every module (present and future) are described
// without a hand-written builder:
// each tensor is an fp32 [4, 4] host tensor with per-tensor scaling, each
// sub-struct and the args struct claim a size past their v1 layout, and
// every scalar is zero (the first value of each enum).
class ArgsFromTable {
 public:
  explicit ArgsFromTable(const OpSpec& spec) {
    quant_.struct_size = sizeof(quant_);
    quant_.mode = TEPLUG_SCALING_PER_TENSOR;
    tensor_.struct_size = sizeof(tensor_);
    tensor_.dtype = TEPLUG_DTYPE_FP32;
    tensor_.rank = 2;
    tensor_.shape[0] = 4;
    tensor_.shape[1] = 4;
    tensor_.strides[0] = 4;
    tensor_.strides[1] = 1;
    device_.struct_size = sizeof(device_);
    device_.kind = TEPLUG_DEVICE_CPU;
    tensor_.device = &device_;
    tensor_.quant = &quant_;
    SetSize(args_.data());
    for (const Field& f : spec.fields) {
      char* base = f.via == kNone ? args_.data() : SubStruct(f.via);
      if (f.role == FieldRole::kTensor) {
        const TeplugTensor* t = &tensor_;
        std::memcpy(base + f.offset, &t, sizeof(t));
      } else if (f.role == FieldRole::kStruct) {
        subs_.emplace_back(kBytes);
        subs_.back().offset = f.offset;
        SetSize(subs_.back().bytes.data());
        const char* p = subs_.back().bytes.data();
        std::memcpy(base + f.offset, &p, sizeof(p));
      }
    }
  }
  const void* get() const { return args_.data(); }

 private:
  static constexpr size_t kBytes = 1024;  // larger than any v1 args struct
  struct Sub {
    explicit Sub(size_t n) : bytes(n, 0) {}
    size_t offset = 0;
    std::vector<char> bytes;
  };
  static void SetSize(char* at) {
    const size_t size = kBytes;
    std::memcpy(at, &size, sizeof(size));
  }
  char* SubStruct(size_t pointer_offset) {
    for (Sub& s : subs_) {
      if (s.offset == pointer_offset) return s.bytes.data();
    }
    ADD_FAILURE() << "a field follows a struct pointer at offset " << pointer_offset << " the table lacks";
    return args_.data();
  }

  std::vector<char> args_ = std::vector<char>(kBytes, 0);
  std::vector<Sub> subs_;  // moving a Sub keeps its bytes where they are
  TeplugQuantization quant_{};
  TeplugDevice device_{};
  TeplugTensor tensor_{};

 public:
  ArgsFromTable(const ArgsFromTable&) = delete;
  ArgsFromTable& operator=(const ArgsFromTable&) = delete;
};

TEST(OpNamesTest, EverySummaryStartsWithTheInterfaceAndOpNamesAConfigRuleUses) {
  for (const InterfaceModule* module : InterfaceModules()) {
    for (const OpSpec* op : module->ops()) {
      SCOPED_TRACE(absl::StrCat(module->name(), " ", op->name));
      // The module's own example where it has one (its builder knows what a
      // field the table marks per-call, like the device IDevice opens, must
      // hold); the table-only args otherwise (ops not decided per call).
      ArgsFromTable args(*op);
      const void* raw = args.get();
      ExampleOp example;
      example.device = sdk::Versioned<TeplugDevice>();
      example.device.kind = TEPLUG_DEVICE_CPU;
      if (absl::StatusOr<std::vector<ExampleParam>> params = module->ExampleParams(*op); params.ok()) {
        absl::StatusOr<ExampleValues> values = ExampleValues::Check(*params, {}, op->name);
        ASSERT_TRUE(values.ok()) << values.status();
        module->BuildExample(*op, *values, &example);
        raw = example.args;
      }
      absl::StatusOr<OpDescription> d = DescribeOp(*module, op->op, raw);
      ASSERT_TRUE(d.ok()) << d.status();
      EXPECT_TRUE(absl::StartsWith(d->summary, absl::StrCat(module->name(), " ", op->name, " ")))
          << d->summary;
      const config::OpFacts facts = d->Facts();
      EXPECT_EQ(facts.interface_name, module->name());
      EXPECT_EQ(facts.op, op->name);
    }
  }
}

TEST(OpNamesTest, TheConfigAcceptsEveryOpByItsNameWithinItsInterface) {
  for (const InterfaceModule* module : InterfaceModules()) {
    const config::InterfaceVocabulary* vocabulary = config::FindInterface(config::RuleVocabulary(), module->name());
    ASSERT_NE(vocabulary, nullptr) << module->name();
    for (const OpSpec* op : module->ops()) {
      SCOPED_TRACE(absl::StrCat(module->name(), " ", op->name));
      EXPECT_TRUE(config::HasOp(*vocabulary, op->name));
      const std::string text = absl::StrCat("rules { name: \"r\" deny: \"x\" match { interfaces: \"", module->name(),
                                            "\" ops: \"", op->name, "\" } }\n");
      absl::StatusOr<config::ValidatedConfig> parsed = config::ParseConfigText(text, "t");
      if (config::UndecidedOpNote(*vocabulary, op->name) != nullptr) {
        // A known op that rules cannot match per call: refused as such, not as an unknown name.
        ASSERT_FALSE(parsed.ok());
        EXPECT_TRUE(absl::StrContains(parsed.status().message(), "is not decided per call"))
            << parsed.status();
      } else {
        EXPECT_TRUE(parsed.ok()) << parsed.status();
      }
    }
  }
}

TEST(OpNamesTest, TheSdkNamesEveryTeplugOpAsItsModuleDoes) {
  for (int32_t op = TEPLUG_OP_GEMM; op < TEPLUG_OP_COUNT_; ++op) {
    SCOPED_TRACE(absl::StrCat("TeplugOp ", op));
    const InterfaceModule* module = nullptr;
    for (const InterfaceModule* m : InterfaceModules()) {
      if (absl::string_view(m->name()) == sdk::OpInterfaceName(op)) module = m;
    }
    ASSERT_NE(module, nullptr) << "no module named " << sdk::OpInterfaceName(op);
    const OpSpec* spec = module->FindOp(op);
    ASSERT_NE(spec, nullptr) << module->name() << " has no op " << op;
    EXPECT_STREQ(sdk::OpName(op), spec->name);
    EXPECT_EQ(module->FindOp(sdk::OpName(op)), spec);
  }
  EXPECT_STREQ(sdk::OpName(TEPLUG_OP_ATTENTION_FORWARD), "forward");
  EXPECT_STREQ(sdk::OpInterfaceName(TEPLUG_OP_ATTENTION_FORWARD), "attention");
  EXPECT_STREQ(sdk::OpName(TEPLUG_OP_COUNT_), "unknown");
  EXPECT_STREQ(sdk::OpInterfaceName(0), "unknown");
}

}  // namespace
}  // namespace teplug::core
