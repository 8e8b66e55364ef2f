// Where `teplug conformance` runs a numerics case, and the staging that moves
// a case's host tensors onto that device for the plugin's call: host memory
// (no staging) for the CPU, else memory allocated through the plugin's
// IDevice. A case builder lists the tensors of its args (each marked input or
// output); the staging allocates device memory for every one (and its
// quantization tensors) with the same size, copies the host contents in
// (outputs too, so accumulate and in-place semantics hold), points the
// tensors at the device copies, and after the call synchronises the stream,
// copies every output back and points the tensors at host memory again.
// Tensors whose host bytes overlap or touch (packed Q/K/V views of one
// buffer, C and D aliased) share one device block laid out as on the host, so
// the views keep their offsets and an output is copied back once, whole. The
// reference then runs on host memory as ever, and the outputs are compared
// on the host.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_STAGING_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_STAGING_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "teplug/sdk/device_context.hpp"
#include "teplug/types.h"

namespace teplug::cli {

// A device cases run on, opened by the command for the whole run.
struct CaseDevice {
  sdk::DeviceContext* ctx = nullptr;  // the plugin's IDevice, opened on `device`
  TeplugDevice device{};
  TeplugStream stream = nullptr;  // created through `ctx`; the ops' stream
  std::string spelling;           // "opencl:0": the --device value that picks it
};

// One tensor of a case's args: outputs are copied back after the call.
struct StagedTensor {
  TeplugTensor* tensor;
  bool is_output;
};

class DeviceStaging {
 public:
  // `where` null: host memory, every call below is a no-op (Workspace gives
  // host memory).
  explicit DeviceStaging(const CaseDevice* where) : where_(where) {}
  // Points the tensors back at host memory and frees the device memory
  // (when Finish did not run or failed).
  ~DeviceStaging();
  DeviceStaging(const DeviceStaging&) = delete;
  DeviceStaging& operator=(const DeviceStaging&) = delete;

  // Moves `tensors` (null entries skipped, repeats staged once) and their
  // quantization tensors (outputs when their tensor is) onto the device:
  // one call per op, with every tensor it touches. "" on success, else the
  // allocation or copy that failed, naming it.
  std::string Stage(const std::vector<StagedTensor>& tensors);
  // `bytes` of scratch where the op runs (NULL for 0 bytes), freed with the
  // staging; "" or what failed.
  std::string Workspace(size_t bytes, void** out);
  // The stream the op runs on (NULL on host memory).
  TeplugStream stream() const { return where_ == nullptr ? nullptr : where_->stream; }
  // Synchronises the stream, copies every output back to its host memory and
  // points every staged tensor at host memory again; "" or what failed.
  std::string Finish();

 private:
  // A tensor's host placement, kept to point it back there.
  struct Staged {
    void* host_data;
    const TeplugDevice* host_device;
    size_t bytes;
    bool is_output;
  };
  // Device memory mirroring the host bytes [host_begin, host_end).
  struct Block {
    uint8_t *host_begin, *host_end;
    void* device = nullptr;
    bool has_output = false;
  };
  // Adds `t` and its quantization tensors to staged_ (not yet moved).
  std::string Collect(TeplugTensor* t, bool is_output, const std::string& name);
  void Restore();

  const CaseDevice* where_;
  std::map<TeplugTensor*, Staged> staged_;
  std::vector<Block> blocks_;
  std::vector<void*> scratch_;
  std::vector<uint8_t> host_workspace_;
};

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_STAGING_H_
