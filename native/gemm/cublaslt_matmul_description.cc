#include "native/gemm/cublaslt_matmul_description.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "native/gemm/cublaslt_status.h"

namespace teplug::native {
namespace {

const TeplugTensor* TensorOf(TeplugOperand which, const TeplugGemmArgs& args) {
  switch (which) {
    case TeplugOperand::kA:
      return args.a;
    case TeplugOperand::kB:
      return args.b;
    case TeplugOperand::kC:
      return args.c;
    case TeplugOperand::kD:
      return args.d;
    case TeplugOperand::kNone:
      return nullptr;
  }
  return nullptr;
}

const void* DataOf(const TeplugTensor* t) { return t == nullptr ? nullptr : t->data; }

// The data of quant member `member` (scale, scale_inv, amax) of `t`, or NULL.
const void* QuantData(const TeplugTensor* t, const TeplugTensor* TeplugQuantization::*member) {
  if (t == nullptr || t->quant == nullptr) return nullptr;
  return DataOf(t->quant->*member);
}

const char* AttributeName(cublasLtMatmulDescAttributes_t attr) {
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_TRANSA:
      return "TRANSA";
    case CUBLASLT_MATMUL_DESC_TRANSB:
      return "TRANSB";
    case CUBLASLT_MATMUL_DESC_EPILOGUE:
      return "EPILOGUE";
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
      return "BIAS_POINTER";
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE:
      return "BIAS_DATA_TYPE";
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER:
      return "EPILOGUE_AUX_POINTER";
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD:
      return "EPILOGUE_AUX_LD";
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE:
      return "EPILOGUE_AUX_DATA_TYPE";
    case CUBLASLT_MATMUL_DESC_FAST_ACCUM:
      return "FAST_ACCUM";
    case CUBLASLT_MATMUL_DESC_A_SCALE_MODE:
      return "A_SCALE_MODE";
    case CUBLASLT_MATMUL_DESC_B_SCALE_MODE:
      return "B_SCALE_MODE";
    case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
      return "A_SCALE_POINTER";
    case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
      return "B_SCALE_POINTER";
    case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER:
      return "D_SCALE_POINTER";
    case CUBLASLT_MATMUL_DESC_AMAX_D_POINTER:
      return "AMAX_D_POINTER";
    default:
      return "(attribute)";
  }
}

}  // namespace

absl::Status CublasError(const std::string& call, cublasStatus_t status) {
  const std::string message = "native gemm: " + CublasCallFailure(call, status);
  switch (TeplugCodeOfCublas(status)) {
    case TEPLUG_OUT_OF_MEMORY:
      return absl::ResourceExhaustedError(message);
    case TEPLUG_UNSUPPORTED:
      return absl::UnimplementedError(message);
    case TEPLUG_INVALID_ARGUMENT:
      return absl::InvalidArgumentError(message);
    case TEPLUG_UNAVAILABLE:
      return absl::UnavailableError(message);
    default:
      return absl::InternalError(message);
  }
}

TeplugCode TeplugCodeOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return TEPLUG_OK;
    case absl::StatusCode::kInvalidArgument:
      return TEPLUG_INVALID_ARGUMENT;
    case absl::StatusCode::kUnimplemented:
      return TEPLUG_UNSUPPORTED;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kNotFound:
      return TEPLUG_UNAVAILABLE;
    case absl::StatusCode::kResourceExhausted:
      return TEPLUG_OUT_OF_MEMORY;
    default:
      return TEPLUG_INTERNAL;
  }
}

LtOperandPointers OperandPointers(const CublasLtGemmPlan& plan, const TeplugGemmArgs& args) {
  LtOperandPointers p;
  p.a = DataOf(TensorOf(plan.a.source, args));
  p.b = DataOf(TensorOf(plan.b.source, args));
  p.d = args.d == nullptr ? nullptr : args.d->data;
  if (plan.c.source != TeplugOperand::kNone) {
    p.c = DataOf(TensorOf(plan.c.source, args));
  } else if (plan.c.type == plan.d.type) {
    p.c = p.d;
  }
  p.bias = DataOf(args.bias);
  if (plan.has_aux) p.aux = DataOf(args.pre_gelu_out);
  return p;
}

CublasLtMatmulDescription::~CublasLtMatmulDescription() {
  // Destroy results are not actionable here (the objects are host memory).
  for (cublasLtMatrixLayout_t l : layouts_) {
    if (l != nullptr) lt_.MatrixLayoutDestroy(l);
  }
  if (desc_ != nullptr) lt_.MatmulDescDestroy(desc_);
}

absl::Status CublasLtMatmulDescription::Build(const CublasLtGemmPlan& plan,
                                              const TeplugGemmArgs& args,
                                              const LtScalePointers& scales) {
  cublasStatus_t s = lt_.MatmulDescCreate(&desc_, plan.compute_type, plan.scale_type);
  if (s != CUBLAS_STATUS_SUCCESS) {
    desc_ = nullptr;
    return CublasError("cublasLtMatmulDescCreate", s);
  }
  auto set = [&](cublasLtMatmulDescAttributes_t attr, const void* value, size_t size) {
    const cublasStatus_t r = lt_.MatmulDescSetAttribute(desc_, attr, value, size);
    return r == CUBLAS_STATUS_SUCCESS
               ? absl::OkStatus()
               : CublasError(
                     absl::StrCat("cublasLtMatmulDescSetAttribute(", AttributeName(attr), ")"), r);
  };
  auto set_int32 = [&](cublasLtMatmulDescAttributes_t attr, int32_t v) {
    return set(attr, &v, sizeof(v));
  };
  auto set_pointer = [&](cublasLtMatmulDescAttributes_t attr, const void* p) {
    return set(attr, &p, sizeof(p));
  };

  absl::Status st = set_int32(CUBLASLT_MATMUL_DESC_TRANSA, plan.trans_a);
  if (st.ok()) st = set_int32(CUBLASLT_MATMUL_DESC_TRANSB, plan.trans_b);
  if (st.ok() && plan.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
    st = set_int32(CUBLASLT_MATMUL_DESC_EPILOGUE, plan.epilogue);
  }
  if (st.ok() && args.bias != nullptr) {
    st = set_int32(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, plan.bias_type);
    if (st.ok()) st = set_pointer(CUBLASLT_MATMUL_DESC_BIAS_POINTER, args.bias->data);
  }
  if (st.ok() && plan.has_aux) {
    st = set_pointer(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, args.pre_gelu_out->data);
    if (st.ok()) st = set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &plan.aux_ld, sizeof(plan.aux_ld));
    if (st.ok()) st = set_int32(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, plan.aux_type);
  }
  if (st.ok() && plan.fp8) {
    const int8_t fast = plan.fast_accum ? 1 : 0;
    st = set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof(fast));
    const struct {
      const LtOperandScaling& scaling;
      cublasLtMatmulDescAttributes_t mode, pointer;
      const void* replacement;
    } operands[] = {
        {plan.a_scaling, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, scales.a},
        {plan.b_scaling, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, scales.b}};
    for (const auto& o : operands) {
      if (!st.ok() || !o.scaling.scaled) continue;
      // Per-tensor scaling is cuBLASLt's default mode: left unset, so a
      // cuBLASLt without scale-mode attributes still serves it.
      if (o.scaling.mode != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F)
        st = set_int32(o.mode, o.scaling.mode);
      if (st.ok()) {
        st = set_pointer(o.pointer, o.replacement != nullptr
                                        ? o.replacement
                                        : QuantData(TensorOf(o.scaling.scale_inv_of, args),
                                                    &TeplugQuantization::scale_inv));
      }
    }
  }
  if (st.ok() && plan.d_scale) {
    st = set_pointer(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER,
                     QuantData(args.d, &TeplugQuantization::scale));
  }
  if (st.ok() && plan.d_amax) {
    st = set_pointer(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER,
                     QuantData(args.d, &TeplugQuantization::amax));
  }
  if (!st.ok()) return st;

  const LtMatrixLayout* layouts[] = {&plan.a, &plan.b, &plan.c, &plan.d};
  const char* names[] = {"A", "B", "C", "D"};
  for (int i = 0; i < 4; ++i) {
    const LtMatrixLayout& l = *layouts[i];
    s = lt_.MatrixLayoutCreate(&layouts_[i], l.type, l.rows, l.cols, l.ld);
    if (s != CUBLAS_STATUS_SUCCESS) {
      layouts_[i] = nullptr;
      return CublasError(absl::StrCat("cublasLtMatrixLayoutCreate(", names[i], ")"), s);
    }
  }
  return absl::OkStatus();
}

}  // namespace teplug::native
