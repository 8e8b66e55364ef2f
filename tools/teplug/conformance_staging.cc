#include "tools/teplug/conformance_staging.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/log/untrusted_text.h"
#include "tools/teplug/device_gemm.h"

namespace teplug::cli {
namespace {

std::string Failed(const std::string& what, const sdk::OwnedError& e) {
  return absl::StrCat(what, ": ", core::EscapeUntrustedText(e.message()));
}

// `handle` + `offset` bytes: device memory is addressed like host memory
// within one allocation (a tensor view's data may point inside a buffer).
void* Offset(void* handle, size_t offset) { return static_cast<uint8_t*>(handle) + offset; }

}  // namespace

DeviceStaging::~DeviceStaging() {
  Restore();
  if (where_ == nullptr) return;
  for (void* p : scratch_) where_->ctx->Deallocate(p);  // nothing to report to: the case is over
}

std::string DeviceStaging::Collect(TeplugTensor* t, bool is_output, const std::string& name) {
  if (auto it = staged_.find(t); it != staged_.end()) {
    it->second.is_output = it->second.is_output || is_output;
    return "";
  }
  const size_t bytes = TensorBytes(*t);
  if (bytes == 0 || t->data == nullptr)
    return absl::StrCat(name, ": dtype ", t->dtype,
                        " with no data or no whole-byte size cannot be staged on the device");
  staged_[t] = {t->data, t->device, bytes, is_output};
  if (t->quant == nullptr) return "";
  const TeplugQuantization* q = t->quant;
  const struct {
    const TeplugTensor* tensor;
    const char* field;
  } parts[] = {{q->scale, "scale"},
               {q->scale_inv, "scale_inv"},
               {q->amax, "amax"},
               {q->columnwise_data, "columnwise_data"},
               {q->columnwise_scale_inv, "columnwise_scale_inv"}};
  for (const auto& part : parts) {
    if (part.tensor == nullptr) continue;
    // The quantization tensors belong to the case's host tensors, which are
    // not const; the ABI only shows them through const pointers.
    if (std::string e = Collect(const_cast<TeplugTensor*>(part.tensor), is_output,
                                absl::StrCat(name, ".quant->", part.field));
        !e.empty())
      return e;
  }
  return "";
}

std::string DeviceStaging::Stage(const std::vector<StagedTensor>& tensors) {
  if (where_ == nullptr) return "";
  if (!blocks_.empty()) return "DeviceStaging::Stage: called twice; stage an op's tensors at once";
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].tensor == nullptr) continue;
    if (std::string e =
            Collect(tensors[i].tensor, tensors[i].is_output, absl::StrCat("tensor ", i));
        !e.empty())
      return e;
  }
  // Blocks: the union of overlapping (or touching: packed views stay adjacent)
  // host ranges, in address order.
  std::vector<Block> ranges;
  for (const auto& [t, s] : staged_) {
    auto* begin = static_cast<uint8_t*>(s.host_data);
    ranges.push_back({begin, begin + s.bytes, nullptr, s.is_output});
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Block& a, const Block& b) { return a.host_begin < b.host_begin; });
  for (const Block& r : ranges) {
    if (!blocks_.empty() && r.host_begin <= blocks_.back().host_end) {
      blocks_.back().host_end = std::max(blocks_.back().host_end, r.host_end);
      blocks_.back().has_output = blocks_.back().has_output || r.has_output;
    } else {
      blocks_.push_back(r);
    }
  }
  for (Block& b : blocks_) {
    const size_t bytes = static_cast<size_t>(b.host_end - b.host_begin);
    if (sdk::OwnedError e = where_->ctx->Allocate(bytes, 0, &b.device))
      return Failed(absl::StrCat("allocating ", bytes, " bytes on ", where_->spelling), e);
    scratch_.push_back(b.device);
    if (sdk::OwnedError e =
            where_->ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, b.device, b.host_begin, bytes))
      return Failed(absl::StrCat("copying ", bytes, " bytes to ", where_->spelling), e);
  }
  for (auto& [t, s] : staged_) {
    auto* host = static_cast<uint8_t*>(s.host_data);
    for (const Block& b : blocks_) {
      if (host < b.host_begin || host >= b.host_end) continue;
      t->data = Offset(b.device, static_cast<size_t>(host - b.host_begin));
      t->device = &where_->device;
    }
  }
  return "";
}

std::string DeviceStaging::Workspace(size_t bytes, void** out) {
  *out = nullptr;
  if (bytes == 0) return "";
  if (where_ == nullptr) {
    host_workspace_.assign(bytes, 0);
    *out = host_workspace_.data();
    return "";
  }
  if (sdk::OwnedError e = where_->ctx->Allocate(bytes, 0, out))
    return Failed(absl::StrCat("allocating ", bytes, " bytes of workspace on ", where_->spelling),
                  e);
  scratch_.push_back(*out);
  return "";
}

std::string DeviceStaging::Finish() {
  if (where_ == nullptr) return "";
  if (where_->stream != nullptr) {
    if (sdk::OwnedError e = where_->ctx->SynchronizeStream(where_->stream))
      return Failed(absl::StrCat("synchronising the stream of ", where_->spelling), e);
  }
  for (const Block& b : blocks_) {
    if (!b.has_output) continue;
    const size_t bytes = static_cast<size_t>(b.host_end - b.host_begin);
    if (sdk::OwnedError e =
            where_->ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, b.host_begin, b.device, bytes))
      return Failed(absl::StrCat("copying an output back from ", where_->spelling), e);
  }
  Restore();
  return "";
}

void DeviceStaging::Restore() {
  for (auto& [t, s] : staged_) {
    t->data = s.host_data;
    t->device = s.host_device;
  }
  staged_.clear();
  blocks_.clear();
}

}  // namespace teplug::cli
