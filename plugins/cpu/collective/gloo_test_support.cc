#include "plugins/cpu/collective/gloo_test_support.h"

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/kernel/kernel.h"
#include "gtest/gtest.h"
#include "plugins/reference/collective/reduction_oracle.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::cpu::collective::testing {
namespace {

std::string PluginPath() {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> r(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  if (r == nullptr) {
    ADD_FAILURE() << "no runfiles: " << error;
    return "";
  }
  return r->Rlocation("teplug/plugins/cpu/collective/libteplug_gloo_collective_test.so");
}

absl::StatusCode CodeOf(TeplugCode code) {
  switch (code) {
    case TEPLUG_INVALID_ARGUMENT:
      return absl::StatusCode::kInvalidArgument;
    case TEPLUG_UNSUPPORTED:
      return absl::StatusCode::kUnimplemented;
    case TEPLUG_UNAVAILABLE:
      return absl::StatusCode::kUnavailable;
    case TEPLUG_OUT_OF_MEMORY:
      return absl::StatusCode::kResourceExhausted;
    case TEPLUG_DEADLINE_EXCEEDED:
      return absl::StatusCode::kDeadlineExceeded;
    case TEPLUG_FAILED_PRECONDITION:
      return absl::StatusCode::kFailedPrecondition;
    case TEPLUG_NOT_FOUND:
      return absl::StatusCode::kNotFound;
    default:
      return absl::StatusCode::kInternal;
  }
}

}  // namespace

TeplugCollectiveV1* KernelCollective() {
  static TeplugCollectiveV1* const collective = [] {
    setenv("TEPLUG_GLOO_IFNAME", "lo", /*overwrite=*/1);
    core::KernelOptions options;
    options.use_environment = false;
    options.load_builtins = false;
    options.plugin_paths = {PluginPath()};
    options.config_text = "log_level: \"warn\"\n";
    options.config_source_name = "test.textproto";
    absl::StatusOr<std::unique_ptr<core::Kernel>> kernel = core::Kernel::Create(std::move(options));
    if (!kernel.ok()) {
      ADD_FAILURE() << kernel.status();
      return static_cast<TeplugCollectiveV1*>(nullptr);
    }
    // The dispatching object keeps the kernel's state alive; it lives as
    // long as the process.
    return (*kernel)->Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1).release();
  }();
  return collective;
}

std::string FreshFileBlob() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir =
      absl::StrCat(base != nullptr && *base != '\0' ? base : "/tmp", "/gloo-store-XXXXXX");
  if (mkdtemp(dir.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << dir << " failed";
  return "gloo-file:" + dir;
}

int32_t AbiDType(reference::collective::DataType type) {
  using reference::collective::DataType;
  switch (type) {
    case DataType::kFp32:
      return TEPLUG_DTYPE_FP32;
    case DataType::kFp16:
      return TEPLUG_DTYPE_FP16;
    case DataType::kBf16:
      return TEPLUG_DTYPE_BF16;
    case DataType::kInt8:
      return TEPLUG_DTYPE_INT8;
    case DataType::kInt32:
      return TEPLUG_DTYPE_INT32;
    case DataType::kInt64:
      return TEPLUG_DTYPE_INT64;
    case DataType::kUint8:
      return TEPLUG_DTYPE_UINT8;
    case DataType::kFp8E4M3:
      return TEPLUG_DTYPE_FP8_E4M3;
    case DataType::kFp8E5M2:
      return TEPLUG_DTYPE_FP8_E5M2;
    case DataType::kE8M0:
      return TEPLUG_DTYPE_E8M0;
    case DataType::kFp4E2M1:
      return TEPLUG_DTYPE_FP4_E2M1;
    default:
      return TEPLUG_DTYPE_INVALID;
  }
}

std::vector<reference::collective::DataType> AbiReducibleTypes() {
  std::vector<reference::collective::DataType> out;
  for (auto type : reference::collective::testing::kReducibleTypes) {
    if (AbiDType(type) != TEPLUG_DTYPE_INVALID) out.push_back(type);
  }
  return out;
}

TeplugTensor Vector(const void* data, int32_t dtype, size_t count) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = const_cast<void*>(data);
  t.dtype = dtype;
  t.rank = 1;
  t.shape[0] = static_cast<int64_t>(count);
  return t;
}

absl::Status StatusFrom(TeplugError* error) {
  sdk::OwnedError e(error);
  if (e.ok()) return absl::OkStatus();
  return absl::Status(CodeOf(e.code()), e.message());
}

Comm::Comm(int rank, int world, const TeplugRendezvous& rendezvous, int32_t num_hosts) {
  TeplugCollectiveV1* c = KernelCollective();
  if (c == nullptr) {
    status_ = absl::InternalError("the kernel serves no ICollective");
    return;
  }
  TeplugCommCreateArgs args = sdk::Versioned<TeplugCommCreateArgs>();
  args.rank = rank;
  args.world_size = world;
  args.rendezvous = &rendezvous;
  args.num_hosts = num_hosts;
  status_ = StatusFrom(c->vtbl->comm_create(c, &args, &comm_));
}

namespace {
TeplugRendezvous BlobRendezvous(const std::string& blob, int64_t timeout_ms) {
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.bootstrap = blob.data();
  rv.bootstrap_size = blob.size();
  rv.timeout_ms = timeout_ms;
  return rv;
}
}  // namespace

Comm::Comm(int rank, int world, const std::string& blob, int64_t timeout_ms)
    : Comm(rank, world, BlobRendezvous(blob, timeout_ms)) {}

Comm::~Comm() {
  absl::Status s = Destroy();
  if (!s.ok()) {
    std::fprintf(stderr, "comm_destroy failed: %s\n", s.ToString().c_str());
    std::abort();
  }
}

absl::Status Comm::Destroy() {
  if (comm_ == nullptr) return absl::OkStatus();
  TeplugCollectiveV1* c = KernelCollective();
  absl::Status s = StatusFrom(c->vtbl->comm_destroy(c, comm_));
  comm_ = nullptr;
  return s;
}

absl::Status Comm::Run(int32_t op, const TeplugTensor* send, TeplugTensor* recv, int32_t reduce_op,
                       const int64_t* counts, int32_t root, int32_t peer) {
  TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
  a.comm = comm_;
  a.send = send;
  a.recv = recv;
  a.counts = counts;
  a.reduce_op = reduce_op;
  a.root = root;
  a.peer = peer;
  TeplugCollectiveV1* c = KernelCollective();
  return StatusFrom(c->vtbl->run(c, op, &a));
}

absl::Status Comm::GroupStart() {
  TeplugCollectiveV1* c = KernelCollective();
  return StatusFrom(c->vtbl->group_start(c, comm_));
}

absl::Status Comm::GroupEnd() {
  TeplugCollectiveV1* c = KernelCollective();
  return StatusFrom(c->vtbl->group_end(c, comm_));
}

}  // namespace teplug::cpu::collective::testing

