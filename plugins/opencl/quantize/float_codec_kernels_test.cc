// The OpenCL element codecs (provider/float_codec_kernels.h) on the device
// against the reference provider's encoders and decoders
// (plugins/reference/numerics/float_formats.h) over 6.3 million fp32 bit
// patterns (every sign, exponent and top mantissa bits, with low bits that
// make exact values, ties and near-ties), every fp16 code and every fp8 code:
// rounding ties to even, subnormals, saturation and NaN must match bit for bit.
#include <CL/cl.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/opencl/provider/cl_status.h"
#include "plugins/opencl/provider/float_codec_kernels.h"
#include "plugins/opencl/provider/program_cache.h"
#include "plugins/opencl/provider/scratch_buffer.h"
#include "plugins/opencl/quantize/opencl_test_device.h"
#include "plugins/reference/numerics/float_formats.h"

namespace teplug::opencl::quantize {
namespace {

using provider::CheckCl;
using provider::Kernel;
using provider::ScratchBuffer;

constexpr char kTestKernels[] = R"CL(
__kernel void encode_fp8(__global const uint* x, int shift, int e5m2, __global uchar* out) {
  const ulong i = get_global_id(1);
  out[i] = teplug_encode_fp8(x[i], shift, e5m2);
}
/* fp32 bits -> fp16 and bf16 through teplug_store (the dequantize output path). */
__kernel void narrow(__global const uint* x, __global uchar* f16, __global uchar* bf16) {
  const ulong i = get_global_id(1);
  const uint mag = x[i] & 0x7FFFFFFFu, sign = x[i] >> 31;
  ulong sig = 0; int e = 0;
  if (mag != 0u && mag < 0x7F800000u) teplug_f32_parts(mag, &sig, &e);
  const int special = mag >= 0x7F800000u;
  teplug_store(f16, 0, TEPLUG_KIND_FP16, i, sign, sig, e, special, x[i]);
  teplug_store(bf16, 0, TEPLUG_KIND_BF16, i, sign, sig, e, special, x[i]);
}
__kernel void widen_f16(__global const uchar* h, __global uint* out) {
  const ulong i = get_global_id(1);
  out[i] = teplug_load_bits(h, 0, TEPLUG_KIND_FP16, i);
}
__kernel void decode_fp8(__global const uchar* codes, int e5m2, __global uint* out) {
  const ulong i = get_global_id(1);
  out[i] = teplug_decode_fp8(codes[i], e5m2);
}
)CL";

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t ToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

class FloatCodecKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!device_.unavailable().empty()) GTEST_SKIP() << device_.unavailable();
    h_ = device_.Handles();
    program_ = provider::SharedProgramCache().Get(
        h_.context, h_.device, std::string(provider::kFloatCodecSource) + kTestKernels, "");
  }
  // A device buffer holding `bytes` host bytes.
  std::unique_ptr<ScratchBuffer> Buffer(const void* bytes, size_t n) {
    auto b = std::make_unique<ScratchBuffer>(h_.context, n, "test data");
    if (bytes != nullptr)
      CheckCl(clEnqueueWriteBuffer(h_.default_queue, b->get(), CL_TRUE, 0, n, bytes, 0, nullptr,
                                   nullptr),
              "clEnqueueWriteBuffer");
    return b;
  }
  template <class T>
  std::vector<T> Read(const ScratchBuffer& b, size_t count) {
    std::vector<T> out(count);
    CheckCl(clEnqueueReadBuffer(h_.default_queue, b.get(), CL_TRUE, 0, count * sizeof(T),
                                out.data(), 0, nullptr, nullptr),
            "clEnqueueReadBuffer");
    return out;
  }

  // Every sign/exponent/top-20-bit pattern with low 12 bits from `tails`.
  static std::vector<uint32_t> Patterns() {
    std::vector<uint32_t> v;
    for (uint32_t hi = 0; hi < (1u << 20); ++hi)
      for (uint32_t tail : {0x000u, 0x001u, 0x7FFu, 0x800u, 0x801u, 0xFFFu})
        v.push_back(hi << 12 | tail);
    return v;
  }

  OpenClTestDevice device_;
  provider::OpenClContextHandles h_{};
  cl_program program_ = nullptr;
};

TEST_F(FloatCodecKernelsTest, Fp8EncodeMatchesTheReferenceWithAndWithoutAShift) {
  const std::vector<uint32_t> x = Patterns();
  auto in = Buffer(x.data(), x.size() * 4);
  auto out = Buffer(nullptr, x.size());
  for (int e5m2 : {0, 1}) {
    for (int shift : {0, 9, -7, 119, -127}) {
      Kernel k(program_, "encode_fp8");
      k.Arg(0, in->get());
      k.Arg(1, cl_int{shift});
      k.Arg(2, cl_int{e5m2});
      k.Arg(3, out->get());
      k.Run2D(h_.default_queue, 1, x.size());
      const std::vector<uint8_t> got = Read<uint8_t>(*out, x.size());
      size_t wrong = 0;
      for (size_t i = 0; i < x.size() && wrong < 5; ++i) {
        const double value = std::ldexp(static_cast<double>(FromBits(x[i])), -shift);
        const uint8_t want = reference::EncodeFp8(
            e5m2 ? reference::Fp8Format::kE5M2 : reference::Fp8Format::kE4M3, value, true);
        if (got[i] != want) {
          ++wrong;
          ADD_FAILURE() << (e5m2 ? "e5m2" : "e4m3") << " shift " << shift << " bits 0x"
                        << std::hex << x[i] << ": got 0x" << int{got[i]} << ", want 0x"
                        << int{want};
        }
      }
    }
  }
}

TEST_F(FloatCodecKernelsTest, Fp16AndBf16EncodeMatchTheReference) {
  const std::vector<uint32_t> x = Patterns();
  auto in = Buffer(x.data(), x.size() * 4);
  auto f16 = Buffer(nullptr, x.size() * 2), bf16 = Buffer(nullptr, x.size() * 2);
  Kernel k(program_, "narrow");
  k.Arg(0, in->get());
  k.Arg(1, f16->get());
  k.Arg(2, bf16->get());
  k.Run2D(h_.default_queue, 1, x.size());
  const std::vector<uint16_t> h = Read<uint16_t>(*f16, x.size()), b = Read<uint16_t>(*bf16, x.size());
  size_t wrong = 0;
  for (size_t i = 0; i < x.size() && wrong < 5; ++i) {
    const double v = FromBits(x[i]);
    const uint16_t want_h = reference::EncodeFp16(v), want_b = reference::EncodeBf16(v);
    if (h[i] != want_h || b[i] != want_b) {
      ++wrong;
      ADD_FAILURE() << "bits 0x" << std::hex << x[i] << ": fp16 0x" << h[i] << " (want 0x"
                    << want_h << "), bf16 0x" << b[i] << " (want 0x" << want_b << ")";
    }
  }
}

TEST_F(FloatCodecKernelsTest, EveryFp16AndFp8CodeDecodesExactly) {
  std::vector<uint16_t> halves(65536);
  for (uint32_t i = 0; i < 65536; ++i) halves[i] = static_cast<uint16_t>(i);
  auto in = Buffer(halves.data(), halves.size() * 2);
  auto out = Buffer(nullptr, halves.size() * 4);
  Kernel widen(program_, "widen_f16");
  widen.Arg(0, in->get());
  widen.Arg(1, out->get());
  widen.Run2D(h_.default_queue, 1, halves.size());
  const std::vector<uint32_t> wide = Read<uint32_t>(*out, halves.size());
  for (uint32_t i = 0; i < 65536; ++i) {
    const float want = reference::DecodeFp16(static_cast<uint16_t>(i));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(FromBits(wide[i]))) << "fp16 0x" << std::hex << i;
      EXPECT_EQ(wide[i] >> 31, i >> 15) << "fp16 NaN 0x" << std::hex << i << " lost its sign";
    } else {
      ASSERT_EQ(wide[i], ToBits(want)) << "fp16 0x" << std::hex << i;
    }
  }
  std::vector<uint8_t> codes(256);
  for (int i = 0; i < 256; ++i) codes[i] = static_cast<uint8_t>(i);
  auto code_buf = Buffer(codes.data(), codes.size());
  for (int e5m2 : {0, 1}) {
    Kernel k(program_, "decode_fp8");
    k.Arg(0, code_buf->get());
    k.Arg(1, cl_int{e5m2});
    k.Arg(2, out->get());
    k.Run2D(h_.default_queue, 1, 256);
    const std::vector<uint32_t> got = Read<uint32_t>(*out, 256);
    for (int i = 0; i < 256; ++i) {
      const float want = reference::DecodeFp8(
          e5m2 ? reference::Fp8Format::kE5M2 : reference::Fp8Format::kE4M3, codes[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(FromBits(got[i]))) << "fp8 0x" << std::hex << i;
      } else {
        EXPECT_EQ(got[i], ToBits(want)) << (e5m2 ? "e5m2" : "e4m3") << " 0x" << std::hex << i;
      }
    }
  }
}

}  // namespace
}  // namespace teplug::opencl::quantize
