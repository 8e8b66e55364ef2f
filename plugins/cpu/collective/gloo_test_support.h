// Test support: the Gloo ICollective reached through teplug's kernel (the
// test-only plugin loaded into an isolated kernel), fresh file-store
// rendezvous blobs, ABI tensors and a communicator that is destroyed when it
// goes out of scope. Failures come back as absl::Status with the ABI's code
// mapped, so rank bodies can return them to the launcher.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_TEST_SUPPORT_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_TEST_SUPPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/reference/collective/data_type.h"
#include "teplug/collective.h"

namespace teplug::cpu::collective::testing {

// ICollective v1 of the kernel (loaded once per process, with only the
// test plugin; the loopback interface for Gloo's TCP device).
TeplugCollectiveV1* KernelCollective();

// "gloo-file:<fresh empty directory in $TEST_TMPDIR>".
std::string FreshFileBlob();

// The ABI dtype of a reference collective type (the oracle's); fp64, which
// the ABI lacks, is TEPLUG_DTYPE_INVALID.
int32_t AbiDType(reference::collective::DataType type);

// Every reducible type the ABI has (the oracle's list without fp64).
std::vector<reference::collective::DataType> AbiReducibleTypes();

// A 1-D contiguous host tensor over `data`.
TeplugTensor Vector(const void* data, int32_t dtype, size_t count);

// An owned error as a Status with the matching code and its message.
absl::Status StatusFrom(TeplugError* error);

// A communicator of KernelCollective(), destroyed with this object.
class Comm {
 public:
  // Joins through `rendezvous`, with `num_hosts` (0: the kernel counts
  // them); check status() before use.
  Comm(int rank, int world, const TeplugRendezvous& rendezvous, int32_t num_hosts = 0);
  // Joins through the bootstrap blob with `timeout_ms`.
  Comm(int rank, int world, const std::string& blob, int64_t timeout_ms = 30000);
  // Destroys a live communicator; a failing comm_destroy aborts the process
  // (call Destroy() to see its status instead).
  ~Comm();
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  const absl::Status& status() const { return status_; }
  TeplugCommunicator* get() const { return comm_; }

  // One op with the given buffers (either may be NULL).
  absl::Status Run(int32_t op, const TeplugTensor* send, TeplugTensor* recv,
                   int32_t reduce_op = TEPLUG_REDUCE_SUM, const int64_t* counts = nullptr,
                   int32_t root = 0, int32_t peer = 0);
  absl::Status GroupStart();
  absl::Status GroupEnd();
  // comm_destroy; the communicator is gone afterwards whatever it returns.
  absl::Status Destroy();

 private:
  absl::Status status_;
  TeplugCommunicator* comm_ = nullptr;
};

}  // namespace teplug::cpu::collective::testing

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_TEST_SUPPORT_H_
