// A configurable fake provider for kernel tests, built several times with
// different -D settings (name, priority, limits). Its ops do no math: they
// stamp a marker into the output so a test can see which provider served a
// call, and fail on purpose for chosen inputs:
//   gemm alpha == FAKE_UNAVAILABLE_ALPHA -> TEPLUG_UNAVAILABLE (fallback-eligible)
//   gemm alpha == 14  -> TEPLUG_INVALID_ARGUMENT (must reach the caller as is)
//   attention head_dim_qk == FAKE_SUPPORTS_REJECT_HEAD_DIM -> supports() says no
#include <memory>
#include <string>

#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"
#include "teplug/teplug.h"

#ifndef FAKE_NAME
#error "define FAKE_NAME"
#endif

namespace {

void Stamp(TeplugTensor* t) {
  if (t == nullptr || t->data == nullptr || t->dtype != TEPLUG_DTYPE_FP32) return;
  int64_t n = 1;
  for (int i = 0; i < t->rank; ++i) n *= t->shape[i];
  auto* p = static_cast<float*>(t->data);
  for (int64_t i = 0; i < n; ++i) p[i] = FAKE_MARK;
}

class FakeGemm : public teplug::sdk::GemmImpl {
 public:
  void Gemm(const TeplugGemmArgs& a) override {
    if (a.alpha == FAKE_UNAVAILABLE_ALPHA) throw teplug::sdk::Unavailable(std::string(FAKE_NAME) + ": device busy (test)");
    if (a.alpha == 14.f) throw teplug::sdk::InvalidArgument(std::string(FAKE_NAME) + ": alpha 14 is invalid (test)");
    Stamp(a.d);
  }
};

class FakeAttention : public teplug::sdk::AttentionImpl {
 public:
  bool SupportsForward(const TeplugAttentionFwdArgs& a, std::string* reason) override {
    if (a.params->head_dim_qk == FAKE_SUPPORTS_REJECT_HEAD_DIM) {
      *reason = "head_dim_qk " + std::to_string(a.params->head_dim_qk) + " has no tuned kernel (test)";
      return false;
    }
    return true;
  }
  size_t ForwardWorkspaceSize(const TeplugAttentionFwdArgs&) override { return FAKE_WORKSPACE_BYTES; }
  void Forward(const TeplugAttentionFwdArgs& a) override { Stamp(a.o); }
  void Backward(const TeplugAttentionBwdArgs& a) override { Stamp(a.dq); }
};

const TeplugDeviceSupport kCpu[] = {{sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, 0, 0, 0}};

TeplugGemmCaps GemmCaps() {
  auto c = teplug::sdk::Versioned<TeplugGemmCaps>();
  c.devices = kCpu;
  c.num_devices = 1;
  c.a_dtypes = c.b_dtypes = c.d_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  c.epilogues = TEPLUG_GEMM_CAP_BIAS;
  return c;
}
TeplugAttentionCaps AttentionCaps() {
  auto c = teplug::sdk::Versioned<TeplugAttentionCaps>();
  c.devices = kCpu;
  c.num_devices = 1;
  c.qkv_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  c.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_BSHD_BSHD_BSHD) | TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_SBHD_SBHD_SBHD);
  c.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_NONE) | TEPLUG_MASK_BIT(TEPLUG_MASK_CAUSAL);
  c.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_NONE);
  c.features = TEPLUG_ATTN_CAP_BACKWARD | TEPLUG_ATTN_CAP_GQA;
  c.head_dim_min = 8;
  c.head_dim_max = FAKE_MAX_HEAD_DIM;
  c.head_dim_multiple = 8;
  return c;
}
const TeplugGemmCaps kGemmCaps = GemmCaps();
const TeplugAttentionCaps kAttentionCaps = AttentionCaps();

void RegisterAll(teplug::sdk::Registrar& r) {
  r.Register(teplug::sdk::kIidGemmV1, teplug::sdk::MakeGemm(std::make_unique<FakeGemm>()), &kGemmCaps, "gemm",
             FAKE_PRIORITY);
  r.Register(teplug::sdk::kIidAttentionV1, teplug::sdk::MakeAttention(std::make_unique<FakeAttention>()),
             &kAttentionCaps, "attn", FAKE_PRIORITY);
}

}  // namespace

TEPLUG_SDK_PLUGIN(FAKE_NAME, "teplug tests", "1.0.0", RegisterAll)
