#include "native/device/cuda_device.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "native/device/context_resources.h"
#include "native/device/current_device_scope.h"
#include "native/device/device_description.h"

namespace teplug::native {
namespace {

// cudaMalloc returns addresses aligned to at least this many bytes.
constexpr size_t kCudaMallocAlignment = 256;

// An opened GPU.
struct Context {
  static constexpr uint64_t kMagic = 0x6e61742d64657631ull;  // "nat-dev1"
  uint64_t magic = kMagic;
  int ordinal = 0;
  std::mutex mu;
  ContextResources resources;  // guarded by mu
};

// What the runtime said when first asked: the GPUs, or why there are none.
struct Probe {
  std::vector<CudaDeviceFacts> devices;
  std::string no_device_reason;  // set when devices is empty
};

class CudaDevice final : public sdk::DeviceImpl {
 public:
  explicit CudaDevice(CudaRuntimeApi& runtime) : runtime_(runtime) {}

  bool SupportsOpen(const TeplugDeviceOpenArgs& args, std::string* reason) override {
    *reason = WhyNotServed(args);
    return reason->empty();
  }

  size_t DeviceCount() override { return Probed().devices.size(); }

  void DescribeDevice(size_t index, TeplugDeviceInfo* info) override {
    DescribeCudaDevice(Probed().devices[index], static_cast<int>(index), info);
  }

  TeplugDeviceContext* Open(const TeplugDeviceOpenArgs& args) override {
    const std::string why = WhyNotServed(args);
    if (!why.empty()) throw sdk::Unsupported(why);
    auto ctx = std::make_unique<Context>();
    ctx->ordinal = args.device->ordinal;
    return reinterpret_cast<TeplugDeviceContext*>(ctx.release());
  }

  void Close(TeplugDeviceContext* c) override {
    Context* ctx = ContextOf(c, "close");
    std::vector<void*> streams, bases;
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      streams = ctx->resources.TakeAllStreams();
      bases = ctx->resources.TakeAllBases();
      ctx->magic = 0;
    }
    const int ordinal = ctx->ordinal;
    delete ctx;
    // Release everything, then report the first failure.
    std::string first_failure;
    auto note = [&](const std::string& call, int code) {
      if (code != kCudaSuccess && first_failure.empty()) first_failure = CudaCallFailure(runtime_, call, code);
    };
    const CurrentDeviceScope device(runtime_, ordinal);
    note("cudaSetDevice", device.error());
    for (void* s : streams) {
      note("cudaStreamSynchronize", runtime_.StreamSynchronize(s));
      note("cudaStreamDestroy", runtime_.StreamDestroy(s));
    }
    for (void* p : bases) note("cudaFree", runtime_.Free(p));
    if (!first_failure.empty()) throw sdk::Exception(TEPLUG_INTERNAL, "close: " + first_failure);
  }

  void* Allocate(const TeplugAllocateArgs& args) override {
    Context* ctx = ContextOf(args.context, "allocate");
    if (args.bytes == 0) throw sdk::InvalidArgument("TeplugAllocateArgs.bytes is 0");
    const size_t alignment = args.alignment == 0 ? kCudaMallocAlignment : args.alignment;
    if ((alignment & (alignment - 1)) != 0) {
      throw sdk::InvalidArgument(absl::StrCat("TeplugAllocateArgs.alignment ", alignment, " is not a power of two"));
    }
    // cudaMalloc aligns to 256; a larger alignment over-allocates and rounds up.
    const size_t slack = alignment > kCudaMallocAlignment ? alignment - kCudaMallocAlignment : 0;
    if (args.bytes > SIZE_MAX - slack) {
      throw sdk::Exception(TEPLUG_OUT_OF_MEMORY, absl::StrCat("cannot allocate ", args.bytes, " bytes aligned to ",
                                                              alignment));
    }
    const CurrentDeviceScope device(runtime_, ctx->ordinal);
    Require(device.error(), "allocate: cudaSetDevice");
    void* base = nullptr;
    const int e = runtime_.Malloc(&base, args.bytes + slack);
    if (e != kCudaSuccess) {
      throw sdk::Exception(e == kCudaErrorMemoryAllocation ? TEPLUG_OUT_OF_MEMORY : TEPLUG_INTERNAL,
                           absl::StrCat("allocate ", args.bytes, " bytes on cuda:", ctx->ordinal, ": ",
                                        CudaCallFailure(runtime_, "cudaMalloc", e)));
    }
    const auto b = reinterpret_cast<uintptr_t>(base);
    void* address = reinterpret_cast<void*>((b + alignment - 1) / alignment * alignment);
    std::lock_guard<std::mutex> lock(ctx->mu);
    ctx->resources.AddAllocation(address, base, args.bytes);
    return address;
  }

  void Deallocate(TeplugDeviceContext* c, void* p) override {
    Context* ctx = ContextOf(c, "deallocate");
    if (p == nullptr) return;
    void* base = nullptr;
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      base = ctx->resources.TakeAllocation(p);
    }
    if (base == nullptr) {
      throw sdk::InvalidArgument(absl::StrFormat("deallocate: %p was not allocated by this context (or is freed)", p));
    }
    const CurrentDeviceScope device(runtime_, ctx->ordinal);
    Require(device.error(), "deallocate: cudaSetDevice");
    Require(runtime_.Free(base), "deallocate: cudaFree");
  }

  void Copy(const TeplugCopyArgs& a) override {
    Context* ctx = ContextOf(a.context, "copy");
    if (a.kind < 0 || a.kind >= TEPLUG_COPY_KIND_COUNT_) {
      throw sdk::InvalidArgument(absl::StrCat("TeplugCopyArgs.kind ", a.kind, " is not a TeplugCopyKind"));
    }
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      if (a.stream != nullptr && !ctx->resources.HasStream(a.stream)) {
        throw sdk::InvalidArgument("TeplugCopyArgs.stream is not a stream of this context");
      }
      if (a.bytes == 0) return;
      if (a.dst == nullptr || a.src == nullptr) throw sdk::InvalidArgument("TeplugCopyArgs: dst or src is NULL");
      if (a.kind != TEPLUG_COPY_HOST_TO_DEVICE) RequireInside(*ctx, a.src, a.bytes, "src");
      if (a.kind != TEPLUG_COPY_DEVICE_TO_HOST) RequireInside(*ctx, a.dst, a.bytes, "dst");
    }
    const CudaCopyDirection direction = a.kind == TEPLUG_COPY_HOST_TO_DEVICE   ? CudaCopyDirection::kHostToDevice
                                        : a.kind == TEPLUG_COPY_DEVICE_TO_HOST ? CudaCopyDirection::kDeviceToHost
                                                                               : CudaCopyDirection::kDeviceToDevice;
    const CurrentDeviceScope device(runtime_, ctx->ordinal);
    Require(device.error(), "copy: cudaSetDevice");
    if (a.stream == nullptr) {
      Require(runtime_.CopySync(a.dst, a.src, a.bytes, direction), "copy: cudaMemcpy");
    } else {
      Require(runtime_.CopyAsync(a.dst, a.src, a.bytes, direction, a.stream), "copy: cudaMemcpyAsync");
    }
  }

  TeplugStream CreateStream(TeplugDeviceContext* c) override {
    Context* ctx = ContextOf(c, "stream_create");
    const CurrentDeviceScope device(runtime_, ctx->ordinal);
    Require(device.error(), "stream_create: cudaSetDevice");
    void* stream = nullptr;
    Require(runtime_.StreamCreate(&stream), "stream_create: cudaStreamCreateWithFlags");
    std::lock_guard<std::mutex> lock(ctx->mu);
    ctx->resources.AddStream(stream);
    return stream;
  }

  void SynchronizeStream(TeplugDeviceContext* c, TeplugStream s) override {
    Context* ctx = ContextOf(c, "stream_synchronize");
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      if (!ctx->resources.HasStream(s)) throw sdk::InvalidArgument("stream_synchronize: not a stream of this context");
    }
    const CurrentDeviceScope device(runtime_, ctx->ordinal);
    Require(device.error(), "stream_synchronize: cudaSetDevice");
    Require(runtime_.StreamSynchronize(s), "stream_synchronize: cudaStreamSynchronize");
  }

  void DestroyStream(TeplugDeviceContext* c, TeplugStream s) override {
    Context* ctx = ContextOf(c, "stream_destroy");
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      if (!ctx->resources.TakeStream(s)) throw sdk::InvalidArgument("stream_destroy: not a stream of this context");
    }
    const CurrentDeviceScope device(runtime_, ctx->ordinal);
    Require(device.error(), "stream_destroy: cudaSetDevice");
    const int synchronized = runtime_.StreamSynchronize(s);
    Require(runtime_.StreamDestroy(s), "stream_destroy: cudaStreamDestroy");
    Require(synchronized, "stream_destroy: cudaStreamSynchronize");
  }

 private:
  static Context* ContextOf(TeplugDeviceContext* c, const char* call) {
    auto* ctx = reinterpret_cast<Context*>(c);
    if (ctx == nullptr) throw sdk::InvalidArgument(absl::StrCat(call, ": context is NULL"));
    if (ctx->magic != Context::kMagic) {
      throw sdk::InvalidArgument(absl::StrCat(call, ": not a context of the native CUDA device (or closed)"));
    }
    return ctx;
  }

  // Throws unless [p, p + bytes) lies inside one allocation of `ctx` (mu held).
  static void RequireInside(const Context& ctx, const void* p, size_t bytes, const char* what) {
    if (ctx.resources.IsInside(p, bytes)) return;
    throw sdk::InvalidArgument(absl::StrFormat(
        "TeplugCopyArgs.%s: [%p, +%u) is not inside an allocation of this context", what, p, bytes));
  }

  // Throws an INTERNAL error in the runtime's words unless `code` is success.
  void Require(int code, const std::string& call) {
    if (code != kCudaSuccess) throw sdk::Exception(TEPLUG_INTERNAL, CudaCallFailure(runtime_, call, code));
  }

  // Empty when args->device is a GPU this device serves; otherwise why not.
  std::string WhyNotServed(const TeplugDeviceOpenArgs& args) {
    if (args.device == nullptr) throw sdk::InvalidArgument("TeplugDeviceOpenArgs.device is NULL");
    const TeplugDevice& d = *args.device;
    if (d.kind != TEPLUG_DEVICE_CUDA) {
      return absl::StrCat("native: serves CUDA devices only, not kind ", d.kind);
    }
    if (d.vendor_id != TEPLUG_VENDOR_ANY && d.vendor_id != TEPLUG_VENDOR_NVIDIA) {
      return absl::StrFormat("native: CUDA devices are NVIDIA's (0x%04x), not vendor 0x%04x", TEPLUG_VENDOR_NVIDIA,
                             d.vendor_id);
    }
    const Probe& probe = Probed();
    if (probe.devices.empty()) return probe.no_device_reason;
    if (d.ordinal < 0 || static_cast<size_t>(d.ordinal) >= probe.devices.size()) {
      return absl::StrCat("native: no CUDA device with ordinal ", d.ordinal, " (the runtime reports ",
                          probe.devices.size(), ")");
    }
    return "";
  }

  // Asks the runtime once for the GPUs and their properties.
  const Probe& Probed() {
    std::call_once(probed_, [this] {
      int count = 0;
      const int e = runtime_.GetDeviceCount(&count);
      if (e != kCudaSuccess) {
        probe_.no_device_reason = "native: no CUDA device: " + CudaCallFailure(runtime_, "cudaGetDeviceCount", e);
        return;
      }
      if (count <= 0) {
        probe_.no_device_reason = "native: no CUDA device: cudaGetDeviceCount reported 0 devices";
        return;
      }
      std::vector<CudaDeviceFacts> devices(static_cast<size_t>(count));
      for (int i = 0; i < count; ++i) {
        const int f = runtime_.GetDeviceFacts(i, &devices[static_cast<size_t>(i)]);
        if (f != kCudaSuccess) {
          probe_.no_device_reason = "native: no CUDA device: " +
                                    CudaCallFailure(runtime_, absl::StrCat("cudaGetDeviceProperties(", i, ")"), f);
          return;
        }
      }
      probe_.devices = std::move(devices);
    });
    return probe_;
  }

  CudaRuntimeApi& runtime_;
  std::once_flag probed_;
  Probe probe_;
};

}  // namespace

std::unique_ptr<sdk::DeviceImpl> NewCudaDevice(CudaRuntimeApi& runtime) {
  return std::make_unique<CudaDevice>(runtime);
}

}  // namespace teplug::native
