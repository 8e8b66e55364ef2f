#include "plugins/opencl/attention/attention_provider.h"

#include "plugins/opencl/attention/attention_call.h"
#include "plugins/opencl/attention/attention_launch.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::opencl::attention {
namespace {

// Runs `read` and answers whether the call is served: an UNSUPPORTED refusal
// gives its reason, a malformed call is left to the op to report.
template <class Read>
bool Served(Read read, std::string* reason) {
  try {
    read();
  } catch (const sdk::Exception& e) {
    if (e.code() != TEPLUG_UNSUPPORTED) return true;
    *reason = e.what();
    return false;
  }
  return true;
}

const TeplugDeviceSupport kOpenClDevices[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_OPENCL, TEPLUG_VENDOR_ANY, 0, 0}};

TeplugAttentionCaps MakeCaps() {
  TeplugAttentionCaps c = sdk::Versioned<TeplugAttentionCaps>();
  c.devices = kOpenClDevices;
  c.num_devices = 1;
  c.qkv_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) |
                 TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  c.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_COUNT_) - 1;  // all 15
  c.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_COUNT_) - 1;   // all 6
  c.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_COUNT_) - 1;   // none, pre, post, ALiBi
  c.features = TEPLUG_ATTN_CAP_SLIDING_WINDOW | TEPLUG_ATTN_CAP_GQA |
               TEPLUG_ATTN_CAP_DETERMINISTIC | TEPLUG_ATTN_CAP_BACKWARD |
               TEPLUG_ATTN_CAP_DIFFERENT_HEAD_DIMS;
  c.head_dim_min = 1;
  c.head_dim_max = kMaxHeadDim;
  c.head_dim_multiple = 1;
  c.max_seqlen_q = 0;
  c.max_seqlen_kv = 0;
  return c;
}

}  // namespace

bool OpenClAttention::SupportsForward(const TeplugAttentionFwdArgs& args, std::string* reason) {
  return Served([&] { ReadForward(args, /*need_data=*/false); }, reason);
}

bool OpenClAttention::SupportsBackward(const TeplugAttentionBwdArgs& args, std::string* reason) {
  return Served([&] { ReadBackward(args, /*need_data=*/false); }, reason);
}

void OpenClAttention::Forward(const TeplugAttentionFwdArgs& args) {
  RunForward(ReadForward(args, /*need_data=*/true), args.stream);
}

void OpenClAttention::Backward(const TeplugAttentionBwdArgs& args) {
  RunBackward(ReadBackward(args, /*need_data=*/true), args.stream);
}

const TeplugAttentionCaps* OpenClAttentionCaps() {
  static const TeplugAttentionCaps caps = MakeCaps();
  return &caps;
}

}  // namespace teplug::opencl::attention
