// A complete teplug plugin in C++ using the header-only SDK, written from
// interfaces/README.md. It provides IGemm v1 for fp32 host tensors; errors
// are thrown as teplug::sdk::Exception and reach the host as TeplugError*.
#include <memory>
#include <string>

#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"
#include "teplug/teplug.h"

namespace {

using teplug::sdk::InvalidArgument;
using teplug::sdk::Unsupported;

int64_t RowStride(const TeplugTensor& t) { return t.strides[0] != 0 ? t.strides[0] : t.shape[1]; }
int64_t ColStride(const TeplugTensor& t) { return t.strides[1] != 0 ? t.strides[1] : 1; }

float At(const TeplugTensor& t, bool trans, int64_t r, int64_t c) {
  const auto* p = static_cast<const float*>(t.data);
  return trans ? p[c * RowStride(t) + r * ColStride(t)] : p[r * RowStride(t) + c * ColStride(t)];
}

void RequireFp32Matrix(const TeplugTensor* t, const char* name) {
  if (t == nullptr) throw InvalidArgument(std::string(name) + " is NULL");
  if (t->dtype != TEPLUG_DTYPE_FP32 || t->rank != 2) {
    throw Unsupported(std::string(name) + ": only rank-2 fp32 tensors");
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
    RequireFp32Matrix(a.a, "a");
    RequireFp32Matrix(a.b, "b");
    RequireFp32Matrix(a.d, "d");
    const int64_t m = a.trans_a ? a.a->shape[1] : a.a->shape[0];
    const int64_t k = a.trans_a ? a.a->shape[0] : a.a->shape[1];
    const int64_t n = a.trans_b ? a.b->shape[0] : a.b->shape[1];
    const int64_t kb = a.trans_b ? a.b->shape[1] : a.b->shape[0];
    if (kb != k || a.d->shape[0] != m || a.d->shape[1] != n) {
      throw InvalidArgument("shape mismatch: op(A) is " + std::to_string(m) + "x" +
                            std::to_string(k) + ", op(B) is " + std::to_string(kb) + "x" +
                            std::to_string(n) + ", D is " + std::to_string(a.d->shape[0]) + "x" +
                            std::to_string(a.d->shape[1]));
    }
    auto* d = static_cast<float*>(a.d->data);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0.0;
        for (int64_t p = 0; p < k; ++p) {
          acc += static_cast<double>(At(*a.a, a.trans_a, i, p)) * At(*a.b, a.trans_b, p, j);
        }
        float& out = d[i * RowStride(*a.d) + j * ColStride(*a.d)];
        acc *= a.alpha;
        if (a.accumulate) {
          acc += out;
        } else if (a.c != nullptr) {
          acc += static_cast<double>(a.beta) * At(*a.c, false, i, j);
        }
        if (a.bias != nullptr) acc += static_cast<const float*>(a.bias->data)[j];
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
