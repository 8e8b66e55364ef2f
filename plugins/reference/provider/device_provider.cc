#include "plugins/reference/provider/device_provider.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace teplug::reference::provider {
namespace {

constexpr size_t kDefaultAlignment = 256;

// An opened cpu:0: what it allocated (address -> bytes) and its streams.
struct Context {
  static constexpr uint64_t kMagic = 0x7265662d64657631ull;  // "ref-dev1"
  uint64_t magic = kMagic;
  std::mutex mu;
  std::map<uintptr_t, size_t> allocations;
  std::set<TeplugStream> streams;
};

Context* ContextOf(TeplugDeviceContext* c, const char* call) {
  auto* ctx = reinterpret_cast<Context*>(c);
  if (ctx == nullptr) throw sdk::InvalidArgument(absl::StrCat(call, ": context is NULL"));
  if (ctx->magic != Context::kMagic) {
    throw sdk::InvalidArgument(absl::StrCat(call, ": not a context of the reference device (or closed)"));
  }
  return ctx;
}

// Throws unless [p, p + bytes) lies inside one allocation of `ctx` (mu held).
void RequireInside(const Context& ctx, const void* p, size_t bytes, const char* what) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = ctx.allocations.upper_bound(a);
  if (it != ctx.allocations.begin()) {
    --it;
    if (a >= it->first && bytes <= it->second && a - it->first <= it->second - bytes) return;
  }
  throw sdk::InvalidArgument(absl::StrFormat(
      "TeplugCopyArgs.%s: [%p, +%u) is not inside an allocation of this context", what, p, bytes));
}

class ReferenceDevice final : public sdk::DeviceImpl {
 public:
  size_t DeviceCount() override { return 1; }

  void DescribeDevice(size_t, TeplugDeviceInfo* info) override {
    info->kind = TEPLUG_DEVICE_CPU;
    info->vendor_id = TEPLUG_VENDOR_ANY;
    info->ordinal = 0;
    info->arch = 0;
    const long threads = sysconf(_SC_NPROCESSORS_ONLN);
    std::snprintf(info->name, sizeof info->name, "host CPU (%ld threads)", threads);
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    info->memory_bytes = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
    info->host_pointers_usable = 1;
  }

  TeplugDeviceContext* Open(const TeplugDeviceOpenArgs& args) override {
    if (args.device == nullptr) throw sdk::InvalidArgument("TeplugDeviceOpenArgs.device is NULL");
    if (args.device->kind != TEPLUG_DEVICE_CPU || args.device->ordinal != 0) {
      throw sdk::Unsupported(absl::StrCat("the reference device is cpu:0 only, not kind ", args.device->kind,
                                          " ordinal ", args.device->ordinal));
    }
    return reinterpret_cast<TeplugDeviceContext*>(new Context);
  }

  void Close(TeplugDeviceContext* c) override {
    Context* ctx = ContextOf(c, "close");
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      for (const auto& [address, bytes] : ctx->allocations) std::free(reinterpret_cast<void*>(address));
      for (TeplugStream stream : ctx->streams) delete static_cast<char*>(stream);
      ctx->magic = 0;
    }
    delete ctx;
  }

  void* Allocate(const TeplugAllocateArgs& args) override {
    Context* ctx = ContextOf(args.context, "allocate");
    if (args.bytes == 0) throw sdk::InvalidArgument("TeplugAllocateArgs.bytes is 0");
    const size_t alignment = args.alignment == 0 ? kDefaultAlignment : args.alignment;
    if ((alignment & (alignment - 1)) != 0) {
      throw sdk::InvalidArgument(absl::StrCat("TeplugAllocateArgs.alignment ", alignment, " is not a power of two"));
    }
    const size_t align = alignment < sizeof(void*) ? sizeof(void*) : alignment;
    if (args.bytes > SIZE_MAX - align) {
      throw sdk::Exception(TEPLUG_OUT_OF_MEMORY, absl::StrCat("cannot allocate ", args.bytes, " bytes"));
    }
    const size_t rounded = (args.bytes + align - 1) / align * align;  // aligned_alloc wants a multiple
    void* p = std::aligned_alloc(align, rounded);
    if (p == nullptr) {
      throw sdk::Exception(TEPLUG_OUT_OF_MEMORY, absl::StrCat("out of host memory allocating ", args.bytes, " bytes"));
    }
    std::lock_guard<std::mutex> lock(ctx->mu);
    ctx->allocations[reinterpret_cast<uintptr_t>(p)] = args.bytes;
    return p;
  }

  void Deallocate(TeplugDeviceContext* c, void* p) override {
    Context* ctx = ContextOf(c, "deallocate");
    if (p == nullptr) return;
    std::lock_guard<std::mutex> lock(ctx->mu);
    if (ctx->allocations.erase(reinterpret_cast<uintptr_t>(p)) == 0) {
      throw sdk::InvalidArgument(absl::StrFormat("deallocate: %p was not allocated by this context (or is freed)", p));
    }
    std::free(p);
  }

  void Copy(const TeplugCopyArgs& a) override {
    Context* ctx = ContextOf(a.context, "copy");
    if (a.kind < 0 || a.kind >= TEPLUG_COPY_KIND_COUNT_) {
      throw sdk::InvalidArgument(absl::StrCat("TeplugCopyArgs.kind ", a.kind, " is not a TeplugCopyKind"));
    }
    std::lock_guard<std::mutex> lock(ctx->mu);
    if (a.stream != nullptr && ctx->streams.count(a.stream) == 0) {
      throw sdk::InvalidArgument("TeplugCopyArgs.stream is not a stream of this context");
    }
    if (a.bytes == 0) return;
    if (a.dst == nullptr || a.src == nullptr) throw sdk::InvalidArgument("TeplugCopyArgs: dst or src is NULL");
    if (a.kind != TEPLUG_COPY_HOST_TO_DEVICE) RequireInside(*ctx, a.src, a.bytes, "src");
    if (a.kind != TEPLUG_COPY_DEVICE_TO_HOST) RequireInside(*ctx, a.dst, a.bytes, "dst");
    std::memmove(a.dst, a.src, a.bytes);
  }

  TeplugStream CreateStream(TeplugDeviceContext* c) override {
    Context* ctx = ContextOf(c, "stream_create");
    auto* token = new char;  // a unique address; the CPU runs every op to completion
    std::lock_guard<std::mutex> lock(ctx->mu);
    ctx->streams.insert(token);
    return token;
  }

  void SynchronizeStream(TeplugDeviceContext* c, TeplugStream s) override {
    Context* ctx = ContextOf(c, "stream_synchronize");
    std::lock_guard<std::mutex> lock(ctx->mu);
    if (ctx->streams.count(s) == 0) throw sdk::InvalidArgument("stream_synchronize: not a stream of this context");
  }

  void DestroyStream(TeplugDeviceContext* c, TeplugStream s) override {
    Context* ctx = ContextOf(c, "stream_destroy");
    std::lock_guard<std::mutex> lock(ctx->mu);
    if (ctx->streams.erase(s) == 0) throw sdk::InvalidArgument("stream_destroy: not a stream of this context");
    delete static_cast<char*>(s);
  }
};

}  // namespace

std::unique_ptr<sdk::DeviceImpl> NewReferenceDevice() { return std::make_unique<ReferenceDevice>(); }

}  // namespace teplug::reference::provider
