// Argument bundles for the ops the fake and no-op test providers serve:
// an fp32 GEMM and an fp32 BSHD causal attention forward, with random inputs
// and an output the fake providers stamp with their marker (fast 1, wide 2,
// twin 3), so a caller can see which provider served a call. Each bundle
// owns its storage; the args point into it, so a bundle must not be copied
// or moved once made (hence the deleted copy).
#ifndef TEPLUG_CORE_KERNEL_TESTING_FAKE_CALLS_H_
#define TEPLUG_CORE_KERNEL_TESTING_FAKE_CALLS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "teplug/teplug.h"

namespace teplug::core::testing {

// Written into outputs before a call; no provider stamps it.
inline constexpr float kUnstamped = -7.f;

// What each fake provider stamps into every output element (FAKE_MARK in
// core/kernel/testing/BUILD).
inline constexpr float kFast = 1.f, kWide = 2.f, kTwin = 3.f;

// D = alpha * A B with A [m, k], B [k, n]. The fast fake fails on alpha 13
// with UNAVAILABLE (wide and twin serve it, so calls fall back); every fake
// fails on alpha 14 with INVALID_ARGUMENT.
class GemmCall {
 public:
  explicit GemmCall(float alpha = 1.f, int64_t m = 4, int64_t n = 4, int64_t k = 4, uint32_t seed = 1);
  GemmCall(const GemmCall&) = delete;
  GemmCall& operator=(const GemmCall&) = delete;

  const TeplugGemmArgs* args() const { return &args_; }
  // For tests that break the args on purpose.
  TeplugGemmArgs* mutable_args() { return &args_; }
  // Passes `bytes` of workspace at `data` (the gated provider's gate).
  void SetWorkspace(void* data, size_t bytes) {
    args_.workspace = data;
    args_.workspace_size = bytes;
  }
  // Sets every output element to kUnstamped.
  void ClearOutput();
  // The value every output element holds, or kUnstamped when they differ
  // (a partly written output is no provider's marker).
  float OutputMarker() const;

 private:
  std::vector<float> a_data_, b_data_, d_data_;
  TeplugTensor a_, b_, d_;
  TeplugGemmArgs args_;
};

// Attention forward, layout bshd_bshd_bshd, causal mask, batch 1.
class AttentionForwardCall {
 public:
  explicit AttentionForwardCall(int64_t head_dim = 64, int64_t seq = 16, int64_t heads = 2, uint32_t seed = 1);
  AttentionForwardCall(const AttentionForwardCall&) = delete;
  AttentionForwardCall& operator=(const AttentionForwardCall&) = delete;

  const TeplugAttentionFwdArgs* args() const { return &args_; }
  // For tests that change dtypes or devices, or break the args on purpose.
  TeplugAttentionFwdArgs* mutable_args() { return &args_; }
  TeplugTensor& q() { return q_; }
  TeplugTensor& k() { return k_; }
  TeplugTensor& v() { return v_; }
  TeplugTensor& o() { return o_; }
  void ClearOutput();
  float OutputMarker() const;

 private:
  std::vector<float> q_data_, k_data_, v_data_, o_data_;
  TeplugTensor q_, k_, v_, o_;
  TeplugAttentionParams params_;
  TeplugAttentionFwdArgs args_;
};

}  // namespace teplug::core::testing

#endif  // TEPLUG_CORE_KERNEL_TESTING_FAKE_CALLS_H_
