#include "native/gemm/cublaslt_gemm_support.h"

#include "absl/strings/str_cat.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native {
namespace {

constexpr uint64_t kHighPrecision =
    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
constexpr uint64_t kFp8 = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E4M3) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP8_E5M2);

// A scaling mode and the first cuBLASLt version serving it on a generation.
struct ScalingSince {
  int32_t mode;
  size_t version;
};

struct GenerationRow {
  const char* generation;
  int32_t arch_min, arch_max;
  bool fp8;
  bool fp8_any_layout;
  ScalingSince scaling[3];  // unused entries have mode 0
};

// The table. fp8 matmul arrived with cuBLASLt 12.0 (Ada, Hopper); 1x128 and
// 128x128 block scaling on Hopper with 12.9; Blackwell's fp8 and MXFP8
// (VEC32_UE8M0 scales) with 12.8. fp8 takes any layout on the data-centre
// Blackwells (sm_100 to sm_119) and from sm_130, but only TN on sm_120/121,
// as TransformerEngine's nvte_is_non_tn_fp8_gemm_supported says.
constexpr GenerationRow kGenerations[] = {
    {"Ampere (sm_80)", 80, 88, false, false, {}},
    {"Ada (sm_89)", 89, 89, true, false, {{TEPLUG_SCALING_PER_TENSOR, 120000}}},
    {"Hopper (sm_90)",
     90,
     99,
     true,
     false,
     {{TEPLUG_SCALING_PER_TENSOR, 120000},
      {TEPLUG_SCALING_BLOCK_1D128, 120900},
      {TEPLUG_SCALING_BLOCK_2D128, 120900}}},
    {"Blackwell (sm_100)",
     100,
     119,
     true,
     true,
     {{TEPLUG_SCALING_PER_TENSOR, 120800}, {TEPLUG_SCALING_MXFP8_1D32, 120800}}},
    {"Blackwell (sm_120)",
     120,
     129,
     true,
     false,
     {{TEPLUG_SCALING_PER_TENSOR, 120800}, {TEPLUG_SCALING_MXFP8_1D32, 120800}}},
    {"sm_130 and later",
     130,
     0,
     true,
     true,
     {{TEPLUG_SCALING_PER_TENSOR, 120800}, {TEPLUG_SCALING_MXFP8_1D32, 120800}}},
};

GemmArchSupport SupportOf(const GenerationRow& row, size_t version) {
  GemmArchSupport s;
  s.generation = row.generation;
  s.arch_min = row.arch_min;
  s.arch_max = row.arch_max;
  for (const ScalingSince& m : row.scaling) {
    if (m.mode != 0 && version >= m.version) s.scaling_modes |= TEPLUG_SCALING_BIT(m.mode);
  }
  const bool fp8 = row.fp8 && s.scaling_modes != 0;
  s.input_dtypes = kHighPrecision | (fp8 ? kFp8 : 0);
  s.d_dtypes = kHighPrecision | (fp8 ? kFp8 : 0);
  s.fp8_any_layout = row.fp8_any_layout;
  return s;
}

const GenerationRow* RowFor(int32_t arch) {
  for (const GenerationRow& row : kGenerations) {
    if (arch >= row.arch_min && (row.arch_max == 0 || arch <= row.arch_max)) return &row;
  }
  return nullptr;
}

bool IsFp8(int32_t dtype) { return (TEPLUG_DTYPE_BIT(dtype) & kFp8) != 0; }

}  // namespace

std::optional<GemmArchSupport> GemmSupportForArch(int32_t arch, size_t cublaslt_version) {
  const GenerationRow* row = RowFor(arch);
  if (row == nullptr) return std::nullopt;
  return SupportOf(*row, cublaslt_version);
}

std::string WhyNotOnArch(const TeplugGemmArgs& args, const GemmArchSupport& s) {
  const struct {
    const TeplugTensor* t;
    const char* name;
    uint64_t served;
  } operands[] = {{args.a, "A", s.input_dtypes}, {args.b, "B", s.input_dtypes}, {args.d, "D", s.d_dtypes}};
  for (const auto& o : operands) {
    if (o.t != nullptr && (TEPLUG_DTYPE_BIT(o.t->dtype) & o.served) == 0) {
      return absl::StrCat("native gemm: ", o.name, " dtype ", o.t->dtype, " is not served on ", s.generation);
    }
  }
  const bool fp8 = args.a != nullptr && args.b != nullptr && IsFp8(args.a->dtype) && IsFp8(args.b->dtype);
  if (!fp8) return "";
  for (const auto& o : operands) {
    if (o.t == nullptr || o.t->quant == nullptr || o.t == args.d) continue;
    if ((TEPLUG_SCALING_BIT(o.t->quant->mode) & s.scaling_modes) == 0) {
      return absl::StrCat("native gemm: ", o.name, " scaling mode ", o.t->quant->mode,
                          " is not served by this cuBLASLt on ", s.generation);
    }
  }
  if (!s.fp8_any_layout && (args.trans_a || !args.trans_b)) {
    return absl::StrCat("native gemm: fp8 needs the TN form on ", s.generation, ": trans_a 0 and trans_b 1, got ",
                        args.trans_a, " and ", args.trans_b);
  }
  return "";
}

std::vector<NativeGemmCaps> GemmCapsForArchs(const std::vector<int32_t>& archs, size_t cublaslt_version) {
  std::vector<NativeGemmCaps> out;
  for (const GenerationRow& row : kGenerations) {
    bool present = false;
    for (int32_t arch : archs) present = present || RowFor(arch) == &row;
    if (!present) continue;
    NativeGemmCaps c;
    c.support = SupportOf(row, cublaslt_version);
    c.device = {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CUDA, TEPLUG_VENDOR_ANY, row.arch_min, row.arch_max};
    c.caps = sdk::Versioned<TeplugGemmCaps>();
    c.caps.num_devices = 1;
    c.caps.a_dtypes = c.support.input_dtypes;
    c.caps.b_dtypes = c.support.input_dtypes;
    c.caps.d_dtypes = c.support.d_dtypes;
    c.caps.epilogues =
        TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU | TEPLUG_GEMM_CAP_GELU_AUX | TEPLUG_GEMM_CAP_ACCUMULATE;
    c.caps.scaling_modes = c.support.scaling_modes;
    // cuBLASLt wants 16-byte aligned pointers and leading dimensions for its
    // fast kernels; it falls back to slower ones otherwise, so no bound here.
    c.caps.alignment = 0;
    c.caps.max_dim = 0;
    out.push_back(c);
  }
  return out;
}

}  // namespace teplug::native
