// The cpu provider's IQuantizer against the reference provider (the oracle),
// bit for bit, through the ABI objects as the core calls them: every scaling
// mode (per_tensor delayed and current with and without amax_epsilon /
// force_pow2_scales, mxfp8_1d32, block_1d128, block_2d128), fp32/fp16/bf16
// inputs, fp8_e4m3/e5m2, row-wise, column-wise and both, ragged shapes and
// ranks 1-3, on random inputs that include NaN, +-Inf, signed zeros, fp32
// subnormals, fp8 rounding ties and the saturation boundaries. Codes, scales,
// scale_inv and amax must have identical bits. Dequantize: every fp8 code
// with random scales (special e8m0 codes included) into every wide dtype, bits
// identical except that any NaN matches any NaN. Also: refusal reasons, errors
// for malformed args, and results independent of the thread count.
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/provider/quantizer_provider.h"
#include "plugins/reference/numerics/float_formats.h"
#include "plugins/reference/provider/quantizer_provider.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::cpu::provider {
namespace {

namespace ref = ::teplug::reference;
using ::testing::HasSubstr;

size_t DTypeBytes(int32_t dtype) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP32: return 4;
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16: return 2;
    default: return 1;
  }
}

// A tensor owning its bytes.
struct Buffer {
  Buffer(int32_t dtype, std::vector<int64_t> shape) : bytes() {
    tensor.struct_size = sizeof(TeplugTensor);
    tensor.dtype = dtype;
    tensor.rank = static_cast<int32_t>(shape.size());
    int64_t n = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      tensor.shape[i] = shape[i];
      n *= shape[i];
    }
    // Filled with a pattern a kernel must overwrite.
    bytes.assign(static_cast<size_t>(n) * DTypeBytes(dtype) + 1, 0xA5);
    tensor.data = bytes.data();
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::vector<uint8_t> bytes;
  TeplugTensor tensor{};
};

// Inputs that exercise every rounding path: wide exponents, exact fp8
// midpoints times powers of two (ties for delayed scale 1 and for MX), the
// saturation boundaries, subnormals, zeros and (with `specials`) NaN / Inf.
float RandomValue(std::mt19937_64& rng, bool specials) {
  std::uniform_int_distribution<int> kind(0, 99), exp(-30, 30), code(0, 0x7D), shift(-6, 6);
  std::uniform_real_distribution<float> unit(1.0f, 2.0f);
  const float sign = (rng() & 1) ? -1.0f : 1.0f;
  const int k = kind(rng);
  if (k < 45) return sign * std::ldexp(unit(rng), exp(rng));
  if (k < 60) {  // an fp8 tie or neighbour, scaled by a power of two
    const ref::Fp8Format f = (rng() & 1) ? ref::Fp8Format::kE4M3 : ref::Fp8Format::kE5M2;
    const int c = code(rng);
    const double mid = (ref::DecodeFp8(f, c) + ref::DecodeFp8(f, c + 1)) / 2;
    const float v = std::ldexp(static_cast<float>(mid), shift(rng));
    const int step = static_cast<int>(rng() % 3);
    return sign * (step == 0 ? v : std::nextafter(v, step == 1 ? 0.0f : INFINITY));
  }
  if (k < 70) {
    const float bounds[] = {448.f, 464.f, 480.f, 57344.f, 61440.f, 65504.f, 65536.f, 3.0e38f};
    return sign * std::ldexp(bounds[rng() % 8], static_cast<int>(rng() % 3) - 1);
  }
  if (k < 78) return sign * std::ldexp(unit(rng), -126 - static_cast<int>(rng() % 24));  // subnormal
  if (k < 82) return sign * 0.0f;
  if (k < 88) return sign * std::ldexp(unit(rng), -8 - static_cast<int>(rng() % 12));  // fp8 subnormals
  if (!specials) return sign * unit(rng);
  return k < 94 ? sign * INFINITY : std::nanf("");
}

void Store(Buffer& b, size_t i, float v) {
  switch (b.tensor.dtype) {
    case TEPLUG_DTYPE_FP32: std::memcpy(b.bytes.data() + 4 * i, &v, 4); break;
    case TEPLUG_DTYPE_FP16: {
      const uint16_t h = ref::EncodeFp16(v);
      std::memcpy(b.bytes.data() + 2 * i, &h, 2);
      break;
    }
    default: {
      const uint16_t h = ref::EncodeBf16(v);
      std::memcpy(b.bytes.data() + 2 * i, &h, 2);
    }
  }
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

float BitsFloat32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The outputs of one quantize call, laid out as quantizer.h says.
struct Outputs {
  Outputs(int32_t out_dtype, int32_t mode, const std::vector<int64_t>& shape, int64_t rows,
          int64_t cols, bool columnwise)
      : data(out_dtype, shape),
        scale_inv(mode == TEPLUG_SCALING_MXFP8_1D32 ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32,
                  RowGrid(mode, rows, cols)),
        cw_data(out_dtype, mode == TEPLUG_SCALING_MXFP8_1D32 ? std::vector<int64_t>{rows, cols}
                                                             : std::vector<int64_t>{cols, rows}),
        cw_scale_inv(mode == TEPLUG_SCALING_MXFP8_1D32 ? TEPLUG_DTYPE_E8M0 : TEPLUG_DTYPE_FP32,
                     ColGrid(mode, rows, cols)),
        scale(TEPLUG_DTYPE_FP32, {1}),
        amax(TEPLUG_DTYPE_FP32, {1}) {
    quant.struct_size = sizeof(quant);
    quant.mode = mode;
    quant.scale_inv = &scale_inv.tensor;
    quant.scale = &scale.tensor;
    quant.amax = &amax.tensor;
    if (columnwise) {
      quant.columnwise_data = &cw_data.tensor;
      quant.columnwise_scale_inv = &cw_scale_inv.tensor;
    }
    data.tensor.quant = &quant;
  }
  static std::vector<int64_t> RowGrid(int32_t mode, int64_t rows, int64_t cols) {
    switch (mode) {
      case TEPLUG_SCALING_MXFP8_1D32: return {rows, CeilDiv(cols, 32)};
      case TEPLUG_SCALING_BLOCK_1D128: return {rows, CeilDiv(cols, 128)};
      case TEPLUG_SCALING_BLOCK_2D128: return {CeilDiv(rows, 128), CeilDiv(cols, 128)};
      default: return {1};
    }
  }
  static std::vector<int64_t> ColGrid(int32_t mode, int64_t rows, int64_t cols) {
    switch (mode) {
      case TEPLUG_SCALING_MXFP8_1D32: return {CeilDiv(rows, 32), cols};
      case TEPLUG_SCALING_BLOCK_1D128: return {cols, CeilDiv(rows, 128)};
      case TEPLUG_SCALING_BLOCK_2D128: return {CeilDiv(cols, 128), CeilDiv(rows, 128)};
      default: return {1};
    }
  }
  Buffer data, scale_inv, cw_data, cw_scale_inv, scale, amax;
  TeplugQuantization quant{};
};

struct Recipe {
  const char* name;
  int32_t mode;
  int32_t recipe;
  float epsilon;
  bool pow2;
  int32_t mx_rule = TEPLUG_MX_SCALE_OCP;
};
const Recipe kRecipes[] = {
    {"delayed", TEPLUG_SCALING_PER_TENSOR, TEPLUG_RECIPE_DELAYED, 0.f, false},
    {"current", TEPLUG_SCALING_PER_TENSOR, TEPLUG_RECIPE_CURRENT, 0.f, false},
    {"current eps pow2", TEPLUG_SCALING_PER_TENSOR, TEPLUG_RECIPE_CURRENT, 1e3f, true},
    {"mxfp8", TEPLUG_SCALING_MXFP8_1D32, 0, 0.f, false},
    {"mxfp8 transformer_engine", TEPLUG_SCALING_MXFP8_1D32, 0, 0.f, false,
     TEPLUG_MX_SCALE_TRANSFORMER_ENGINE},
    {"1d128", TEPLUG_SCALING_BLOCK_1D128, 0, 0.f, false},
    {"1d128 eps pow2", TEPLUG_SCALING_BLOCK_1D128, 0, 1e-2f, true},
    {"2d128", TEPLUG_SCALING_BLOCK_2D128, 0, 0.f, false},
    {"2d128 pow2", TEPLUG_SCALING_BLOCK_2D128, 0, 0.f, true},
};

std::string Describe(const TeplugQuantizeArgs& a, const Recipe& r, const std::vector<int64_t>& shape) {
  std::string s = std::string(r.name) + " in=" + std::to_string(a.input->dtype) +
                  " out=" + std::to_string(a.output->dtype) + " row=" + std::to_string(a.rowwise) +
                  " col=" + std::to_string(a.columnwise) + " shape=[";
  for (int64_t d : shape) s += std::to_string(d) + ",";
  return s + "]";
}

void ExpectSameBytes(const Buffer& got, const Buffer& want, const std::string& what) {
  ASSERT_EQ(got.bytes.size(), want.bytes.size()) << what;
  for (size_t i = 0; i < got.bytes.size(); ++i) {
    if (got.bytes[i] != want.bytes[i]) {
      ADD_FAILURE() << what << ": byte " << i << " is 0x" << std::hex << int{got.bytes[i]}
                    << ", the reference wrote 0x" << int{want.bytes[i]};
      return;
    }
  }
}

// Runs the reference and the cpu quantizer (through its ABI object) on the
// same args with their own outputs; compares every output.
void CompareQuantize(TeplugQuantizerV1* cpu, const Recipe& r, int32_t in_dtype, int32_t out_dtype,
                     const std::vector<int64_t>& shape, bool rowwise, bool columnwise,
                     bool specials, std::mt19937_64& rng) {
  int64_t rows = 1, cols = shape.back();
  for (size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  Buffer input(in_dtype, shape);
  for (int64_t i = 0; i < rows * cols; ++i) Store(input, i, RandomValue(rng, specials));
  Outputs mine(out_dtype, r.mode, shape, rows, cols, columnwise);
  Outputs oracle(out_dtype, r.mode, shape, rows, cols, columnwise);
  const float delayed_scale = std::ldexp(1.0f + static_cast<float>(rng() % 1000) / 1000.f,
                                         static_cast<int>(rng() % 21) - 10);
  for (Outputs* o : {&mine, &oracle}) std::memcpy(o->scale.bytes.data(), &delayed_scale, 4);
  TeplugQuantizeArgs args{};
  args.struct_size = sizeof(args);
  args.input = &input.tensor;
  args.recipe = r.recipe;
  args.amax_epsilon = r.epsilon;
  args.force_pow2_scales = r.pow2;
  args.rowwise = rowwise;
  args.columnwise = columnwise;
  args.mx_scale_rule = r.mx_rule;
  const std::string what = Describe((args.output = &oracle.data.tensor, args), r, shape);
  const absl::Status want = ref::provider::RunReferenceQuantize(args);
  ASSERT_TRUE(want.ok()) << what << ": " << want;
  args.output = &mine.data.tensor;
  TeplugError* error = cpu->vtbl->quantize(cpu, &args);
  if (error != nullptr) {
    ADD_FAILURE() << what << ": " << (error->message ? error->message : "");
    error->destroy(error);
    return;
  }
  if (rowwise) {
    ExpectSameBytes(mine.data, oracle.data, what + " data");
    ExpectSameBytes(mine.scale_inv, oracle.scale_inv, what + " scale_inv");
  }
  if (columnwise) {
    ExpectSameBytes(mine.cw_data, oracle.cw_data, what + " columnwise_data");
    ExpectSameBytes(mine.cw_scale_inv, oracle.cw_scale_inv, what + " columnwise_scale_inv");
  }
  ExpectSameBytes(mine.scale, oracle.scale, what + " scale");
  ExpectSameBytes(mine.amax, oracle.amax, what + " amax");
}

class QuantizerTest : public ::testing::Test {
 protected:
  explicit QuantizerTest(int threads = 0)
      : object_(sdk::MakeQuantizer(std::make_unique<CpuQuantizer>(threads))) {}
  ~QuantizerTest() override { object_->vtbl->base.release(reinterpret_cast<TeplugObject*>(object_)); }
  TeplugQuantizerV1* object_;
};

TEST_F(QuantizerTest, QuantizeMatchesReferenceBitForBit) {
  std::mt19937_64 rng(2026);
  const std::vector<std::vector<int64_t>> shapes = {{1, 1}, {3, 5}, {33, 130}, {130, 257},
                                                    {2, 70, 33}, {300}};
  for (const Recipe& r : kRecipes) {
    for (int32_t in : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16}) {
      for (int32_t out : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
        for (const auto& shape : shapes) {
          for (const auto& [row, col] : {std::pair{true, false}, {false, true}, {true, true}}) {
            for (bool specials : {false, true}) {
              CompareQuantize(object_, r, in, out, shape, row, col, specials, rng);
              if (HasFailure()) return;
            }
          }
        }
      }
    }
  }
}

// fp32 scales s for which some fp8 value m gives an exact product m * s that
// rounds differently to fp16 (or bf16) directly than through fp32: the
// double-rounding trap dequantize must avoid. Found by search with the
// reference's encoders (which round from fp64 once).
std::vector<float> DoubleRoundingScales(std::mt19937_64& rng, bool fp16) {
  std::vector<float> found;
  while (found.size() < 8) {
    const float s = BitsFloat32(0x3F800000u | static_cast<uint32_t>(rng() & 0x7FFFFFu));
    for (double m : {1.25, 1.5, 1.75, 1.125, 1.375, 1.625, 1.875}) {
      const double p = m * s;
      const bool differs = fp16 ? ref::EncodeFp16(p) != ref::EncodeFp16(static_cast<float>(p))
                                : ref::EncodeBf16(p) != ref::EncodeBf16(static_cast<float>(p));
      if (differs) {
        found.push_back(s);
        break;
      }
    }
  }
  return found;
}

// Every fp8 code with random scale_inv values (for MX: random e8m0 codes
// with 0, 254 and the NaN code 0xFF among them) into fp32, fp16 and bf16.
TEST_F(QuantizerTest, DequantizeMatchesReference) {
  std::mt19937_64 rng(11);
  for (const Recipe& r : kRecipes) {
    for (int32_t in_dtype : {TEPLUG_DTYPE_FP8_E4M3, TEPLUG_DTYPE_FP8_E5M2}) {
      for (int32_t out_dtype : {TEPLUG_DTYPE_FP32, TEPLUG_DTYPE_FP16, TEPLUG_DTYPE_BF16}) {
        const std::vector<int64_t> shape = {160, 300};
        Outputs q(in_dtype, r.mode, shape, 160, 300, false);
        const std::vector<float> traps =
            DoubleRoundingScales(rng, out_dtype == TEPLUG_DTYPE_FP16);
        for (size_t i = 0; i + 1 < q.data.bytes.size(); ++i) q.data.bytes[i] = static_cast<uint8_t>(rng());
        const size_t scales = q.scale_inv.bytes.size() - 1;
        for (size_t i = 0; i < scales; ++i) {
          if (r.mode == TEPLUG_SCALING_MXFP8_1D32) {
            const uint8_t special[] = {0, 1, 254, 0xFF};
            q.scale_inv.bytes[i] = (rng() % 8 == 0) ? special[rng() % 4] : static_cast<uint8_t>(rng());
          } else if (i % 4 == 0) {
            const float s = (i / 4) % 3 == 0
                                ? traps[rng() % traps.size()]
                                : std::ldexp(1.0f + static_cast<float>(rng() % 997) / 997.f,
                                             static_cast<int>(rng() % 280) - 140);
            std::memcpy(q.scale_inv.bytes.data() + i, &s, 4);
          }
        }
        Buffer mine(out_dtype, shape), oracle(out_dtype, shape);
        TeplugDequantizeArgs args{};
        args.struct_size = sizeof(args);
        args.input = &q.data.tensor;
        args.output = &oracle.tensor;
        ASSERT_TRUE(ref::provider::RunReferenceDequantize(args).ok());
        args.output = &mine.tensor;
        TeplugError* error = object_->vtbl->dequantize(object_, &args);
        ASSERT_EQ(error, nullptr) << error->message;
        const size_t width = DTypeBytes(out_dtype);
        for (size_t i = 0; i < 160 * 300; ++i) {
          uint32_t g = 0, w = 0;
          std::memcpy(&g, mine.bytes.data() + i * width, width);
          std::memcpy(&w, oracle.bytes.data() + i * width, width);
          const auto is_nan = [&](uint32_t v) {
            if (width == 4) return (v & 0x7FFFFFFFu) > 0x7F800000u;
            if (out_dtype == TEPLUG_DTYPE_FP16) return (v & 0x7FFFu) > 0x7C00u;
            return (v & 0x7FFFu) > 0x7F80u;
          };
          if (is_nan(g) && is_nan(w)) continue;
          if (g != w) {
            ADD_FAILURE() << r.name << " " << in_dtype << "->" << out_dtype << " element " << i
                          << " code 0x" << std::hex << int{q.data.bytes[i]} << ": 0x" << g
                          << ", the reference wrote 0x" << w;
            return;
          }
        }
      }
    }
  }
}

// A large input quantized with 1 and with several threads: identical bytes
// in every mode (each output element is one thread's work; amax is a max).
TEST(QuantizerThreadsTest, ResultsDoNotDependOnTheThreadCount) {
  std::mt19937_64 rng(5);
  const std::vector<int64_t> shape = {1100, 1030};
  Buffer input(TEPLUG_DTYPE_BF16, shape);
  for (int64_t i = 0; i < 1100 * 1030; ++i) Store(input, i, RandomValue(rng, false));
  for (const Recipe& r : kRecipes) {
    std::vector<std::vector<uint8_t>> results;
    for (int threads : {1, 3, 4}) {
      Outputs o(TEPLUG_DTYPE_FP8_E4M3, r.mode, shape, 1100, 1030, true);
      const float scale = 3.0f;
      std::memcpy(o.scale.bytes.data(), &scale, 4);
      TeplugQuantizeArgs args{};
      args.struct_size = sizeof(args);
      args.input = &input.tensor;
      args.output = &o.data.tensor;
      args.recipe = r.recipe;
      args.force_pow2_scales = r.pow2;
      args.rowwise = 1;
      args.columnwise = 1;
      ASSERT_TRUE(RunCpuQuantize(args, threads).ok()) << r.name;
      std::vector<uint8_t> all = o.data.bytes;
      for (const Buffer* b : {&o.scale_inv, &o.cw_data, &o.cw_scale_inv, &o.amax}) {
        all.insert(all.end(), b->bytes.begin(), b->bytes.end());
      }
      results.push_back(std::move(all));
    }
    EXPECT_EQ(results[0], results[1]) << r.name << ": 1 vs 3 threads";
    EXPECT_EQ(results[0], results[2]) << r.name << ": 1 vs 4 threads";
  }
}

// A valid fp32 [4, 40] per-tensor current-scaling call a test then spoils.
class QuantizerRefusalTest : public QuantizerTest {
 protected:
  QuantizerRefusalTest() {
    args_.struct_size = sizeof(args_);
    args_.input = &input_.tensor;
    args_.output = &out_.data.tensor;
    args_.recipe = TEPLUG_RECIPE_CURRENT;
    args_.rowwise = 1;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 160; ++i) Store(input_, i, RandomValue(rng, false));
  }
  std::string Refusal() {
    char reason[512] = {};
    if (object_->vtbl->supports(reinterpret_cast<TeplugObject*>(object_), TEPLUG_OP_QUANTIZE,
                                &args_, reason, sizeof(reason))) {
      return "";
    }
    EXPECT_NE(reason[0], '\0') << "a refusal without a reason";
    return reason;
  }
  std::pair<int32_t, std::string> Call() {
    TeplugError* error = object_->vtbl->quantize(object_, &args_);
    if (error == nullptr) return {0, ""};
    std::pair<int32_t, std::string> out{error->code, error->message ? error->message : ""};
    error->destroy(error);
    return out;
  }
  Buffer input_{TEPLUG_DTYPE_FP32, {4, 40}};
  Outputs out_{TEPLUG_DTYPE_FP8_E4M3, TEPLUG_SCALING_PER_TENSOR, {4, 40}, 4, 40, false};
  TeplugQuantizeArgs args_{};
};

TEST_F(QuantizerRefusalTest, AcceptsTheValidCall) {
  EXPECT_EQ(Refusal(), "");
  EXPECT_EQ(Call().first, 0);
}

TEST_F(QuantizerRefusalTest, RefusesFp4NamingTheDType) {
  out_.data.tensor.dtype = TEPLUG_DTYPE_FP4_E2M1;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugQuantizeArgs.output: dtype fp4_e2m1 is not served"));
  EXPECT_EQ(Call().first, TEPLUG_UNSUPPORTED);
}

TEST_F(QuantizerRefusalTest, RefusesNonContiguousStridesAndOtherDevices) {
  input_.tensor.strides[0] = 80;  // padded rows
  input_.tensor.strides[1] = 1;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugQuantizeArgs.input.strides [80, 1] (shape [4, 40]) are "
                                   "not row-major contiguous"));
  input_.tensor.strides[0] = 40;  // explicit row-major strides are served
  EXPECT_EQ(Refusal(), "");
  TeplugDevice gpu{};
  gpu.struct_size = sizeof(gpu);
  gpu.kind = TEPLUG_DEVICE_CUDA;
  out_.data.tensor.device = &gpu;
  EXPECT_THAT(Refusal(), HasSubstr("TeplugQuantizeArgs.output.device: kind cuda"));
}

TEST_F(QuantizerRefusalTest, MalformedArgsAreInvalidArgumentsNamingTheField) {
  args_.rowwise = 0;
  EXPECT_EQ(Refusal(), "");  // malformed, not refused: the op reports it
  EXPECT_EQ(Call(), std::make_pair(int32_t{TEPLUG_INVALID_ARGUMENT},
                                   std::string("TeplugQuantizeArgs: rowwise and columnwise are both "
                                               "false; at least one output is needed")));
  args_.rowwise = 1;
  out_.scale_inv.tensor.dtype = TEPLUG_DTYPE_FP16;
  EXPECT_THAT(Call().second, HasSubstr("TeplugQuantizeArgs.output.quant.scale_inv: fp16"));
  out_.scale_inv.tensor.dtype = TEPLUG_DTYPE_FP32;
  args_.recipe = TEPLUG_RECIPE_DELAYED;
  const float zero = 0.0f;
  std::memcpy(out_.scale.bytes.data(), &zero, 4);
  EXPECT_THAT(Call().second, HasSubstr("delayed scaling needs a finite scale > 0, got 0"));
  args_.recipe = TEPLUG_RECIPE_CURRENT;
  args_.mx_scale_rule = 2;
  EXPECT_EQ(Call(), std::make_pair(int32_t{TEPLUG_INVALID_ARGUMENT},
                                   std::string("TeplugQuantizeArgs.mx_scale_rule 2 is not a "
                                               "TeplugMxScaleRule")));
  args_.struct_size = TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, stream);  // a v1.0 caller: never read
  EXPECT_EQ(Call().first, 0);
}

}  // namespace
}  // namespace teplug::cpu::provider
