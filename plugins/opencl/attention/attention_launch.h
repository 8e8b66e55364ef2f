// Runs a resolved attention call (attention_call.h) as the kernels of
// attention_kernels.h on `stream` (a cl_command_queue of the tensors'
// context; NULL: the context's own queue, finished before returning).
// cu_seqlens are read back to the host first (a blocking read on the queue),
// checked, and uploaded as the per-batch lengths and token starts the kernels
// read. Rows no sequence owns (padding rows, tokens past cu_seqlens[B]) of O
// and the gradients are written 0, as attention.h defines them.
#ifndef TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_LAUNCH_H_
#define TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_LAUNCH_H_

#include "plugins/opencl/attention/attention_call.h"
#include "teplug/types.h"

namespace teplug::opencl::attention {

void RunForward(const ForwardCall& call, TeplugStream stream);
void RunBackward(const BackwardCall& call, TeplugStream stream);

}  // namespace teplug::opencl::attention

#endif  // TEPLUG_PLUGINS_OPENCL_ATTENTION_ATTENTION_LAUNCH_H_
