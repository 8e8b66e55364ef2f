// libteplug_gloo_collective_test.so: a test-only plugin that registers only
// the Gloo ICollective, so tests reach it through teplug's kernel before the
// cpu provider's entry registers it.
#include "plugins/cpu/collective/gloo_collective.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/plugin.hpp"

namespace {

void RegisterGlooCollective(teplug::sdk::Registrar& r) {
  r.Register(teplug::sdk::kIidCollectiveV1,
             teplug::sdk::MakeCollective(teplug::cpu::collective::NewGlooCollective()),
             teplug::cpu::collective::GlooCollectiveCaps(), "gloo", 20);
}

}  // namespace

TEPLUG_SDK_PLUGIN("gloo_collective_test", "teplug", "0.1", RegisterGlooCollective)
