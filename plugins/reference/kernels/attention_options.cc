// Names and classification of mask/bias types, and TransformerEngine's default
// ALiBi slopes.
#include <cmath>
#include <cstdint>
#include <vector>

#include "plugins/reference/kernels/attention_reference.h"

namespace teplug {
namespace reference {

const char* AttnMaskTypeName(AttnMaskType type) {
  switch (type) {
    case AttnMaskType::kNone:
      return "none";
    case AttnMaskType::kPadding:
      return "padding";
    case AttnMaskType::kCausal:
      return "causal";
    case AttnMaskType::kPaddingCausal:
      return "padding_causal";
    case AttnMaskType::kCausalBottomRight:
      return "causal_bottom_right";
    case AttnMaskType::kPaddingCausalBottomRight:
      return "padding_causal_bottom_right";
  }
  return "invalid_mask_type";
}

const char* AttnBiasTypeName(AttnBiasType type) {
  switch (type) {
    case AttnBiasType::kNone:
      return "none";
    case AttnBiasType::kPreScale:
      return "pre_scale";
    case AttnBiasType::kPostScale:
      return "post_scale";
    case AttnBiasType::kAlibi:
      return "alibi";
  }
  return "invalid_bias_type";
}

bool IsPaddingMask(AttnMaskType type) {
  return type == AttnMaskType::kPadding ||
         type == AttnMaskType::kPaddingCausal ||
         type == AttnMaskType::kPaddingCausalBottomRight;
}

bool IsCausalMask(AttnMaskType type) {
  return type == AttnMaskType::kCausal ||
         type == AttnMaskType::kPaddingCausal ||
         type == AttnMaskType::kCausalBottomRight ||
         type == AttnMaskType::kPaddingCausalBottomRight;
}

bool UsesBottomRightDiagonal(AttnMaskType type) {
  return type != AttnMaskType::kCausal && type != AttnMaskType::kPaddingCausal;
}

std::vector<double> DefaultAlibiSlopes(int64_t hq) {
  std::vector<double> slopes;
  if (hq <= 0) return slopes;
  int64_t n = 1;
  while (n * 2 <= hq) n *= 2;
  for (int64_t h = 0; h < n; ++h) {
    slopes.push_back(std::exp2(-8.0 * static_cast<double>(h + 1) / n));
  }
  for (int64_t k = 0; k < hq - n; ++k) {
    slopes.push_back(std::exp2(-4.0 * static_cast<double>(2 * k + 1) / n));
  }
  return slopes;
}

}  // namespace reference
}  // namespace teplug
