// DescribeOp at its boundaries: every struct_size minimum (args, tensors,
// attention params, devices) at the v1 size (accepted) and one byte short
// (refused, naming the struct and field), tensor ranks 0..8, the enum ranges
// of layouts, masks, bias types and collective ops at both ends, and the
// facts config rules match on (head_dim and seq_len are the larger of each
// pair, clamped to int).
#include <climits>
#include <cstdint>
#include <string>

#include "core/ops/modules.h"
#include "core/ops/gemm.h"
#include "core/ops/attention.h"
#include "core/ops/quantizer.h"
#include "core/ops/collective.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

// A fact of the description (-1 / "" when the op has no such fact).
int64_t FactNumber(const OpDescription& d, absl::string_view name) {
  const config::OpFacts::Value* v = d.facts.Find(name);
  return v != nullptr ? v->number : -1;
}
std::string FactText(const OpDescription& d, absl::string_view name) {
  const config::OpFacts::Value* v = d.facts.Find(name);
  return v != nullptr ? std::string(v->text) : "";
}


using ::testing::HasSubstr;

constexpr size_t kTensorV1 = TEPLUG_STRUCT_SIZE(TeplugTensor, quant);

TeplugTensor Tensor(int32_t rank = 2) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = rank;
  for (int i = 0; i < rank; ++i) t.shape[i] = 4;
  return t;
}

// "" when described, else the error.
std::string Problem(const InterfaceModule& kind, int32_t op, const void* args) {
  absl::StatusOr<OpDescription> d = DescribeOp(kind, op, args);
  if (d.ok()) return "";
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(d.status().message());
}

struct Gemm {
  TeplugTensor a = Tensor(), b = Tensor(), d = Tensor();
  TeplugGemmArgs args = [this] {
    TeplugGemmArgs g = sdk::Versioned<TeplugGemmArgs>();
    g.a = &a;
    g.b = &b;
    g.d = &d;
    return g;
  }();
  std::string Problem() { return ::teplug::core::Problem(GemmModule(), TEPLUG_OP_GEMM, &args); }
};

TEST(OpDescriptionBoundariesTest, ArgsStructSizeMustCoverTheV1Layout) {
  Gemm g;
  const size_t need = TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream);
  g.args.struct_size = need;
  EXPECT_EQ(g.Problem(), "");
  g.args.struct_size = need - 1;
  EXPECT_EQ(g.Problem(), "TeplugGemmArgs.struct_size " + std::to_string(need - 1) + " < " + std::to_string(need) +
                             " (the v1 layout)");
  EXPECT_EQ(Problem(GemmModule(), TEPLUG_OP_GEMM, nullptr), "TeplugGemmArgs is NULL");
}

TEST(OpDescriptionBoundariesTest, TensorStructSizeMustCoverTheV1Layout) {
  Gemm g;
  g.b.struct_size = kTensorV1;
  EXPECT_EQ(g.Problem(), "");
  g.b.struct_size = kTensorV1 - 1;
  EXPECT_EQ(g.Problem(),
            "TeplugGemmArgs.b.struct_size " + std::to_string(kTensorV1 - 1) + " < " + std::to_string(kTensorV1));
}

TEST(OpDescriptionBoundariesTest, RanksFromZeroToEight) {
  TeplugTensor in = Tensor(), out = Tensor();
  TeplugQuantization quant = sdk::Versioned<TeplugQuantization>();
  quant.mode = TEPLUG_SCALING_PER_TENSOR;
  out.quant = &quant;
  TeplugQuantizeArgs q = sdk::Versioned<TeplugQuantizeArgs>();
  q.input = &in;
  q.output = &out;
  for (int32_t rank : {0, 1, TEPLUG_MAX_RANK}) {
    in.rank = rank;
    EXPECT_EQ(Problem(QuantizerModule(), TEPLUG_OP_QUANTIZE, &q), "") << rank;
  }
  for (int32_t rank : {-1, TEPLUG_MAX_RANK + 1}) {
    in.rank = rank;
    EXPECT_EQ(Problem(QuantizerModule(), TEPLUG_OP_QUANTIZE, &q),
              "TeplugQuantizeArgs.input.rank " + std::to_string(rank) + " not in [0, 8]");
  }
}

TEST(OpDescriptionBoundariesTest, GemmOperandsMustBeMatrices) {
  Gemm g;
  g.d.rank = 3;
  EXPECT_EQ(g.Problem(), "TeplugGemmArgs: a, b and d must be rank 2 (got 2, 2, 3)");
  g.d.rank = 2;
  g.a.rank = 1;
  EXPECT_EQ(g.Problem(), "TeplugGemmArgs: a, b and d must be rank 2 (got 1, 2, 2)");
}

struct Attention {
  TeplugTensor q = Tensor(4), k = Tensor(4), v = Tensor(4), o = Tensor(4);
  TeplugAttentionParams params = [] {
    TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
    p.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
    p.mask_type = TEPLUG_MASK_CAUSAL;
    p.bias_type = TEPLUG_BIAS_NONE;
    p.head_dim_qk = p.head_dim_v = 64;
    p.max_seqlen_q = p.max_seqlen_kv = 128;
    p.window_left = p.window_right = -1;
    return p;
  }();
  TeplugAttentionFwdArgs args = [this] {
    TeplugAttentionFwdArgs a = sdk::Versioned<TeplugAttentionFwdArgs>();
    a.params = &params;
    a.q = &q;
    a.k = &k;
    a.v = &v;
    a.o = &o;
    return a;
  }();
  absl::StatusOr<OpDescription> Describe() {
    return DescribeOp(AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, &args);
  }
  std::string Problem() {
    return ::teplug::core::Problem(AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, &args);
  }
};

TEST(OpDescriptionBoundariesTest, ParamsStructSizeMustCoverTheV1Layout) {
  Attention a;
  const size_t need = TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0);
  a.params.struct_size = need;
  EXPECT_EQ(a.Problem(), "");
  a.params.struct_size = need - 1;
  EXPECT_EQ(a.Problem(),
            "TeplugAttentionParams.struct_size " + std::to_string(need - 1) + " < " + std::to_string(need));
}

// layout, mask_type and bias_type are in [0, COUNT).
TEST(OpDescriptionBoundariesTest, ParamEnumsSpanZeroToCountMinusOne) {
  struct Field {
    int32_t TeplugAttentionParams::*member;
    int32_t count;
    const char* name;
  };
  for (const Field& f : {Field{&TeplugAttentionParams::layout, TEPLUG_LAYOUT_COUNT_, "layout"},
                         Field{&TeplugAttentionParams::mask_type, TEPLUG_MASK_COUNT_, "mask_type"},
                         Field{&TeplugAttentionParams::bias_type, TEPLUG_BIAS_COUNT_, "bias_type"}}) {
    for (int32_t ok : {0, f.count - 1}) {
      Attention a;
      a.params.*f.member = ok;
      EXPECT_EQ(a.Problem(), "") << f.name << " " << ok;
    }
    for (int32_t bad : {-1, f.count}) {
      Attention a;
      a.params.*f.member = bad;
      EXPECT_THAT(a.Problem(), HasSubstr(std::string("TeplugAttentionParams.") + f.name + " " + std::to_string(bad) +
                                         " is not a"));
    }
  }
}

TEST(OpDescriptionBoundariesTest, FactsTakeTheLargerHeadDimAndSequenceLength) {
  Attention a;
  a.params.head_dim_qk = 192;
  a.params.head_dim_v = 128;
  a.params.max_seqlen_q = 100;
  a.params.max_seqlen_kv = 4096;
  absl::StatusOr<OpDescription> d = a.Describe();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(FactNumber(*d, "head_dim"), 192);
  EXPECT_EQ(FactNumber(*d, "seq_len"), 4096);
  a.params.head_dim_qk = 64;
  a.params.head_dim_v = 65;
  a.params.max_seqlen_q = 4097;
  d = a.Describe();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(FactNumber(*d, "head_dim"), 65);
  EXPECT_EQ(FactNumber(*d, "seq_len"), 4097);
  EXPECT_EQ(FactText(*d, "layout"), "bshd_bshd_bshd");
  EXPECT_EQ(FactText(*d, "mask_type"), "causal");
}

// The summary names every parameter that changes what is computed, and
// leaves out the optional ones at their defaults.
TEST(OpDescriptionBoundariesTest, AttentionSummaryNamesEveryParameterThatIsSet) {
  Attention a;
  a.params.batch = 2;
  a.params.num_heads_q = 16;
  a.params.num_heads_kv = 4;
  absl::StatusOr<OpDescription> d = a.Describe();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->summary, "attention forward fp32 bshd_bshd_bshd b=2 hq=16 hkv=4 d=64/64 sq=128 skv=128 mask=causal on cpu:0");
  a.params.bias_type = TEPLUG_BIAS_POST_SCALE;
  a.params.is_training = 1;
  a.params.dropout = 0.25f;
  a.params.window_left = 4;
  a.params.window_right = 0;
  a.params.deterministic = 1;
  d = a.Describe();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->summary,
            "attention forward fp32 bshd_bshd_bshd b=2 hq=16 hkv=4 d=64/64 sq=128 skv=128 mask=causal "
            "bias=post_scale dropout=0.25 window=(4,0) deterministic on cpu:0");
  a.params.is_training = 0;  // dropout only applies to training
  a.params.window_left = -1;
  a.params.window_right = 2;
  d = a.Describe();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->summary,
            "attention forward fp32 bshd_bshd_bshd b=2 hq=16 hkv=4 d=64/64 sq=128 skv=128 mask=causal "
            "bias=post_scale window=(-1,2) deterministic on cpu:0");
  a.params.window_right = 0;  // a right bound of 0 is a window too (each side is checked from 0)
  d = a.Describe();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->summary,
            "attention forward fp32 bshd_bshd_bshd b=2 hq=16 hkv=4 d=64/64 sq=128 skv=128 mask=causal "
            "bias=post_scale window=(-1,0) deterministic on cpu:0");
}

TEST(OpDescriptionBoundariesTest, FactsClampToInt) {
  Attention a;
  a.params.head_dim_qk = INT32_MAX;
  a.params.max_seqlen_kv = int64_t{INT32_MAX} + 1;
  absl::StatusOr<OpDescription> d = a.Describe();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(FactNumber(*d, "head_dim"), INT32_MAX);
  EXPECT_EQ(FactNumber(*d, "seq_len"), INT32_MAX);
}

// A device struct must reach `arch`; a shorter one is not trusted and the op
// is taken to run on the host.
TEST(OpDescriptionBoundariesTest, DeviceStructSizeMustReachArch) {
  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  cuda.kind = TEPLUG_DEVICE_CUDA;
  cuda.vendor_id = TEPLUG_VENDOR_NVIDIA;
  cuda.ordinal = 1;
  cuda.arch = 90;
  TeplugTensor t = Tensor();
  t.device = &cuda;
  cuda.struct_size = TEPLUG_STRUCT_SIZE(TeplugDevice, arch);
  EXPECT_EQ(DeviceLabel(DeviceOf(&t)), "cuda:1 (nvidia, arch 90)");
  cuda.struct_size = TEPLUG_STRUCT_SIZE(TeplugDevice, arch) - 1;
  EXPECT_EQ(DeviceLabel(DeviceOf(&t)), "cpu:0");
  EXPECT_EQ(DeviceLabel(DeviceOf(nullptr)), "cpu:0");
}

TEST(OpDescriptionBoundariesTest, TheFirstTensorWithADeviceNamesTheOpsDevice) {
  TeplugDevice cuda = sdk::Versioned<TeplugDevice>();
  cuda.kind = TEPLUG_DEVICE_CUDA;
  cuda.vendor_id = TEPLUG_VENDOR_AMD;
  Gemm g;
  g.b.device = &cuda;  // a has none: b decides
  absl::StatusOr<OpDescription> d = DescribeOp(GemmModule(), TEPLUG_OP_GEMM, &g.args);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->device.kind, TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(d->device_kind, "cuda");
  EXPECT_EQ(d->vendor, "amd");
  EXPECT_THAT(d->summary, HasSubstr("on cuda:0 (amd)"));
}

// The describe step spells the op's device with the spelling it is given
// (the kernel passes the names providers declared): facts and summary carry
// the names, built once.
TEST(OpDescriptionBoundariesTest, TheDeviceIsSpelledAsTheDescribeStepIsTold) {
  class Declared final : public DeviceSpelling {
   public:
    std::string KindSpelling(int32_t kind) const override {
      return kind == 1100 ? "gaudi" : DeviceSpelling::KindSpelling(kind);
    }
    std::string VendorSpelling(uint32_t id) const override {
      return id == 0x1da3 ? "habana" : DeviceSpelling::VendorSpelling(id);
    }
  };
  TeplugDevice gaudi = sdk::Versioned<TeplugDevice>();
  gaudi.kind = 1100;
  gaudi.vendor_id = 0x1da3;
  gaudi.arch = 3;
  Gemm g;
  g.a.device = &gaudi;
  absl::StatusOr<OpDescription> d = DescribeOp(GemmModule(), TEPLUG_OP_GEMM, &g.args, Declared());
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->device_kind, "gaudi");
  EXPECT_EQ(d->vendor, "habana");
  EXPECT_THAT(d->summary, ::testing::EndsWith(" on gaudi:0 (habana, arch 3)"));
  d = DescribeOp(GemmModule(), TEPLUG_OP_GEMM, &g.args);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->device_kind, "vendor1100");
  EXPECT_EQ(d->vendor, "0x1da3");
  EXPECT_THAT(d->summary, ::testing::EndsWith(" on vendor1100:0 (0x1da3, arch 3)"));
}

TEST(OpDescriptionBoundariesTest, DeviceLabelsNameVendorAndArchWhenKnown) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_CUDA;
  EXPECT_EQ(DeviceLabel(d), "cuda:0");
  d.arch = 80;
  EXPECT_EQ(DeviceLabel(d), "cuda:0 (any vendor, arch 80)");
  d.vendor_id = 0x1234;
  d.arch = 0;
  EXPECT_EQ(DeviceLabel(d), "cuda:0 (0x1234)");
  EXPECT_EQ(VendorName(TEPLUG_VENDOR_INTEL), "intel");
  EXPECT_EQ(VendorName(TEPLUG_VENDOR_ANY), "");
}

// M, N and K in the summary follow the transposes.
TEST(OpDescriptionBoundariesTest, GemmSummaryReadsTransposedOperands) {
  Gemm g;
  g.a.shape[0] = 3;
  g.a.shape[1] = 5;
  g.b.shape[0] = 7;
  g.b.shape[1] = 3;
  g.args.trans_a = 1;  // A^T: [5, 3] -> M 5, K 3
  g.args.trans_b = 1;  // B^T: [3, 7] -> N 7
  absl::StatusOr<OpDescription> d = DescribeOp(GemmModule(), TEPLUG_OP_GEMM, &g.args);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(d->summary, HasSubstr("M=5 N=7 K=3"));
  EXPECT_EQ(std::string(d->spec->name), "gemm");
  EXPECT_EQ(FactText(*d, "dtype"), "fp32");
}

TEST(OpDescriptionBoundariesTest, QuantizerSummariesAndFacts) {
  TeplugTensor in = Tensor(), out = Tensor();
  in.dtype = TEPLUG_DTYPE_BF16;
  out.dtype = TEPLUG_DTYPE_FP8_E4M3;
  TeplugQuantization quant = sdk::Versioned<TeplugQuantization>();
  quant.mode = TEPLUG_SCALING_PER_TENSOR;
  out.quant = &quant;
  TeplugQuantizeArgs q = sdk::Versioned<TeplugQuantizeArgs>();
  q.input = &in;
  q.output = &out;
  q.recipe = TEPLUG_RECIPE_CURRENT;
  q.rowwise = q.columnwise = 1;
  absl::StatusOr<OpDescription> d = DescribeOp(QuantizerModule(), TEPLUG_OP_QUANTIZE, &q);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->summary, "quantizer quantize bf16[4,4] -> fp8_e4m3[4,4] per_tensor current rowwise columnwise on cpu:0");
  EXPECT_EQ(FactText(*d, "dtype"), "fp8_e4m3");
  EXPECT_EQ(std::string(d->spec->name), "quantize");
  out.quant = nullptr;
  EXPECT_THAT(Problem(QuantizerModule(), TEPLUG_OP_QUANTIZE, &q), HasSubstr("output.quant is NULL"));

  out.quant = &quant;
  TeplugDequantizeArgs dq = sdk::Versioned<TeplugDequantizeArgs>();
  dq.input = &out;
  dq.output = &in;
  d = DescribeOp(QuantizerModule(), TEPLUG_OP_DEQUANTIZE, &dq);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->summary, "quantizer dequantize fp8_e4m3[4,4] per_tensor -> bf16[4,4] on cpu:0");
  EXPECT_EQ(FactText(*d, "dtype"), "fp8_e4m3");
  EXPECT_EQ(std::string(d->spec->name), "dequantize");
}

TEST(OpDescriptionBoundariesTest, CollectiveOpsSpanAllReduceToBarrier) {
  TeplugTensor send = Tensor(1);
  TeplugCollectiveArgs c = sdk::Versioned<TeplugCollectiveArgs>();
  c.send = &send;
  for (int32_t op : {TEPLUG_OP_ALL_REDUCE, TEPLUG_OP_BARRIER}) {
    EXPECT_EQ(Problem(CollectiveModule(), op, &c), "") << op;
  }
  for (int32_t op : {TEPLUG_OP_ALL_REDUCE - 1, TEPLUG_OP_BARRIER + 1}) {
    EXPECT_EQ(Problem(CollectiveModule(), op, &c), "op " + std::to_string(op) + " is not an op of ICollective/1");
  }
}

// send and recv are optional, but a tensor that is given must be valid.
TEST(OpDescriptionBoundariesTest, CollectiveTensorsAreCheckedWhenGiven) {
  TeplugTensor send = Tensor(1), recv = Tensor(1);
  TeplugCollectiveArgs c = sdk::Versioned<TeplugCollectiveArgs>();
  EXPECT_EQ(Problem(CollectiveModule(), TEPLUG_OP_BARRIER, &c), "");
  c.send = &send;
  c.recv = &recv;
  EXPECT_EQ(Problem(CollectiveModule(), TEPLUG_OP_ALL_REDUCE, &c), "");
  recv.struct_size = kTensorV1 - 1;
  EXPECT_EQ(Problem(CollectiveModule(), TEPLUG_OP_ALL_REDUCE, &c),
            "TeplugCollectiveArgs.recv.struct_size " + std::to_string(kTensorV1 - 1) + " < " +
                std::to_string(kTensorV1));
  recv.struct_size = kTensorV1;
  send.rank = TEPLUG_MAX_RANK + 1;
  EXPECT_EQ(Problem(CollectiveModule(), TEPLUG_OP_ALL_REDUCE, &c), "TeplugCollectiveArgs.send.rank 9 not in [0, 8]");
}

TEST(OpDescriptionBoundariesTest, CommCreateCarriesWorldSizeAndDevice) {
  TeplugCommCreateArgs c = sdk::Versioned<TeplugCommCreateArgs>();
  c.rank = 1;
  c.world_size = 4;
  absl::StatusOr<OpDescription> d = DescribeOp(CollectiveModule(), CollectiveModule().FindOp("comm_create")->op, &c);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->world_size, 4);
  EXPECT_EQ(d->summary, "collective comm_create rank 1 of 4 on cpu:0");
  const size_t need = TEPLUG_STRUCT_SIZE(TeplugCommCreateArgs, device);
  c.struct_size = need - 1;
  EXPECT_EQ(Problem(CollectiveModule(), CollectiveModule().FindOp("comm_create")->op, &c),
            "TeplugCommCreateArgs.struct_size " + std::to_string(need - 1) + " < " + std::to_string(need) +
                " (the v1 layout)");
}

TEST(OpDescriptionBoundariesTest, AnOpOfAnotherInterfaceIsRefused) {
  Gemm g;
  EXPECT_THAT(Problem(GemmModule(), TEPLUG_OP_QUANTIZE, &g.args), HasSubstr("is not an op of IGemm/1"));
  EXPECT_THAT(Problem(AttentionModule(), TEPLUG_OP_GEMM, &g.args), HasSubstr("is not an op of IAttention/1"));
}

}  // namespace
}  // namespace teplug::core
