// CheckOpCapability at every numeric limit a descriptor can set: a value
// equal to a limit is served, one past it is refused with the values in the
// reason, and 0 means "no limit". Covers attention head_dim min/max/multiple
// (for both head dims), sequence lengths, GEMM max_dim per dimension (with
// transposes) and alignment, and the collective world size. Then every other
// refusal, one at a time: an op that needs one feature (a dtype, an epilogue,
// a scaling mode, a flag) is refused by a descriptor that lacks only that
// feature and served by one that has it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ops/modules.h"
#include "core/ops/gemm.h"
#include "core/ops/attention.h"
#include "core/ops/quantizer.h"
#include "core/ops/collective.h"
#include "gmock/gmock.h"
#include "teplug/sdk/names.hpp"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

const std::vector<TeplugDeviceSupport> kAnyDevice = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_ANY, 0, 0, 0}};

// "" when served, else the formatted refusal.
std::string Verdict(const Capability& cap, const OpDescription& op) {
  std::optional<Refusal> r = op.spec->check(cap, op);
  return r ? FormatRefusal(*r, cap.devices) : "";
}

// A bf16 attention forward (head dims and sequence lengths set per case)
// against a descriptor that accepts everything else.
class AttentionCase {
 public:
  AttentionCase() {
    caps_ = sdk::Versioned<TeplugAttentionCaps>();
    caps_.qkv_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
    caps_.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_BSHD_BSHD_BSHD);
    caps_.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_NONE) | TEPLUG_MASK_BIT(TEPLUG_MASK_CAUSAL);
    caps_.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_NONE);
    params_ = sdk::Versioned<TeplugAttentionParams>();
    params_.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
    params_.mask_type = TEPLUG_MASK_NONE;
    params_.bias_type = TEPLUG_BIAS_NONE;
    params_.batch = 1;
    params_.num_heads_q = params_.num_heads_kv = 2;
    params_.head_dim_qk = params_.head_dim_v = 64;
    params_.max_seqlen_q = params_.max_seqlen_kv = 128;
    params_.window_left = params_.window_right = -1;
    for (TeplugTensor* t : {&q_, &k_, &v_}) {
      *t = sdk::Versioned<TeplugTensor>();
      t->dtype = TEPLUG_DTYPE_BF16;
    }
    args_ = sdk::Versioned<TeplugAttentionFwdArgs>();
    args_.params = &params_;
    args_.q = &q_;
    args_.k = &k_;
    args_.v = &v_;
  }
  AttentionCase(const AttentionCase&) = delete;
  AttentionCase& operator=(const AttentionCase&) = delete;

  TeplugAttentionCaps& caps() { return caps_; }
  TeplugAttentionParams& params() { return params_; }
  TeplugTensor& tensor(char which) { return which == 'q' ? q_ : which == 'k' ? k_ : v_; }
  // Heads of both kinds set to `d`.
  void HeadDim(int64_t d) { params_.head_dim_qk = params_.head_dim_v = d; }

  // Forward, or backward with the same tensors and params.
  std::string Check(bool backward = false) {
    Capability cap;
    cap.module = &AttentionModule();
    cap.devices = kAnyDevice;
    cap.Set(caps_);
    OpDescription op;
    op.module = &AttentionModule();
    op.spec = op.module->FindOp(backward ? TEPLUG_OP_ATTENTION_BACKWARD : TEPLUG_OP_ATTENTION_FORWARD);
    TeplugAttentionBwdArgs bwd = sdk::Versioned<TeplugAttentionBwdArgs>();
    bwd.params = &params_;
    bwd.q = &q_;
    bwd.k = &k_;
    bwd.v = &v_;
    op.args = backward ? static_cast<const void*>(&bwd) : &args_;
    return Verdict(cap, op);
  }

 private:
  TeplugAttentionCaps caps_;
  TeplugAttentionParams params_;
  TeplugTensor q_, k_, v_;
  TeplugAttentionFwdArgs args_;
};

TEST(CapabilityCheckBoundariesTest, HeadDimMinIsInclusive) {
  AttentionCase c;
  c.caps().head_dim_min = 64;
  c.HeadDim(64);
  EXPECT_EQ(c.Check(), "");
  c.HeadDim(63);
  EXPECT_EQ(c.Check(), "head_dim_qk 63 < min 64");
  c.caps().head_dim_min = 0;  // no lower bound
  c.HeadDim(1);
  EXPECT_EQ(c.Check(), "");
}

TEST(CapabilityCheckBoundariesTest, HeadDimMaxIsInclusive) {
  AttentionCase c;
  c.caps().head_dim_max = 128;
  c.HeadDim(128);
  EXPECT_EQ(c.Check(), "");
  c.HeadDim(129);
  EXPECT_EQ(c.Check(), "head_dim_qk 129 > max 128");
  c.caps().head_dim_max = 0;  // no upper bound
  c.HeadDim(1 << 20);
  EXPECT_EQ(c.Check(), "");
}

TEST(CapabilityCheckBoundariesTest, HeadDimLimitsApplyToTheValueHeadDimToo) {
  AttentionCase c;
  c.caps().features = TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS;
  c.caps().head_dim_min = 32;
  c.caps().head_dim_max = 128;
  c.caps().head_dim_multiple = 8;
  c.params().head_dim_qk = 64;
  c.params().head_dim_v = 128;
  EXPECT_EQ(c.Check(), "");
  c.params().head_dim_v = 129;
  EXPECT_EQ(c.Check(), "head_dim_v 129 > max 128");
  c.params().head_dim_v = 31;
  EXPECT_EQ(c.Check(), "head_dim_v 31 < min 32");
  c.params().head_dim_v = 32;
  EXPECT_EQ(c.Check(), "");
  c.params().head_dim_v = 36;
  EXPECT_EQ(c.Check(), "head_dim_v 36 not a multiple of 8");
}

TEST(CapabilityCheckBoundariesTest, DifferentHeadDimsNeedTheFeature) {
  AttentionCase c;
  c.params().head_dim_qk = 64;
  c.params().head_dim_v = 65;
  EXPECT_EQ(c.Check(), "head_dim_qk 64 != head_dim_v 65 not supported");
  c.caps().features = TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS;
  EXPECT_EQ(c.Check(), "");
}

TEST(CapabilityCheckBoundariesTest, HeadDimMultiple) {
  AttentionCase c;
  c.caps().head_dim_multiple = 8;
  c.HeadDim(64);
  EXPECT_EQ(c.Check(), "");
  c.HeadDim(65);
  EXPECT_EQ(c.Check(), "head_dim_qk 65 not a multiple of 8");
  c.HeadDim(8);
  EXPECT_EQ(c.Check(), "");
  c.caps().head_dim_multiple = 1;  // every head dim is a multiple of 1
  c.HeadDim(65);
  EXPECT_EQ(c.Check(), "");
  c.caps().head_dim_multiple = 0;  // no constraint
  EXPECT_EQ(c.Check(), "");
  c.caps().head_dim_multiple = 2;
  EXPECT_EQ(c.Check(), "head_dim_qk 65 not a multiple of 2");
}

TEST(CapabilityCheckBoundariesTest, SequenceLengthLimitsAreInclusive) {
  AttentionCase c;
  c.caps().max_seqlen_q = 4096;
  c.caps().max_seqlen_kv = 8192;
  c.params().max_seqlen_q = 4096;
  c.params().max_seqlen_kv = 8192;
  EXPECT_EQ(c.Check(), "");
  c.params().max_seqlen_q = 4097;
  EXPECT_EQ(c.Check(), "max_seqlen_q 4097 > max 4096");
  c.params().max_seqlen_q = 4096;
  c.params().max_seqlen_kv = 8193;
  EXPECT_EQ(c.Check(), "max_seqlen_kv 8193 > max 8192");
  c.caps().max_seqlen_q = c.caps().max_seqlen_kv = 0;  // no limits
  c.params().max_seqlen_q = c.params().max_seqlen_kv = 1 << 24;
  EXPECT_EQ(c.Check(), "");
}

// A window is refused without the feature; a causal mask's right window of 0
// is what causal means, not a window.
TEST(CapabilityCheckBoundariesTest, SlidingWindowEdges) {
  AttentionCase c;
  EXPECT_EQ(c.Check(), "");  // (-1, -1): no window
  c.params().window_left = 0;
  EXPECT_EQ(c.Check(), "sliding window (0, -1) not supported");
  c.params().window_left = -1;
  c.params().window_right = 0;
  EXPECT_EQ(c.Check(), "sliding window (-1, 0) not supported");
  c.params().mask_type = TEPLUG_MASK_CAUSAL;
  EXPECT_EQ(c.Check(), "");
  c.params().window_right = 1;
  EXPECT_EQ(c.Check(), "sliding window (-1, 1) not supported");
  c.caps().features = TEPLUG_ATTN_CAP_SLIDING_WINDOW;
  EXPECT_EQ(c.Check(), "");
}

TEST(CapabilityCheckBoundariesTest, DropoutOnlyMattersWhenTrainingWithAPositiveRate) {
  AttentionCase c;
  c.params().dropout = 0.1f;
  EXPECT_EQ(c.Check(), "");  // inference ignores dropout
  c.params().is_training = 1;
  EXPECT_EQ(c.Check(), "dropout 0.1 not supported");
  c.params().dropout = 0.f;
  EXPECT_EQ(c.Check(), "");
}

TEST(CapabilityCheckBoundariesTest, GroupedQueryAttentionNeedsTheFeature) {
  AttentionCase c;
  c.params().num_heads_q = 4;
  c.params().num_heads_kv = 2;
  EXPECT_EQ(c.Check(), "grouped-query attention (hq 4 != hkv 2) not supported");
  c.caps().features = TEPLUG_ATTN_CAP_GQA;
  EXPECT_EQ(c.Check(), "");
}

// An fp32 GEMM A [m, k] x B [k, n] -> D [m, n] against a descriptor with
// max_dim and alignment as given.
class GemmCase {
 public:
  GemmCase(int64_t m, int64_t n, int64_t k) {
    for (TeplugTensor* t : {&a_, &b_, &d_}) {
      *t = sdk::Versioned<TeplugTensor>();
      t->dtype = TEPLUG_DTYPE_FP32;
      t->rank = 2;
      t->data = storage_;
    }
    Shape(&a_, m, k);
    Shape(&b_, k, n);
    Shape(&d_, m, n);
    args_ = sdk::Versioned<TeplugGemmArgs>();
    args_.a = &a_;
    args_.b = &b_;
    args_.d = &d_;
    caps_ = sdk::Versioned<TeplugGemmCaps>();
    caps_.a_dtypes = caps_.b_dtypes = caps_.d_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  }
  GemmCase(const GemmCase&) = delete;
  GemmCase& operator=(const GemmCase&) = delete;

  static void Shape(TeplugTensor* t, int64_t rows, int64_t cols) {
    t->shape[0] = rows;
    t->shape[1] = cols;
  }
  TeplugGemmCaps& caps() { return caps_; }
  TeplugGemmArgs& args() { return args_; }
  TeplugTensor& a() { return a_; }
  TeplugTensor& b() { return b_; }
  TeplugTensor& d() { return d_; }
  // Moves every tensor's data `bytes` past a 64-byte boundary.
  void Offset(size_t bytes) {
    for (TeplugTensor* t : {&a_, &b_, &d_}) t->data = reinterpret_cast<unsigned char*>(storage_) + bytes;
  }

  std::string Check() {
    Capability cap;
    cap.module = &GemmModule();
    cap.devices = kAnyDevice;
    cap.Set(caps_);
    OpDescription op;
    op.module = &GemmModule();
    op.spec = op.module->FindOp(TEPLUG_OP_GEMM);
    op.args = &args_;
    return Verdict(cap, op);
  }

 private:
  alignas(64) float storage_[64] = {};
  TeplugTensor a_, b_, d_;
  TeplugGemmArgs args_;
  TeplugGemmCaps caps_;
};

TEST(CapabilityCheckBoundariesTest, MaxDimIsInclusiveForEachDimension) {
  struct Case {
    int64_t m, n, k;
    const char* verdict;
  };
  for (const Case& c : {Case{16, 16, 16, ""}, Case{17, 16, 16, "M 17 > max 16"}, Case{16, 17, 16, "N 17 > max 16"},
                        Case{16, 16, 17, "K 17 > max 16"}, Case{1, 1, 1, ""}}) {
    GemmCase g(c.m, c.n, c.k);
    g.caps().max_dim = 16;
    EXPECT_EQ(g.Check(), c.verdict) << c.m << "x" << c.n << "x" << c.k;
    g.caps().max_dim = 0;  // unbounded
    EXPECT_EQ(g.Check(), "") << c.m << "x" << c.n << "x" << c.k;
  }
}

// With transposes, M, N and K come from the other ends of A and B.
TEST(CapabilityCheckBoundariesTest, MaxDimReadsTransposedOperands) {
  GemmCase g(4, 4, 4);
  g.caps().max_dim = 16;
  GemmCase::Shape(&g.a(), 17, 4);  // A^T: k 17, m 4
  g.args().trans_a = 1;
  EXPECT_EQ(g.Check(), "K 17 > max 16");
  GemmCase::Shape(&g.a(), 4, 17);  // A^T: k 4, m 17
  EXPECT_EQ(g.Check(), "M 17 > max 16");
  GemmCase h(4, 4, 4);
  h.caps().max_dim = 16;
  h.args().trans_b = 1;
  GemmCase::Shape(const_cast<TeplugTensor*>(h.args().b), 17, 4);  // B^T: n 17
  EXPECT_EQ(h.Check(), "N 17 > max 16");
}

TEST(CapabilityCheckBoundariesTest, AlignmentOfPointersAndLeadingDimensions) {
  GemmCase g(4, 4, 4);  // 4 fp32 = 16-byte rows
  g.caps().alignment = 16;
  EXPECT_EQ(g.Check(), "");
  g.Offset(4);
  EXPECT_EQ(g.Check(), "A data pointer not aligned to 16 bytes");
  g.Offset(16);
  EXPECT_EQ(g.Check(), "");
  g.caps().alignment = 1;  // no constraint
  g.Offset(1);
  EXPECT_EQ(g.Check(), "");

  GemmCase odd(4, 4, 5);  // A rows of 5 fp32 = 20 bytes
  odd.caps().alignment = 16;
  EXPECT_EQ(odd.Check(), "A leading dimension 5 (20 bytes) not a multiple of 16 bytes");
  odd.caps().alignment = 4;
  EXPECT_EQ(odd.Check(), "");
  // An explicit stride replaces the row length.
  odd.caps().alignment = 16;
  odd.a().strides[0] = 8;
  odd.a().strides[1] = 1;
  EXPECT_EQ(odd.Check(), "");
}

// Each operand's pointer and leading dimension is checked on its own.
TEST(CapabilityCheckBoundariesTest, AlignmentIsCheckedForEachOperand) {
  alignas(64) static float c_storage[64] = {};
  for (char operand : {'A', 'B', 'C', 'D'}) {
    GemmCase g(4, 4, 4);
    g.caps().alignment = 16;
    TeplugTensor c = g.d();  // an aligned C, like D
    c.data = c_storage;
    g.args().c = &c;
    EXPECT_EQ(g.Check(), "") << operand;
    TeplugTensor& t = operand == 'A' ? g.a() : operand == 'B' ? g.b() : operand == 'C' ? c : g.d();
    t.data = reinterpret_cast<unsigned char*>(t.data) + 8;
    EXPECT_EQ(g.Check(), std::string(1, operand) + " data pointer not aligned to 16 bytes");
    t.data = reinterpret_cast<unsigned char*>(t.data) + 8;
    t.shape[1] = 6;  // 24-byte rows
    EXPECT_EQ(g.Check(), std::string(1, operand) + " leading dimension 6 (24 bytes) not a multiple of 16 bytes");
  }
}

TEST(CapabilityCheckBoundariesTest, WorldSizeLimitIsInclusive) {
  TeplugCollectiveCaps caps = sdk::Versioned<TeplugCollectiveCaps>();
  caps.dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  caps.ops = TEPLUG_OP_BIT(TEPLUG_OP_BARRIER);
  caps.max_world_size = 8;
  Capability cap;
  cap.module = &CollectiveModule();
  cap.devices = kAnyDevice;
  OpDescription op;
  op.module = &CollectiveModule();
  op.spec = op.module->FindOp(CollectiveModule().FindOp("comm_create")->op);
  for (auto [limit, world, verdict] : {std::tuple{8, 8, ""}, {8, 9, "world size 9 > max 8"}, {8, 1, ""},
                                       {0, 1 << 20, ""}}) {
    caps.max_world_size = limit;
    cap.Set(caps);
    op.world_size = world;
    EXPECT_EQ(Verdict(cap, op), verdict) << "world " << world << " limit " << limit;
  }
}

TEST(CapabilityCheckBoundariesTest, OneHostServesOneOrUnknownHostsOnly) {
  TeplugCollectiveCaps caps = sdk::Versioned<TeplugCollectiveCaps>();
  caps.dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  caps.ops = TEPLUG_OP_BIT(TEPLUG_OP_BARRIER);
  Capability cap;
  cap.module = &CollectiveModule();
  cap.devices = kAnyDevice;
  OpDescription op;
  op.module = &CollectiveModule();
  op.spec = CollectiveModule().FindOp("comm_create");
  op.world_size = 8;
  for (auto [features, hosts, verdict] :
       {std::tuple{TEPLUG_COLLECTIVE_CAP_ONE_HOST, 0, ""}, {TEPLUG_COLLECTIVE_CAP_ONE_HOST, 1, ""},
        {TEPLUG_COLLECTIVE_CAP_ONE_HOST, 2, "ranks on 2 hosts; serves ranks on one host only (features one_host)"},
        {0u, 2, ""}, {0u, 64, ""}}) {
    caps.features = features;
    cap.Set(caps);
    op.hosts = hosts;
    EXPECT_EQ(Verdict(cap, op), verdict) << "features " << features << " hosts " << hosts;
  }
}

// ----------------------------------------------------- one refusal at a time

TEST(CapabilityCheckRefusalsTest, AttentionDTypesAreCheckedForQKAndV) {
  for (char which : {'q', 'k', 'v'}) {
    AttentionCase c;
    c.tensor(which).dtype = TEPLUG_DTYPE_FP16;
    EXPECT_EQ(c.Check(), std::string(1, which) + " dtype fp16 not in {bf16}");
    EXPECT_EQ(c.Check(true), std::string(1, which) + " dtype fp16 not in {bf16}");
    c.caps().qkv_dtypes |= TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16);
    EXPECT_EQ(c.Check(), "");
    EXPECT_EQ(c.Check(true), "backward not supported");
  }
}

TEST(CapabilityCheckRefusalsTest, AttentionLayoutMaskAndBias) {
  AttentionCase c;
  c.params().layout = TEPLUG_LAYOUT_SBHD_SBHD_SBHD;
  EXPECT_EQ(c.Check(), "layout sbhd_sbhd_sbhd not in {bshd_bshd_bshd}");
  c.caps().layouts |= TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_SBHD_SBHD_SBHD);
  EXPECT_EQ(c.Check(), "");
  c.params().mask_type = TEPLUG_MASK_PADDING;
  EXPECT_EQ(c.Check(), "mask padding not in {none, causal}");
  c.caps().mask_types |= TEPLUG_MASK_BIT(TEPLUG_MASK_PADDING);
  EXPECT_EQ(c.Check(), "");
  c.params().bias_type = TEPLUG_BIAS_POST_SCALE;
  EXPECT_THAT(c.Check(), ::testing::StartsWith("bias post_scale not in {"));
  c.caps().bias_types |= TEPLUG_BIAS_BIT(TEPLUG_BIAS_POST_SCALE);
  EXPECT_EQ(c.Check(), "");
}

TEST(CapabilityCheckRefusalsTest, AttentionDeterminismAndBackwardNeedTheirFeatures) {
  AttentionCase c;
  c.params().deterministic = 1;
  EXPECT_EQ(c.Check(), "deterministic execution not supported");
  c.caps().features |= TEPLUG_ATTN_CAP_DETERMINISTIC;
  EXPECT_EQ(c.Check(), "");
  EXPECT_EQ(c.Check(true), "backward not supported");
  c.caps().features |= TEPLUG_ATTN_CAP_BACKWARD;
  EXPECT_EQ(c.Check(true), "");
  c.params().is_training = 1;
  c.params().dropout = 0.5f;
  EXPECT_EQ(c.Check(true), "dropout 0.5 not supported");
  c.caps().features |= TEPLUG_ATTN_CAP_DROPOUT;
  EXPECT_EQ(c.Check(true), "");
}

TEST(CapabilityCheckRefusalsTest, GemmDTypesAreCheckedPerOperand) {
  struct Case {
    char operand;
    uint64_t TeplugGemmCaps::*mask;
  };
  for (const Case& k : {Case{'A', &TeplugGemmCaps::a_dtypes}, Case{'B', &TeplugGemmCaps::b_dtypes},
                        Case{'D', &TeplugGemmCaps::d_dtypes}}) {
    GemmCase g(4, 4, 4);
    TeplugTensor& t = k.operand == 'A' ? g.a() : k.operand == 'B' ? g.b() : g.d();
    t.dtype = TEPLUG_DTYPE_BF16;
    EXPECT_EQ(g.Check(), std::string(1, k.operand) + " dtype bf16 not in {fp32}");
    g.caps().*k.mask |= TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
    EXPECT_EQ(g.Check(), "") << k.operand;
  }
}

TEST(CapabilityCheckRefusalsTest, GemmEpiloguesNeedTheirCapabilities) {
  TeplugTensor extra = sdk::Versioned<TeplugTensor>();
  extra.dtype = TEPLUG_DTYPE_FP32;
  struct Case {
    const char* refusal;
    uint32_t cap;
    void (*apply)(TeplugGemmArgs*, TeplugTensor*);
  };
  for (const Case& k :
       {Case{"bias epilogue not supported", TEPLUG_GEMM_CAP_BIAS, [](TeplugGemmArgs* a, TeplugTensor* t) { a->bias = t; }},
        Case{"GELU epilogue not supported", TEPLUG_GEMM_CAP_GELU,
             [](TeplugGemmArgs* a, TeplugTensor*) { a->epilogue = TEPLUG_EPILOGUE_GELU; }},
        Case{"pre_gelu_out (GELU aux output) not supported", TEPLUG_GEMM_CAP_GELU_AUX,
             [](TeplugGemmArgs* a, TeplugTensor* t) { a->pre_gelu_out = t; }},
        Case{"accumulate into D not supported", TEPLUG_GEMM_CAP_ACCUMULATE,
             [](TeplugGemmArgs* a, TeplugTensor*) { a->accumulate = 1; }}}) {
    GemmCase g(4, 4, 4);
    k.apply(&g.args(), &extra);
    // Every other epilogue capability, but not this one.
    g.caps().epilogues = (TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX |
                          TEPLUG_GEMM_CAP_ACCUMULATE) & ~k.cap;
    EXPECT_EQ(g.Check(), k.refusal);
    g.caps().epilogues = k.cap;
    EXPECT_EQ(g.Check(), "") << k.refusal;
  }
  GemmCase unknown(4, 4, 4);
  unknown.caps().epilogues = TEPLUG_GEMM_CAP_GELU;
  unknown.args().epilogue = TEPLUG_EPILOGUE_COUNT_;
  EXPECT_EQ(unknown.Check(), "epilogue 2 unknown");
}

TEST(CapabilityCheckRefusalsTest, GemmScalingModesAreCheckedPerOperand) {
  TeplugQuantization mx = sdk::Versioned<TeplugQuantization>();
  mx.mode = TEPLUG_SCALING_MXFP8_1D32;
  TeplugQuantization none = sdk::Versioned<TeplugQuantization>();
  none.mode = TEPLUG_SCALING_NONE;
  for (char operand : {'A', 'B', 'D'}) {
    GemmCase g(4, 4, 4);
    TeplugTensor& t = operand == 'A' ? g.a() : operand == 'B' ? g.b() : g.d();
    t.quant = &none;  // "no scaling" needs no mode
    EXPECT_EQ(g.Check(), "");
    t.quant = &mx;
    g.caps().scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR);
    EXPECT_EQ(g.Check(), std::string(1, operand) + " scaling mode mxfp8_1d32 not in {per_tensor}");
    g.caps().scaling_modes |= TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
    EXPECT_EQ(g.Check(), "") << operand;
  }
}

// bf16 -> fp8 quantize (and fp8 -> bf16 dequantize) against a descriptor
// that serves exactly that.
class QuantizeCase {
 public:
  QuantizeCase() {
    quant_ = sdk::Versioned<TeplugQuantization>();
    quant_.mode = TEPLUG_SCALING_PER_TENSOR;
    in_ = sdk::Versioned<TeplugTensor>();
    in_.dtype = TEPLUG_DTYPE_BF16;
    out_ = sdk::Versioned<TeplugTensor>();
    out_.dtype = TEPLUG_DTYPE_FP8_E4M3;
    out_.quant = &quant_;
    args_ = sdk::Versioned<TeplugQuantizeArgs>();
    args_.input = &in_;
    args_.output = &out_;
    args_.recipe = TEPLUG_RECIPE_DELAYED;
    caps_ = sdk::Versioned<TeplugQuantizerCaps>();
    caps_.input_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
    caps_.output_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3);
    caps_.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR);
    caps_.features = TEPLUG_QUANT_CAP_DELAYED_SCALING | TEPLUG_QUANT_CAP_DEQUANTIZE;
  }
  QuantizeCase(const QuantizeCase&) = delete;
  QuantizeCase& operator=(const QuantizeCase&) = delete;
  TeplugQuantizerCaps& caps() { return caps_; }
  TeplugQuantizeArgs& args() { return args_; }
  TeplugQuantization& quant() { return quant_; }
  TeplugTensor& in() { return in_; }
  TeplugTensor& out() { return out_; }

  std::string Quantize() { return Check(TEPLUG_OP_QUANTIZE, &args_); }
  // Dequantizes the quantize op's output back into its input.
  std::string Dequantize() {
    TeplugDequantizeArgs d = sdk::Versioned<TeplugDequantizeArgs>();
    d.input = &out_;
    d.output = &in_;
    return Check(TEPLUG_OP_DEQUANTIZE, &d);
  }

 private:
  std::string Check(int32_t op_id, const void* args) {
    Capability cap;
    cap.module = &QuantizerModule();
    cap.devices = kAnyDevice;
    cap.Set(caps_);
    OpDescription op;
    op.module = &QuantizerModule();
    op.spec = op.module->FindOp(op_id);
    op.args = args;
    return Verdict(cap, op);
  }
  TeplugQuantization quant_;
  TeplugTensor in_, out_;
  TeplugQuantizeArgs args_;
  TeplugQuantizerCaps caps_;
};

// Refusal texts name only the values a mask can hold: bits past the last
// known name are not printed (and never index a name).
TEST(CapabilityCheckRefusalsTest, RefusalSetsIgnoreBitsBeyondTheKnownNames) {
  Refusal r;
  r.kind = Refusal::Kind::kDType;
  r.what = "A";
  r.value = TEPLUG_DTYPE_BF16;
  r.mask = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | (uint64_t{1} << 63);
  EXPECT_EQ(FormatRefusal(r, {}), "A dtype bf16 not in {fp32}");
  r = NamedRefusal("layout", TEPLUG_LAYOUT_BSHD_BSHD_BSHD, 0, &sdk::LayoutName, TEPLUG_LAYOUT_COUNT_);
  r.mask = (uint64_t{1} << 63) | TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_SBHD_SBHD_SBHD);
  EXPECT_EQ(FormatRefusal(r, {}), "layout bshd_bshd_bshd not in {sbhd_sbhd_sbhd}");
  r.mask = 0;
  EXPECT_EQ(FormatRefusal(r, {}), "layout bshd_bshd_bshd not in {}");
}

TEST(CapabilityCheckRefusalsTest, QuantizeDTypesAndScalingMode) {
  QuantizeCase q;
  EXPECT_EQ(q.Quantize(), "");
  q.in().dtype = TEPLUG_DTYPE_FP16;
  EXPECT_EQ(q.Quantize(), "input dtype fp16 not in {bf16}");
  q.in().dtype = TEPLUG_DTYPE_BF16;
  q.out().dtype = TEPLUG_DTYPE_FP8_E5M2;
  EXPECT_EQ(q.Quantize(), "output dtype fp8_e5m2 not in {fp8_e4m3}");
  q.out().dtype = TEPLUG_DTYPE_FP8_E4M3;
  q.quant().mode = TEPLUG_SCALING_MXFP8_1D32;
  EXPECT_EQ(q.Quantize(), "output scaling mode mxfp8_1d32 not in {per_tensor}");
  q.caps().scaling_modes |= TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
  EXPECT_EQ(q.Quantize(), "");
}

TEST(CapabilityCheckRefusalsTest, QuantizeColumnwiseNeedsTheFeature) {
  QuantizeCase q;
  q.args().columnwise = 1;
  EXPECT_EQ(q.Quantize(), "columnwise output not supported");
  q.caps().features |= TEPLUG_QUANT_CAP_COLUMNWISE;
  EXPECT_EQ(q.Quantize(), "");
  q.args().columnwise = 0;
  q.caps().features &= ~TEPLUG_QUANT_CAP_COLUMNWISE;
  EXPECT_EQ(q.Quantize(), "");
}

// Per-tensor scaling names its recipe; other modes have none to check.
TEST(CapabilityCheckRefusalsTest, PerTensorRecipesNeedTheirFeatures) {
  QuantizeCase q;
  q.caps().features = 0;
  EXPECT_EQ(q.Quantize(), "delayed scaling not supported");
  q.caps().features = TEPLUG_QUANT_CAP_CURRENT_SCALING;
  EXPECT_EQ(q.Quantize(), "delayed scaling not supported");
  q.args().recipe = TEPLUG_RECIPE_CURRENT;
  EXPECT_EQ(q.Quantize(), "");
  q.caps().features = TEPLUG_QUANT_CAP_DELAYED_SCALING;
  EXPECT_EQ(q.Quantize(), "current scaling not supported");
  q.quant().mode = TEPLUG_SCALING_MXFP8_1D32;
  q.caps().scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
  q.caps().features = 0;
  EXPECT_EQ(q.Quantize(), "");
}

// Dequantize reads the descriptor the other way round: its input is a
// quantize output, its output a quantize input.
TEST(CapabilityCheckRefusalsTest, DequantizeNeedsTheFeatureAndReversedDTypes) {
  QuantizeCase q;
  EXPECT_EQ(q.Dequantize(), "");
  q.caps().features = TEPLUG_QUANT_CAP_DELAYED_SCALING;
  EXPECT_EQ(q.Dequantize(), "dequantize not supported");
  q.caps().features |= TEPLUG_QUANT_CAP_DEQUANTIZE;
  q.out().dtype = TEPLUG_DTYPE_FP8_E5M2;
  EXPECT_EQ(q.Dequantize(), "input dtype fp8_e5m2 not in {fp8_e4m3}");
  q.out().dtype = TEPLUG_DTYPE_FP8_E4M3;
  q.in().dtype = TEPLUG_DTYPE_FP32;
  EXPECT_EQ(q.Dequantize(), "output dtype fp32 not in {bf16}");
  q.in().dtype = TEPLUG_DTYPE_BF16;
  q.quant().mode = TEPLUG_SCALING_BLOCK_1D128;
  EXPECT_EQ(q.Dequantize(), "input scaling mode block_1d128 not in {per_tensor}");
}

std::string CheckCollective(const TeplugCollectiveCaps& caps, int32_t op_id, const TeplugCollectiveArgs& args) {
  Capability cap;
  cap.module = &CollectiveModule();
  cap.devices = kAnyDevice;
  cap.Set(caps);
  OpDescription op;
  op.module = &CollectiveModule();
  op.spec = op.module->FindOp(op_id);
  op.args = &args;
  return Verdict(cap, op);
}

TEST(CapabilityCheckRefusalsTest, CollectiveOpsDTypesAndReductions) {
  TeplugCollectiveCaps caps = sdk::Versioned<TeplugCollectiveCaps>();
  caps.dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  caps.ops = TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE) | TEPLUG_OP_BIT(TEPLUG_OP_REDUCE_SCATTER) |
             TEPLUG_OP_BIT(TEPLUG_OP_ALL_GATHER);
  caps.reductions = TEPLUG_REDUCE_BIT(TEPLUG_REDUCE_SUM);
  TeplugTensor send = sdk::Versioned<TeplugTensor>(), recv = sdk::Versioned<TeplugTensor>();
  send.dtype = recv.dtype = TEPLUG_DTYPE_FP32;
  TeplugCollectiveArgs args = sdk::Versioned<TeplugCollectiveArgs>();
  args.send = &send;
  args.recv = &recv;
  args.reduce_op = TEPLUG_REDUCE_SUM;
  EXPECT_EQ(CheckCollective(caps, TEPLUG_OP_ALL_REDUCE, args), "");
  EXPECT_EQ(CheckCollective(caps, TEPLUG_OP_BROADCAST, args), "collective broadcast not supported");
  recv.dtype = TEPLUG_DTYPE_BF16;
  EXPECT_EQ(CheckCollective(caps, TEPLUG_OP_ALL_REDUCE, args), "recv dtype bf16 not in {fp32}");
  recv.dtype = TEPLUG_DTYPE_FP32;
  send.dtype = TEPLUG_DTYPE_BF16;
  EXPECT_EQ(CheckCollective(caps, TEPLUG_OP_ALL_GATHER, args), "send dtype bf16 not in {fp32}");
  args.send = nullptr;  // a missing tensor has no dtype to check
  EXPECT_EQ(CheckCollective(caps, TEPLUG_OP_ALL_GATHER, args), "");
  args.send = &send;
  send.dtype = TEPLUG_DTYPE_FP32;
  // Reductions matter for all_reduce and reduce_scatter only.
  args.reduce_op = TEPLUG_REDUCE_MAX;
  EXPECT_EQ(CheckCollective(caps, TEPLUG_OP_ALL_REDUCE, args), "reduction max not in {sum}");
  EXPECT_EQ(CheckCollective(caps, TEPLUG_OP_REDUCE_SCATTER, args), "reduction max not in {sum}");
  EXPECT_EQ(CheckCollective(caps, TEPLUG_OP_ALL_GATHER, args), "");
  args.reduce_op = TEPLUG_REDUCE_COUNT_ + 40;  // outside the mask's bits
  EXPECT_THAT(CheckCollective(caps, TEPLUG_OP_ALL_REDUCE, args), ::testing::StartsWith("reduction "));
  args.reduce_op = -1;
  EXPECT_THAT(CheckCollective(caps, TEPLUG_OP_ALL_REDUCE, args), ::testing::StartsWith("reduction "));
  caps.reductions |= TEPLUG_REDUCE_BIT(TEPLUG_REDUCE_MAX);
  args.reduce_op = TEPLUG_REDUCE_MAX;
  EXPECT_EQ(CheckCollective(caps, TEPLUG_OP_REDUCE_SCATTER, args), "");
}

}  // namespace
}  // namespace teplug::core
