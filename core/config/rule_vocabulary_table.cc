// The rule vocabulary of today's four interfaces. Dtype, layout, mask and
// scaling names are the ABI's own spellings (teplug/sdk/names.hpp), the
// names the core gives an op's facts, so the two cannot drift apart.
#include <string>
#include <utility>
#include <vector>

#include "core/config/rule_vocabulary.h"
#include "teplug/sdk/names.hpp"

namespace teplug::config {
namespace {

FactSpec NameFact(std::string name, std::string doc, std::vector<std::string> values) {
  FactSpec fact;
  fact.name = std::move(name);
  fact.kind = FactKind::kName;
  fact.doc = std::move(doc);
  fact.values = std::move(values);
  return fact;
}

FactSpec IntegerFact(std::string name, std::string doc) {
  FactSpec fact;
  fact.name = std::move(name);
  fact.kind = FactKind::kInteger;
  fact.doc = std::move(doc);
  return fact;
}

// The QKV layouts, with each format ("bshd") as a group of its layouts.
FactSpec LayoutFact() {
  FactSpec fact = NameFact("layout", "QKV layout; a format (sbhd, bshd, thd) stands for its layouts",
                           sdk::LayoutNames());
  for (const char* format : {"sbhd", "bshd", "thd"}) {
    std::vector<std::string> layouts;
    for (int32_t layout = 0; layout < TEPLUG_LAYOUT_COUNT_; ++layout) {
      if (std::string(sdk::LayoutFormat(layout)) == format) layouts.emplace_back(sdk::LayoutName(layout));
    }
    fact.groups.emplace_back(format, std::move(layouts));
  }
  return fact;
}

std::vector<std::string> ScalingNames() {
  std::vector<std::string> names;
  for (int32_t mode = 0; std::string(sdk::ScalingName(mode)) != "unknown"; ++mode) {
    names.emplace_back(sdk::ScalingName(mode));
  }
  return names;
}

InterfaceVocabulary Gemm() {
  InterfaceVocabulary v;
  v.name = "gemm";
  v.display_name = "IGemm/1";
  v.ops = {"gemm"};
  const std::vector<std::string> dtypes = sdk::DTypeNames();
  v.facts = {
      NameFact("dtype", "A's element type (the same as a_dtype)", dtypes),
      NameFact("a_dtype", "A's element type", dtypes),
      NameFact("b_dtype", "B's element type", dtypes),
      NameFact("c_dtype", "C's element type (unknown when there is no C)", dtypes),
      NameFact("d_dtype", "D's (the output's) element type", dtypes),
      IntegerFact("m", "rows of op(A) and of D"),
      IntegerFact("n", "columns of op(B) and of D"),
      IntegerFact("k", "the reduced dimension: columns of op(A), rows of op(B)"),
  };
  return v;
}

InterfaceVocabulary Attention() {
  InterfaceVocabulary v;
  v.name = "attention";
  v.display_name = "IAttention/1";
  v.ops = {"forward", "backward"};
  v.facts = {
      NameFact("dtype", "Q's element type", sdk::DTypeNames()),
      LayoutFact(),
      NameFact("mask_type", "attention mask type", sdk::MaskNames()),
      IntegerFact("head_dim", "the larger of the Q/K and V head dimensions"),
      IntegerFact("seq_len", "the larger of the maximum Q and KV sequence lengths"),
  };
  return v;
}

InterfaceVocabulary Quantizer() {
  InterfaceVocabulary v;
  v.name = "quantizer";
  v.display_name = "IQuantizer/1";
  v.ops = {"quantize", "dequantize"};
  v.facts = {
      NameFact("dtype", "the quantized element type: the output's for quantize, the input's for dequantize",
               sdk::DTypeNames()),
      NameFact("scaling_mode", "the quantized tensor's scaling mode", ScalingNames()),
  };
  return v;
}

InterfaceVocabulary Collective() {
  InterfaceVocabulary v;
  v.name = "collective";
  v.display_name = "ICollective/1";
  v.ops = {"comm_create", "all_reduce", "all_gather", "reduce_scatter", "broadcast", "send", "recv", "barrier"};
  v.facts = {IntegerFact("world_size", "comm_create: the number of ranks in the communicator")};
  const std::string note =
      "collectives are decided once per communicator, at comm_create, and every call on the "
      "communicator goes to that implementation; match ops: \"comm_create\" (or leave ops out) instead";
  for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "send", "recv", "barrier"}) {
    v.undecided_ops.emplace_back(op, note);
  }
  return v;
}

}  // namespace

const Vocabulary& RuleVocabulary() {
  static const Vocabulary* vocabulary = new Vocabulary{Attention(), Gemm(), Quantizer(), Collective()};
  return *vocabulary;
}

}  // namespace teplug::config
