#include "tools/teplug/conformance_gemm_call.h"

#include <cmath>
#include <cstring>
#include <random>

#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/conformance_contract.h"
#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {
namespace {

bool IsFp8(int32_t d) { return d == TEPLUG_DTYPE_FP8_E4M3 || d == TEPLUG_DTYPE_FP8_E5M2; }

// Random non-zero codes of magnitude 2^-2..2^2: fp8 (e4m3: exponent bias 7,
// 3 mantissa bits; e5m2: bias 15, 2 bits) one per byte, fp4 e2m1 (0.5..6,
// codes 1..7 with a sign bit) two per byte, the first element in the low nibble.
void FillCodes(HostTensor* t, std::mt19937_64* rng) {
  auto* codes = static_cast<uint8_t*>(t->tensor()->data);
  if (t->dtype() == TEPLUG_DTYPE_FP4_E2M1) {
    for (int64_t i = 0; i < t->count() / 2; ++i) {
      auto nibble = [&] {
        const uint32_t r = static_cast<uint32_t>((*rng)());
        return static_cast<uint8_t>((r & 8) | (1 + (r >> 4) % 7));
      };
      const uint8_t low = nibble();
      codes[i] = static_cast<uint8_t>(low | (nibble() << 4));
    }
    return;
  }
  for (int64_t i = 0; i < t->count(); ++i) {
    const uint32_t r = static_cast<uint32_t>((*rng)());
    const uint32_t sign = (r & 1) << 7;
    codes[i] = t->dtype() == TEPLUG_DTYPE_FP8_E4M3
                   ? static_cast<uint8_t>(sign | ((5 + (r >> 1) % 5) << 3) | ((r >> 8) & 7))
                   : static_cast<uint8_t>(sign | ((13 + (r >> 1) % 5) << 2) | ((r >> 8) & 3));
  }
}

// Random codes and scales of `scaling`: per_tensor a power of two 2^-1..2^1,
// mxfp8_1d32 e8m0 codes 2^-2..2^2, block modes fp32 values in [0.25, 2]
// (not powers of two, so a block read with its neighbour's scale shows).
void FillQuantized(HostTensor* t, int32_t scaling, std::mt19937_64* rng) {
  FillCodes(t, rng);
  t->AttachQuantization(scaling);
  const TeplugTensor* scale_inv = t->tensor()->quant->scale_inv;
  const int64_t n = scale_inv->rank == 1 ? 1 : scale_inv->shape[0] * scale_inv->shape[1];
  if (scaling == TEPLUG_SCALING_PER_TENSOR) {
    const float s = std::ldexp(1.0f, static_cast<int>((*rng)() % 3) - 1);
    std::memcpy(scale_inv->data, &s, sizeof s);
  } else if (scaling == TEPLUG_SCALING_MXFP8_1D32) {
    auto* e8m0 = static_cast<uint8_t*>(scale_inv->data);
    for (int64_t i = 0; i < n; ++i) e8m0[i] = static_cast<uint8_t>(125 + (*rng)() % 5);
  } else {
    std::uniform_real_distribution<float> u(0.25f, 2.0f);
    auto* f32 = static_cast<float*>(scale_inv->data);
    for (int64_t i = 0; i < n; ++i) f32[i] = u(*rng);
  }
}

HostTensor Operand(const char* name, int32_t dtype, int64_t rows, int64_t cols, int32_t scaling,
                   std::mt19937_64* rng) {
  HostTensor t(name, dtype, {rows, cols});
  if (IsQuantizedOperand(dtype)) {
    FillQuantized(&t, scaling, rng);
  } else {
    FillNonZero(&t, rng);
  }
  return t;
}

}  // namespace

GemmInputs MakeInputs(const GemmCase& c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  GemmInputs in;
  in.a = c.trans_a ? Operand("a", c.a_dtype, c.k, c.m, c.scaling, &rng)
                   : Operand("a", c.a_dtype, c.m, c.k, c.scaling, &rng);
  in.b = c.trans_b ? Operand("b", c.b_dtype, c.n, c.k, c.scaling, &rng)
                   : Operand("b", c.b_dtype, c.k, c.n, c.scaling, &rng);
  in.bias = HostTensor("bias", AuxDType(c.d_dtype), {c.n});
  FillNonZero(&in.bias, &rng);
  in.d_init = HostTensor("d", c.d_dtype, {c.m, c.n});
  if (IsFp8(c.d_dtype)) {
    in.d_init.AttachQuantization(TEPLUG_SCALING_PER_TENSOR);
    const float scale = std::ldexp(1.0f, static_cast<int>(rng() % 5) - 2);
    std::memcpy(in.d_init.tensor()->quant->scale->data, &scale, sizeof scale);
  } else {
    FillNonZero(&in.d_init, &rng);
  }
  return in;
}

GemmOutputs MakeOutputs(const GemmCase& c, const GemmInputs& in) {
  return {in.d_init.Clone("d"), HostTensor("pre_gelu_out", AuxDType(c.d_dtype), {c.m, c.n})};
}

bool IsQuantizedOperand(int32_t dtype) { return IsFp8(dtype) || dtype == TEPLUG_DTYPE_FP4_E2M1; }

int32_t AuxDType(int32_t d_dtype) { return IsFp8(d_dtype) ? TEPLUG_DTYPE_BF16 : d_dtype; }

TeplugGemmArgs ArgsFor(const GemmCase& c, const GemmInputs& in, GemmOutputs* out) {
  TeplugGemmArgs g = sdk::Versioned<TeplugGemmArgs>();
  g.a = in.a.tensor();
  g.b = in.b.tensor();
  g.d = out->d.tensor();
  g.bias = c.bias ? in.bias.tensor() : nullptr;
  g.pre_gelu_out = c.gelu_aux ? out->pre_gelu.tensor() : nullptr;
  g.trans_a = c.trans_a;
  g.trans_b = c.trans_b;
  g.alpha = 1.0f;
  g.epilogue = c.gelu || c.gelu_aux ? TEPLUG_EPILOGUE_GELU : TEPLUG_EPILOGUE_NONE;
  g.accumulate = c.accumulate;
  return g;
}

TeplugGemmArgs WithWorkspace(TeplugGemmArgs args, std::vector<uint8_t>* workspace) {
  args.workspace = workspace->empty() ? nullptr : workspace->data();
  args.workspace_size = workspace->size();
  return args;
}

std::string CallWithWorkspace(TeplugGemmV1* g, TeplugGemmArgs args, DeviceStaging* staging) {
  size_t bytes = 0;
  if (std::string e = TakeError(g->vtbl->workspace_size(g, &args, &bytes), "workspace_size");
      !e.empty()) {
    return e;
  }
  DeviceStaging on_host(nullptr);
  DeviceStaging& where = staging != nullptr ? *staging : on_host;
  if (std::string e = where.Workspace(bytes, &args.workspace); !e.empty()) return e;
  args.workspace_size = bytes;
  args.stream = where.stream();
  return TakeError(g->vtbl->gemm(g, &args), "gemm");
}

}  // namespace teplug::cli
