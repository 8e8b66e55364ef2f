#include "tools/teplug/conformance_staging.h"

#include "absl/strings/str_cat.h"
#include "core/log/untrusted_text.h"
#include "tools/teplug/device_gemm.h"

namespace teplug::cli {
namespace {

std::string Failed(const std::string& what, const sdk::OwnedError& e) {
  return absl::StrCat(what, ": ", core::EscapeUntrustedText(e.message()));
}

}  // namespace

DeviceStaging::~DeviceStaging() {
  Restore();
  if (where_ == nullptr) return;
  for (void* p : scratch_) where_->ctx->Deallocate(p);  // nothing to report to: the case is over
}

std::string DeviceStaging::Stage(const std::vector<StagedTensor>& tensors) {
  if (where_ == nullptr) return "";
  int index = 0;
  for (const StagedTensor& s : tensors) {
    ++index;
    if (s.tensor == nullptr) continue;
    if (std::string e = StageOne(s.tensor, s.is_output, absl::StrCat("tensor ", index - 1));
        !e.empty())
      return e;
  }
  return "";
}

std::string DeviceStaging::StageOne(TeplugTensor* t, bool is_output, const std::string& name) {
  if (staged_.count(t) != 0) {
    staged_[t].is_output = staged_[t].is_output || is_output;
    return "";
  }
  const size_t bytes = TensorBytes(*t);
  if (bytes == 0 || t->data == nullptr)
    return absl::StrCat(name, ": dtype ", t->dtype,
                        " with no data or no whole-byte size cannot be staged on the device");
  void* p = nullptr;
  if (sdk::OwnedError e = where_->ctx->Allocate(bytes, 0, &p))
    return Failed(absl::StrCat("allocating ", bytes, " bytes on ", where_->spelling, " for ", name),
                  e);
  scratch_.push_back(p);
  if (sdk::OwnedError e = where_->ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, t->data, bytes))
    return Failed(absl::StrCat("copying ", name, " to ", where_->spelling), e);
  staged_[t] = {t->data, t->device, p, bytes, is_output};
  order_.push_back(t);
  t->data = p;
  t->device = &where_->device;
  if (t->quant == nullptr) return "";
  // The quantization tensors belong to the case's host tensors, which are
  // not const; the ABI only shows them through const pointers.
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
    if (std::string e = StageOne(const_cast<TeplugTensor*>(part.tensor), is_output,
                                 absl::StrCat(name, ".quant->", part.field));
        !e.empty())
      return e;
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
  for (TeplugTensor* t : order_) {
    const Staged& s = staged_[t];
    if (!s.is_output) continue;
    if (sdk::OwnedError e =
            where_->ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, s.host_data, s.device_data, s.bytes))
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
  order_.clear();
}

}  // namespace teplug::cli
