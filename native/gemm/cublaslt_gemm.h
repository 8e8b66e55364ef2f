// IGemm v1 on cuBLASLt: the GEMM of PlanCublasLtGemm run with
// cublasLtMatmul on args.stream, on the GPU of D's device.
//
//  - supports() answers from, in order: the args (the plan's refusals, and
//    every tensor on D's CUDA device), the GPU (the CUDA runtime's reason
//    when there is none; asked before the library, so a machine without a
//    GPU never loads cuBLASLt), libcublasLt (loaded on first use; a missing
//    library is the reason, in dlopen's words), the per-generation table of
//    cublaslt_gemm_support.h for the GPU's arch and the loaded library's
//    version, and finally
//    cuBLASLt's heuristic: a signature it finds no algorithm for is refused
//    with its words.
//  - The heuristic is asked once per op signature (MakeAlgorithmKey: the plan,
//    the GPU, the pointers' alignment classes, the workspace limit) and its
//    first algorithm kept in a bounded AlgorithmCache; workspace_size() and
//    gemm() use that same algorithm.
//  - Workspace: the heuristic may choose algorithms needing up to
//    kMaxGemmWorkspace bytes; workspace_size() reports what the chosen one
//    needs (often 0) plus, for MXFP8 and block-scaled operands, their scale
//    copies in cuBLASLt's layout, plus 255 bytes when that is not 0 (the
//    GEMM starts at the workspace's first 256-byte boundary, as cuBLASLt
//    needs), and gemm() refuses a smaller workspace with INVALID_ARGUMENT.
//  - fp8: A's and B's per-tensor scale_inv (device pointers) are cuBLASLt's
//    B and A scale pointers; an fp8 D gets D's quant->scale as the D scale
//    and quant->amax as the amax output, and a kernel writes 1/scale into
//    its quant->scale_inv after the matmul.
//  - MXFP8 (sm_100 and later), 1x128 and 128x128 blocks (Hopper): each
//    operand's scale grid is copied by a kernel into the layout cuBLASLt
//    reads (mx_scale_layout.h, block_scale_layout.h) at the front of the
//    workspace, on args.stream, and that copy is the scale pointer.
//  - Failures: a cuBLASLt call's status by name and meaning, naming the call
//    (cublaslt_status.h); UNAVAILABLE without the library or a GPU.
#ifndef TEPLUG_NATIVE_GEMM_CUBLASLT_GEMM_H_
#define TEPLUG_NATIVE_GEMM_CUBLASLT_GEMM_H_

#include <cstddef>
#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "native/device/cuda_runtime_api.h"
#include "native/gemm/cublaslt_api.h"
#include "native/gemm/scale_layout_launch.h"
#include "teplug/sdk/implement.hpp"

namespace teplug::native {

// The most workspace the heuristic may choose algorithms for: 32 MiB, what
// cuBLAS itself reserves on Hopper and Blackwell.
inline constexpr size_t kMaxGemmWorkspace = size_t{32} << 20;

// Op signatures whose algorithm is kept.
inline constexpr size_t kGemmAlgorithmCacheCapacity = 1024;

// Returns the cuBLASLt to use; called once, on the first GEMM question.
using CublasLtLoader = std::function<absl::StatusOr<std::unique_ptr<CublasLtApi>>()>;

struct CublasLtGemmOptions {
  size_t max_workspace = kMaxGemmWorkspace;
  size_t cache_capacity = kGemmAlgorithmCacheCapacity;
};

// `runtime` and `kernels` must outlive the object: RealCudaRuntime() and
// RealScaleLayoutKernels() in the provider, fakes in tests. Thread-safe.
std::unique_ptr<sdk::GemmImpl> NewCublasLtGemm(CublasLtLoader loader, CudaRuntimeApi& runtime,
                                               ScaleLayoutKernels& kernels,
                                               CublasLtGemmOptions options = {});

// The loader of the real library: LoadCublasLt(CublasLtCandidatePaths()).
CublasLtLoader RealCublasLtLoader();

// The IGemm capability descriptor: CUDA devices of every arch (the arch is
// checked by supports(), so a request that names no arch, like the CLI's
// --device cuda, reaches the reason native cannot serve), the dtypes and
// epilogues of the table's generations for the cuBLASLt these headers
// declare, every scaling mode. Static storage.
const TeplugGemmCaps* CublasLtGemmCaps();

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_CUBLASLT_GEMM_H_
