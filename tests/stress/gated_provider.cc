// A test provider ("gated") whose gemm blocks until the caller lets it go,
// so a test can hold a call in flight while it reloads the config or drops
// the kernel. The gate is a std::atomic<int> the caller passes as the GEMM's
// workspace: the provider stores kGateEntered, waits until the caller stores
// kGateOpen, then stamps D with 4 (a marker no fake provider uses).
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"
#include "teplug/teplug.h"
#include "tests/stress/gate.h"

namespace {

class GatedGemm : public teplug::sdk::GemmImpl {
 public:
  void Gemm(const TeplugGemmArgs& a) override {
    if (a.workspace == nullptr || a.workspace_size < sizeof(std::atomic<int>)) {
      throw teplug::sdk::InvalidArgument("gated: pass the gate (std::atomic<int>) as workspace");
    }
    auto* gate = static_cast<std::atomic<int>*>(a.workspace);
    gate->store(teplug::stress::kGateEntered, std::memory_order_release);
    while (gate->load(std::memory_order_acquire) != teplug::stress::kGateOpen) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    int64_t n = a.d->shape[0] * a.d->shape[1];
    for (int64_t i = 0; i < n; ++i)
      static_cast<float*>(a.d->data)[i] = teplug::stress::kGatedMarker;
  }
};

const TeplugDeviceSupport kCpu[] = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, 0, 0, 0}};

TeplugGemmCaps GemmCaps() {
  auto c = teplug::sdk::Versioned<TeplugGemmCaps>();
  c.devices = kCpu;
  c.num_devices = 1;
  c.a_dtypes = c.b_dtypes = c.d_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  return c;
}
const TeplugGemmCaps kGemmCaps = GemmCaps();

void RegisterAll(teplug::sdk::Registrar& r) {
  r.Register(teplug::sdk::kIidGemmV1, teplug::sdk::MakeGemm(std::make_unique<GatedGemm>()),
             &kGemmCaps, "gemm", 100);
}

}  // namespace

TEPLUG_SDK_PLUGIN("gated", "teplug tests", "1.0.0", RegisterAll)
