#include "native/collective/nccl_library.h"

#include <dlfcn.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "native/device/library_loader.h"

namespace teplug::native::collective {
namespace {

// The NCCL functions NcclApi forwards to: X(name) for each.
#define TEPLUG_NCCL_FUNCTIONS(X) \
  X(ncclGetVersion)              \
  X(ncclGetUniqueId)             \
  X(ncclCommInitRankConfig)      \
  X(ncclCommGetAsyncError)       \
  X(ncclCommFinalize)            \
  X(ncclCommDestroy)             \
  X(ncclCommAbort)               \
  X(ncclGetErrorString)          \
  X(ncclGetLastError)            \
  X(ncclAllReduce)               \
  X(ncclAllGather)               \
  X(ncclReduceScatter)           \
  X(ncclBroadcast)               \
  X(ncclReduce)                  \
  X(ncclSend)                    \
  X(ncclRecv)                    \
  X(ncclGroupStart)              \
  X(ncclGroupEnd)

// One pointer per function, typed by the header's declaration.
struct Functions {
#define TEPLUG_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
  TEPLUG_NCCL_FUNCTIONS(TEPLUG_DECLARE_POINTER)
#undef TEPLUG_DECLARE_POINTER
};

class LoadedNccl final : public NcclApi {
 public:
  LoadedNccl(void* library, const Functions& f) : library_(library), f_(f) {}
  ~LoadedNccl() override { dlclose(library_); }

  ncclResult_t GetVersion(int* v) override { return f_.ncclGetVersion(v); }
  ncclResult_t GetUniqueId(ncclUniqueId* id) override { return f_.ncclGetUniqueId(id); }
  ncclResult_t CommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                  ncclConfig_t* config) override {
    return f_.ncclCommInitRankConfig(comm, nranks, id, rank, config);
  }
  ncclResult_t CommGetAsyncError(ncclComm_t comm, ncclResult_t* e) override {
    return f_.ncclCommGetAsyncError(comm, e);
  }
  ncclResult_t CommFinalize(ncclComm_t comm) override { return f_.ncclCommFinalize(comm); }
  ncclResult_t CommDestroy(ncclComm_t comm) override { return f_.ncclCommDestroy(comm); }
  ncclResult_t CommAbort(ncclComm_t comm) override { return f_.ncclCommAbort(comm); }
  const char* GetErrorString(ncclResult_t r) override { return f_.ncclGetErrorString(r); }
  const char* GetLastError(ncclComm_t comm) override { return f_.ncclGetLastError(comm); }
  ncclResult_t AllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op,
                         ncclComm_t c, cudaStream_t st) override {
    return f_.ncclAllReduce(s, r, n, t, op, c, st);
  }
  ncclResult_t AllGather(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t c,
                         cudaStream_t st) override {
    return f_.ncclAllGather(s, r, n, t, c, st);
  }
  ncclResult_t ReduceScatter(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op,
                             ncclComm_t c, cudaStream_t st) override {
    return f_.ncclReduceScatter(s, r, n, t, op, c, st);
  }
  ncclResult_t Broadcast(const void* s, void* r, size_t n, ncclDataType_t t, int root,
                         ncclComm_t c, cudaStream_t st) override {
    return f_.ncclBroadcast(s, r, n, t, root, c, st);
  }
  ncclResult_t Reduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, int root,
                      ncclComm_t c, cudaStream_t st) override {
    return f_.ncclReduce(s, r, n, t, op, root, c, st);
  }
  ncclResult_t Send(const void* s, size_t n, ncclDataType_t t, int peer, ncclComm_t c,
                    cudaStream_t st) override {
    return f_.ncclSend(s, n, t, peer, c, st);
  }
  ncclResult_t Recv(void* r, size_t n, ncclDataType_t t, int peer, ncclComm_t c,
                    cudaStream_t st) override {
    return f_.ncclRecv(r, n, t, peer, c, st);
  }
  ncclResult_t GroupStart() override { return f_.ncclGroupStart(); }
  ncclResult_t GroupEnd() override { return f_.ncclGroupEnd(); }

 private:
  void* library_;
  Functions f_;
};

}  // namespace

std::vector<std::string> NcclCandidatePaths() {
  return CudaLibraryPaths(absl::StrCat("libnccl.so.", NCCL_MAJOR));
}

absl::StatusOr<std::unique_ptr<NcclApi>> LoadNccl(const std::vector<std::string>& paths) {
  absl::StatusOr<OpenedLibrary> opened = OpenFirstLibrary(paths, RTLD_LOCAL, "NCCL");
  if (!opened.ok()) return opened.status();
  void* library = opened->handle;
  Functions f;
  std::string missing;
#define TEPLUG_RESOLVE(name) ResolveSymbol(library, #name, &f.name, &missing);
  TEPLUG_NCCL_FUNCTIONS(TEPLUG_RESOLVE)
#undef TEPLUG_RESOLVE
  if (!missing.empty()) {
    dlclose(library);
    return absl::NotFoundError(
        absl::StrCat("NCCL lacks a function the collective calls: ", missing));
  }
  return std::unique_ptr<NcclApi>(new LoadedNccl(library, f));
}

}  // namespace teplug::native::collective
