// ValidateAttention: every precondition of the reference attention, with a
// message naming the field and the values found.
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_format.h"
#include "plugins/reference/kernels/attention_reference.h"
#include "plugins/reference/kernels/dropout_mask.h"

namespace teplug {
namespace reference {
namespace {

absl::Status CheckSize(const char* what, const std::vector<double>& tensor,
                       int64_t expected, const char* shape) {
  if (static_cast<int64_t>(tensor.size()) != expected) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attention: %s has %d elements, expected %d (%s)", what, tensor.size(),
        expected, shape));
  }
  return absl::OkStatus();
}

absl::Status CheckShape(const AttentionShape& s) {
  const int64_t extents[] = {s.batch, s.hq,      s.hkv, s.max_sq,
                             s.max_skv, s.d_qk, s.d_v};
  const char* names[] = {"batch", "hq", "hkv", "max_sq",
                         "max_skv", "d_qk", "d_v"};
  for (int e = 0; e < 7; ++e) {
    if (extents[e] <= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "attention: %s must be positive, got %d", names[e], extents[e]));
    }
  }
  if (s.hq % s.hkv != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attention: hq (%d) must be a multiple of hkv (%d) for grouped-query "
        "attention",
        s.hq, s.hkv));
  }
  return absl::OkStatus();
}

absl::Status CheckSeqlens(const char* side, const std::vector<int64_t>& lens,
                          int64_t batch, int64_t max_len, AttnMaskType mask) {
  if (lens.empty()) return absl::OkStatus();
  if (static_cast<int64_t>(lens.size()) != batch) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attention: seqlens_%s has %d entries, expected batch = %d", side,
        lens.size(), batch));
  }
  for (int64_t b = 0; b < batch; ++b) {
    if (lens[b] < 0 || lens[b] > max_len) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "attention: seqlens_%s[%d] = %d is outside [0, max_s%s = %d]", side,
          b, lens[b], side, max_len));
    }
    if (!IsPaddingMask(mask) && lens[b] != max_len) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "attention: seqlens_%s[%d] = %d is below max_s%s = %d but mask type "
          "%s has no padding; use a padding mask type",
          side, b, lens[b], side, max_len, AttnMaskTypeName(mask)));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckBias(const AttentionShape& s, const AttentionOptions& o) {
  const bool tensor_bias = o.bias_type == AttnBiasType::kPreScale ||
                           o.bias_type == AttnBiasType::kPostScale;
  if (!tensor_bias) {
    if (!o.bias.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "attention: a bias tensor was given but bias type is %s; only "
          "pre_scale and post_scale take one",
          AttnBiasTypeName(o.bias_type)));
    }
  } else {
    if (o.bias_batch != 1 && o.bias_batch != s.batch) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "attention: bias_batch must be 1 or batch (%d), got %d", s.batch,
          o.bias_batch));
    }
    if (o.bias_heads != 1 && o.bias_heads != s.hq) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "attention: bias_heads must be 1 or hq (%d), got %d", s.hq,
          o.bias_heads));
    }
    absl::Status status =
        CheckSize("bias", o.bias,
                  o.bias_batch * o.bias_heads * s.max_sq * s.max_skv,
                  "[bias_batch][bias_heads][max_sq][max_skv]");
    if (!status.ok()) return status;
  }
  if (!o.alibi_slopes.empty()) {
    if (o.bias_type != AttnBiasType::kAlibi) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "attention: alibi_slopes given but bias type is %s",
          AttnBiasTypeName(o.bias_type)));
    }
    if (static_cast<int64_t>(o.alibi_slopes.size()) != s.hq) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "attention: alibi_slopes has %d entries, expected hq = %d",
          o.alibi_slopes.size(), s.hq));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateAttention(const AttentionShape& shape,
                               const AttentionOptions& options,
                               const std::vector<double>& q,
                               const std::vector<double>& k,
                               const std::vector<double>& v) {
  absl::Status status = CheckShape(shape);
  if (!status.ok()) return status;
  if (static_cast<int>(options.mask_type) < 0 ||
      static_cast<int>(options.mask_type) >
          static_cast<int>(AttnMaskType::kPaddingCausalBottomRight)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attention: unknown mask type %d", static_cast<int>(options.mask_type)));
  }
  if (static_cast<int>(options.bias_type) < 0 ||
      static_cast<int>(options.bias_type) >
          static_cast<int>(AttnBiasType::kAlibi)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attention: unknown bias type %d", static_cast<int>(options.bias_type)));
  }
  const AttentionShape& s = shape;
  if (!(status = CheckSize("q", q, s.batch * s.hq * s.max_sq * s.d_qk,
                           "[batch][hq][max_sq][d_qk]"))
           .ok() ||
      !(status = CheckSize("k", k, s.batch * s.hkv * s.max_skv * s.d_qk,
                           "[batch][hkv][max_skv][d_qk]"))
           .ok() ||
      !(status = CheckSize("v", v, s.batch * s.hkv * s.max_skv * s.d_v,
                           "[batch][hkv][max_skv][d_v]"))
           .ok()) {
    return status;
  }
  if (!(status = CheckSeqlens("q", options.seqlens_q, s.batch, s.max_sq,
                              options.mask_type))
           .ok() ||
      !(status = CheckSeqlens("kv", options.seqlens_kv, s.batch, s.max_skv,
                              options.mask_type))
           .ok() ||
      !(status = CheckBias(s, options)).ok()) {
    return status;
  }
  if (!std::isfinite(options.softmax_scale)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attention: softmax_scale must be finite, got %g", options.softmax_scale));
  }
  if (options.window_left < -1 || options.window_right < -1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "attention: window sizes must be -1 (unbounded) or >= 0, got "
        "(%d, %d)",
        options.window_left, options.window_right));
  }
  if (options.is_training) {
    status = ValidateDropoutProbability(options.dropout_p);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("attention: %s", status.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace reference
}  // namespace teplug
