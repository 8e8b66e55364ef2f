// The main job: a small transformer attention block, forward and backward,
// every op through the kernel, on one rank of a data-parallel group.
//
// Per layer (T = batch*seq tokens, E = heads*head_dim):
//   forward:  x -> fp8 per_tensor, W_qkv -> fp8 per_tensor, dequantize x (check),
//             qkv = x W_qkv^T (fp8 GEMM) [T, 3E] read as bs3hd [B, S, 3, H, D],
//             attention forward (causal), O -> MXFP8, W_o -> MXFP8,
//             y = O W_o^T (MXFP8 GEMM) -> next layer's x
//   backward (layers in reverse, dy random for the last layer):
//             dO = dy W_o, dW_o = dy^T O (fp32), attention backward -> dqkv,
//             dx = dqkv W_qkv, dW_qkv = dqkv^T x (fp32) -> previous layer's dy
//   then every weight gradient is all-reduced (sum) across the ranks.
// Weights are the same on every rank; inputs differ per rank.
#ifndef TEPLUG_TOOLS_TEPLUG_TRANSFORMER_BLOCK_H_
#define TEPLUG_TOOLS_TEPLUG_TRANSFORMER_BLOCK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "core/kernel/kernel.h"
#include "tools/teplug/checked_op.h"
#include "tools/teplug/op_report.h"
#include "tools/teplug/rank_device.h"
#include "tools/teplug/rank_group.h"

namespace teplug::cli {

struct BlockShape {
  int64_t layers = 1, batch = 2, seq = 64, heads = 4, head_dim = 32;
  int32_t dtype = TEPLUG_DTYPE_BF16;  // activations and weights: fp32, fp16 or bf16
  uint64_t seed = 1;
  // Above this many attention multiply-adds (batch*heads*seq^2*head_dim) the
  // independent attention oracle is skipped (it is O(that) in doubles).
  int64_t naive_attention_limit = 64ll << 20;
};

// Called by rank 0 after each layer's forward or backward ("forward", layer).
using ProgressFn = std::function<void(const std::string& phase, int64_t layer)>;

// How the job checks and times its ops. Each op label is timed once
// (TimeOp), at its first call: compute ops on rank 0 alone, all-reduces on
// every rank together (a collective needs them all).
struct JobOptions {
  Compare compare = Compare::kReference;
  // One for all ranks: a rank holds it shared while it runs and checks a
  // compute op, and rank 0 holds it exclusively while it times one, so no
  // other work of the job runs during a timed call.
  absl::Mutex* timing_gate = nullptr;
  // `teplug run --device(s)`: where each rank's tensors live, indexed by
  // rank (rank_device.h), and the table gets one row per rank and op. Empty:
  // every rank on host memory, rows merged over the ranks.
  std::vector<RankDevice> rank_devices;
};

// Runs the block on `rank` of `group`, appending one OpResult per op call.
absl::Status RunTransformerBlock(const core::Kernel& kernel, const BlockShape& shape,
                                 const JobOptions& options, RankGroup* group, int rank,
                                 const ProgressFn& progress, std::vector<OpResult>* results);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_TRANSFORMER_BLOCK_H_
