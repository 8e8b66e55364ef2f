// A C++ SDK plugin whose registration function registers one implementation
// and then throws; the SDK's Guard turns the exception into the entry's
// error. The implementation object is heap-allocated by the SDK and counted
// from construction to destruction, so the test sees the host's reference
// released (the object destroyed) on rollback.
#include <memory>
#include <stdexcept>

#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"
#include "tests/hostile/counted_objects.h"
#include "tests/hostile/ref_counters.h"

namespace {

class CountedGemm : public teplug::sdk::GemmImpl {
 public:
  CountedGemm() { teplug_hostile_count_acquire(); }
  ~CountedGemm() override { teplug_hostile_count_release(); }
  void Gemm(const TeplugGemmArgs&) override {
    throw teplug::sdk::Unsupported("hostile_sdk_throw does not compute");
  }
};

void RegisterThenThrow(teplug::sdk::Registrar& r) {
  r.Register(teplug::sdk::kIidGemmV1, teplug::sdk::MakeGemm(std::make_unique<CountedGemm>()),
             hostile_gemm_caps(), "sdk-gemm", 5);
  throw std::runtime_error("hostile_sdk_throw: thrown after one registration");
}

}  // namespace

TEPLUG_SDK_PLUGIN("hostile_sdk_throw", "teplug hostile tests", "0.0.1", RegisterThenThrow)
