// CheckOpCapability at every numeric limit a descriptor can set: a value
// equal to a limit is served, one past it is refused with the values in the
// reason, and 0 means "no limit". Covers attention head_dim min/max/multiple
// (for both head dims), sequence lengths, GEMM max_dim per dimension (with
// transposes) and alignment, and the collective world size.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/select/capability_check.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

const std::vector<TeplugDeviceSupport> kAnyDevice = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_ANY, 0, 0, 0}};

// "" when served, else the formatted refusal.
std::string Verdict(const Capability& cap, const OpDescription& op) {
  std::optional<Refusal> r = CheckOpCapability(cap, op);
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
  // Heads of both kinds set to `d`.
  void HeadDim(int64_t d) { params_.head_dim_qk = params_.head_dim_v = d; }

  std::string Check() {
    Capability cap;
    cap.kind = InterfaceKind::kAttention;
    cap.devices = kAnyDevice;
    cap.caps = caps_;
    OpDescription op;
    op.kind = InterfaceKind::kAttention;
    op.op = TEPLUG_OP_ATTENTION_FORWARD;
    op.args = &args_;
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
  // Moves every tensor's data `bytes` past a 64-byte boundary.
  void Offset(size_t bytes) {
    for (TeplugTensor* t : {&a_, &b_, &d_}) t->data = reinterpret_cast<unsigned char*>(storage_) + bytes;
  }

  std::string Check() {
    Capability cap;
    cap.kind = InterfaceKind::kGemm;
    cap.devices = kAnyDevice;
    cap.caps = caps_;
    OpDescription op;
    op.kind = InterfaceKind::kGemm;
    op.op = TEPLUG_OP_GEMM;
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

TEST(CapabilityCheckBoundariesTest, WorldSizeLimitIsInclusive) {
  TeplugCollectiveCaps caps = sdk::Versioned<TeplugCollectiveCaps>();
  caps.dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  caps.ops = TEPLUG_OP_BIT(TEPLUG_OP_BARRIER);
  caps.max_world_size = 8;
  Capability cap;
  cap.kind = InterfaceKind::kCollective;
  cap.devices = kAnyDevice;
  OpDescription op;
  op.kind = InterfaceKind::kCollective;
  op.op = kOpCommCreate;
  for (auto [limit, world, verdict] : {std::tuple{8, 8, ""}, {8, 9, "world size 9 > max 8"}, {8, 1, ""},
                                       {0, 1 << 20, ""}}) {
    caps.max_world_size = limit;
    cap.caps = caps;
    op.world_size = world;
    EXPECT_EQ(Verdict(cap, op), verdict) << "world " << world << " limit " << limit;
  }
}

}  // namespace
}  // namespace teplug::core
