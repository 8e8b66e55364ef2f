// A complete teplug plugin in C++ using the header-only SDK, written from
// interfaces/README.md. It provides IGemm v1 for fp32 host tensors; errors
// are thrown as teplug::sdk::Exception and reach the host as TeplugError*.
#include <array>
#include <memory>
#include <string>

#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"
#include "teplug/teplug.h"

namespace {

using teplug::sdk::InvalidArgument;
using teplug::sdk::Unsupported;

// Element stride along `axis` (rank 1 or 2); all-zero strides mean row-major.
int64_t Stride(const TeplugTensor& t, int axis) {
  if (t.strides[0] != 0) return t.strides[axis];
  return axis == t.rank - 1 ? 1 : t.shape[1];
}

float At(const TeplugTensor& t, bool trans, int64_t r, int64_t c) {
  const auto* p = static_cast<const float*>(t.data);
  return trans ? p[c * Stride(t, 0) + r * Stride(t, 1)] : p[r * Stride(t, 0) + c * Stride(t, 1)];
}

using Extents = std::array<int64_t, 2>;

// Throws, naming the tensor, unless `t` is an fp32 host tensor of rank `rank`,
// with all strides given or all zero, and extents `want` on axes 0, 1
// (negative: any).
void RequireFp32(const TeplugTensor* t, const std::string& name, int32_t rank,
                 Extents want = {-1, -1}) {
  if (t == nullptr) throw InvalidArgument(name + " is NULL");
  const int32_t kind = t->device != nullptr ? t->device->kind : TEPLUG_DEVICE_CPU;
  if (t->dtype != TEPLUG_DTYPE_FP32 || kind != TEPLUG_DEVICE_CPU) {
    throw Unsupported(name + ": only fp32 host tensors, not dtype " + std::to_string(t->dtype) +
                      " on device kind " + std::to_string(kind));
  }
  if (t->rank != rank) {
    throw InvalidArgument(name + " has rank " + std::to_string(t->rank) + ", want " +
                          std::to_string(rank));
  }
  int given = 0;
  for (int i = 0; i < rank; ++i) given += t->strides[i] != 0;
  if (given != 0 && given != rank) throw InvalidArgument(name + " mixes zero and non-zero strides");
  for (int i = 0; i < rank; ++i) {
    if (want[i] >= 0 && t->shape[i] != want[i]) {
      throw InvalidArgument("shape mismatch: " + name + " axis " + std::to_string(i) + " is " +
                            std::to_string(t->shape[i]) + ", want " + std::to_string(want[i]));
    }
  }
}

class NaiveGemm : public teplug::sdk::GemmImpl {
 public:
  bool Supports(const TeplugGemmArgs& args, std::string* reason) override {
    if (args.epilogue != TEPLUG_EPILOGUE_NONE) {
      *reason = "epilogue " + std::to_string(args.epilogue) + " not supported (only none)";
      return false;
    }
    return true;
  }

  void Gemm(const TeplugGemmArgs& a) override {
    std::string reason;  // a caller may skip `supports`: refuse here what it refuses
    if (!Supports(a, &reason)) throw Unsupported(reason);
    // op(A) is [M,K], op(B) [K,N], C and D [M,N], bias [N].
    RequireFp32(a.a, "a", 2);
    const int64_t m = a.trans_a ? a.a->shape[1] : a.a->shape[0];
    const int64_t k = a.trans_a ? a.a->shape[0] : a.a->shape[1];
    RequireFp32(a.b, "b", 2, a.trans_b ? Extents{-1, k} : Extents{k, -1});
    const int64_t n = a.trans_b ? a.b->shape[0] : a.b->shape[1];
    RequireFp32(a.d, "d", 2, {m, n});
    const TeplugTensor* c = a.accumulate ? nullptr : a.c;  // accumulate: C is D, `c` is ignored
    if (c != nullptr) RequireFp32(c, "c", 2, {m, n});
    if (a.bias != nullptr) RequireFp32(a.bias, "bias", 1, {n, -1});
    auto* d = static_cast<float*>(a.d->data);
    const auto* bias = a.bias != nullptr ? static_cast<const float*>(a.bias->data) : nullptr;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0.0;
        for (int64_t p = 0; p < k; ++p) {
          acc += static_cast<double>(At(*a.a, a.trans_a, i, p)) * At(*a.b, a.trans_b, p, j);
        }
        float& out = d[i * Stride(*a.d, 0) + j * Stride(*a.d, 1)];
        acc *= a.alpha;
        if (a.accumulate) {
          acc += out;
        } else if (c != nullptr) {
          acc += static_cast<double>(a.beta) * At(*c, false, i, j);
        }
        if (bias != nullptr) acc += bias[j * Stride(*a.bias, 0)];
        out = static_cast<float>(acc);
      }
    }
  }
};

const TeplugDeviceSupport kDevices[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};

TeplugGemmCaps MakeCaps() {
  TeplugGemmCaps c = teplug::sdk::Versioned<TeplugGemmCaps>();
  c.devices = kDevices;
  c.num_devices = 1;
  c.a_dtypes = c.b_dtypes = c.d_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  c.epilogues = TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_ACCUMULATE;
  c.alignment = 4;
  return c;
}
const TeplugGemmCaps kCaps = MakeCaps();

void RegisterAll(teplug::sdk::Registrar& r) {
  r.Log(TEPLUG_LOG_DEBUG, "minimal_cpp: registering IGemm/1");
  r.Register(teplug::sdk::kIidGemmV1, teplug::sdk::MakeGemm(std::make_unique<NaiveGemm>()), &kCaps,
             "naive-fp32", 10);
}

}  // namespace

TEPLUG_SDK_PLUGIN("minimal_cpp", "teplug examples", "1.0.0", RegisterAll)
