#include "tools/teplug/device_gemm.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace teplug::cli {
namespace {

size_t ElementBytes(int32_t dtype) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP32:
    case TEPLUG_DTYPE_INT32:
      return 4;
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16:
      return 2;
    case TEPLUG_DTYPE_FP8_E4M3:
    case TEPLUG_DTYPE_FP8_E5M2:
    case TEPLUG_DTYPE_E8M0:
    case TEPLUG_DTYPE_INT8:
    case TEPLUG_DTYPE_UINT8:
      return 1;
    case TEPLUG_DTYPE_INT64:
      return 8;
    default:
      return 0;
  }
}

absl::Status StatusOf(TeplugCode code, const std::string& message) {
  switch (code) {
    case TEPLUG_INVALID_ARGUMENT:
      return absl::InvalidArgumentError(message);
    case TEPLUG_UNSUPPORTED:
      return absl::UnimplementedError(message);
    case TEPLUG_UNAVAILABLE:
      return absl::UnavailableError(message);
    case TEPLUG_OUT_OF_MEMORY:
      return absl::ResourceExhaustedError(message);
    case TEPLUG_NOT_FOUND:
      return absl::NotFoundError(message);
    default:
      return absl::InternalError(message);
  }
}

// The device copies of one GEMM's tensors; frees them when it goes.
class DeviceMirror {
 public:
  DeviceMirror(sdk::DeviceContext& ctx, const TeplugDevice& device) : ctx_(ctx), device_(device) {}
  ~DeviceMirror() {
    for (void* p : allocations_) ctx_.Deallocate(p);  // errors here have nowhere to go
  }

  // The device view of host tensor `t` (NULL stays NULL), its contents
  // copied over when `copy_in`; its quantization tensors are mirrored too.
  absl::StatusOr<const TeplugTensor*> Mirror(const TeplugTensor* t, const std::string& name,
                                             bool copy_in) {
    if (t == nullptr) return nullptr;
    if (auto it = views_.find(t); it != views_.end()) return it->second.get();
    const size_t bytes = TensorBytes(*t);
    if (bytes == 0 || t->data == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": dtype ", t->dtype, " with no data or no whole-byte size cannot be copied"));
    }
    absl::StatusOr<void*> allocated = Scratch(bytes, name);
    if (!allocated.ok()) return allocated.status();
    void* p = *allocated;
    if (copy_in) {
      if (sdk::OwnedError e = ctx_.Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, t->data, bytes)) {
        return StatusOf(e.code(), absl::StrCat("copying ", name, " to the device: ", e.message()));
      }
    }
    auto view = std::make_unique<TeplugTensor>(*t);
    view->data = p;
    view->device = &device_;
    if (t->quant != nullptr) {
      auto q = std::make_unique<TeplugQuantization>(*t->quant);
      const struct {
        const TeplugTensor* TeplugQuantization::*member;
        const char* field;
      } members[] = {{&TeplugQuantization::scale, "scale"},
                     {&TeplugQuantization::scale_inv, "scale_inv"},
                     {&TeplugQuantization::amax, "amax"},
                     {&TeplugQuantization::columnwise_data, "columnwise_data"},
                     {&TeplugQuantization::columnwise_scale_inv, "columnwise_scale_inv"}};
      for (const auto& m : members) {
        absl::StatusOr<const TeplugTensor*> mirrored =
            Mirror(t->quant->*m.member, absl::StrCat(name, ".quant->", m.field), true);
        if (!mirrored.ok()) return mirrored.status();
        q.get()->*m.member = *mirrored;
      }
      view->quant = q.get();
      quants_.push_back(std::move(q));
    }
    const TeplugTensor* out = view.get();
    views_.emplace(t, std::move(view));
    return out;
  }

  // `bytes` of uninitialised device memory, freed with the mirror.
  absl::StatusOr<void*> Scratch(size_t bytes, const std::string& name) {
    void* p = nullptr;
    if (sdk::OwnedError e = ctx_.Allocate(bytes, 256, &p)) {
      return StatusOf(e.code(),
                      absl::StrCat("allocating ", bytes, " bytes for ", name, ": ", e.message()));
    }
    allocations_.push_back(p);
    return p;
  }

  // Copies the device copy of host tensor `t` back into it (when mirrored).
  absl::Status CopyBack(const TeplugTensor* t, const std::string& name) {
    if (t == nullptr) return absl::OkStatus();
    auto it = views_.find(t);
    if (it == views_.end()) return absl::OkStatus();
    if (sdk::OwnedError e =
            ctx_.Copy(TEPLUG_COPY_DEVICE_TO_HOST, t->data, it->second->data, TensorBytes(*t))) {
      return StatusOf(e.code(),
                      absl::StrCat("copying ", name, " back from the device: ", e.message()));
    }
    return absl::OkStatus();
  }

 private:
  sdk::DeviceContext& ctx_;
  const TeplugDevice& device_;
  std::vector<void*> allocations_;
  std::map<const TeplugTensor*, std::unique_ptr<TeplugTensor>> views_;
  std::vector<std::unique_ptr<TeplugQuantization>> quants_;
};

}  // namespace

size_t TensorBytes(const TeplugTensor& t) {
  // fp4_e2m1 packs two elements per byte (teplug/types.h).
  const bool packed_fp4 = t.dtype == TEPLUG_DTYPE_FP4_E2M1;
  const size_t element = packed_fp4 ? 1 : ElementBytes(t.dtype);
  if (element == 0) return 0;
  bool explicit_strides = false;
  for (int i = 0; i < t.rank; ++i) explicit_strides = explicit_strides || t.strides[i] != 0;
  size_t span = 1;  // elements from the first to one past the last
  for (int i = 0; i < t.rank; ++i) {
    if (t.shape[i] == 0) return 0;
    if (explicit_strides) {
      span += static_cast<size_t>(t.shape[i] - 1) * static_cast<size_t>(t.strides[i]);
    } else {
      span *= static_cast<size_t>(t.shape[i]);
    }
  }
  return packed_fp4 ? (span + 1) / 2 : span * element;
}

absl::Status RunGemmOnDevice(TeplugGemmV1* gemm, sdk::DeviceContext& ctx,
                             const TeplugDevice& device, const TeplugGemmArgs& host_args) {
  DeviceMirror mirror(ctx, device);
  TeplugGemmArgs args = host_args;
  struct Operand {
    const TeplugTensor* host;
    const char* name;
    bool copy_in;
    const TeplugTensor** into;
  };
  const TeplugTensor* d = nullptr;
  const TeplugTensor* aux = nullptr;
  const Operand operands[] = {
      {host_args.a, "A", true, &args.a},
      {host_args.b, "B", true, &args.b},
      {host_args.accumulate ? nullptr : host_args.c, "C", true, &args.c},
      {host_args.d, "D", host_args.accumulate != 0 || host_args.c == host_args.d, &d},
      {host_args.bias, "bias", true, &args.bias},
      {host_args.pre_gelu_out, "pre_gelu_out", false, &aux},
  };
  for (const Operand& o : operands) {
    absl::StatusOr<const TeplugTensor*> view = mirror.Mirror(o.host, o.name, o.copy_in);
    if (!view.ok()) return view.status();
    *o.into = *view;
  }
  args.d = const_cast<TeplugTensor*>(d);  // the mirror's own copy
  args.pre_gelu_out = const_cast<TeplugTensor*>(aux);
  args.workspace = nullptr;
  args.workspace_size = 0;
  args.stream = nullptr;
  size_t workspace_bytes = 0;
  if (sdk::OwnedError e(gemm->vtbl->workspace_size(gemm, &args, &workspace_bytes)); e) {
    return StatusOf(e.code(), e.message());
  }
  if (workspace_bytes > 0) {
    absl::StatusOr<void*> space = mirror.Scratch(workspace_bytes, "the workspace");
    if (!space.ok()) return space.status();
    args.workspace = *space;
    args.workspace_size = workspace_bytes;
  }
  if (sdk::OwnedError e(gemm->vtbl->gemm(gemm, &args)); e) return StatusOf(e.code(), e.message());
  for (const TeplugTensor* out : {static_cast<const TeplugTensor*>(host_args.d),
                                  static_cast<const TeplugTensor*>(host_args.pre_gelu_out)}) {
    const absl::Status s = mirror.CopyBack(out, out == host_args.d ? "D" : "pre_gelu_out");
    if (!s.ok()) return s;
  }
  if (host_args.d->quant != nullptr) {
    for (const TeplugTensor* q : {host_args.d->quant->amax, host_args.d->quant->scale_inv}) {
      if (absl::Status s = mirror.CopyBack(q, "D.quant"); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace teplug::cli
