// BuildSignature's minimums at their bounds: every struct (args, tensor,
// quantization, device, attention params) is keyed at exactly its v1 size and
// not keyed one byte short, and tensor ranks 0..8 are keyed while -1 and 9
// are not. (Far-off sizes are in op_signature_test.cc.)
#include <set>
#include <string>
#include <vector>

#include "core/ops/op_signature.h"
#include "core/ops/attention.h"
#include "core/ops/collective.h"
#include "core/ops/gemm.h"
#include "core/ops/modules.h"
#include "core/ops/quantizer.h"
#include "gtest/gtest.h"
#include "teplug/teplug.h"

namespace teplug::core {
namespace {

// A GEMM whose every struct is exactly its v1 size.
struct MinimalGemm {
  TeplugTensor a{}, b{}, d{};
  TeplugQuantization quant{};
  TeplugDevice device{};
  TeplugGemmArgs args{};

  MinimalGemm() {
    for (TeplugTensor* t : {&a, &b, &d}) {
      t->struct_size = TEPLUG_STRUCT_SIZE(TeplugTensor, quant);
      t->dtype = TEPLUG_DTYPE_FP32;
      t->rank = 2;
      t->shape[0] = t->shape[1] = 4;
    }
    quant.struct_size = TEPLUG_STRUCT_SIZE(TeplugQuantization, mode);
    quant.mode = TEPLUG_SCALING_PER_TENSOR;
    a.quant = &quant;
    device.struct_size = TEPLUG_STRUCT_SIZE(TeplugDevice, arch);
    device.kind = TEPLUG_DEVICE_CUDA;
    a.device = &device;
    args.struct_size = TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream);
    args.a = &a;
    args.b = &b;
    args.d = &d;
  }
  MinimalGemm(const MinimalGemm&) = delete;
  MinimalGemm& operator=(const MinimalGemm&) = delete;

  bool Keyable() {
    OpSignature sig;
    return BuildSignature(GemmModule(), TEPLUG_OP_GEMM, &args, &sig);
  }
};

TEST(OpSignatureBoundariesTest, EveryGemmStructIsKeyedAtItsV1SizeAndNotOneByteShort) {
  MinimalGemm at_v1;
  EXPECT_TRUE(at_v1.Keyable());
  struct Case {
    const char* what;
    size_t* (*field)(MinimalGemm&);
  };
  for (const Case& c : {Case{"args", [](MinimalGemm& g) { return &g.args.struct_size; }},
                        Case{"a", [](MinimalGemm& g) { return &g.a.struct_size; }},
                        Case{"b", [](MinimalGemm& g) { return &g.b.struct_size; }},
                        Case{"d", [](MinimalGemm& g) { return &g.d.struct_size; }},
                        Case{"quantization", [](MinimalGemm& g) { return &g.quant.struct_size; }},
                        Case{"device", [](MinimalGemm& g) { return &g.device.struct_size; }}}) {
    MinimalGemm g;
    *c.field(g) -= 1;
    EXPECT_FALSE(g.Keyable()) << c.what << " one byte short";
  }
}

TEST(OpSignatureBoundariesTest, RanksFromZeroToEightAreKeyed) {
  TeplugTensor bias{};
  bias.struct_size = sizeof bias;
  bias.dtype = TEPLUG_DTYPE_FP32;
  for (int32_t rank : {0, 1, TEPLUG_MAX_RANK}) {
    MinimalGemm g;
    bias.rank = rank;
    g.args.bias = &bias;
    EXPECT_TRUE(g.Keyable()) << rank;
  }
  for (int32_t rank : {-1, TEPLUG_MAX_RANK + 1}) {
    MinimalGemm g;
    bias.rank = rank;
    g.args.bias = &bias;
    EXPECT_FALSE(g.Keyable()) << rank;
  }
}

TEST(OpSignatureBoundariesTest, AttentionParamsAreKeyedAtTheirV1Size) {
  TeplugTensor t{};
  t.struct_size = sizeof t;
  t.dtype = TEPLUG_DTYPE_BF16;
  t.rank = 4;
  TeplugAttentionParams params{};
  params.struct_size = TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0);
  TeplugAttentionFwdArgs args{};
  args.struct_size = TEPLUG_STRUCT_SIZE(TeplugAttentionFwdArgs, stream);
  args.params = &params;
  args.q = args.k = args.v = &t;
  args.o = &t;
  OpSignature sig;
  EXPECT_TRUE(BuildSignature(AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, &args, &sig));
  params.struct_size -= 1;
  EXPECT_FALSE(BuildSignature(AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, &args, &sig));
  params.struct_size += 1;
  args.struct_size -= 1;
  EXPECT_FALSE(BuildSignature(AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, &args, &sig));
}

// Every cached op's args: keyed at exactly the v1 size, not one byte short.
TEST(OpSignatureBoundariesTest, EveryCachedOpsArgsAreKeyedAtTheirV1Size) {
  TeplugTensor t{};
  t.struct_size = sizeof t;
  t.dtype = TEPLUG_DTYPE_BF16;
  t.rank = 2;
  TeplugQuantization quant{};
  quant.struct_size = sizeof quant;
  quant.mode = TEPLUG_SCALING_PER_TENSOR;
  TeplugTensor quantized = t;
  quantized.dtype = TEPLUG_DTYPE_FP8_E4M3;
  quantized.quant = &quant;
  TeplugAttentionParams params{};
  params.struct_size = sizeof params;

  TeplugAttentionBwdArgs bwd{};
  bwd.struct_size = TEPLUG_STRUCT_SIZE(TeplugAttentionBwdArgs, stream);
  bwd.params = &params;
  bwd.q = bwd.k = bwd.v = bwd.o = bwd.d_o = bwd.softmax_lse = &t;
  bwd.dq = bwd.dk = bwd.dv = &t;
  TeplugQuantizeArgs quantize{};
  quantize.struct_size = TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, stream);
  quantize.input = &t;
  quantize.output = &quantized;
  TeplugDequantizeArgs dequantize{};
  dequantize.struct_size = TEPLUG_STRUCT_SIZE(TeplugDequantizeArgs, stream);
  dequantize.input = &quantized;
  dequantize.output = &t;

  struct Case {
    const char* what;
    const InterfaceModule& kind;
    int32_t op;
    size_t* struct_size;
    const void* args;
  };
  for (const Case& c : {Case{"backward", AttentionModule(), TEPLUG_OP_ATTENTION_BACKWARD, &bwd.struct_size, &bwd},
                        Case{"quantize", QuantizerModule(), TEPLUG_OP_QUANTIZE, &quantize.struct_size, &quantize},
                        Case{"dequantize", QuantizerModule(), TEPLUG_OP_DEQUANTIZE, &dequantize.struct_size,
                             &dequantize}}) {
    OpSignature sig;
    EXPECT_TRUE(BuildSignature(c.kind, c.op, c.args, &sig)) << c.what;
    *c.struct_size -= 1;
    EXPECT_FALSE(BuildSignature(c.kind, c.op, c.args, &sig)) << c.what << " one byte short";
    *c.struct_size += 1;
  }
}

// Each GEMM flag is a key bit of its own: all 32 combinations of the four
// flags and two epilogues give distinct keys (square operands, so every
// combination is a valid call).
TEST(OpSignatureBoundariesTest, EveryGemmFlagCombinationHasItsOwnKey) {
  std::set<std::vector<int64_t>> keys;
  for (int bits = 0; bits < 32; ++bits) {
    MinimalGemm g;
    g.args.trans_a = (bits >> 0) & 1;
    g.args.trans_b = (bits >> 1) & 1;
    g.args.accumulate = (bits >> 2) & 1;
    g.args.use_split_accumulator = (bits >> 3) & 1;
    g.args.epilogue = (bits >> 4) & 1 ? TEPLUG_EPILOGUE_GELU : TEPLUG_EPILOGUE_NONE;
    OpSignature sig;
    ASSERT_TRUE(BuildSignature(GemmModule(), TEPLUG_OP_GEMM, &g.args, &sig)) << bits;
    keys.insert(std::vector<int64_t>(sig.words(), sig.words() + sig.size()));
  }
  EXPECT_EQ(keys.size(), 32u);
}

}  // namespace
}  // namespace teplug::core
