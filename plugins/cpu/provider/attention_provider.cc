#include "plugins/cpu/provider/attention_provider.h"

#include "plugins/cpu/attention/attention_call.h"
#include "plugins/cpu/attention/flash_backward.h"
#include "plugins/cpu/attention/flash_forward.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cpu::provider {
namespace {

// false with the reason when `read` failed as Unimplemented (not served);
// true otherwise (malformed args are reported by the call itself).
bool Served(const absl::Status& read, std::string* reason) {
  if (read.ok() || read.code() != absl::StatusCode::kUnimplemented) return true;
  *reason = std::string(read.message());
  return false;
}

void ThrowIfError(const absl::Status& status) {
  if (status.ok()) return;
  const std::string message(status.message());
  if (status.code() == absl::StatusCode::kInvalidArgument) throw sdk::InvalidArgument(message);
  if (status.code() == absl::StatusCode::kUnimplemented) throw sdk::Unsupported(message);
  throw sdk::Internal(message);
}

}  // namespace

bool CpuAttention::SupportsForward(const TeplugAttentionFwdArgs& args, std::string* reason) {
  return Served(attention::ReadAttentionForward(args).status(), reason);
}

bool CpuAttention::SupportsBackward(const TeplugAttentionBwdArgs& args, std::string* reason) {
  return Served(attention::ReadAttentionBackward(args).status(), reason);
}

void CpuAttention::Forward(const TeplugAttentionFwdArgs& args) { ThrowIfError(RunForward(args)); }

void CpuAttention::Backward(const TeplugAttentionBwdArgs& args) { ThrowIfError(RunBackward(args)); }

absl::Status CpuAttention::RunForward(const TeplugAttentionFwdArgs& args) {
  absl::StatusOr<attention::AttentionCall> call = attention::ReadAttentionForward(args);
  if (!call.ok()) return call.status();
  attention::FlashAttentionForward(*call, threads_);
  return absl::OkStatus();
}

absl::Status CpuAttention::RunBackward(const TeplugAttentionBwdArgs& args) {
  absl::StatusOr<attention::BackwardCall> call = attention::ReadAttentionBackward(args);
  if (!call.ok()) return call.status();
  attention::FlashAttentionBackward(*call, threads_);
  return absl::OkStatus();
}

}  // namespace teplug::cpu::provider
