// The opencl quantizer on opencl:0 against the reference provider's quantizer
// (the oracle) on the same random non-zero inputs: every served combination of
// input dtype, fp8 format, scaling mode and recipe, row-wise and column-wise
// outputs, amax_epsilon and force_pow2_scales, shapes with partial MX blocks,
// tensors at element offsets inside their buffers, and inputs salted with the
// float-format edge cases (NaN, +-Inf, subnormals, rounding ties, values past
// the fp8 maximum). MXFP8 runs by both of quantizer.h's scale rules (OCP and
// TransformerEngine's), the latter also on inputs whose blocks reach its
// special cases (fp32 subnormal amax / max_normal products, Inf and all-NaN
// blocks, zero blocks, block maxima at and past significand 1.75, values near
// FLT_MAX), and on inputs where the two rules give different scales.
// quantizer.h defines every bit, so codes, scales, amax and the column-wise
// copy must equal the reference's byte for byte; dequantize likewise. Then
// what is refused, and how.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/opencl/provider/program_cache.h"
#include "plugins/opencl/quantize/opencl_test_device.h"
#include "plugins/opencl/quantize/quantizer_provider.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/provider/quantizer_provider.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::quantize {
namespace {

using ::testing::HasSubstr;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

size_t Bytes(int32_t dtype, int64_t n) {
  return static_cast<size_t>(n) * (dtype == TEPLUG_DTYPE_FP32 ? 4 : dtype == TEPLUG_DTYPE_FP16 ||
                                                                            dtype == TEPLUG_DTYPE_BF16
                                                                        ? 2
                                                                        : 1);
}

// One tensor twice: host bytes for the reference, device memory (at `pad`
// bytes into its allocation) for the opencl quantizer.
struct Pair {
  std::vector<uint8_t> host;
  TeplugTensor host_t{}, dev_t{};
  void* dev_base = nullptr;
  size_t pad = 0;
};

class QuantizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!device_.unavailable().empty()) GTEST_SKIP() << device_.unavailable();
  }

  // A tensor of `dtype` and `shape` holding `bytes` (or 0xA5 filler).
  Pair Make(int32_t dtype, const std::vector<int64_t>& shape, std::vector<uint8_t> bytes = {},
            size_t pad = 0) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    if (bytes.empty()) bytes.assign(Bytes(dtype, n), 0xA5);
    Pair p;
    p.host = bytes;
    p.pad = pad;
    std::vector<uint8_t> padded(pad, 0x5A);
    padded.insert(padded.end(), bytes.begin(), bytes.end());
    p.dev_base = device_.Upload(padded);
    p.host_t = sdk::Versioned<TeplugTensor>();
    p.host_t.dtype = dtype;
    p.host_t.rank = static_cast<int32_t>(shape.size());
    for (size_t i = 0; i < shape.size(); ++i) p.host_t.shape[i] = shape[i];
    p.dev_t = p.host_t;
    p.dev_t.device = device_.device();
    p.host_t.data = p.host.data();
    p.dev_t.data = static_cast<uint8_t*>(p.dev_base) + pad;
    return p;
  }
  std::vector<uint8_t> Read(const Pair& p) {
    return device_.Download(p.dev_t.data, p.host.size());
  }

  OpenClTestDevice device_;
  OpenClQuantizer quantizer_;
};

// Values that are edge cases of the float formats.
const double kEdges[] = {std::numeric_limits<double>::quiet_NaN(),
                         -std::numeric_limits<double>::quiet_NaN(),
                         std::numeric_limits<double>::infinity(),
                         -std::numeric_limits<double>::infinity(),
                         1e-40,                     // an fp32 subnormal
                         -3e-39,                    // another
                         1.0 + 1.0 / 16,            // e4m3 tie: to 1
                         1.0 + 3.0 / 16,            // e4m3 tie: to 1.25
                         1.0 + 1.0 / 8,             // e5m2 tie: to 1
                         1.0 + 3.0 / 8,             // e5m2 tie: to 1.5
                         std::ldexp(1.0, -10),      // half the e4m3 minimum subnormal
                         3 * std::ldexp(1.0, -10),  // an e4m3 subnormal tie
                         std::ldexp(1.0, -17),      // half the e5m2 minimum subnormal
                         464.0,                     // e4m3 tie above the maximum
                         480.0,                     // past the e4m3 maximum
                         61440.0,                   // e5m2 tie past the maximum
                         1e6,                       // saturates either format
                         -448.0,                    // the e4m3 maximum
                         57344.0};                  // the e5m2 maximum

// Stores v rounded to `dtype` as element i of `out`.
void StoreAs(int32_t dtype, double v, std::vector<uint8_t>& out, int64_t i) {
  if (dtype == TEPLUG_DTYPE_FP32) {
    const float f = static_cast<float>(v);
    std::memcpy(&out[4 * i], &f, 4);
  } else {
    const uint16_t h =
        dtype == TEPLUG_DTYPE_FP16 ? reference::EncodeFp16(v) : reference::EncodeBf16(v);
    std::memcpy(&out[2 * i], &h, 2);
  }
}

// The input's values as `dtype` bytes: random magnitudes over 2^-12..2^12,
// random signs, never zero; with `salt`, about one element in 23 is an edge
// case of the float formats.
std::vector<uint8_t> RandomInput(int32_t dtype, int64_t n, bool salt, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-12, 12), edge(0, sizeof kEdges / sizeof kEdges[0] - 1);
  std::vector<uint8_t> out(Bytes(dtype, n));
  for (int64_t i = 0; i < n; ++i) {
    double v = std::ldexp(mantissa(rng), exponent(rng)) * ((rng() & 1) ? -1 : 1);
    if (salt && rng() % 23 == 0) v = kEdges[edge(rng)];
    StoreAs(dtype, v, out, i);
  }
  return out;
}

// A [rows, cols] input for TransformerEngine's MX rule: each 32x32 tile (so
// each row block and each column block) draws from one regime, the tiles
// taking the regimes in turn from `first`, so every regime appears once
// there are 8 tiles; about one element in 23 is then an edge case
// (kEdges). The regimes reach every branch of the rule: block maxima with
// significands in [1.75, 2) (TE's scale is twice OCP's), maxima at and a few
// fp32 ulps either side of 1.75 * 2^k (both fp8 maxima are 1.75 * 2^k, so
// the scale moves there and the fp32 rounding of amax * (1 / max_normal)
// decides it), fp32 subnormals, amax / max_normal products that are fp32
// subnormals on both sides of mantissa 0x400000 (scale code 0 or 1,
// multiplier 1 at code 0), values near FLT_MAX, all-NaN blocks (amax 0) and
// signed-zero blocks.
std::vector<uint8_t> TeRuleInput(int32_t dtype, int64_t rows, int64_t cols, int first,
                                 std::mt19937_64& rng) {
  constexpr int kRegimes = 8;
  std::uniform_real_distribution<double> mantissa(1.0, 2.0), high(1.75, 2.0), low(0.0, 1.75);
  std::uniform_int_distribution<int> edge(0, sizeof kEdges / sizeof kEdges[0] - 1);
  const int64_t tile_cols = CeilDiv(cols, 32);
  std::vector<uint8_t> out(Bytes(dtype, rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int regime = static_cast<int>((first + (r / 32) * tile_cols + c / 32) % kRegimes);
      const bool negative = rng() & 1;
      auto in = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      double v = 0;
      switch (regime) {
        case 0:
          v = std::ldexp(mantissa(rng), in(-12, 12));
          break;
        case 1:
          v = std::ldexp(high(rng), in(-3, 3));
          break;
        case 2: {
          // Row r's blocks peak at 1.75 * 2^k moved by -2..2 fp32 ulps. With
          // k = -118 (e4m3) or -112 (e5m2), amax / max_normal is 2^-127 at the
          // peak itself: a subnormal product of mantissa 0x400000.
          constexpr int kPeakExponents[] = {4, -118, -112};
          const int k = kPeakExponents[r % 3];
          if (c % 7 != 0) {
            v = std::ldexp(low(rng), k);
            break;
          }
          float peak = std::ldexp(1.75f, k);
          for (int64_t d = (r / 3) % 5 - 2; d != 0; d += d > 0 ? -1 : 1)
            peak = std::nextafter(peak, d > 0 ? 1.0f : 0.0f);
          v = peak;
          break;
        }
        case 3:
          v = std::ldexp(mantissa(rng), in(-149, -127));
          break;
        case 4:
          v = std::ldexp(mantissa(rng), in(-125, -115));
          break;
        case 5:
          v = std::ldexp(mantissa(rng), in(110, 127));
          break;
        case 6:
          v = std::numeric_limits<double>::quiet_NaN();
          break;
        default:
          v = 0.0;
          break;
      }
      v = std::copysign(v, negative ? -1.0 : 1.0);  // NaN and zero blocks too
      if (regime < 6 && rng() % 23 == 0) v = kEdges[edge(rng)];
      StoreAs(dtype, v, out, r * cols + c);
    }
  }
  return out;
}

std::vector<uint8_t> FloatBytes(float f) {
  std::vector<uint8_t> b(4);
  std::memcpy(b.data(), &f, 4);
  return b;
}

struct Case {
  int32_t input = TEPLUG_DTYPE_FP32, output = TEPLUG_DTYPE_FP8_E4M3;
  int32_t mode = TEPLUG_SCALING_PER_TENSOR;
  int32_t recipe = TEPLUG_RECIPE_CURRENT;
  bool rowwise = true, columnwise = false, salt = false, with_amax = true, with_scale = true;
  float amax_epsilon = 0, delayed_scale = 1;
  bool pow2 = false;
  int64_t rows = 17, cols = 64;
  size_t pad = 0;
  int32_t mx_rule = TEPLUG_MX_SCALE_OCP;            // TeplugQuantizeArgs.mx_scale_rule
  size_t struct_size = sizeof(TeplugQuantizeArgs);  // the writer's, on both sides
  int te_regimes = -1;  // >= 0: TeRuleInput from this regime, else RandomInput
};

std::string Describe(const Case& c) {
  return std::string(sdk::DTypeName(c.input)) + "->" + sdk::DTypeName(c.output) + " " +
         sdk::ScalingName(c.mode) + (c.recipe == TEPLUG_RECIPE_DELAYED ? " delayed" : " current") +
         " [" + std::to_string(c.rows) + ", " + std::to_string(c.cols) +
         "] rowwise=" + std::to_string(c.rowwise) + " columnwise=" + std::to_string(c.columnwise) +
         " salt=" + std::to_string(c.salt) + " eps=" + std::to_string(c.amax_epsilon) +
         " pow2=" + std::to_string(c.pow2) + " delayed_scale=" + std::to_string(c.delayed_scale) +
         " pad=" + std::to_string(c.pad) + " mx_scale_rule=" + sdk::MxScaleRuleName(c.mx_rule) +
         " struct_size=" + std::to_string(c.struct_size) +
         " te_regimes=" + std::to_string(c.te_regimes);
}

// The outputs of one case, on both sides.
struct Outputs {
  Pair codes, scale_inv, scale, amax, col_codes, col_scale_inv;
  TeplugQuantization host_q{}, dev_q{};
};

class QuantizeCases : public QuantizerTest {
 protected:
  // Runs case `c` on input drawn with `seed` on both sides and compares every
  // output byte. ref_scales (when given) receives the reference's row-wise
  // then column-wise scale bytes.
  void Check(const Case& c, uint64_t seed, std::vector<uint8_t>* ref_scales = nullptr) {
    SCOPED_TRACE(Describe(c));
    std::mt19937_64 rng(seed);
    const bool mx = c.mode == TEPLUG_SCALING_MXFP8_1D32;
    Pair in = Make(c.input, {c.rows, c.cols},
                   c.te_regimes >= 0 ? TeRuleInput(c.input, c.rows, c.cols, c.te_regimes, rng)
                                     : RandomInput(c.input, c.rows * c.cols, c.salt, rng),
                   c.pad * Bytes(c.input, 1));
    Outputs o;
    o.codes = Make(c.output, {c.rows, c.cols}, {}, c.pad);
    o.scale_inv = mx ? Make(TEPLUG_DTYPE_E8M0, {c.rows, CeilDiv(c.cols, 32)}, {}, c.pad)
                     : Make(TEPLUG_DTYPE_FP32, {1}, {}, 4 * c.pad);
    o.scale = Make(TEPLUG_DTYPE_FP32, {1}, FloatBytes(c.delayed_scale), 4 * c.pad);
    o.amax = Make(TEPLUG_DTYPE_FP32, {1}, {}, 4 * c.pad);
    o.col_codes = Make(c.output, mx ? std::vector<int64_t>{c.rows, c.cols}
                                    : std::vector<int64_t>{c.cols, c.rows}, {}, c.pad);
    o.col_scale_inv = mx ? Make(TEPLUG_DTYPE_E8M0, {CeilDiv(c.rows, 32), c.cols}, {}, c.pad)
                         : Make(TEPLUG_DTYPE_FP32, {1}, {}, 4 * c.pad);
    for (auto [q, dev] : {std::pair<TeplugQuantization*, bool>{&o.host_q, false}, {&o.dev_q, true}}) {
      auto t = [&](Pair& p) { return dev ? &p.dev_t : &p.host_t; };
      *q = sdk::Versioned<TeplugQuantization>();
      q->mode = c.mode;
      q->scale_inv = t(o.scale_inv);
      q->scale = !mx && c.with_scale ? t(o.scale) : nullptr;
      q->amax = c.with_amax ? t(o.amax) : nullptr;
      q->columnwise_data = c.columnwise ? t(o.col_codes) : nullptr;
      q->columnwise_scale_inv = c.columnwise ? t(o.col_scale_inv) : nullptr;
      (dev ? o.codes.dev_t : o.codes.host_t).quant = q;
    }
    TeplugQuantizeArgs a = sdk::Versioned<TeplugQuantizeArgs>();
    a.recipe = c.recipe;
    a.amax_epsilon = c.amax_epsilon;
    a.force_pow2_scales = c.pow2;
    a.rowwise = c.rowwise;
    a.columnwise = c.columnwise;
    a.mx_scale_rule = c.mx_rule;
    a.struct_size = c.struct_size;
    TeplugQuantizeArgs ref = a;
    ref.input = &in.host_t;
    ref.output = &o.codes.host_t;
    a.input = &in.dev_t;
    a.output = &o.codes.dev_t;
    const absl::Status s = reference::provider::RunReferenceQuantize(ref);
    ASSERT_TRUE(s.ok()) << s;
    std::string reason;
    ASSERT_TRUE(quantizer_.SupportsQuantize(a, &reason)) << reason;
    ASSERT_NO_THROW(quantizer_.Quantize(a));
    const std::pair<const char*, Pair*> parts[] = {
        {"codes", &o.codes},         {"scale_inv", &o.scale_inv},   {"scale", &o.scale},
        {"amax", &o.amax},           {"columnwise_data", &o.col_codes},
        {"columnwise_scale_inv", &o.col_scale_inv}};
    for (const auto& [name, p] : parts) {
      const std::vector<uint8_t> got = Read(*p);
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(int{got[i]}, int{p->host[i]}) << name << " byte " << i;
      }
    }
    if (ref_scales != nullptr) {
      *ref_scales = o.scale_inv.host;
      ref_scales->insert(ref_scales->end(), o.col_scale_inv.host.begin(),
                         o.col_scale_inv.host.end());
    }
  }
};

TEST_F(QuantizeCases, EveryServedCombinationIsBitExact) {
  uint64_t seed = 1;
  for (int32_t input : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16}) {
    for (int32_t output : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
      for (int variant = 0; variant < 4; ++variant) {
        Case c;
        c.input = input;
        c.output = output;
        c.mode = variant == 3 ? TEPLUG_SCALING_MXFP8_1D32 : TEPLUG_SCALING_PER_TENSOR;
        c.recipe = variant == 0 ? TEPLUG_RECIPE_DELAYED : TEPLUG_RECIPE_CURRENT;
        c.delayed_scale = 448.0f / 2.75f;  // not a power of two: scaled values round
        c.columnwise = variant != 1;
        c.rows = 17 + variant * 16;  // 17, 33, 49, 65: partial column blocks
        c.cols = variant == 2 ? 70 : 64 + variant * 3;  // partial row blocks
        Check(c, seed++);
        c.salt = true;  // the same with the edge cases salted in
        Check(c, seed++);
      }
    }
  }
}

TEST_F(QuantizeCases, TiesSaturationAndSpecialsRoundAsTheSpecSays) {
  // A power-of-two delayed scale keeps the salted ties ties after scaling.
  uint64_t seed = 100;
  for (int32_t output : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
    for (float scale : {1.0f, 0.5f, 8.0f}) {
      Case c;
      c.output = output;
      c.recipe = TEPLUG_RECIPE_DELAYED;
      c.delayed_scale = scale;
      c.salt = true;
      c.columnwise = true;
      c.rows = 40;
      c.cols = 96;
      Check(c, seed++);
    }
    Case mx;
    mx.output = output;
    mx.mode = TEPLUG_SCALING_MXFP8_1D32;
    mx.salt = true;
    mx.columnwise = true;
    mx.rows = 70;
    mx.cols = 33;
    Check(mx, seed++);
  }
}

TEST_F(QuantizeCases, EpsilonPow2ShapesAndOffsets) {
  uint64_t seed = 200;
  Case c;
  c.amax_epsilon = 5000.0f;  // above every amax: the epsilon sets the scale
  Check(c, seed++);
  c.amax_epsilon = 0.25f;
  c.pow2 = true;
  Check(c, seed++);
  c.input = TEPLUG_DTYPE_BF16;
  c.output = TEPLUG_DTYPE_FP8_E5M2;
  Check(c, seed++);
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {1, 31}, {31, 1}, {5, 97}}) {
    for (int32_t mode : {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32}) {
      Case s;
      s.mode = mode;
      s.rows = rows;
      s.cols = cols;
      s.columnwise = true;
      s.pad = 3;  // every tensor 3 elements into its buffer
      Check(s, seed++);
      s.rowwise = false;  // the column-wise copy alone
      s.with_amax = false;
      s.with_scale = false;
      Check(s, seed++);
    }
  }
}

// TransformerEngine's MX rule, row-wise and column-wise, for every input
// dtype and fp8 format: on random inputs salted with edge cases and on inputs
// built to reach each of the rule's special cases, with partial blocks both
// ways and tensors at element offsets.
TEST_F(QuantizeCases, TransformerEngineMxRuleIsBitExact) {
  uint64_t seed = 300;
  for (int32_t input : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16}) {
    for (int32_t output : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
      Case c;
      c.input = input;
      c.output = output;
      c.mode = TEPLUG_SCALING_MXFP8_1D32;
      c.mx_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
      c.columnwise = true;
      c.salt = true;
      c.rows = 70;  // partial column blocks
      c.cols = 45;  // partial row blocks
      Check(c, seed++);
      c.salt = false;
      c.rows = 33;
      c.cols = 100;
      Check(c, seed++);
      for (int first = 0; first < 8; first += 4) {  // 12 tiles: every regime, some twice
        c.te_regimes = first;
        c.rows = 90;
        c.cols = 127;
        c.pad = first == 0 ? 0 : 3;
        Check(c, seed++);
      }
      c.te_regimes = 2;
      c.rows = 64;
      c.cols = 256;
      c.rowwise = false;  // the column-wise copy alone
      c.with_amax = false;
      Check(c, seed++);
    }
  }
}

// The rule reaches the kernels: on inputs whose block maxima have
// significands above 1.75 the reference's TE and OCP scales differ on many
// blocks, and the quantizer matches each rule's bytes, so a quantizer that
// ignored mx_scale_rule would fail one of the two checks.
TEST_F(QuantizeCases, TransformerEngineAndOcpRulesDifferAndEachIsMatched) {
  uint64_t seed = 400;
  for (int32_t input : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_BF16}) {
    for (int32_t output : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
      Case c;
      c.input = input;
      c.output = output;
      c.mode = TEPLUG_SCALING_MXFP8_1D32;
      c.columnwise = true;
      c.rows = 40;
      c.cols = 72;
      std::vector<uint8_t> ocp, te;
      Check(c, seed, &ocp);
      c.mx_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
      Check(c, seed, &te);
      ++seed;
      ASSERT_EQ(ocp.size(), te.size());
      size_t differ = 0;
      for (size_t i = 0; i < te.size(); ++i) {
        if (te[i] == ocp[i]) continue;
        ++differ;
        EXPECT_EQ(int{te[i]}, int{ocp[i]} + 1) << "scale " << i << ": TE's is twice OCP's";
      }
      EXPECT_GT(differ, te.size() / 8) << "of " << te.size() << " scales";
    }
  }
}

// A v1.0-v1.2 caller's struct ends before mx_scale_rule: whatever lies past
// its end, the OCP rule applies. Other scaling modes ignore the field.
TEST_F(QuantizeCases, MxScaleRuleIsReadOnlyWhereItExists) {
  Case c;
  c.mode = TEPLUG_SCALING_MXFP8_1D32;
  c.columnwise = true;
  c.rows = 40;
  c.cols = 72;
  std::vector<uint8_t> ocp, short_struct;
  Check(c, 500, &ocp);
  c.mx_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  c.struct_size = TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, stream);
  Check(c, 500, &short_struct);
  EXPECT_EQ(short_struct, ocp);
  Case p;
  p.mx_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  p.columnwise = true;
  Check(p, 501);
}

// Dequantize of reference-made codes, into every output dtype.
TEST_F(QuantizerTest, DequantizeIsBitExact) {
  std::mt19937_64 rng(7);
  for (int32_t mode : {TEPLUG_SCALING_PER_TENSOR, TEPLUG_SCALING_MXFP8_1D32}) {
    for (int32_t format : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
      for (int32_t out_dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16}) {
        SCOPED_TRACE(std::string(sdk::ScalingName(mode)) + " " + sdk::DTypeName(format) + " -> " +
                     sdk::DTypeName(out_dtype));
        const int64_t rows = 9, cols = 70;
        std::vector<uint8_t> codes(rows * cols);
        for (auto& b : codes) b = static_cast<uint8_t>(rng());  // every code, NaN and Inf too
        const bool mx = mode == TEPLUG_SCALING_MXFP8_1D32;
        std::vector<uint8_t> scales;
        if (mx) {
          scales.resize(rows * CeilDiv(cols, 32));
          for (auto& s : scales) s = static_cast<uint8_t>(rng() % 256);  // 0 (2^-127), 0xFF (NaN)
        } else {
          // Subnormal products into fp16/bf16: a scale_inv far from 1.
          scales = FloatBytes(std::ldexp(1.3f, -9));
        }
        Pair sc = mx ? Make(TEPLUG_DTYPE_E8M0, {rows, CeilDiv(cols, 32)}, scales)
                     : Make(TEPLUG_DTYPE_FP32, {1}, scales);
        Pair in = Make(format, {rows, cols}, codes);
        Pair out = Make(out_dtype, {rows, cols});
        TeplugQuantization hq = sdk::Versioned<TeplugQuantization>(), dq = hq;
        hq.mode = dq.mode = mode;
        hq.scale_inv = &sc.host_t;
        dq.scale_inv = &sc.dev_t;
        in.host_t.quant = &hq;
        in.dev_t.quant = &dq;
        TeplugDequantizeArgs a = sdk::Versioned<TeplugDequantizeArgs>();
        TeplugDequantizeArgs ref = a;
        ref.input = &in.host_t;
        ref.output = &out.host_t;
        a.input = &in.dev_t;
        a.output = &out.dev_t;
        const absl::Status s = reference::provider::RunReferenceDequantize(ref);
        ASSERT_TRUE(s.ok()) << s;
        ASSERT_NO_THROW(quantizer_.Dequantize(a));
        const std::vector<uint8_t> got = Read(out);
        const size_t width = Bytes(out_dtype, 1);
        for (int64_t i = 0; i < rows * cols; ++i) {
          uint32_t g = 0, w = 0;
          std::memcpy(&g, &got[i * width], width);
          std::memcpy(&w, &out.host[i * width], width);
          const uint32_t exp_mask = width == 4 ? 0x7F800000u : out_dtype == TEPLUG_DTYPE_FP16 ? 0x7C00u : 0x7F80u;
          const uint32_t mag_mask = width == 4 ? 0x7FFFFFFFu : 0x7FFFu;
          const bool w_nan = (w & mag_mask) > exp_mask, g_nan = (g & mag_mask) > exp_mask;
          if (w_nan) {
            EXPECT_TRUE(g_nan) << "element " << i << " (code 0x" << std::hex << int{codes[i]} << ")";
          } else {
            ASSERT_EQ(g, w) << "element " << i << " (code 0x" << std::hex << int{codes[i]} << ")";
          }
        }
      }
    }
  }
}

// What the quantizer refuses: UNSUPPORTED with the reason from `supports`
// for what it does not serve, INVALID_ARGUMENT naming the field for
// malformed calls.
class QuantizerRefusals : public QuantizerTest {
 protected:
  void SetUp() override {
    QuantizerTest::SetUp();
    if (IsSkipped()) return;
    std::mt19937_64 rng(3);
    in_ = Make(TEPLUG_DTYPE_FP32, {4, 32}, RandomInput(TEPLUG_DTYPE_FP32, 128, false, rng), 8);
    out_ = Make(TEPLUG_DTYPE_FP8_E4M3, {4, 32});
    scale_inv_ = Make(TEPLUG_DTYPE_FP32, {1});
    scale_ = Make(TEPLUG_DTYPE_FP32, {1}, FloatBytes(2.0f));
    q_ = sdk::Versioned<TeplugQuantization>();
    q_.mode = TEPLUG_SCALING_PER_TENSOR;
    q_.scale_inv = &scale_inv_.dev_t;
    q_.scale = &scale_.dev_t;
    out_.dev_t.quant = &q_;
    args_ = sdk::Versioned<TeplugQuantizeArgs>();
    args_.input = &in_.dev_t;
    args_.output = &out_.dev_t;
    args_.rowwise = 1;
    args_.recipe = TEPLUG_RECIPE_DELAYED;
  }
  std::pair<TeplugCode, std::string> Failure() {
    try {
      quantizer_.Quantize(args_);
    } catch (const sdk::Exception& e) {
      return {e.code(), e.what()};
    }
    return {TEPLUG_OK, ""};
  }
  std::string Refusal() {
    std::string reason;
    EXPECT_FALSE(quantizer_.SupportsQuantize(args_, &reason));
    EXPECT_EQ(Failure().first, TEPLUG_UNSUPPORTED);
    return reason;
  }
  Pair in_, out_, scale_inv_, scale_;
  TeplugQuantization q_{};
  TeplugQuantizeArgs args_{};
};

TEST_F(QuantizerRefusals, AWellFormedCallRunsAndBuildsItsProgramOncePerContext) {
  std::string reason;
  EXPECT_TRUE(quantizer_.SupportsQuantize(args_, &reason)) << reason;
  EXPECT_EQ(Failure().first, TEPLUG_OK) << Failure().second;
  const size_t builds = provider::SharedProgramCache().builds();
  args_.recipe = TEPLUG_RECIPE_CURRENT;
  q_.mode = TEPLUG_SCALING_PER_TENSOR;
  EXPECT_EQ(Failure().first, TEPLUG_OK) << Failure().second;
  TeplugDequantizeArgs d = sdk::Versioned<TeplugDequantizeArgs>();
  Pair back = Make(TEPLUG_DTYPE_FP16, {4, 32});
  d.input = &out_.dev_t;
  d.output = &back.dev_t;
  EXPECT_NO_THROW(quantizer_.Dequantize(d));
  EXPECT_EQ(provider::SharedProgramCache().builds(), builds);
}

TEST_F(QuantizerRefusals, BlockModesFp4StridesAndHostMemoryAreUnsupportedWithAReason) {
  q_.mode = TEPLUG_SCALING_BLOCK_1D128;
  EXPECT_THAT(Refusal(), HasSubstr("block_1d128"));
  q_.mode = TEPLUG_SCALING_PER_TENSOR;
  out_.dev_t.dtype = TEPLUG_DTYPE_FP4_E2M1;
  EXPECT_THAT(Refusal(), HasSubstr("fp4_e2m1"));
  out_.dev_t.dtype = TEPLUG_DTYPE_FP8_E4M3;
  in_.dev_t.strides[0] = 64;
  in_.dev_t.strides[1] = 1;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugQuantizeArgs.input strides [64, 1]"));
  in_.dev_t.strides[0] = in_.dev_t.strides[1] = 0;
  in_.dev_t.device = nullptr;
  EXPECT_THAT(Refusal(), HasSubstr("not on an OpenCL device"));
}

TEST_F(QuantizerRefusals, MalformedCallsNameTheField) {
  const float bad_scales[] = {0.0f, -1.0f, std::numeric_limits<float>::infinity()};
  for (float bad : bad_scales) {
    scale_ = Make(TEPLUG_DTYPE_FP32, {1}, FloatBytes(bad));
    q_.scale = &scale_.dev_t;
    const auto [code, message] = Failure();
    EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
    EXPECT_THAT(message, HasSubstr("TeplugQuantizeArgs.output.quant.scale is"));
  }
  q_.scale_inv = nullptr;
  EXPECT_THAT(Failure().second, HasSubstr("TeplugQuantizeArgs.output.quant.scale_inv is NULL"));
  q_.scale_inv = &scale_inv_.dev_t;
  args_.rowwise = 0;
  EXPECT_THAT(Failure().second, HasSubstr("rowwise and columnwise are both false"));
  args_.rowwise = 1;
  out_.dev_t.shape[1] = 31;
  EXPECT_THAT(Failure().second, HasSubstr("TeplugQuantizeArgs.output is [4, 31]"));
  out_.dev_t.shape[1] = 32;
  in_.dev_t.data = static_cast<uint8_t*>(in_.dev_t.data) - 2;  // not fp32-aligned
  EXPECT_THAT(Failure().second, HasSubstr("not a multiple of the element size 4"));
}

TEST_F(QuantizerRefusals, AnMxScaleRuleOutsideTheEnumIsInvalid) {
  for (int32_t rule : {2, -1}) {
    args_.mx_scale_rule = rule;
    std::string reason;
    EXPECT_TRUE(quantizer_.SupportsQuantize(args_, &reason)) << reason;  // malformed, not refused
    const auto [code, message] = Failure();
    EXPECT_EQ(code, TEPLUG_INVALID_ARGUMENT);
    EXPECT_THAT(message,
                HasSubstr("TeplugQuantizeArgs.mx_scale_rule " + std::to_string(rule) + " is not"));
  }
}

}  // namespace
}  // namespace teplug::opencl::quantize
