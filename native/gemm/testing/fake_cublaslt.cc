#include "native/gemm/testing/fake_cublaslt.h"

#include <cstring>
#include <utility>

namespace teplug::native::testing {
namespace {

template <class Opaque>
size_t IndexOf(const Opaque* o) {
  return static_cast<size_t>(o->data[0]);
}

// Stores `record` and hands out a new opaque object naming it.
template <class Opaque, class Record>
Opaque* Keep(std::vector<std::unique_ptr<Opaque>>* storage, std::vector<Record>* records,
             Record record) {
  storage->push_back(std::make_unique<Opaque>());
  storage->back()->data[0] = records->size();
  records->push_back(std::move(record));
  return storage->back().get();
}

// The size of each attribute's declared type in cublasLt.h.
size_t DeclaredSize(int attr) {
  switch (attr) {
    case CUBLASLT_MATMUL_DESC_FAST_ACCUM:
      return sizeof(int8_t);
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD:
      return sizeof(int64_t);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
    case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER:
    case CUBLASLT_MATMUL_DESC_A_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_B_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_D_SCALE_POINTER:
    case CUBLASLT_MATMUL_DESC_AMAX_D_POINTER:
      return sizeof(void*);
    default:  // the transposes, the epilogue, data types and scale modes
      return sizeof(int32_t);
  }
}

bool IsFp8Type(cudaDataType_t t) { return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2; }

// The type rule of cuBLASLt's that this matmul breaks, or "".
std::string BrokenTypeRule(const FakeMatmulDesc& desc, const FakeLayout& a, const FakeLayout& b,
                           const FakeLayout& c, const FakeLayout& d) {
  const bool fp8_inputs = IsFp8Type(a.type) && IsFp8Type(b.type);
  if (fp8_inputs && IsFp8Type(d.type) && c.type != CUDA_R_16BF && c.type != CUDA_R_16F) {
    return "an fp8 D needs a bf16 or fp16 C layout";
  }
  if (!fp8_inputs && c.type != d.type) return "C's type differs from D's";
  if (desc.Has(CUBLASLT_MATMUL_DESC_BIAS_POINTER)) {
    const auto bias =
        static_cast<cudaDataType_t>(desc.Has(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE)
                                        ? desc.Int(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE)
                                        : d.type);
    bool served = bias == d.type;
    if (fp8_inputs && d.type == CUDA_R_32F) served = bias == CUDA_R_16BF;
    if (fp8_inputs && IsFp8Type(d.type)) served = bias == c.type;
    if (!served) return "the bias type is not one these inputs and D take";
  }
  if (desc.Has(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER) &&
      desc.Int(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD) % 8 != 0) {
    return "the GELU aux leading dimension is not a multiple of 8";
  }
  return "";
}

}  // namespace

int64_t FakeMatmulDesc::Int(cublasLtMatmulDescAttributes_t a) const {
  auto it = attributes.find(a);
  if (it == attributes.end()) return -1;
  const std::vector<uint8_t>& v = it->second;
  switch (v.size()) {
    case 1:
      return static_cast<int8_t>(v[0]);
    case 4: {
      int32_t x;
      std::memcpy(&x, v.data(), 4);
      return x;
    }
    case 8: {
      int64_t x;
      std::memcpy(&x, v.data(), 8);
      return x;
    }
    default:
      return -2;
  }
}

std::vector<std::string> FakeCublasLt::Calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_;
}

int FakeCublasLt::CountOf(const std::string& call) const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const std::string& c : calls_) n += c == call;
  return n;
}

std::vector<FakeMatmulCall> FakeCublasLt::matmuls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return matmuls_;
}

std::string FakeCublasLt::last_refusal() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_refusal_;
}

FakePreference FakeCublasLt::last_preference() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_preference_;
}

int FakeCublasLt::live_objects() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = live_handles_;
  for (const auto& d : descs_) n += !d.destroyed;
  for (const auto& l : layouts_) n += !l.destroyed;
  for (const auto& p : prefs_) n += !p.destroyed;
  return n;
}

cublasStatus_t FakeCublasLt::Enter(const std::string& call) {
  calls_.push_back(call);
  auto it = failures.find(call);
  return it == failures.end() ? CUBLAS_STATUS_SUCCESS : it->second;
}

size_t FakeCublasLt::GetVersion() {
  std::lock_guard<std::mutex> lock(mu_);
  calls_.push_back("GetVersion");
  return version;
}

cublasStatus_t FakeCublasLt::Create(cublasLtHandle_t* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cublasStatus_t s = Enter("Create"); s != CUBLAS_STATUS_SUCCESS) return s;
  ++live_handles_;
  *handle = reinterpret_cast<cublasLtHandle_t>(static_cast<uintptr_t>(0x1000 + live_handles_));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t FakeCublasLt::Destroy(cublasLtHandle_t) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cublasStatus_t s = Enter("Destroy"); s != CUBLAS_STATUS_SUCCESS) return s;
  --live_handles_;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t FakeCublasLt::MatmulDescCreate(cublasLtMatmulDesc_t* desc,
                                              cublasComputeType_t compute_type,
                                              cudaDataType_t scale_type) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cublasStatus_t s = Enter("MatmulDescCreate"); s != CUBLAS_STATUS_SUCCESS) return s;
  FakeMatmulDesc d;
  d.compute_type = compute_type;
  d.scale_type = scale_type;
  *desc = Keep(&desc_storage_, &descs_, std::move(d));
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t FakeCublasLt::MatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  std::lock_guard<std::mutex> lock(mu_);
  descs_[IndexOf(desc)].destroyed = true;
  return Enter("MatmulDescDestroy");
}

cublasStatus_t FakeCublasLt::MatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                                    cublasLtMatmulDescAttributes_t attr,
                                                    const void* buf, size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cublasStatus_t s = Enter("MatmulDescSetAttribute(" + std::to_string(attr) + ")");
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  if (size != DeclaredSize(attr)) {
    last_refusal_ = "attribute " + std::to_string(attr) + " set with " + std::to_string(size) +
                    " bytes, declared " + std::to_string(DeclaredSize(attr));
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  const auto* bytes = static_cast<const uint8_t*>(buf);
  descs_[IndexOf(desc)].attributes[attr] = std::vector<uint8_t>(bytes, bytes + size);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t FakeCublasLt::MatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType_t type,
                                                uint64_t rows, uint64_t cols, int64_t ld) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cublasStatus_t s = Enter("MatrixLayoutCreate"); s != CUBLAS_STATUS_SUCCESS) return s;
  *layout = Keep(&layout_storage_, &layouts_, FakeLayout{type, rows, cols, ld, false});
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t FakeCublasLt::MatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  std::lock_guard<std::mutex> lock(mu_);
  layouts_[IndexOf(layout)].destroyed = true;
  return Enter("MatrixLayoutDestroy");
}

cublasStatus_t FakeCublasLt::MatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cublasStatus_t s = Enter("MatmulPreferenceCreate"); s != CUBLAS_STATUS_SUCCESS) return s;
  *pref = Keep(&pref_storage_, &prefs_, FakePreference{});
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t FakeCublasLt::MatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  std::lock_guard<std::mutex> lock(mu_);
  prefs_[IndexOf(pref)].destroyed = true;
  return Enter("MatmulPreferenceDestroy");
}

cublasStatus_t FakeCublasLt::MatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                          cublasLtMatmulPreferenceAttributes_t attr,
                                                          const void* buf, size_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cublasStatus_t s = Enter("MatmulPreferenceSetAttribute(" + std::to_string(attr) + ")");
      s != CUBLAS_STATUS_SUCCESS) {
    return s;
  }
  uint64_t v = 0;
  std::memcpy(&v, buf, size < sizeof(v) ? size : sizeof(v));
  prefs_[IndexOf(pref)].attributes[attr] = v;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t FakeCublasLt::MatmulAlgoGetHeuristic(
    cublasLtHandle_t, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
    cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t pref,
    int requested, cublasLtMatmulHeuristicResult_t results[], int* returned) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cublasStatus_t s = Enter("MatmulAlgoGetHeuristic"); s != CUBLAS_STATUS_SUCCESS) return s;
  last_preference_ = prefs_[IndexOf(pref)];
  *returned = 0;
  last_refusal_ = BrokenTypeRule(descs_[IndexOf(desc)], layouts_[IndexOf(a)], layouts_[IndexOf(b)],
                                 layouts_[IndexOf(c)], layouts_[IndexOf(d)]);
  if (!last_refusal_.empty()) return CUBLAS_STATUS_NOT_SUPPORTED;
  if (!heuristic_finds_algorithm || requested < 1) return CUBLAS_STATUS_SUCCESS;
  results[0] = cublasLtMatmulHeuristicResult_t{};
  results[0].algo.data[0] = next_algo_id_++;
  results[0].workspaceSize = heuristic_workspace;
  results[0].state = CUBLAS_STATUS_SUCCESS;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t FakeCublasLt::Matmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                    const void* alpha, const void* a,
                                    cublasLtMatrixLayout_t a_layout, const void* b,
                                    cublasLtMatrixLayout_t b_layout, const void* beta,
                                    const void* c, cublasLtMatrixLayout_t c_layout, void* d,
                                    cublasLtMatrixLayout_t d_layout,
                                    const cublasLtMatmulAlgo_t* algo, void* workspace,
                                    size_t workspace_bytes, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cublasStatus_t s = Enter("Matmul"); s != CUBLAS_STATUS_SUCCESS) return s;
  FakeMatmulCall call;
  call.handle = handle;
  call.desc = descs_[IndexOf(desc)];
  call.a = layouts_[IndexOf(a_layout)];
  call.b = layouts_[IndexOf(b_layout)];
  call.c = layouts_[IndexOf(c_layout)];
  call.d = layouts_[IndexOf(d_layout)];
  call.a_data = a;
  call.b_data = b;
  call.c_data = c;
  call.d_data = d;
  call.alpha = *static_cast<const float*>(alpha);
  call.beta = *static_cast<const float*>(beta);
  call.algo_id = algo == nullptr ? 0 : algo->data[0];
  call.workspace = workspace;
  call.workspace_bytes = workspace_bytes;
  call.stream = stream;
  last_refusal_ = BrokenTypeRule(call.desc, call.a, call.b, call.c, call.d);
  if (last_refusal_.empty() && workspace_bytes > 0 &&
      reinterpret_cast<uintptr_t>(workspace) % 256 != 0) {
    last_refusal_ = "the workspace is not 256-byte aligned";
  }
  if (!last_refusal_.empty()) return CUBLAS_STATUS_INVALID_VALUE;
  matmuls_.push_back(call);
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace teplug::native::testing
