// The quantizer's vectorised loops against the element conversions applied
// one element at a time (element_codec.h, itself checked against the
// reference's formats in element_codec_test), for the instruction set the
// kernels were built for. The loops are compiled once per instruction set
// (target_clones picks the newest the CPU runs), so this test is built
// three times (BUILD): with the clones (what ships), and with the kernels
// built for x86-64-v3 only and for the x86-64 baseline only, so that every
// clone is checked on a machine that would otherwise run only the newest.
// A build for an instruction set this CPU lacks skips with the reason.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/quantize/element_codec.h"
#include "plugins/cpu/quantize/quantize_kernels.h"

namespace teplug::cpu::quantize {
namespace {

// The CPU feature the kernels under test need (TEPLUG_CPU_QUANTIZE_TARGET_FEATURE
// from BUILD), or "" for the build with clones and the baseline build.
void SkipUnlessSupported() {
#ifdef TEPLUG_CPU_QUANTIZE_TARGET_FEATURE
  __builtin_cpu_init();
  if (!__builtin_cpu_supports(TEPLUG_CPU_QUANTIZE_TARGET_FEATURE)) {
    GTEST_SKIP() << "this CPU lacks " << TEPLUG_CPU_QUANTIZE_TARGET_FEATURE
                 << ", which the kernels of this build need";
  }
#endif
}

float Widened(Wide type, const std::vector<uint16_t>& h, size_t i) {
  return type == Wide::kBf16 ? Bf16ToFloat(h[i]) : Fp16ToFloat(h[i]);
}

// Inputs: normal samples of several magnitudes, with NaN, +-Inf, zeros of
// both signs, fp32 subnormals, values past the fp8 maximum and values on
// fp8 rounding midpoints mixed in. As fp32, and as fp16/bf16 bit patterns
// (every pattern kind occurs: NaN, Inf, subnormal).
struct Inputs {
  std::vector<float> f32;
  std::vector<uint16_t> f16;  // for fp16 and bf16: random bit patterns
};
Inputs MakeInputs(int64_t n, uint32_t seed) {
  Inputs in;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> kind(0, 15);
  std::uniform_int_distribution<int> exponent(-20, 20);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            0.0f, -0.0f, 1e-40f, -3e-39f, 500.0f, -70000.0f, 0.5f + 1.0f / 32, 17.0f, 0.001953125f};
  in.f32.resize(static_cast<size_t>(n));
  in.f16.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int k = kind(rng);
    in.f32[i] = k == 0 ? specials[rng() % (sizeof specials / sizeof specials[0])]
                       : std::ldexp(normal(rng), exponent(rng));
    in.f16[i] = static_cast<uint16_t>(rng());
  }
  return in;
}

template <Fp8Kind K>
uint8_t Encode(float v) {
  return FloatToFp8<K>(v);
}
uint8_t EncodeAs(Fp8Kind kind, float v) {
  return kind == Fp8Kind::kE4M3 ? Encode<Fp8Kind::kE4M3>(v) : Encode<Fp8Kind::kE5M2>(v);
}

const void* Data(Wide type, const Inputs& in) {
  return type == Wide::kFp32 ? static_cast<const void*>(in.f32.data()) : in.f16.data();
}
float Element(Wide type, const Inputs& in, size_t i) {
  return type == Wide::kFp32 ? in.f32[i] : Widened(type, in.f16, i);
}
const char* Name(Wide type) { return type == Wide::kFp32 ? "fp32" : (type == Wide::kBf16 ? "bf16" : "fp16"); }

constexpr Wide kTypes[] = {Wide::kFp32, Wide::kFp16, Wide::kBf16};
constexpr Fp8Kind kKinds[] = {Fp8Kind::kE4M3, Fp8Kind::kE5M2};

TEST(KernelsIsaTest, AbsMaxSkipsNaNAndCountsInf) {
  SkipUnlessSupported();
  for (Wide type : kTypes) {
    for (int64_t n : {1, 7, 33, 1000, 70001}) {
      SCOPED_TRACE(std::string(Name(type)) + " n=" + std::to_string(n));
      const Inputs in = MakeInputs(n, static_cast<uint32_t>(n));
      float expected = 0.0f;
      for (int64_t i = 0; i < n; ++i) {
        const float a = std::fabs(Element(type, in, i));
        if (!std::isnan(a) && a > expected) expected = a;
      }
      for (int threads : {1, 3}) {
        EXPECT_EQ(AbsMax(type, Data(type, in), n, threads), expected) << threads << " threads";
      }
    }
  }
}

TEST(KernelsIsaTest, PerTensorCastEqualsTheElementConversion) {
  SkipUnlessSupported();
  for (Wide type : kTypes) {
    for (Fp8Kind kind : kKinds) {
      for (float scale : {1.0f, 0.37f, 3.0e3f}) {
        const int64_t n = 70001;  // several chunks and a ragged end
        SCOPED_TRACE(std::string(Name(type)) + (kind == Fp8Kind::kE4M3 ? " e4m3" : " e5m2") +
                     " scale=" + std::to_string(scale));
        const Inputs in = MakeInputs(n, 11);
        std::vector<uint8_t> codes(static_cast<size_t>(n));
        QuantizeWithScale(type, Data(type, in), n, scale, kind, codes.data(), 2);
        int mismatches = 0;
        for (int64_t i = 0; i < n && mismatches < 5; ++i) {
          const uint8_t expected = EncodeAs(kind, Element(type, in, i) * scale);
          if (codes[i] != expected) {
            ++mismatches;
            ADD_FAILURE() << "element " << i << " (" << Element(type, in, i) << "): code " << int{codes[i]}
                          << ", expected " << int{expected};
          }
        }
      }
    }
  }
}

// MXFP8 along rows, written out: each block's max |x| with NaN counted, the
// OCP MX v1.0 scale code, every element NaN in a non-finite block.
// TransformerEngine's scale code of a block whose NaN-free max |x| is
// `amax` (quantizer.h): the e8m0 exponent of fp32(amax * fp32(1/max_normal)),
// rounded up when the mantissa is not zero (not past 0xFE, and not for a
// subnormal product with mantissa <= 0x400000); Inf gives 0xFE.
int TeScaleCode(float amax, Fp8Kind kind) {
  if (std::isinf(amax)) return 0xFE;
  const float p = amax * (1.0f / (kind == Fp8Kind::kE4M3 ? 448.0f : 57344.0f));
  const int exponent = static_cast<int>(FloatBits(p) >> 23);
  const uint32_t mantissa = FloatBits(p) & 0x7FFFFFu;
  const bool up = mantissa != 0 && exponent != 0xFE && !(exponent == 0 && mantissa <= 0x400000u);
  return exponent + (up ? 1 : 0);
}

void MxExpected(Wide type, const Inputs& in, int64_t rows, int64_t cols, Fp8Kind kind, MxRule rule,
                std::vector<uint8_t>* codes, std::vector<uint8_t>* scales) {
  const int64_t blocks = (cols + 31) / 32;
  const int emax = kind == Fp8Kind::kE4M3 ? 8 : 15;
  const uint8_t nan_code = kind == Fp8Kind::kE4M3 ? 0x7F : 0x7E;
  codes->assign(static_cast<size_t>(rows * cols), 0);
  scales->assign(static_cast<size_t>(rows * blocks), 0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t c0 = b * 32, c1 = std::min(cols, c0 + 32);
      if (rule == MxRule::kTransformerEngine) {
        float amax = 0;
        for (int64_t c = c0; c < c1; ++c) {
          const float v = Element(type, in, r * cols + c);
          if (!std::isnan(v)) amax = std::max(amax, std::fabs(v));
        }
        const int code = TeScaleCode(amax, kind);
        (*scales)[r * blocks + b] = static_cast<uint8_t>(code);
        const float multiplier = code == 0 ? 1.0f : std::ldexp(1.0f, 127 - code);
        for (int64_t c = c0; c < c1; ++c) {
          (*codes)[r * cols + c] = EncodeAs(kind, Element(type, in, r * cols + c) * multiplier);
        }
        continue;
      }
      uint32_t amax = 0;
      for (int64_t c = c0; c < c1; ++c) amax = std::max(amax, FloatBits(Element(type, in, r * cols + c)) & 0x7FFFFFFFu);
      const int code = amax >= 0x7F800000u ? 0xFF : std::max(0, static_cast<int>(amax >> 23) - emax);
      (*scales)[r * blocks + b] = static_cast<uint8_t>(code);
      for (int64_t c = c0; c < c1; ++c) {
        const float v = Element(type, in, r * cols + c);
        (*codes)[r * cols + c] = code == 0xFF ? static_cast<uint8_t>(((FloatBits(v) >> 24) & 0x80u) | nan_code)
                                              : EncodeAs(kind, v * std::ldexp(1.0f, 127 - code));
      }
    }
  }
}

TEST(KernelsIsaTest, MxRowsEqualTheBlockRuleAppliedElementByElement) {
  SkipUnlessSupported();
  // Columns: one partial block, exact blocks, more than one group of
  // blocks (4 KiB of input: 32 fp32 or 64 fp16/bf16 blocks) with a partial
  // last block, and with an odd partial last block (fp16/bf16 elements are
  // encoded in pairs).
  const std::pair<int64_t, int64_t> shapes[] = {
      {3, 5}, {4, 64}, {5, 64 * 32 + 40}, {3, 2 * 64 * 32 + 17}};
  for (Wide type : kTypes) {
    for (Fp8Kind kind : kKinds) {
      for (auto [rows, cols] : shapes) {
        for (MxRule rule : {MxRule::kOcp, MxRule::kTransformerEngine}) {
          SCOPED_TRACE(std::string(Name(type)) + (kind == Fp8Kind::kE4M3 ? " e4m3 " : " e5m2 ") +
                       std::to_string(rows) + "x" + std::to_string(cols) +
                       (rule == MxRule::kOcp ? " ocp" : " transformer_engine"));
          const Inputs in = MakeInputs(rows * cols, static_cast<uint32_t>(cols));
          std::vector<uint8_t> want_codes, want_scales;
          MxExpected(type, in, rows, cols, kind, rule, &want_codes, &want_scales);
          std::vector<uint8_t> codes(want_codes.size()), scales(want_scales.size());
          QuantizeMxRows(type, Data(type, in), rows, cols, kind, rule, codes.data(), scales.data(),
                         2);
          EXPECT_EQ(scales, want_scales);
          EXPECT_EQ(codes, want_codes);
        }
      }
    }
  }
}

TEST(KernelsIsaTest, BlockScalingEqualsTheBlockRuleAppliedElementByElement) {
  SkipUnlessSupported();
  const int64_t rows = 130, cols = 300;
  const ScaleOptions options{0.0f, false, 0.0f};
  for (Wide type : {Wide::kFp32, Wide::kBf16}) {
    for (int64_t block_rows : {int64_t{1}, int64_t{128}}) {
      SCOPED_TRACE(std::string(Name(type)) + " block_rows=" + std::to_string(block_rows));
      Inputs in = MakeInputs(rows * cols, 5);
      // Finite inputs: a block's NaN/Inf is the scale formula's business,
      // checked bit for bit against the reference in quantizer_test.
      for (float& v : in.f32) v = std::isfinite(v) ? v : 1.5f;
      for (uint16_t& h : in.f16) h = (h & 0x7F80u) == 0x7F80u ? 0x3FC0u : h;
      ScaleOptions o = options;
      o.input_max_finite = WideMaxFinite(type);
      const int64_t grid_rows = (rows + block_rows - 1) / block_rows, grid_cols = (cols + 127) / 128;
      std::vector<uint8_t> codes(static_cast<size_t>(rows * cols));
      std::vector<float> scale_inv(static_cast<size_t>(grid_rows * grid_cols));
      QuantizeBlocks(type, Data(type, in), rows, cols, block_rows, Fp8Kind::kE4M3, o, codes.data(),
                     scale_inv.data(), 2);
      for (int64_t g = 0; g < grid_rows; ++g) {
        for (int64_t b = 0; b < grid_cols; ++b) {
          float amax = 0.0f;
          for (int64_t r = g * block_rows; r < std::min(rows, (g + 1) * block_rows); ++r) {
            for (int64_t c = b * 128; c < std::min(cols, (b + 1) * 128); ++c) {
              amax = std::max(amax, std::fabs(Element(type, in, r * cols + c)));
            }
          }
          const float scale = ScaleFromAmax(amax, 448.0f, o);
          ASSERT_EQ(scale_inv[g * grid_cols + b], 1.0f / scale) << "block " << g << "," << b;
          for (int64_t r = g * block_rows; r < std::min(rows, (g + 1) * block_rows); ++r) {
            for (int64_t c = b * 128; c < std::min(cols, (b + 1) * 128); ++c) {
              ASSERT_EQ(codes[r * cols + c], EncodeAs(Fp8Kind::kE4M3, Element(type, in, r * cols + c) * scale))
                  << "element " << r << "," << c;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace teplug::cpu::quantize
