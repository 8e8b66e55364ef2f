#include "plugins/cpu/attention/tensor_rows.h"

#include <algorithm>

#include "plugins/cpu/attention/scalar_formats.h"
#include "teplug/types.h"

namespace teplug::cpu::attention {

void LoadRow(const void* data, int32_t dtype, int64_t offset, int64_t n, float* out) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP32: {
      const float* in = static_cast<const float*>(data) + offset;
      std::copy(in, in + n, out);
      return;
    }
    case TEPLUG_DTYPE_BF16: {
      const uint16_t* in = static_cast<const uint16_t*>(data) + offset;
      for (int64_t e = 0; e < n; ++e) out[e] = Bf16ToFloat(in[e]);
      return;
    }
    default: {  // fp16 (the call checked the dtype)
      const uint16_t* in = static_cast<const uint16_t*>(data) + offset;
      for (int64_t e = 0; e < n; ++e) out[e] = Fp16ToFloat(in[e]);
      return;
    }
  }
}

void StoreRow(void* data, int32_t dtype, int64_t offset, int64_t n, const float* in) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP32:
      std::copy(in, in + n, static_cast<float*>(data) + offset);
      return;
    case TEPLUG_DTYPE_BF16: {
      uint16_t* out = static_cast<uint16_t*>(data) + offset;
      for (int64_t e = 0; e < n; ++e) out[e] = FloatToBf16(in[e]);
      return;
    }
    default: {
      uint16_t* out = static_cast<uint16_t*>(data) + offset;
      for (int64_t e = 0; e < n; ++e) out[e] = FloatToFp16(in[e]);
      return;
    }
  }
}

void CopyBf16Row(const void* data, int64_t offset, int64_t n, uint16_t* out) {
  const uint16_t* in = static_cast<const uint16_t*>(data) + offset;
  std::copy(in, in + n, out);
}

}  // namespace teplug::cpu::attention
