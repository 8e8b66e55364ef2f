#include "plugins/opencl/quantize/quantizer_provider.h"

#include <CL/cl.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "plugins/opencl/provider/cl_status.h"
#include "plugins/opencl/provider/float_codec_kernels.h"
#include "plugins/opencl/provider/opencl_device.h"
#include "plugins/opencl/provider/program_cache.h"
#include "plugins/opencl/provider/scratch_buffer.h"
#include "plugins/opencl/quantize/quantize_call.h"
#include "plugins/opencl/quantize/quantize_kernels.h"
#include "teplug/sdk/error.hpp"

namespace teplug::opencl::quantize {
namespace {

using provider::DeviceTensor;
using provider::Kernel;

cl_ulong U(size_t v) { return static_cast<cl_ulong>(v); }

// Throws INVALID_ARGUMENT when a tensor the call writes or reads has no data.
void RequireData(const std::optional<DeviceTensor>& t, const std::string& name) {
  if (t && t->elements > 0 && t->buffer == nullptr)
    throw sdk::InvalidArgument(absl::StrCat(name, ".data is NULL"));
}

const std::string& QuantizeSource() {
  static const std::string* source =
      new std::string(std::string(provider::kFloatCodecSource) + kQuantizeKernelSource);
  return *source;
}

// The context's handles (of whichever tensor has memory) and its program.
struct Launch {
  provider::OpenClContextHandles h{};
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
};

Launch Prepare(const void* owner, TeplugStream stream, const char* stream_name) {
  Launch l;
  l.h = provider::HandlesOfOwner(owner);
  l.queue = provider::QueueForStream(stream, l.h.context, l.h.default_queue, stream_name);
  l.program = provider::SharedProgramCache().Get(l.h.context, l.h.device, QuantizeSource(), "");
  return l;
}

const void* OwnerOf(std::initializer_list<const std::optional<DeviceTensor>*> ts) {
  for (const auto* t : ts)
    if (*t && (*t)->buffer != nullptr) return (*t)->owner;
  return nullptr;
}

// The largest finite value of the input dtype as fp32 bits: the scale when
// fp8_max / amax overflows.
cl_uint InputMaxFiniteBits(int kind) {
  switch (kind) {
    case provider::kClKindFp16: return 0x477FE000u;  // 65504
    case provider::kClKindBf16: return 0x7F7F0000u;  // 3.38953139e38
    default: return 0x7F7FFFFFu;                     // FLT_MAX
  }
}

void SetTensorArgs(Kernel& k, cl_uint index, const std::optional<DeviceTensor>& t) {
  k.Arg(index, t ? t->buffer : static_cast<cl_mem>(nullptr));
  k.Arg(index + 1, U(t ? t->offset : 0));
}

// Zeroes the scratch words, reduces amax into word 0 and runs finish_scale.
void RunScaleSteps(const Launch& l, const QuantizeCall& c, const TeplugQuantizeArgs& args,
                   cl_mem scratch) {
  const cl_uint zero = 0;
  provider::CheckCl(clEnqueueFillBuffer(l.queue, scratch, &zero, sizeof zero, 0,
                                        kScratchWords * sizeof(cl_uint), 0, nullptr, nullptr),
                    "clEnqueueFillBuffer", "the quantizer's scratch words");
  const size_t n = static_cast<size_t>(c.input.elements);
  if (n > 0 && (c.current || c.amax)) {
    Kernel reduce(l.program, "amax_reduce");
    reduce.Arg(0, c.input.buffer);
    reduce.Arg(1, U(c.input.offset));
    reduce.Arg(2, cl_int{c.kind});
    reduce.Arg(3, U(n));
    reduce.Arg(4, scratch);
    reduce.Run2D(l.queue, 1, std::min<size_t>(n, 4096));
  }
  Kernel finish(l.program, "finish_scale");
  finish.Arg(0, scratch);
  finish.Arg(1, cl_int{c.current ? 1 : 0});
  finish.Arg(2, cl_int{c.e5m2 ? 1 : 0});
  finish.Arg(3, args.amax_epsilon);
  finish.Arg(4, cl_int{args.force_pow2_scales ? 1 : 0});
  finish.Arg(5, InputMaxFiniteBits(c.kind));
  const bool mx = c.mode == TEPLUG_SCALING_MXFP8_1D32;
  const std::optional<DeviceTensor> none;
  SetTensorArgs(finish, 6, mx || c.current ? none : c.scale);                // given scale
  SetTensorArgs(finish, 8, mx || !c.current ? none : c.scale);               // computed scale
  SetTensorArgs(finish, 10, mx ? none : c.scale_inv);
  SetTensorArgs(finish, 12, mx ? none : c.columnwise_scale_inv);
  SetTensorArgs(finish, 14, c.amax);
  finish.Run2D(l.queue, 1, 1);
}

// Reads the given delayed scale back and refuses one that is not finite and
// positive (the reference's rule).
void CheckDelayedScale(const Launch& l, const DeviceTensor& scale, const std::string& name) {
  float value = 0;
  provider::CheckCl(clEnqueueReadBuffer(l.queue, scale.buffer, CL_TRUE, scale.offset,
                                        sizeof value, &value, 0, nullptr, nullptr),
                    "clEnqueueReadBuffer", name);
  if (!std::isfinite(value) || !(value > 0.0f)) {
    throw sdk::InvalidArgument(
        absl::StrCat(name, " is ", value, "; delayed scaling needs a finite scale > 0"));
  }
}

void RunQuantize(const QuantizeCall& c, const TeplugQuantizeArgs& args) {
  const std::string q_name = absl::StrCat(kOut, ".quant");
  if (c.input.elements > 0 && c.input.buffer == nullptr)
    throw sdk::InvalidArgument(absl::StrCat(kIn, ".data is NULL"));
  RequireData(c.rowwise, kOut);
  RequireData(c.scale_inv, q_name + ".scale_inv");
  RequireData(c.columnwise, q_name + ".columnwise_data");
  RequireData(c.columnwise_scale_inv, q_name + ".columnwise_scale_inv");
  RequireData(c.scale, q_name + ".scale");
  RequireData(c.amax, q_name + ".amax");
  const std::optional<DeviceTensor> input = c.input;
  const void* owner = OwnerOf({&input, &c.rowwise, &c.columnwise, &c.scale_inv, &c.scale, &c.amax});
  if (owner == nullptr) return;  // nothing on a device: an empty call
  const Launch l = Prepare(owner, args.stream, "TeplugQuantizeArgs.stream");
  const bool mx = c.mode == TEPLUG_SCALING_MXFP8_1D32;
  const size_t rows = static_cast<size_t>(c.rows), cols = static_cast<size_t>(c.cols);
  if (!mx && !c.current) CheckDelayedScale(l, *c.scale, q_name + ".scale");
  std::optional<provider::ScratchBuffer> scratch;
  if (!mx || c.amax) {
    scratch.emplace(l.h.context, kScratchWords * sizeof(cl_uint), "quantizer scratch");
    RunScaleSteps(l, c, args, scratch->get());
  }
  if (!mx) {
    Kernel cast(l.program, "cast_per_tensor");
    cast.Arg(0, c.input.buffer);
    cast.Arg(1, U(c.input.offset));
    cast.Arg(2, cl_int{c.kind});
    cast.Arg(3, scratch->get());
    cast.Arg(4, cl_int{c.e5m2 ? 1 : 0});
    SetTensorArgs(cast, 5, c.rowwise);
    SetTensorArgs(cast, 7, c.columnwise);
    cast.Run2D(l.queue, rows, cols);
  } else {
    const auto run = [&](const char* name, const DeviceTensor& codes, const DeviceTensor& scales,
                         size_t grid_rows, size_t grid_cols, size_t extent) {
      Kernel k(l.program, name);
      k.Arg(0, c.input.buffer);
      k.Arg(1, U(c.input.offset));
      k.Arg(2, cl_int{c.kind});
      k.Arg(3, U(extent));
      k.Arg(4, cl_int{c.e5m2 ? 1 : 0});
      k.Arg(5, cl_int{c.te_rule ? 1 : 0});
      k.Arg(6, codes.buffer);
      k.Arg(7, U(codes.offset));
      k.Arg(8, scales.buffer);
      k.Arg(9, U(scales.offset));
      k.Run2D(l.queue, grid_rows, grid_cols);
    };
    if (c.rowwise)
      run("mx_rows", *c.rowwise, *c.scale_inv, rows, static_cast<size_t>(CeilDiv(c.cols, kMxBlock)),
          cols);
    if (c.columnwise)
      run("mx_cols", *c.columnwise, *c.columnwise_scale_inv,
          static_cast<size_t>(CeilDiv(c.rows, kMxBlock)), cols, rows);
  }
  if (args.stream == nullptr) provider::CheckCl(clFinish(l.queue), "clFinish");
}

// Enqueues the dequantize kernel for a resolved call.
void RunDequantize(const DequantizeCall& c, const TeplugDequantizeArgs& args) {
  if (c.codes.elements == 0) return;
  for (const auto& [t, name] : {std::pair<const DeviceTensor*, const char*>{&c.codes, "input"},
                                {&c.scales, "input.quant->scale_inv"},
                                {&c.output, "output"}}) {
    if (t->buffer == nullptr)
      throw sdk::InvalidArgument(absl::StrCat("TeplugDequantizeArgs.", name, ".data is NULL"));
  }
  const Launch l = Prepare(c.output.owner, args.stream, "TeplugDequantizeArgs.stream");
  Kernel k(l.program, "dequantize");
  k.Arg(0, c.codes.buffer);
  k.Arg(1, U(c.codes.offset));
  k.Arg(2, cl_int{c.e5m2 ? 1 : 0});
  k.Arg(3, cl_int{c.mx ? 1 : 0});
  k.Arg(4, c.scales.buffer);
  k.Arg(5, U(c.scales.offset));
  k.Arg(6, c.output.buffer);
  k.Arg(7, U(c.output.offset));
  k.Arg(8, cl_int{c.kind});
  k.Run2D(l.queue, static_cast<size_t>(c.rows), static_cast<size_t>(c.cols));
  if (args.stream == nullptr) provider::CheckCl(clFinish(l.queue), "clFinish");
}

// Runs `resolve` as `supports` does: false with the message of an
// UNSUPPORTED refusal, true otherwise (a malformed call fails in the op).
template <class F>
bool Served(F resolve, std::string* reason) {
  try {
    resolve();
  } catch (const sdk::Exception& e) {
    if (e.code() != TEPLUG_UNSUPPORTED) return true;
    *reason = e.what();
    return false;
  }
  return true;
}

}  // namespace

bool OpenClQuantizer::SupportsQuantize(const TeplugQuantizeArgs& args, std::string* reason) {
  return Served([&] { ResolveQuantize(args); }, reason);
}

bool OpenClQuantizer::SupportsDequantize(const TeplugDequantizeArgs& args, std::string* reason) {
  return Served([&] { ResolveDequantize(args); }, reason);
}

void OpenClQuantizer::Quantize(const TeplugQuantizeArgs& args) {
  RunQuantize(ResolveQuantize(args), args);
}

void OpenClQuantizer::Dequantize(const TeplugDequantizeArgs& args) {
  RunDequantize(ResolveDequantize(args), args);
}

}  // namespace teplug::opencl::quantize
