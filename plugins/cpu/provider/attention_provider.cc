#include "plugins/cpu/provider/attention_provider.h"

#include "plugins/cpu/attention/attention_call.h"
#include "plugins/cpu/attention/flash_forward.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cpu::provider {
namespace {

constexpr char kNoBackward[] =
    "IAttention backward: the cpu provider serves the forward only (TEPLUG_ATTN_CAP_BACKWARD is "
    "clear)";

}  // namespace

bool CpuAttention::SupportsForward(const TeplugAttentionFwdArgs& args, std::string* reason) {
  absl::StatusOr<attention::AttentionCall> call = attention::ReadAttentionForward(args);
  if (call.ok() || call.status().code() != absl::StatusCode::kUnimplemented) return true;
  *reason = std::string(call.status().message());
  return false;
}

bool CpuAttention::SupportsBackward(const TeplugAttentionBwdArgs& args, std::string* reason) {
  (void)args;
  *reason = kNoBackward;
  return false;
}

void CpuAttention::Forward(const TeplugAttentionFwdArgs& args) {
  const absl::Status status = RunForward(args);
  if (status.ok()) return;
  const std::string message(status.message());
  if (status.code() == absl::StatusCode::kInvalidArgument) throw sdk::InvalidArgument(message);
  if (status.code() == absl::StatusCode::kUnimplemented) throw sdk::Unsupported(message);
  throw sdk::Internal(message);
}

void CpuAttention::Backward(const TeplugAttentionBwdArgs& args) {
  (void)args;
  throw sdk::Unsupported(kNoBackward);
}

absl::Status CpuAttention::RunForward(const TeplugAttentionFwdArgs& args) {
  absl::StatusOr<attention::AttentionCall> call = attention::ReadAttentionForward(args);
  if (!call.ok()) return call.status();
  attention::FlashAttentionForward(*call, threads_);
  return absl::OkStatus();
}

}  // namespace teplug::cpu::provider
