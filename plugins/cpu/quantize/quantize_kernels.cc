#include "plugins/cpu/quantize/quantize_kernels.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#include "plugins/cpu/quantize/parallel_rows.h"

namespace teplug::cpu::quantize {
namespace {

// The element loops are compiled three times, for the x86-64 baseline (SSE2),
// x86-64-v3 (AVX2, FMA, BMI) and x86-64-v4 (AVX-512), and the loader picks
// the newest the CPU runs (GCC function multiversioning through an ifunc).
// AVX-512's 32 vector registers and mask compares keep the conversion's
// constants in registers, where AVX2 spills them: the per-tensor cast runs
// 2x (fp32) to 3.4x (bf16) faster. Results are the same (integer arithmetic
// and correctly rounded float ops only). Not under
// ThreadSanitizer: its instrumented ifunc resolver runs before the TSan
// runtime is up and the process dies at load.
// TEPLUG_CPU_QUANTIZE_TARGET builds one instruction set only (kernels_isa_test
// checks each clone that way).
#if defined(TEPLUG_CPU_QUANTIZE_TARGET)
#define TEPLUG_CPU_QUANTIZE_CLONES __attribute__((target(TEPLUG_CPU_QUANTIZE_TARGET)))
#elif defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_THREAD__)
#define TEPLUG_CPU_QUANTIZE_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TEPLUG_CPU_QUANTIZE_CLONES
#endif

constexpr uint32_t kAbsMask = 0x7FFFFFFFu;
constexpr uint32_t kInfBits = 0x7F800000u;
constexpr int64_t kMxBlock = 32;
constexpr int64_t kScaleBlock = 128;

struct LoadFp32 {
  using T = float;
  static float Load(T v) { return v; }
};
struct LoadFp16 {
  using T = uint16_t;
  static float Load(T v) { return Fp16ToFloat(v); }
};
struct LoadBf16 {
  using T = uint16_t;
  static float Load(T v) { return Bf16ToFloat(v); }
};

// Calls f(Loader{}, KindTag{}) with the loader of `type` and the fp8 kind as
// a compile-time constant, so each inner loop is specialised.
template <Fp8Kind K>
struct KindTag {
  static constexpr Fp8Kind kKind = K;
};
template <class F>
void WithLoader(Wide type, F&& f) {
  switch (type) {
    case Wide::kFp16: f(LoadFp16{}); break;
    case Wide::kBf16: f(LoadBf16{}); break;
    default: f(LoadFp32{}); break;
  }
}
template <class F>
void WithTypes(Wide type, Fp8Kind kind, F&& f) {
  WithLoader(type, [&](auto loader) {
    if (kind == Fp8Kind::kE4M3) {
      f(loader, KindTag<Fp8Kind::kE4M3>{});
    } else {
      f(loader, KindTag<Fp8Kind::kE5M2>{});
    }
  });
}

// Bits of max |x| over n elements, NaN skipped (compared as integers: the
// bits of non-negative floats order like their values). NaN is masked to 0
// with arithmetic, not a select: GCC 12 vectorises this max reduction but
// not one fed by a conditional ("unsupported use in stmt"); 2.5x faster.
template <class L>
TEPLUG_CPU_QUANTIZE_CLONES uint32_t AbsMaxBits(const typename L::T* x, int64_t n) {
  uint32_t m = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t a = FloatBits(L::Load(x[i])) & kAbsMask;
    const uint32_t v = a & (0u - static_cast<uint32_t>(a <= kInfBits));
    m = m > v ? m : v;
  }
  return m;
}

// Bits of max |x| with NaN counted (above Inf): MX's test for a non-finite
// block. fp16/bf16 take the maximum of their own magnitude bits, which order
// like the values (NaN above Inf) as fp32 bits do, on 16-bit lanes (twice
// the elements per vector, no widening), and widen only the result.
template <class L>
uint32_t RawAbsMaxBits(const typename L::T* x, int64_t n) {
  if constexpr (sizeof(typename L::T) == 2) {
    uint16_t m = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint16_t a = x[i] & 0x7FFFu;
      m = m > a ? m : a;
    }
    return FloatBits(L::Load(m));
  } else {
    uint32_t m = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t a = FloatBits(L::Load(x[i])) & kAbsMask;
      m = m > a ? m : a;
    }
    return m;
  }
}

template <class L, Fp8Kind K>
TEPLUG_CPU_QUANTIZE_CLONES void EncodeScaled(const typename L::T* x, int64_t n, float scale, uint8_t* codes) {
  for (int64_t i = 0; i < n; ++i) codes[i] = FloatToFp8<K>(L::Load(x[i]) * scale);
}

// The e8m0 code of an MX block from the bits of its max |x| (NaN counted):
// floor(log2(amax)) - emax + 127 is the exponent field minus emax (every
// subnormal or zero amax clamps to code 0, 2^-127); non-finite: 0xFF.
template <Fp8Kind K>
uint8_t MxScaleCode(uint32_t raw_amax_bits) {
  const int code = static_cast<int>(raw_amax_bits >> 23) - kFp8Emax<K>;
  return raw_amax_bits >= kInfBits ? 0xFF : static_cast<uint8_t>(code > 0 ? code : 0);
}

// The multiplier of the elements of an MX block whose e8m0 code is `code`:
// 1 / 2^(code - 127) = 2^(127 - code), exact (V / X = V * 2^(127 - code)).
// Not meaningful for 0xFF (a non-finite block, whose codes are all NaN).
inline float MxMultiplier(uint8_t code) {
  return BitsFloat(static_cast<uint32_t>(254 - code) << 23);
}

// TransformerEngine's MX scale code from the bits of a block's max |x| (NaN
// skipped, Inf counted): the e8m0 encoding of the fp32 product
// amax * fp32(1 / max_normal), its exponent field rounded up when the
// mantissa is not zero, except at 0xFE and for a subnormal product whose
// mantissa is at most 0x400000; Inf gives 0xFE, 0 gives 0 (quantizer.h).
// Selects, not branches, so that the loop over a group's blocks vectorises
// (with branches the per-block work cost as much as encoding the block).
template <Fp8Kind K>
uint8_t TeMxScaleCode(uint32_t amax_bits) {
  constexpr float kReciprocal = 1.0f / kFp8Max<K>;
  const uint32_t p = FloatBits(BitsFloat(amax_bits) * kReciprocal);
  const uint32_t exponent = p >> 23, mantissa = p & 0x7FFFFFu;
  const uint32_t up =
      static_cast<uint32_t>(mantissa != 0) & static_cast<uint32_t>(exponent != 0xFE) &
      ~(static_cast<uint32_t>(exponent == 0) & static_cast<uint32_t>(mantissa <= 0x400000u));
  return static_cast<uint8_t>(amax_bits >= kInfBits ? 0xFEu : exponent + up);
}

// TransformerEngine's multiplier for scale code `code`: 2^(127 - code), 1 for
// code 0; 0xFE's 2^-127 is subnormal.
inline float TeMxMultiplier(uint8_t code) {
  const uint32_t normal = static_cast<uint32_t>(254 - code) << 23;
  return BitsFloat(code == 0 ? 0x3F800000u : (code == 0xFE ? 0x00400000u : normal));
}

// Elements per multiplier of MxEncodeGroup: fp16/bf16 elements go in pairs.
template <class L>
inline constexpr int64_t kMxPerMultiplier = sizeof(typename L::T) == 2 ? 2 : 1;

// codes[i] = fp8(x[i] * its block's multiplier) over the n elements of a
// group of MX blocks, multiplier[] holding each block's multiplier once per
// kMxPerMultiplier elements: one loop that vectorises like the per-tensor
// cast, without per-block setup. fp16/bf16 elements are read as 32-bit
// pairs and their two codes written as one 16-bit word: the loop then
// widens with a shift or a mask instead of a lane-crossing zero-extension
// and narrows 32 -> 16 bits instead of 32 -> 8 (14% faster for bf16).
// NaN-free conversion: a NaN lies only in a non-finite block, which
// MxNanBlock overwrites.
template <class L, Fp8Kind K>
inline void MxEncodeGroup(const typename L::T* x, const float* multiplier, int64_t n,
                          uint8_t* __restrict codes) {
  if constexpr (kMxPerMultiplier<L> == 2) {
    for (int64_t p = 0; p < n / 2; ++p) {
      uint32_t pair;  // x[2p] in the low half (x86 is little-endian)
      std::memcpy(&pair, x + 2 * p, sizeof pair);
      const float m = multiplier[p];
      const uint32_t first = NonNanToFp8<K>(L::Load(static_cast<uint16_t>(pair)) * m);
      const uint32_t second = NonNanToFp8<K>(L::Load(static_cast<uint16_t>(pair >> 16)) * m);
      const uint16_t both = static_cast<uint16_t>(first | (second << 8));
      std::memcpy(codes + 2 * p, &both, sizeof both);
    }
    if (n % 2 != 0) codes[n - 1] = NonNanToFp8<K>(L::Load(x[n - 1]) * multiplier[n / 2]);
  } else {
    for (int64_t i = 0; i < n; ++i) codes[i] = NonNanToFp8<K>(L::Load(x[i]) * multiplier[i]);
  }
}

// The codes of a non-finite MX block (code 0xFF): every element NaN with its sign.
template <class L, Fp8Kind K>
inline void MxNanBlock(const typename L::T* x, int64_t count, uint8_t* __restrict codes) {
  constexpr uint8_t kNanCode = K == Fp8Kind::kE4M3 ? 0x7F : 0x7E;
  for (int64_t i = 0; i < count; ++i) {
    codes[i] = static_cast<uint8_t>(((FloatBits(L::Load(x[i])) >> 24) & 0x80u) | kNanCode);
  }
}

// One row of MX blocks (the last one partial), a group of blocks at a time,
// the group's elements in L1 for the second read: every block's maximum
// (independent reductions the CPU overlaps), the codes and multipliers of
// all of them (one vectorised loop), each block's multiplier spread over
// its elements, the elements encoded in one loop, then, where the group has
// a non-finite block, its NaNs over its codes (OCP) or the block encoded
// again with NaN kept and Inf saturated (TransformerEngine's rule, whose
// scale skips NaN). (Block by block, each block's elements waited for its
// own reduction: 2x slower.)
template <class L, Fp8Kind K, MxRule kRule>
TEPLUG_CPU_QUANTIZE_CLONES void MxRow(const typename L::T* row, int64_t cols, uint8_t* codes,
                                      uint8_t* scales) {
  constexpr bool kTe = kRule == MxRule::kTransformerEngine;
  // 4 KiB of input per group (fp32: 32 blocks, fp16/bf16: 64), measured
  // best streaming from memory (fp32 with 64 blocks: 20% slower).
  constexpr int64_t kGroup = 4096 / (kMxBlock * sizeof(typename L::T));
  constexpr int64_t kMultipliersPerBlock = kMxBlock / kMxPerMultiplier<L>;
  const int64_t blocks = (cols + kMxBlock - 1) / kMxBlock;
  uint32_t amax[kGroup];
  bool nan_block[kGroup];  // TransformerEngine's rule: the block holds a NaN
  float block_multiplier[kGroup];
  float multiplier[kGroup * kMultipliersPerBlock];
  for (int64_t g = 0; g < blocks; g += kGroup) {
    const int64_t n = std::min(kGroup, blocks - g);
    const int64_t first = g * kMxBlock, count = std::min(n * kMxBlock, cols - first);
    const typename L::T* x = row + first;
    const int64_t full = count / kMxBlock;  // the count a constant: unrolled, no remainder
    for (int64_t b = 0; b < full; ++b) amax[b] = RawAbsMaxBits<L>(x + b * kMxBlock, kMxBlock);
    if (full < n) amax[full] = RawAbsMaxBits<L>(x + full * kMxBlock, count - full * kMxBlock);
    uint32_t largest = 0;
    for (int64_t b = 0; b < n; ++b) largest = largest > amax[b] ? largest : amax[b];
    if constexpr (kTe) {
      // The scale skips NaN: a block holding one (rare) takes its maximum
      // again without it. nan_block is read only where this group set it.
      if (largest >= kInfBits) {
        for (int64_t b = 0; b < n; ++b) {
          nan_block[b] = amax[b] > kInfBits;
          if (nan_block[b]) {
            amax[b] = AbsMaxBits<L>(x + b * kMxBlock, std::min(kMxBlock, count - b * kMxBlock));
          }
        }
      }
      for (int64_t b = 0; b < n; ++b) {
        scales[g + b] = TeMxScaleCode<K>(amax[b]);
        block_multiplier[b] = TeMxMultiplier(scales[g + b]);
      }
    } else {
      for (int64_t b = 0; b < n; ++b) {
        scales[g + b] = MxScaleCode<K>(amax[b]);
        block_multiplier[b] = MxMultiplier(scales[g + b]);
      }
    }
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t i = 0; i < kMultipliersPerBlock; ++i) {
        multiplier[b * kMultipliersPerBlock + i] = block_multiplier[b];
      }
    }
    MxEncodeGroup<L, K>(x, multiplier, count, codes + first);
    if (largest >= kInfBits) {
      for (int64_t b = 0; b < n; ++b) {
        const int64_t m = std::min(kMxBlock, count - b * kMxBlock);
        if constexpr (kTe) {
          if (amax[b] < kInfBits && !nan_block[b]) continue;
          for (int64_t i = 0; i < m; ++i) {
            codes[first + b * kMxBlock + i] =
                FloatToFp8<K>(L::Load(x[b * kMxBlock + i]) * block_multiplier[b]);
          }
        } else if (scales[g + b] == 0xFF) {
          MxNanBlock<L, K>(x + b * kMxBlock, m, codes + first + b * kMxBlock);
        }
      }
    }
  }
}

template <class L, Fp8Kind K, MxRule kRule>
void MxRows(const typename L::T* x, int64_t rows, int64_t cols, uint8_t* codes, uint8_t* scales,
            int threads) {
  const int64_t blocks = (cols + kMxBlock - 1) / kMxBlock;
  ParallelFor(rows, threads, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      MxRow<L, K, kRule>(x + r * cols, cols, codes + r * cols, scales + r * blocks);
    }
  });
}

template <class L, Fp8Kind K>
void Blocks(const typename L::T* x, int64_t rows, int64_t cols, int64_t block_rows,
            const ScaleOptions& options, uint8_t* codes, float* scale_inv, int threads) {
  const int64_t grid_cols = (cols + kScaleBlock - 1) / kScaleBlock;
  const int64_t grid_rows = (rows + block_rows - 1) / block_rows;
  ParallelFor(grid_rows, threads, [&](int64_t begin, int64_t end) {
    std::vector<uint32_t> amax(grid_cols);
    std::vector<float> scale(grid_cols);
    for (int64_t g = begin; g < end; ++g) {
      const int64_t r0 = g * block_rows, r1 = std::min(rows, r0 + block_rows);
      std::fill(amax.begin(), amax.end(), 0u);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t b = 0; b < grid_cols; ++b) {
          const int64_t c0 = b * kScaleBlock;
          amax[b] = std::max(amax[b],
                             AbsMaxBits<L>(x + r * cols + c0, std::min(kScaleBlock, cols - c0)));
        }
      }
      for (int64_t b = 0; b < grid_cols; ++b) {
        scale[b] = ScaleFromAmax(BitsFloat(amax[b]), kFp8Max<K>, options);
        scale_inv[g * grid_cols + b] = 1.0f / scale[b];
      }
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t b = 0; b < grid_cols; ++b) {
          const int64_t c0 = b * kScaleBlock;
          EncodeScaled<L, K>(x + r * cols + c0, std::min(kScaleBlock, cols - c0), scale[b],
                             codes + r * cols + c0);
        }
      }
    }
  });
}

// Tiled transpose: out[c * rows + r] = convert(in[r * cols + c]).
template <class In, class Out, class Convert>
void Transpose(const In* in, int64_t rows, int64_t cols, Out* out, int threads, Convert convert) {
  constexpr int64_t kTile = 32;
  const int64_t tile_rows = (rows + kTile - 1) / kTile;
  ParallelFor(tile_rows, threads, [&](int64_t begin, int64_t end) {
    for (int64_t tr = begin; tr < end; ++tr) {
      const int64_t r0 = tr * kTile, r1 = std::min(rows, r0 + kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = std::min(cols, c0 + kTile);
        for (int64_t c = c0; c < c1; ++c) {
          for (int64_t r = r0; r < r1; ++r) out[c * rows + r] = convert(in[r * cols + c]);
        }
      }
    }
  });
}

// fp64 -> fp32 rounded to odd: truncate, then set the last bit when inexact.
// Rounding that once more to nearest even in a format of at most 22 bits
// gives the value rounded once from fp64.
float RoundToOdd(double v) {
  const float f = static_cast<float>(v);
  if (std::isnan(v) || static_cast<double>(f) == v) return f;
  uint32_t bits = FloatBits(f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) --bits;  // toward zero
  return BitsFloat(bits | 1u);
}

}  // namespace

float Fp8ToFloat(Fp8Kind kind, uint8_t code) {
  const bool negative = (code & 0x80) != 0;
  const uint32_t mag = code & 0x7Fu;
  const bool e4m3 = kind == Fp8Kind::kE4M3;
  const int mant_bits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const uint32_t exp = mag >> mant_bits, mant = mag & ((1u << mant_bits) - 1u);
  float v;
  if (e4m3 ? mag == 0x7F : exp == 0x1F) {
    v = (!e4m3 && mant == 0) ? INFINITY : NAN;
  } else if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), 1 - bias - mant_bits);
  } else {
    v = std::ldexp(static_cast<float>((1u << mant_bits) | mant),
                   static_cast<int>(exp) - bias - mant_bits);
  }
  return negative ? -v : v;
}

float WideMaxFinite(Wide type) {
  switch (type) {
    case Wide::kFp16: return 65504.0f;
    case Wide::kBf16: return Bf16ToFloat(0x7F7F);
    default: return FLT_MAX;
  }
}

float AbsMax(Wide type, const void* x, int64_t n, int threads) {
  uint32_t result = 0;
  WithLoader(type, [&](auto loader) {
    using L = decltype(loader);
    const auto* in = static_cast<const typename L::T*>(x);
    constexpr int64_t kChunk = 1 << 16;
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    std::vector<uint32_t> partial(std::max<int64_t>(chunks, 1), 0u);
    ParallelFor(chunks, threads, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        partial[c] = AbsMaxBits<L>(in + c * kChunk, std::min(kChunk, n - c * kChunk));
      }
    });
    // max is order-free: the result does not depend on the split.
    result = *std::max_element(partial.begin(), partial.end());
  });
  return BitsFloat(result);
}

float ScaleFromAmax(float amax, float fp8_max, const ScaleOptions& options) {
  if (amax < options.amax_epsilon) amax = options.amax_epsilon;  // false for NaN
  if (std::isinf(amax) || amax == 0.0f || std::isnan(amax)) return 1.0f;
  float scale = fp8_max / amax;
  if (std::isinf(scale)) scale = options.input_max_finite;
  if (options.force_pow2_scales) scale = BitsFloat(FloatBits(scale) & 0xFF800000u);
  return scale;
}

void QuantizeWithScale(Wide type, const void* x, int64_t n, float scale, Fp8Kind kind,
                       uint8_t* codes, int threads) {
  WithTypes(type, kind, [&](auto loader, auto tag) {
    using L = decltype(loader);
    const auto* in = static_cast<const typename L::T*>(x);
    constexpr int64_t kChunk = 1 << 16;
    ParallelFor((n + kChunk - 1) / kChunk, threads, [&](int64_t begin, int64_t end) {
      const int64_t first = begin * kChunk, last = std::min(n, end * kChunk);
      EncodeScaled<L, decltype(tag)::kKind>(in + first, last - first, scale, codes + first);
    });
  });
}

void QuantizeMxRows(Wide type, const void* x, int64_t rows, int64_t cols, Fp8Kind kind, MxRule rule,
                    uint8_t* codes, uint8_t* scales, int threads) {
  WithTypes(type, kind, [&](auto loader, auto tag) {
    using L = decltype(loader);
    constexpr Fp8Kind kKind = decltype(tag)::kKind;
    const auto* in = static_cast<const typename L::T*>(x);
    if (rule == MxRule::kTransformerEngine) {
      MxRows<L, kKind, MxRule::kTransformerEngine>(in, rows, cols, codes, scales, threads);
    } else {
      MxRows<L, kKind, MxRule::kOcp>(in, rows, cols, codes, scales, threads);
    }
  });
}

void QuantizeBlocks(Wide type, const void* x, int64_t rows, int64_t cols, int64_t block_rows,
                    Fp8Kind kind, const ScaleOptions& options, uint8_t* codes, float* scale_inv,
                    int threads) {
  WithTypes(type, kind, [&](auto loader, auto tag) {
    using L = decltype(loader);
    Blocks<L, decltype(tag)::kKind>(static_cast<const typename L::T*>(x), rows, cols, block_rows,
                                    options, codes, scale_inv, threads);
  });
}

void TransposeToFloat(Wide type, const void* x, int64_t rows, int64_t cols, float* out,
                      int threads) {
  WithLoader(type, [&](auto loader) {
    using L = decltype(loader);
    Transpose(static_cast<const typename L::T*>(x), rows, cols, out, threads,
              [](typename L::T v) { return L::Load(v); });
  });
}

void TransposeBytes(const uint8_t* in, int64_t rows, int64_t cols, uint8_t* out, int threads) {
  Transpose(in, rows, cols, out, threads, [](uint8_t v) { return v; });
}

void Dequantize(const uint8_t* codes, int64_t rows, int64_t cols, Fp8Kind kind,
                const ScaleGrid& grid, Wide type, void* out, int threads) {
  float table[256];
  for (int c = 0; c < 256; ++c) table[c] = Fp8ToFloat(kind, static_cast<uint8_t>(c));
  const int64_t grid_cols = (cols + grid.block_cols - 1) / grid.block_cols;
  const auto scale_at = [&](int64_t r, int64_t c) -> float {
    switch (grid.kind) {
      case ScaleGrid::Kind::kPerTensor: return *static_cast<const float*>(grid.values);
      case ScaleGrid::Kind::kMx:
        return E8m0ToFloat(static_cast<const uint8_t*>(
            grid.values)[(r / grid.block_rows) * grid_cols + c / grid.block_cols]);
      default:
        return static_cast<const float*>(
            grid.values)[(r / grid.block_rows) * grid_cols + c / grid.block_cols];
    }
  };
  ParallelFor(rows, threads, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t i = r * cols + c;
        const double v = static_cast<double>(table[codes[i]]) * scale_at(r, c);
        switch (type) {
          case Wide::kFp32: static_cast<float*>(out)[i] = static_cast<float>(v); break;
          case Wide::kFp16: static_cast<uint16_t*>(out)[i] = FloatToFp16(RoundToOdd(v)); break;
          case Wide::kBf16: static_cast<uint16_t*>(out)[i] = FloatToBf16(RoundToOdd(v)); break;
        }
      }
    }
  });
}

}  // namespace teplug::cpu::quantize
