// Every bit the reference provider declares is exercised through the ABI, and
// values it does not declare are shown to be refused: the descriptors say
// exactly what the adapter implements, no more. Registration facts (names,
// priority 0, CPU-only devices) are checked from the entry's registrations.
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/collective/rendezvous.h"
#include "plugins/reference/provider/reference_entry.h"
#include "plugins/reference/provider/testing/abi_tensor.h"
#include "plugins/reference/provider/testing/attention_runner.h"
#include "plugins/reference/provider/testing/direct_host.h"
#include "plugins/reference/provider/testing/norm_tensors.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::reference::provider {
namespace {

using testing::AbiTensor;

class CapabilitiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host_.Run(&teplug_reference_entry).ok());
    gemm_ = testing::Find<TeplugGemmV1>(host_.recorded, sdk::kIidGemmV1);
    attn_ = testing::Find<TeplugAttentionV1>(host_.recorded, sdk::kIidAttentionV1);
    quant_ = testing::Find<TeplugQuantizerV1>(host_.recorded, sdk::kIidQuantizerV1);
    coll_ = testing::Find<TeplugCollectiveV1>(host_.recorded, sdk::kIidCollectiveV1);
    norm_ = testing::Find<TeplugNormV1>(host_.recorded, sdk::kIidNormV1);
    ASSERT_TRUE(gemm_ && attn_ && quant_ && coll_ && norm_);
  }
  template <class Caps>
  const Caps& CapsOf(const TeplugIID& iid) {
    return *static_cast<const Caps*>(testing::FindRecord(host_.recorded, iid)->desc.capability);
  }
  bool IsFp8(int32_t d) { return d == TEPLUG_DTYPE_FP8_E4M3 || d == TEPLUG_DTYPE_FP8_E5M2; }
  bool IsScaled(int32_t d) { return IsFp8(d) || d == TEPLUG_DTYPE_FP4_E2M1; }

  // A 2x64 @ 64x2 GEMM with the given operand / output dtypes and A's scaling mode.
  sdk::OwnedError Gemm(int32_t a_dtype, int32_t d_dtype, int32_t a_mode, uint32_t epilogue_bit) {
    AbiTensor a(a_dtype, {2, 64}), b(TEPLUG_DTYPE_FP32, {64, 2}), d(d_dtype, {2, 2}),
        bias(TEPLUG_DTYPE_FP32, {2}), pre(TEPLUG_DTYPE_FP32, {2, 2});
    a.Fill(testing::RandomValues(rng_, a.count()));
    b.Fill(testing::RandomValues(rng_, b.count()));
    bias.Fill({0.5, -0.25});
    if (IsScaled(a_dtype)) {
      switch (a_mode) {
        case TEPLUG_SCALING_PER_TENSOR: a.SetPerTensor(1.0f, 0.5f); break;
        case TEPLUG_SCALING_MXFP8_1D32: {
          auto s = std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, std::vector<int64_t>{2, 2});
          s->Fill({126, 127, 128, 125});
          a.SetQuant(a_mode, std::move(s));
          break;
        }
        default: {
          auto s = std::make_unique<AbiTensor>(
              TEPLUG_DTYPE_FP32, std::vector<int64_t>{a_mode == TEPLUG_SCALING_BLOCK_1D128 ? 2 : 1, 1});
          s->Fill({0.25, 0.75});
          a.SetQuant(a_mode, std::move(s));
          break;
        }
      }
    }
    if (IsFp8(d_dtype)) d.SetPerTensor(4.0f, 0.25f);
    TeplugGemmArgs args = sdk::Versioned<TeplugGemmArgs>();
    args.a = a.get();
    args.b = b.get();
    args.d = d.get();
    args.alpha = 1.0f;
    if (epilogue_bit == TEPLUG_GEMM_CAP_BIAS) args.bias = bias.get();
    if (epilogue_bit == TEPLUG_GEMM_CAP_GELU) args.epilogue = TEPLUG_EPILOGUE_GELU;
    if (epilogue_bit == TEPLUG_GEMM_CAP_GELU_AUX) {
      args.epilogue = TEPLUG_EPILOGUE_GELU;
      args.pre_gelu_out = pre.get();
    }
    if (epilogue_bit == TEPLUG_GEMM_CAP_ACCUMULATE) args.accumulate = 1;
    sdk::OwnedError e(gemm_->vtbl->gemm(gemm_, &args));
    if (e.ok() && !IsFp8(d_dtype)) {
      // GELU may round a very negative row to -0; D as a whole must be computed.
      int nonzero = 0;
      for (double x : d.Values()) {
        EXPECT_TRUE(std::isfinite(x)) << "A " << sdk::DTypeName(a_dtype) << ", D " << sdk::DTypeName(d_dtype);
        nonzero += x != 0.0;
      }
      EXPECT_GT(nonzero, 0) << "D was not written: A " << sdk::DTypeName(a_dtype) << " "
                            << sdk::ScalingName(a_mode) << ", epilogue bit " << epilogue_bit;
    }
    return e;
  }

  testing::DirectHost host_;
  TeplugGemmV1* gemm_ = nullptr;
  TeplugAttentionV1* attn_ = nullptr;
  TeplugQuantizerV1* quant_ = nullptr;
  TeplugCollectiveV1* coll_ = nullptr;
  TeplugNormV1* norm_ = nullptr;
  std::mt19937_64 rng_{31337};
};

TEST_F(CapabilitiesTest, RegistrationsAreTheReferenceAtPriorityZeroOnTheCpu) {
  EXPECT_EQ(std::string(host_.info().name), "reference");
  EXPECT_EQ(std::string(host_.info().vendor), "teplug");
  EXPECT_EQ(std::string(host_.info().version), "0.1.0");
  ASSERT_EQ(host_.recorded.size(), 6u);
  for (const auto& r : host_.recorded) {
    EXPECT_EQ(r.desc.priority, 0) << r.name;
    // Every descriptor starts with struct_size and the device list.
    struct Head {
      size_t struct_size;
      const TeplugDeviceSupport* devices;
      size_t num_devices;
    };
    const auto* head = static_cast<const Head*>(r.desc.capability);
    ASSERT_EQ(head->num_devices, 1u) << r.name;
    EXPECT_EQ(head->devices[0].kind, TEPLUG_DEVICE_CPU) << r.name;
  }
  std::vector<std::string> names;
  for (const auto& r : host_.recorded) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"gemm", "attention", "quantizer", "collective", "norm", "cpu"}));
}

TEST_F(CapabilitiesTest, GemmDeclaredBitsWorkAndOthersAreRefused) {
  const auto& caps = CapsOf<TeplugGemmCaps>(sdk::kIidGemmV1);
  for (int32_t dt = 1; dt < TEPLUG_DTYPE_COUNT_; ++dt) {
    const bool declared = (caps.a_dtypes >> dt) & 1;
    sdk::OwnedError e = Gemm(dt, TEPLUG_DTYPE_FP32, TEPLUG_SCALING_PER_TENSOR, 0);
    EXPECT_EQ(e.ok(), declared) << "A dtype " << sdk::DTypeName(dt) << ": " << e.message();
    EXPECT_EQ((caps.b_dtypes >> dt) & 1, (caps.a_dtypes >> dt) & 1) << sdk::DTypeName(dt);
    const bool d_declared = (caps.d_dtypes >> dt) & 1;
    e = Gemm(TEPLUG_DTYPE_FP32, dt, TEPLUG_SCALING_NONE, 0);
    EXPECT_EQ(e.ok(), d_declared) << "D dtype " << sdk::DTypeName(dt) << ": " << e.message();
  }
  for (int32_t mode = 0; mode < TEPLUG_SCALING_COUNT_; ++mode) {
    const bool declared = (caps.scaling_modes >> mode) & 1;
    sdk::OwnedError e = Gemm(TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP32, mode, 0);
    EXPECT_EQ(e.ok(), declared) << "scaling " << sdk::ScalingName(mode) << ": " << e.message();
  }
  for (uint32_t bit : {TEPLUG_GEMM_CAP_BIAS, TEPLUG_GEMM_CAP_GELU, TEPLUG_GEMM_CAP_GELU_AUX,
                       TEPLUG_GEMM_CAP_ACCUMULATE}) {
    ASSERT_TRUE(caps.epilogues & bit);
    sdk::OwnedError e = Gemm(TEPLUG_DTYPE_BF16, TEPLUG_DTYPE_FP32, 0, bit);
    EXPECT_TRUE(e.ok()) << "epilogue bit " << bit << ": " << e.message();
  }
  EXPECT_EQ(caps.max_dim, 0);
}

TEST_F(CapabilitiesTest, AttentionDeclaredBitsWork) {
  const auto& caps = CapsOf<TeplugAttentionCaps>(sdk::kIidAttentionV1);
  const testing::Dims d{2, 4, 4, 2, 2, 3, 3};
  const std::vector<int64_t> cu = {0, 4, 8};
  const auto q = testing::RandomValues(rng_, 2 * 2 * 4 * 3), k = testing::RandomValues(rng_, 48),
             v = testing::RandomValues(rng_, 48), d_o = testing::RandomValues(rng_, 48);
  auto params = [&](const testing::Dims& dd) {
    TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
    p.batch = dd.b;
    p.num_heads_q = dd.hq;
    p.num_heads_kv = dd.hkv;
    p.head_dim_qk = dd.dqk;
    p.head_dim_v = dd.dv;
    p.max_seqlen_q = dd.sq;
    p.max_seqlen_kv = dd.skv;
    p.window_left = p.window_right = -1;
    p.softmax_scale = 0.5f;
    p.is_training = 1;
    return p;
  };
  for (int32_t layout = 0; layout < TEPLUG_LAYOUT_COUNT_; ++layout) {
    ASSERT_TRUE((caps.layouts >> layout) & 1);
    TeplugAttentionParams p = params(d);
    // thd layouts need a padding mask (every sequence is at full length here).
    if (std::string(sdk::LayoutFormat(layout)) == "thd") p.mask_type = TEPLUG_MASK_PADDING;
    auto r = testing::RunAttention(attn_, layout, p, d, cu, cu, q, k, v, d_o);
    EXPECT_EQ(r.error, "") << sdk::LayoutName(layout);
  }
  for (int32_t mask = 0; mask < TEPLUG_MASK_COUNT_; ++mask) {
    ASSERT_TRUE((caps.mask_types >> mask) & 1);
    TeplugAttentionParams p = params(d);
    p.mask_type = mask;
    const std::vector<int64_t> short_cu = {0, 3, 7};  // used with padding masks only
    const bool padding = mask == TEPLUG_MASK_PADDING || mask == TEPLUG_MASK_PADDING_CAUSAL ||
                         mask == TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT;
    auto r = testing::RunAttention(attn_, TEPLUG_LAYOUT_BSHD_BSHD_BSHD, p, d, padding ? short_cu : cu,
                                   cu, q, k, v, d_o);
    EXPECT_EQ(r.error, "") << sdk::MaskName(mask);
  }
  AbiTensor bias(TEPLUG_DTYPE_FP32, {1, 2, 4, 4});
  bias.Fill(testing::RandomValues(rng_, bias.count()));
  for (int32_t b = 0; b < TEPLUG_BIAS_COUNT_; ++b) {
    ASSERT_TRUE((caps.bias_types >> b) & 1);
    TeplugAttentionParams p = params(d);
    p.bias_type = b;
    const bool tensor = b == TEPLUG_BIAS_PRE_SCALE || b == TEPLUG_BIAS_POST_SCALE;
    auto r = testing::RunAttention(attn_, TEPLUG_LAYOUT_SBHD_SBHD_SBHD, p, d, cu, cu, q, k, v, d_o,
                                   TEPLUG_DTYPE_FP32, tensor ? bias.get() : nullptr);
    EXPECT_EQ(r.error, "") << sdk::BiasName(b);
  }
  for (int32_t dt = 1; dt < TEPLUG_DTYPE_COUNT_; ++dt) {
    const bool declared = (caps.qkv_dtypes >> dt) & 1;
    auto r = testing::RunAttention(attn_, TEPLUG_LAYOUT_BSHD_BSHD_BSHD, params(d), d, cu, cu, q, k, v,
                                   d_o, dt);
    EXPECT_EQ(r.error.empty(), declared) << sdk::DTypeName(dt) << ": " << r.error;
  }
  // Features.
  ASSERT_EQ(caps.features, TEPLUG_ATTN_CAP_DROPOUT | TEPLUG_ATTN_CAP_SLIDING_WINDOW | TEPLUG_ATTN_CAP_GQA |
                               TEPLUG_ATTN_CAP_DETERMINISTIC | TEPLUG_ATTN_CAP_BACKWARD |
                               TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS);
  TeplugAttentionParams p = params(d);
  p.dropout = 0.5f;
  p.rng_seed = 3;
  p.deterministic = 1;
  p.window_left = 1;
  p.window_right = 0;
  auto first = testing::RunAttention(attn_, TEPLUG_LAYOUT_BSHD_BSHD_BSHD, p, d, cu, cu, q, k, v, d_o);
  auto again = testing::RunAttention(attn_, TEPLUG_LAYOUT_BSHD_BSHD_BSHD, p, d, cu, cu, q, k, v, d_o);
  EXPECT_EQ(first.error, "");
  EXPECT_EQ(first.o, again.o) << "deterministic";
  EXPECT_EQ(first.dq, again.dq) << "deterministic backward";
  int zeros = 0;  // dropout 0.5 with a window: some outputs rows differ from no-dropout
  auto plain = testing::RunAttention(attn_, TEPLUG_LAYOUT_BSHD_BSHD_BSHD, params(d), d, cu, cu, q, k, v, d_o);
  for (size_t i = 0; i < first.o.size(); ++i) zeros += first.o[i] != plain.o[i];
  EXPECT_GT(zeros, 0) << "dropout and window change O";
  const testing::Dims gqa{1, 3, 5, 4, 2, 6, 2};  // GQA, head_dim_qk 6 != head_dim_v 2, sq != skv
  auto r = testing::RunAttention(attn_, TEPLUG_LAYOUT_BSHD_BSHD_BSHD, params(gqa), gqa, {0, 3}, {0, 5},
                                 testing::RandomValues(rng_, 4 * 3 * 6), testing::RandomValues(rng_, 2 * 5 * 6),
                                 testing::RandomValues(rng_, 2 * 5 * 2), testing::RandomValues(rng_, 4 * 3 * 2));
  EXPECT_EQ(r.error, "") << "GQA + different head dims";
  EXPECT_EQ(caps.head_dim_max, 0);
  EXPECT_EQ(caps.max_seqlen_q, 0);
}

TEST_F(CapabilitiesTest, QuantizerDeclaredBitsWorkAndOthersAreRefused) {
  const auto& caps = CapsOf<TeplugQuantizerCaps>(sdk::kIidQuantizerV1);
  auto quantize = [&](int32_t in_dtype, int32_t out_dtype, int32_t mode, int32_t recipe) {
    AbiTensor in(in_dtype, {2, 32}), out(out_dtype, {2, 32});
    in.Fill(testing::RandomValues(rng_, in.count()));
    const int32_t sdt = mode == TEPLUG_SCALING_MXFP8_1D32 ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32;
    // Scale and column-wise shapes of TeplugQuantization (types.h) for [2, 32].
    std::vector<int64_t> rs = {2, 1}, cs = {32, 1}, cd = {32, 2};
    if (mode == TEPLUG_SCALING_PER_TENSOR) rs = cs = {1};
    if (mode == TEPLUG_SCALING_BLOCK_2D128) rs = cs = {1, 1};
    if (mode == TEPLUG_SCALING_MXFP8_1D32) cs = {1, 32}, cd = {2, 32};
    out.SetQuant(mode, std::make_unique<AbiTensor>(sdt, rs), std::make_unique<AbiTensor>(out_dtype, cd),
                 std::make_unique<AbiTensor>(sdt, cs));
    if (mode == TEPLUG_SCALING_PER_TENSOR) out.SetPerTensor(2.0f, 0.0f);
    TeplugQuantizeArgs a = sdk::Versioned<TeplugQuantizeArgs>();
    a.input = in.get();
    a.output = out.get();
    a.recipe = recipe;
    a.rowwise = 1;
    a.columnwise = mode != TEPLUG_SCALING_PER_TENSOR;
    sdk::OwnedError e(quant_->vtbl->quantize(quant_, &a));
    if (!e.ok()) return e;
    AbiTensor back(in_dtype, {2, 32});
    TeplugDequantizeArgs d = sdk::Versioned<TeplugDequantizeArgs>();
    d.input = out.get();
    d.output = back.get();
    e = sdk::OwnedError(quant_->vtbl->dequantize(quant_, &d));
    if (e.ok()) {
      const auto x = in.Values(), y = back.Values();
      for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], x[i], std::fabs(x[i]) * 0.25 + 1e-3);
    }
    return e;
  };
  for (int32_t in = 1; in < TEPLUG_DTYPE_COUNT_; ++in) {
    for (int32_t out = 1; out < TEPLUG_DTYPE_COUNT_; ++out) {
      const bool declared = ((caps.input_dtypes >> in) & 1) && ((caps.output_dtypes >> out) & 1);
      for (int32_t mode = 0; mode < TEPLUG_SCALING_COUNT_; ++mode) {
        const bool m = (caps.scaling_modes >> mode) & 1;
        sdk::OwnedError e = quantize(in, out, mode, TEPLUG_RECIPE_CURRENT);
        EXPECT_EQ(e.ok(), declared && m) << sdk::DTypeName(in) << " -> " << sdk::DTypeName(out) << " "
                                         << sdk::ScalingName(mode) << ": " << e.message();
      }
    }
  }
  ASSERT_TRUE(caps.features & TEPLUG_QUANT_CAP_DELAYED_SCALING);
  ASSERT_TRUE(caps.features & TEPLUG_QUANT_CAP_MX_TE_SCALE);
  EXPECT_TRUE(quantize(TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_FP8_E5M2, TEPLUG_SCALING_PER_TENSOR,
                       TEPLUG_RECIPE_DELAYED).ok());
}

// A [2, hidden] forward (and, when `backward`, the backward on its results)
// with the given dtypes; an fp8 y gets y_mode's scales.
sdk::OwnedError NormRun(TeplugNormV1* norm, int32_t type, int32_t x_dtype, int32_t w_dtype,
                        int32_t y_dtype, int32_t y_mode, int64_t hidden, bool zero_centered,
                        bool backward, std::mt19937_64& rng) {
  testing::NormTensors t(type, {2, hidden}, x_dtype, w_dtype, y_dtype, rng);
  t.SetZeroCentered(zero_centered);
  switch (y_mode) {
    case TEPLUG_SCALING_NONE: break;
    case TEPLUG_SCALING_PER_TENSOR: t.y.SetPerTensor(2.0f, 0.5f); break;
    case TEPLUG_SCALING_MXFP8_1D32:
      t.y.SetQuant(y_mode, std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0,
                                                       std::vector<int64_t>{2, (hidden + 31) / 32}));
      break;
    default:
      t.y.SetQuant(y_mode, std::make_unique<AbiTensor>(TEPLUG_DTYPE_FP32, std::vector<int64_t>{1, 1}));
  }
  sdk::OwnedError e = t.Forward(norm);
  if (!e.ok() || !backward) return e;
  return t.Backward(norm);
}

TEST_F(CapabilitiesTest, NormDeclaredBitsWorkAndOthersAreRefused) {
  const auto& caps = CapsOf<TeplugNormCaps>(sdk::kIidNormV1);
  const int32_t f32 = TEPLUG_DTYPE_FP32, none = TEPLUG_SCALING_NONE;
  for (int32_t dt = 1; dt < TEPLUG_DTYPE_COUNT_; ++dt) {
    EXPECT_EQ(NormRun(norm_, 0, dt, f32, f32, none, 32, false, true, rng_).ok(),
              ((caps.input_dtypes >> dt) & 1) != 0) << "x dtype " << sdk::DTypeName(dt);
    EXPECT_EQ(NormRun(norm_, 0, f32, dt, f32, none, 32, false, true, rng_).ok(),
              ((caps.weight_dtypes >> dt) & 1) != 0) << "gamma dtype " << sdk::DTypeName(dt);
    const int32_t mode = IsFp8(dt) ? TEPLUG_SCALING_PER_TENSOR : none;
    EXPECT_EQ(NormRun(norm_, 0, f32, f32, dt, mode, 32, false, false, rng_).ok(),
              ((caps.output_dtypes >> dt) & 1) != 0) << "y dtype " << sdk::DTypeName(dt);
  }
  for (int32_t mode = 0; mode < TEPLUG_SCALING_COUNT_; ++mode) {
    sdk::OwnedError e =
        NormRun(norm_, 1, f32, f32, TEPLUG_DTYPE_FP8_E4M3, mode, 40, false, false, rng_);
    EXPECT_EQ(e.ok(), ((caps.scaling_modes >> mode) & 1) != 0)
        << "fp8 y in " << sdk::ScalingName(mode) << ": " << e.message();
  }
  for (int32_t type = 0; type < TEPLUG_NORM_TYPE_COUNT_ + 1; ++type) {
    EXPECT_EQ(NormRun(norm_, type, f32, f32, f32, none, 32, true, true, rng_).ok(),
              ((caps.norm_types >> type) & 1) != 0) << "norm type " << type;
  }
  EXPECT_EQ(caps.features, TEPLUG_NORM_CAP_BACKWARD | TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA |
                               TEPLUG_NORM_CAP_MX_TE_SCALE);
  {  // the declared TransformerEngine MX rule is served
    testing::NormTensors t(TEPLUG_NORM_RMSNORM, {2, 40}, f32, f32, TEPLUG_DTYPE_FP8_E4M3, rng_);
    t.y.SetQuant(TEPLUG_SCALING_MXFP8_1D32,
                 std::make_unique<AbiTensor>(TEPLUG_DTYPE_E8M0, std::vector<int64_t>{2, 2}));
    t.fwd.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
    sdk::OwnedError e = t.Forward(norm_);
    EXPECT_TRUE(e.ok()) << e.message();
  }
  EXPECT_EQ(caps.hidden_min, 1);
  EXPECT_EQ(caps.hidden_max, 0);
  for (int64_t hidden : {1, 7, 4096}) {
    EXPECT_TRUE(NormRun(norm_, 0, f32, f32, f32, none, hidden, false, true, rng_).ok()) << hidden;
  }
}

TEST_F(CapabilitiesTest, CollectiveDeclaredBitsWorkAndOthersAreRefused) {
  const auto& caps = CapsOf<TeplugCollectiveCaps>(sdk::kIidCollectiveV1);
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string blob =
      collective::EncodeBootstrapBlob(collective::MakeUniqueRegionPath(dir ? dir : "/tmp"));
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  rv.timeout_ms = 20000;
  std::vector<std::string> errors(2);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 2; ++rank) {
    ranks.emplace_back([&, rank] {
      TeplugCommCreateArgs c = sdk::Versioned<TeplugCommCreateArgs>();
      c.rank = rank;
      c.world_size = 2;
      c.rendezvous = &rv;
      TeplugCommunicator* comm = nullptr;
      sdk::OwnedError e(coll_->vtbl->comm_create(coll_, &c, &comm));
      if (!e.ok()) {
        errors[rank] = e.message();
        return;
      }
      auto run = [&](int32_t op, int32_t dtype, int32_t reduce, int64_t send_n, int64_t recv_n) {
        AbiTensor s(dtype, {send_n}), r(dtype, {recv_n});
        s.Fill(std::vector<double>(send_n, 1.0));
        TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
        a.comm = comm;
        a.send = s.get();
        a.recv = r.get();
        a.reduce_op = reduce;
        a.peer = 1 - rank;
        if (op == TEPLUG_OP_SEND) a.recv = nullptr;
        if (op == TEPLUG_OP_RECV) a.send = nullptr;
        return sdk::OwnedError(coll_->vtbl->run(coll_, op, &a));
      };
      std::string& err = errors[rank];
      for (int32_t dt = 1; dt < TEPLUG_DTYPE_COUNT_ && err.empty(); ++dt) {
        const bool declared = (caps.dtypes >> dt) & 1;
        for (int32_t red = 0; red < TEPLUG_REDUCE_COUNT_ && err.empty(); ++red) {
          if (!((caps.reductions >> red) & 1)) err = "reduction not declared";
          const bool ok = run(TEPLUG_OP_ALL_REDUCE, dt, red, 4, 4).ok();
          if (ok != declared) err = std::string("all_reduce ") + sdk::DTypeName(dt) + " " + sdk::ReduceName(red);
          if (!ok) break;  // a refused call fails the communicator on neither rank: it is local
        }
      }
      const int32_t ops[] = {TEPLUG_OP_ALL_GATHER, TEPLUG_OP_REDUCE_SCATTER, TEPLUG_OP_BROADCAST,
                             TEPLUG_OP_BARRIER};
      const int64_t sends[] = {3, 6, 3, 1}, recvs[] = {6, 3, 3, 1};
      for (int i = 0; i < 4 && err.empty(); ++i) {
        if (!((caps.ops >> ops[i]) & 1)) err = "op not declared";
        if (sdk::OwnedError e2 = run(ops[i], TEPLUG_DTYPE_FP32, TEPLUG_REDUCE_SUM, sends[i], recvs[i]); !e2.ok()) {
          err = std::string("collective ") + sdk::OpName(ops[i]) + ": " + e2.message();
        }
      }
      if (err.empty() && ((caps.ops >> TEPLUG_OP_SEND) & 1) && ((caps.ops >> TEPLUG_OP_RECV) & 1)) {
        // Rank 0 sends, rank 1 receives.
        if (sdk::OwnedError e2 = run(rank == 0 ? TEPLUG_OP_SEND : TEPLUG_OP_RECV, TEPLUG_DTYPE_INT8,
                                     0, 5, 5);
            !e2.ok()) {
          err = "send/recv: " + e2.message();
        }
      }
      sdk::OwnedError d(coll_->vtbl->comm_destroy(coll_, comm));
      if (err.empty() && !d.ok()) err = d.message();
    });
  }
  for (auto& t : ranks) t.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
}

}  // namespace
}  // namespace teplug::reference::provider
