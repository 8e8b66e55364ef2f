// A provider whose attention ops do nothing, so that what a benchmark times
// through it is teplug's overhead, not work. One source, built several ways
// (see BUILD) with:
//   NOOP_NAME            provider name, e.g. "bench_noop"
//   NOOP_IMPLEMENTATIONS how many attention implementations to register
//   NOOP_PRIORITY        priority of implementation 0 (the others vary)
// With NOOP_IMPLEMENTATIONS > 1 the implementations differ in name, priority
// and capability (head_dim_max, layouts, masks) so that selection among them
// has real filtering and ranking to do: every one accepts BSHD, causal,
// fp32, head_dim 64; a quarter of them refuse head_dim 128.
#include <cstdio>
#include <memory>
#include <string>

#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"
#include "teplug/teplug.h"

#ifndef NOOP_NAME
#error "define NOOP_NAME"
#endif
#ifndef NOOP_IMPLEMENTATIONS
#define NOOP_IMPLEMENTATIONS 1
#endif
#ifndef NOOP_PRIORITY
#define NOOP_PRIORITY 100
#endif

namespace {

constexpr int kImplementations = NOOP_IMPLEMENTATIONS;

// Forward and backward return at once; supports() accepts everything (the
// SDK still runs its hook, as it would for a real provider).
class NoopAttention : public teplug::sdk::AttentionImpl {
 public:
  void Forward(const TeplugAttentionFwdArgs&) override {}
  void Backward(const TeplugAttentionBwdArgs&) override {}
};

const TeplugDeviceSupport kCpu[] = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, 0, 0, 0}};

// Implementation i's capability: every 4th stops at head_dim 64, every 3rd
// also takes SBHD, every 2nd only the causal mask.
TeplugAttentionCaps CapsFor(int i) {
  auto c = teplug::sdk::Versioned<TeplugAttentionCaps>();
  c.devices = kCpu;
  c.num_devices = 1;
  c.qkv_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  c.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_BSHD_BSHD_BSHD);
  if (i % 3 == 0) c.layouts |= TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_SBHD_SBHD_SBHD);
  c.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_CAUSAL);
  if (i % 2 == 0) c.mask_types |= TEPLUG_MASK_BIT(TEPLUG_MASK_NONE);
  c.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_NONE);
  c.features = TEPLUG_ATTN_CAP_BACKWARD | TEPLUG_ATTN_CAP_GQA;
  c.head_dim_min = 8;
  c.head_dim_max = i % 4 == 1 ? 64 : 256;
  c.head_dim_multiple = 8;
  return c;
}

struct Registrations {
  TeplugAttentionCaps caps[kImplementations];
  char names[kImplementations][16];
  Registrations() {
    for (int i = 0; i < kImplementations; ++i) {
      caps[i] = CapsFor(i);
      std::snprintf(names[i], sizeof names[i], "noop%02d", i);
    }
  }
};
const Registrations kRegistrations;

void RegisterAll(teplug::sdk::Registrar& r) {
  for (int i = 0; i < kImplementations; ++i) {
    // Spread priorities so ranking is not decided by the name tie-break.
    const int32_t priority = NOOP_PRIORITY - (i * 37) % 64;
    r.Register(teplug::sdk::kIidAttentionV1,
               teplug::sdk::MakeAttention(std::make_unique<NoopAttention>()),
               &kRegistrations.caps[i], kRegistrations.names[i], priority);
  }
}

}  // namespace

TEPLUG_SDK_PLUGIN(NOOP_NAME, "teplug benchmarks", "1.0.0", RegisterAll)
