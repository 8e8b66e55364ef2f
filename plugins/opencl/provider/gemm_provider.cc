#include "plugins/opencl/provider/gemm_provider.h"

#include <clblast.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "plugins/opencl/provider/cl_status.h"
#include "plugins/opencl/provider/device_matrix.h"
#include "plugins/opencl/provider/device_tensor.h"
#include "plugins/opencl/provider/epilogue_kernels.h"
#include "plugins/opencl/provider/float_codec_kernels.h"
#include "plugins/opencl/provider/gemm_operand_kernels.h"
#include "plugins/opencl/provider/opencl_device.h"
#include "plugins/opencl/provider/program_cache.h"
#include "plugins/opencl/provider/scratch_buffer.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/names.hpp"

namespace teplug::opencl::provider {
namespace {

// A or B with what converting it to fp32 needs: for fp8, its scales (one
// fp32 scale_inv, or MXFP8's e8m0 [rows, ceil(cols/32)]).
struct Operand {
  int32_t dtype = 0;
  bool mx = false;
  DeviceTensor scales;
};

// The resolved call: every tensor as a DeviceMatrix, checked against the
// others' shapes and context.
struct GemmCall {
  // A and B each in its own dtype; C, bias and pre_gelu_out in D's.
  int32_t a_dtype = 0, b_dtype = 0, d_dtype = 0;
  Operand a_op, b_op;
  int64_t m = 0, n = 0, k = 0;
  DeviceMatrix a, b, d, c, bias, pre;
  bool has_c = false, has_bias = false, has_pre = false, gelu = false;
  float beta = 0;
};

void RequireShape(const DeviceMatrix& x, int64_t rows, int64_t cols, const char* name) {
  if (x.rows != rows || x.cols != cols) {
    throw sdk::InvalidArgument(absl::StrCat("TeplugGemmArgs.", name, " is [", x.rows, ", ", x.cols,
                                            "], expected [", rows, ", ", cols, "]"));
  }
}

bool IsFp8(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP8_E4M3 || dtype == TEPLUG_DTYPE_FP8_E5M2;
}

// A or B (named `name`) as a DeviceMatrix in its stored dtype, with the
// scales of an fp8 operand in `op`.
DeviceMatrix ResolveOperand(const TeplugTensor& t, const char* name, Operand* op) {
  op->dtype = t.dtype;
  if (t.dtype != TEPLUG_DTYPE_FP32 && t.dtype != TEPLUG_DTYPE_FP16 &&
      t.dtype != TEPLUG_DTYPE_BF16 && !IsFp8(t.dtype)) {
    throw sdk::Unsupported(absl::StrCat(
        "TeplugGemmArgs.", name, " is ", sdk::DTypeName(t.dtype),
        "; the opencl GEMM serves fp32, fp16, bf16, fp8_e4m3 and fp8_e5m2 operands"));
  }
  if (!IsFp8(t.dtype)) return ResolveMatrix(t, name, t.dtype);
  const std::string q_name = absl::StrCat("TeplugGemmArgs.", name, ".quant");
  if (t.quant == nullptr || t.quant->scale_inv == nullptr) {
    throw sdk::InvalidArgument(absl::StrCat(q_name, t.quant == nullptr ? "" : "->scale_inv",
                                            " is NULL: a quantized operand needs its scales"));
  }
  const int32_t mode = t.quant->mode;
  if (mode != TEPLUG_SCALING_PER_TENSOR && mode != TEPLUG_SCALING_MXFP8_1D32) {
    throw sdk::Unsupported(absl::StrCat(q_name, "->mode is ", sdk::ScalingName(mode),
                                        "; the opencl GEMM converts per_tensor and mxfp8_1d32 "
                                        "operands"));
  }
  TeplugTensor codes = t;
  codes.quant = nullptr;  // ResolveMatrix reads the codes; the scales are resolved here
  const DeviceMatrix m = ResolveMatrix(codes, name, t.dtype);
  op->mx = mode == TEPLUG_SCALING_MXFP8_1D32;
  const TeplugTensor& s = *t.quant->scale_inv;
  const std::string s_name = q_name + "->scale_inv";
  if (op->mx) {
    const int64_t blocks = (m.cols + 31) / 32;
    provider::RequireShape(s, s_name, {m.rows, blocks},
                           "mxfp8_1d32 row-wise scales of the operand are");
    if (s.dtype != TEPLUG_DTYPE_E8M0) {
      throw sdk::InvalidArgument(
          absl::StrCat(s_name, " is ", sdk::DTypeName(s.dtype), "; mxfp8_1d32 scales are e8m0"));
    }
    op->scales = ResolveDeviceTensor(s, s_name, 8);
  } else {
    op->scales = ResolveDeviceTensor(s, s_name, 32);
    if (s.dtype != TEPLUG_DTYPE_FP32 || op->scales.elements != 1) {
      throw sdk::InvalidArgument(absl::StrCat(s_name, " is ", sdk::DTypeName(s.dtype), " ",
                                              ShapeText(s), "; it must be one fp32 element"));
    }
  }
  if (op->scales.buffer != nullptr && m.buffer != nullptr && op->scales.owner != m.owner) {
    throw sdk::InvalidArgument(
        absl::StrCat(s_name, " is memory of another opencl context than its operand's"));
  }
  return m;
}

GemmCall ResolveCall(const TeplugGemmArgs& args) {
  if (args.a == nullptr || args.b == nullptr || args.d == nullptr) {
    throw sdk::InvalidArgument("TeplugGemmArgs: a, b and d are required");
  }
  GemmCall call;
  call.d_dtype = args.d->dtype;
  if (call.d_dtype != TEPLUG_DTYPE_FP32 && call.d_dtype != TEPLUG_DTYPE_FP16) {
    throw sdk::Unsupported(absl::StrCat("TeplugGemmArgs.d is ", sdk::DTypeName(call.d_dtype),
                                        "; the opencl GEMM writes fp32 and fp16"));
  }
  if (args.epilogue != TEPLUG_EPILOGUE_NONE && args.epilogue != TEPLUG_EPILOGUE_GELU) {
    throw sdk::InvalidArgument(
        absl::StrCat("TeplugGemmArgs.epilogue ", args.epilogue, " is not a TeplugGemmEpilogue"));
  }
  call.a = ResolveOperand(*args.a, "a", &call.a_op);
  call.b = ResolveOperand(*args.b, "b", &call.b_op);
  call.a_dtype = call.a_op.dtype;
  call.b_dtype = call.b_op.dtype;
  call.d = ResolveMatrix(*args.d, "d", call.d_dtype);
  call.m = args.trans_a ? call.a.cols : call.a.rows;
  call.k = args.trans_a ? call.a.rows : call.a.cols;
  call.n = args.trans_b ? call.b.rows : call.b.cols;
  const int64_t kb = args.trans_b ? call.b.cols : call.b.rows;
  if (kb != call.k) {
    throw sdk::InvalidArgument(absl::StrCat("TeplugGemmArgs: op(A) is [", call.m, ", ", call.k,
                                            "] but op(B) is [", kb, ", ", call.n, "]"));
  }
  RequireShape(call.d, call.m, call.n, "d");
  if (args.accumulate) {
    call.has_c = true;
    call.c = call.d;
    call.beta = 1;
  } else if (args.c != nullptr && args.beta != 0) {
    call.has_c = true;
    call.c = ResolveMatrix(*args.c, "c", call.d_dtype);
    RequireShape(call.c, call.m, call.n, "c");
    call.beta = args.beta;
  }
  if (args.bias != nullptr) {
    call.has_bias = true;
    call.bias = ResolveMatrix(*args.bias, "bias", call.d_dtype, /*vector=*/true);
    RequireShape(call.bias, 1, call.n, "bias");
  }
  call.gelu = args.epilogue == TEPLUG_EPILOGUE_GELU;
  if (args.pre_gelu_out != nullptr) {
    if (!call.gelu)
      throw sdk::InvalidArgument("TeplugGemmArgs.pre_gelu_out is given without the GELU epilogue");
    call.has_pre = true;
    call.pre = ResolveMatrix(*args.pre_gelu_out, "pre_gelu_out", call.d_dtype);
    RequireShape(call.pre, call.m, call.n, "pre_gelu_out");
  }
  const void* owner = call.d.owner;
  for (const auto& [x, name] : {std::pair<const DeviceMatrix*, const char*>{&call.a, "a"},
                                {&call.b, "b"},
                                {&call.c, "c"},
                                {&call.bias, "bias"},
                                {&call.pre, "pre_gelu_out"}}) {
    if (x->buffer != nullptr && owner != nullptr && x->owner != owner) {
      throw sdk::InvalidArgument(
          absl::StrCat("TeplugGemmArgs.", name, " is memory of another opencl context than d's"));
    }
    if (owner == nullptr) owner = x->owner;
  }
  return call;
}

cl_ulong U(size_t v) { return static_cast<cl_ulong>(v); }

int OperandKind(int32_t dtype) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP16: return kClKindFp16;
    case TEPLUG_DTYPE_BF16: return kClKindBf16;
    case TEPLUG_DTYPE_FP8_E4M3: return kClKindFp8E4m3;
    case TEPLUG_DTYPE_FP8_E5M2: return kClKindFp8E5m2;
    default: return kClKindFp32;
  }
}

const std::string& OperandSource() {
  static const std::string* source =
      new std::string(std::string(kFloatCodecSource) + kGemmOperandKernelSource);
  return *source;
}

// A strided non-fp32 operand as a contiguous fp32 scratch matrix (the
// DeviceMatrix CLBlast then reads).
DeviceMatrix ConvertOperand(cl_program program, cl_command_queue q, cl_context context,
                            const DeviceMatrix& x, const Operand& op,
                            std::unique_ptr<ScratchBuffer>* scratch) {
  const size_t rows = static_cast<size_t>(x.rows), cols = static_cast<size_t>(x.cols);
  *scratch = std::make_unique<ScratchBuffer>(context, rows * cols * sizeof(float),
                                             "GEMM operand converted to fp32");
  Kernel kernel(program, "operand_to_f32");
  kernel.Arg(0, x.buffer);
  kernel.Arg(1, U(x.offset));
  kernel.Arg(2, U(x.ld));
  kernel.Arg(3, cl_int{OperandKind(op.dtype)});
  kernel.Arg(4, cl_int{op.mx ? 1 : 0});
  kernel.Arg(5, op.scales.buffer);
  kernel.Arg(6, U(op.scales.offset));
  kernel.Arg(7, U(static_cast<size_t>((x.cols + 31) / 32)));
  kernel.Arg(8, (*scratch)->get());
  kernel.Run2D(q, rows, cols);
  return DeviceMatrix{(*scratch)->get(), 0, cols, x.rows, x.cols, x.owner};
}

void Run(const TeplugGemmArgs& args) {
  const GemmCall call = ResolveCall(args);
  if (call.m == 0 || call.n == 0) return;
  for (const auto& [x, name] : {std::pair<const DeviceMatrix*, const char*>{&call.a, "a"},
                                {&call.b, "b"},
                                {&call.d, "d"}}) {
    RequireData(*x, name);
  }
  if (call.has_c) RequireData(call.c, "c");
  if (call.has_bias) RequireData(call.bias, "bias");
  if (call.has_pre) RequireData(call.pre, "pre_gelu_out");
  const OpenClContextHandles h = HandlesOfOwner(call.d.owner);
  cl_command_queue q =
      QueueForStream(args.stream, h.context, h.default_queue, "TeplugGemmArgs.stream");
  const bool half = call.d_dtype == TEPLUG_DTYPE_FP16;
  // Our kernels, one program per element type, looked up only when a step
  // needs them (a plain fp32 GEMM needs none).
  cl_program built[2] = {nullptr, nullptr};
  auto program = [&](bool for_half) {
    cl_program& p = built[for_half ? 1 : 0];
    if (p == nullptr) {
      p = SharedProgramCache().Get(h.context, h.device, kEpilogueKernelSource,
                                   for_half ? "-DTEPLUG_HALF" : "");
    }
    return p;
  };
  const size_t m = static_cast<size_t>(call.m), n = static_cast<size_t>(call.n),
               k = static_cast<size_t>(call.k);

  // W: the fp32 result, D itself for fp32, scratch for fp16.
  std::unique_ptr<ScratchBuffer> w_scratch, a_scratch, b_scratch;
  DeviceMatrix w = call.d;
  if (half) {
    w_scratch = std::make_unique<ScratchBuffer>(h.context, m * n * sizeof(float), "GEMM scratch");
    w = DeviceMatrix{w_scratch->get(), 0, n, call.m, call.n, call.d.owner};
  }
  // How W gets beta * C: CLBlast's own beta where W already holds C (fp32 D
  // accumulating or C aliasing D exactly) or there is no C (beta 0: CLBlast
  // does not read W then, so stale NaNs in D stay out); otherwise the prefill
  // kernel writes W = beta * C and CLBlast adds to it with beta 1.
  const bool c_is_w =
      call.has_c && call.c.buffer == w.buffer && call.c.offset == w.offset && call.c.ld == w.ld;
  const bool clblast_beta = k > 0 && (!call.has_c || c_is_w);
  const float beta = clblast_beta ? (call.has_c ? call.beta : 0.0f) : 1.0f;
  if (!clblast_beta) {
    Kernel prefill(program(half), "prefill");
    prefill.Arg(0, call.has_c ? call.c.buffer : static_cast<cl_mem>(nullptr));
    prefill.Arg(1, U(call.c.offset));
    prefill.Arg(2, U(call.c.ld));
    prefill.Arg(3, call.beta);
    prefill.Arg(4, cl_int{call.has_c ? 1 : 0});
    prefill.Arg(5, w.buffer);
    prefill.Arg(6, U(w.offset));
    prefill.Arg(7, U(w.ld));
    prefill.Run2D(q, m, n);
  }
  if (k > 0) {
    DeviceMatrix a = call.a, b = call.b;
    if (call.a_dtype != TEPLUG_DTYPE_FP32 || call.b_dtype != TEPLUG_DTYPE_FP32) {
      const cl_program convert =
          SharedProgramCache().Get(h.context, h.device, OperandSource(), "");
      if (call.a_dtype != TEPLUG_DTYPE_FP32)
        a = ConvertOperand(convert, q, h.context, call.a, call.a_op, &a_scratch);
      if (call.b_dtype != TEPLUG_DTYPE_FP32)
        b = ConvertOperand(convert, q, h.context, call.b, call.b_op, &b_scratch);
    }
    const clblast::StatusCode s = clblast::Gemm<float>(
        clblast::Layout::kRowMajor,
        args.trans_a ? clblast::Transpose::kYes : clblast::Transpose::kNo,
        args.trans_b ? clblast::Transpose::kYes : clblast::Transpose::kNo, m, n, k, args.alpha,
        a.buffer, a.offset, a.ld, b.buffer, b.offset, b.ld, beta, w.buffer, w.offset, w.ld, &q);
    if (s != clblast::StatusCode::kSuccess) {
      throw sdk::Exception(TeplugCodeForClError(static_cast<cl_int>(s)),
                           ClblastErrorMessage(static_cast<int>(s)));
    }
  }
  if (half || call.has_bias || call.gelu) {
    Kernel epilogue(program(half), "epilogue");
    epilogue.Arg(0, w.buffer);
    epilogue.Arg(1, U(w.offset));
    epilogue.Arg(2, U(w.ld));
    epilogue.Arg(3, call.has_bias ? call.bias.buffer : static_cast<cl_mem>(nullptr));
    epilogue.Arg(4, U(call.bias.offset));
    epilogue.Arg(5, U(call.bias.ld));
    epilogue.Arg(6, cl_int{call.has_bias ? 1 : 0});
    epilogue.Arg(7, call.has_pre ? call.pre.buffer : static_cast<cl_mem>(nullptr));
    epilogue.Arg(8, U(call.pre.offset));
    epilogue.Arg(9, U(call.pre.ld));
    epilogue.Arg(10, cl_int{call.has_pre ? 1 : 0});
    epilogue.Arg(11, cl_int{call.gelu ? 1 : 0});
    epilogue.Arg(12, call.d.buffer);
    epilogue.Arg(13, U(call.d.offset));
    epilogue.Arg(14, U(call.d.ld));
    epilogue.Run2D(q, m, n);
  }
  if (args.stream == nullptr) CheckCl(clFinish(q), "clFinish");
}

}  // namespace

std::string ClblastErrorMessage(int status) {
  const char* name = nullptr;
  switch (static_cast<clblast::StatusCode>(status)) {
    case clblast::StatusCode::kNotImplemented:
      name = "kNotImplemented";
      break;
    case clblast::StatusCode::kInvalidMatrixA:
      name = "kInvalidMatrixA";
      break;
    case clblast::StatusCode::kInvalidMatrixB:
      name = "kInvalidMatrixB";
      break;
    case clblast::StatusCode::kInvalidMatrixC:
      name = "kInvalidMatrixC";
      break;
    case clblast::StatusCode::kInvalidDimension:
      name = "kInvalidDimension";
      break;
    case clblast::StatusCode::kInvalidLeadDimA:
      name = "kInvalidLeadDimA";
      break;
    case clblast::StatusCode::kInvalidLeadDimB:
      name = "kInvalidLeadDimB";
      break;
    case clblast::StatusCode::kInvalidLeadDimC:
      name = "kInvalidLeadDimC";
      break;
    case clblast::StatusCode::kInsufficientMemoryA:
      name = "kInsufficientMemoryA";
      break;
    case clblast::StatusCode::kInsufficientMemoryB:
      name = "kInsufficientMemoryB";
      break;
    case clblast::StatusCode::kInsufficientMemoryC:
      name = "kInsufficientMemoryC";
      break;
    case clblast::StatusCode::kInvalidLocalMemUsage:
      name = "kInvalidLocalMemUsage";
      break;
    case clblast::StatusCode::kDatabaseError:
      name = "kDatabaseError";
      break;
    case clblast::StatusCode::kUnknownError:
      name = "kUnknownError";
      break;
    case clblast::StatusCode::kUnexpectedError:
      name = "kUnexpectedError";
      break;
    default:
      name = status > -1000 ? ClErrorName(status) : "unknown CLBlast status";
      break;
  }
  return absl::StrCat("clblast::Gemm failed: ", name, " (", status, ")");
}

bool OpenClGemm::Supports(const TeplugGemmArgs& args, std::string* reason) {
  try {
    ResolveCall(args);
  } catch (const sdk::Exception& e) {
    if (e.code() != TEPLUG_UNSUPPORTED) return true;  // malformed: gemm reports it
    *reason = e.what();
    return false;
  }
  return true;
}

void OpenClGemm::Gemm(const TeplugGemmArgs& args) { Run(args); }

}  // namespace teplug::opencl::provider
