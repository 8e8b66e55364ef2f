// A cuBLASLt in host memory for tests without a GPU: it keeps every
// descriptor, layout and preference it hands out with the attributes set on
// it, answers the heuristic with a scripted algorithm, records each call by
// name and each cublasLtMatmul with the objects it was given, and fails a
// named call with a chosen status on request.
//
// It also refuses what the real library refuses and a plan could get wrong
// (cublasLt.h and cuBLAS's type tables): an attribute set with another size
// than its declared type (INVALID_VALUE); at the heuristic and the matmul, an
// fp8 D whose C layout is not bf16 or fp16 or differs from the bias type, a
// bias type the inputs and D do not take, a GELU aux leading dimension that
// is not a multiple of 8 (NOT_SUPPORTED from the heuristic, INVALID_VALUE
// from the matmul); and a matmul workspace that is not 256-byte aligned
// (INVALID_VALUE). `last_refusal` says which rule.
#ifndef TEPLUG_NATIVE_GEMM_TESTING_FAKE_CUBLASLT_H_
#define TEPLUG_NATIVE_GEMM_TESTING_FAKE_CUBLASLT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "native/gemm/cublaslt_api.h"

namespace teplug::native::testing {

// One cublasLtMatmulDesc as the fake keeps it.
struct FakeMatmulDesc {
  cublasComputeType_t compute_type{};
  cudaDataType_t scale_type{};
  std::map<int, std::vector<uint8_t>> attributes;  // cublasLtMatmulDescAttributes_t -> value bytes
  bool destroyed = false;

  bool Has(cublasLtMatmulDescAttributes_t a) const { return attributes.count(a) != 0; }
  // The attribute's bytes as an integer of its size (int8/int32/int64/pointer).
  int64_t Int(cublasLtMatmulDescAttributes_t a) const;
};

struct FakeLayout {
  cudaDataType_t type{};
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  bool destroyed = false;
};

struct FakePreference {
  std::map<int, uint64_t> attributes;  // cublasLtMatmulPreferenceAttributes_t -> value
  bool destroyed = false;
};

// What one cublasLtMatmul received.
struct FakeMatmulCall {
  cublasLtHandle_t handle = nullptr;
  FakeMatmulDesc desc;
  FakeLayout a, b, c, d;
  const void *a_data = nullptr, *b_data = nullptr, *c_data = nullptr;
  void* d_data = nullptr;
  float alpha = 0, beta = 0;
  uint64_t algo_id = 0;  // algo.data[0] of the algorithm passed
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
};

class FakeCublasLt final : public CublasLtApi {
 public:
  FakeCublasLt() = default;
  ~FakeCublasLt() override = default;

  // ------------------------------------------------- scripting (before use)
  size_t version = 130100;
  // Calls by name (the method name, e.g. "MatmulAlgoGetHeuristic", or for
  // attribute setters "MatmulDescSetAttribute(<attr number>)") that fail with
  // the given status.
  std::map<std::string, cublasStatus_t> failures;
  // The heuristic's answer: found (one algorithm, state SUCCESS) or none.
  bool heuristic_finds_algorithm = true;
  size_t heuristic_workspace = 0;

  // ------------------------------------------------- what happened
  std::vector<std::string> Calls() const;
  int CountOf(const std::string& call) const;
  int heuristic_calls() const { return CountOf("MatmulAlgoGetHeuristic"); }
  std::vector<FakeMatmulCall> matmuls() const;
  // The rule the last refused call broke ("" when none was refused).
  std::string last_refusal() const;
  // The preference of the last heuristic call.
  FakePreference last_preference() const;
  // Objects created and not destroyed (descriptors, layouts, preferences, handles).
  int live_objects() const;

  // ------------------------------------------------- CublasLtApi
  size_t GetVersion() override;
  cublasStatus_t Create(cublasLtHandle_t* handle) override;
  cublasStatus_t Destroy(cublasLtHandle_t handle) override;
  cublasStatus_t MatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute_type,
                                  cudaDataType_t scale_type) override;
  cublasStatus_t MatmulDescDestroy(cublasLtMatmulDesc_t desc) override;
  cublasStatus_t MatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                        cublasLtMatmulDescAttributes_t attr, const void* buf,
                                        size_t size) override;
  cublasStatus_t MatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType_t type,
                                    uint64_t rows, uint64_t cols, int64_t ld) override;
  cublasStatus_t MatrixLayoutDestroy(cublasLtMatrixLayout_t layout) override;
  cublasStatus_t MatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) override;
  cublasStatus_t MatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) override;
  cublasStatus_t MatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                              cublasLtMatmulPreferenceAttributes_t attr,
                                              const void* buf, size_t size) override;
  cublasStatus_t MatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                        cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                        cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                        cublasLtMatmulPreference_t pref, int requested,
                                        cublasLtMatmulHeuristicResult_t results[],
                                        int* returned) override;
  cublasStatus_t Matmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha,
                        const void* a, cublasLtMatrixLayout_t a_layout, const void* b,
                        cublasLtMatrixLayout_t b_layout, const void* beta, const void* c,
                        cublasLtMatrixLayout_t c_layout, void* d, cublasLtMatrixLayout_t d_layout,
                        const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes,
                        cudaStream_t stream) override;

 private:
  // Records `call` and returns its scripted failure (or SUCCESS). mu_ held.
  cublasStatus_t Enter(const std::string& call);

  mutable std::mutex mu_;
  std::vector<std::string> calls_;
  // Objects are indexed by the number the fake writes into the opaque
  // struct's first word; the opaque structs themselves are owned here.
  std::vector<std::unique_ptr<cublasLtMatmulDescOpaque_t>> desc_storage_;
  std::vector<FakeMatmulDesc> descs_;
  std::vector<std::unique_ptr<cublasLtMatrixLayoutOpaque_t>> layout_storage_;
  std::vector<FakeLayout> layouts_;
  std::vector<std::unique_ptr<cublasLtMatmulPreferenceOpaque_t>> pref_storage_;
  std::vector<FakePreference> prefs_;
  int live_handles_ = 0;
  uint64_t next_algo_id_ = 1;
  FakePreference last_preference_;
  std::vector<FakeMatmulCall> matmuls_;
  std::string last_refusal_;
};

}  // namespace teplug::native::testing

#endif  // TEPLUG_NATIVE_GEMM_TESTING_FAKE_CUBLASLT_H_
