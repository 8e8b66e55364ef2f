#include "plugins/opencl/provider/opencl_device.h"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/opencl/provider/cl_status.h"
#include "plugins/opencl/provider/device_address_space.h"
#include "plugins/opencl/provider/device_table.h"
#include "plugins/opencl/provider/program_cache.h"

namespace teplug::opencl::provider {
namespace {

constexpr size_t kDefaultAlignment = 256;

// An opened opencl:<n>: its cl_context, the queue for copies without a
// stream, and the allocations and streams it made.
struct Context {
  static constexpr uint64_t kMagic = 0x6f70656e636c6476ull;  // "openclDv"
  uint64_t magic = kMagic;
  int32_t ordinal = 0;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue copy_queue = nullptr;
  std::mutex mu;
  std::set<void*> allocations;
  std::set<TeplugStream> streams;
};

Context* ContextOf(TeplugDeviceContext* c, const char* call) {
  auto* ctx = reinterpret_cast<Context*>(c);
  if (ctx == nullptr) throw sdk::InvalidArgument(absl::StrCat(call, ": context is NULL"));
  if (ctx->magic != Context::kMagic) {
    throw sdk::InvalidArgument(
        absl::StrCat(call, ": not a context of the opencl device (or closed)"));
  }
  return ctx;
}

// The buffer and offset of [p, p + bytes), which must be memory of `ctx`.
ResolvedAddress Inside(const Context& ctx, const void* p, size_t bytes, const char* what) {
  ResolvedAddress r;
  if (!DeviceAddressSpace::Instance().Resolve(p, bytes, &r) || r.owner != &ctx) {
    throw sdk::InvalidArgument(
        absl::StrFormat("TeplugCopyArgs.%s: [%p, +%u) is not inside an allocation of this context",
                        what, p, bytes));
  }
  return r;
}

cl_command_queue NewQueue(const Context& ctx) {
  cl_int e = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx.context, ctx.device, nullptr, &e);
  CheckCl(e, "clCreateCommandQueueWithProperties");
  return q;
}

class OpenClDevice final : public sdk::DeviceImpl {
 public:
  size_t DeviceCount() override { return ClDevices().size(); }

  void DescribeDevice(size_t index, TeplugDeviceInfo* info) override {
    const ClDeviceEntry& d = ClDevices().at(index);
    info->kind = TEPLUG_DEVICE_OPENCL;
    info->vendor_id = d.vendor_id;
    info->ordinal = static_cast<int32_t>(index);
    info->arch = d.arch;
    std::snprintf(info->name, sizeof info->name, "%s", d.name.c_str());
    info->memory_bytes = d.memory_bytes;
    info->host_pointers_usable = 0;
  }

  bool SupportsOpen(const TeplugDeviceOpenArgs& args, std::string* reason) override {
    if (args.device == nullptr) return true;  // open names the missing device
    const std::string why = Unserved(*args.device);
    if (why.empty()) return true;
    *reason = why;
    return false;
  }

  TeplugDeviceContext* Open(const TeplugDeviceOpenArgs& args) override {
    if (args.device == nullptr) throw sdk::InvalidArgument("TeplugDeviceOpenArgs.device is NULL");
    const std::string why = Unserved(*args.device);
    if (!why.empty()) throw sdk::Unsupported(why);
    const ClDeviceEntry& d = ClDevices()[static_cast<size_t>(args.device->ordinal)];
    auto ctx = std::make_unique<Context>();
    ctx->ordinal = args.device->ordinal;
    ctx->device = d.id;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           reinterpret_cast<cl_context_properties>(d.platform), 0};
    cl_int e = CL_SUCCESS;
    ctx->context = clCreateContext(props, 1, &d.id, nullptr, nullptr, &e);
    CheckCl(e, "clCreateContext", absl::StrCat("opencl:", ctx->ordinal, " (", d.name, ")"));
    try {
      ctx->copy_queue = NewQueue(*ctx);
    } catch (const sdk::Exception&) {
      clReleaseContext(ctx->context);
      throw;
    }
    return reinterpret_cast<TeplugDeviceContext*>(ctx.release());
  }

  void Close(TeplugDeviceContext* c) override {
    Context* ctx = ContextOf(c, "close");
    std::string first_error;
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      for (TeplugStream s : ctx->streams) {
        auto q = static_cast<cl_command_queue>(s);
        const cl_int e = clFinish(q);
        if (e != CL_SUCCESS && first_error.empty()) first_error = ClErrorMessage(e, "clFinish");
        clReleaseCommandQueue(q);
      }
      clFinish(ctx->copy_queue);
      clReleaseCommandQueue(ctx->copy_queue);
      for (void* p : ctx->allocations) DeviceAddressSpace::Instance().Unmap(p, ctx);
      SharedProgramCache().Forget(ctx->context);
      clReleaseContext(ctx->context);
      ctx->magic = 0;
    }
    delete ctx;
    if (!first_error.empty())
      throw sdk::Internal(absl::StrCat("close: work on a stream failed: ", first_error));
  }

  void* Allocate(const TeplugAllocateArgs& args) override {
    Context* ctx = ContextOf(args.context, "allocate");
    if (args.bytes == 0) throw sdk::InvalidArgument("TeplugAllocateArgs.bytes is 0");
    const size_t alignment = args.alignment == 0 ? kDefaultAlignment : args.alignment;
    if ((alignment & (alignment - 1)) != 0) {
      throw sdk::InvalidArgument(
          absl::StrCat("TeplugAllocateArgs.alignment ", alignment, " is not a power of two"));
    }
    cl_int e = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, args.bytes, nullptr, &e);
    CheckCl(e, "clCreateBuffer", absl::StrCat(args.bytes, " bytes on opencl:", ctx->ordinal));
    void* p = nullptr;
    try {
      p = DeviceAddressSpace::Instance().Map(buffer, args.bytes, alignment, ctx);
    } catch (const sdk::Exception&) {
      clReleaseMemObject(buffer);
      throw;
    }
    clReleaseMemObject(buffer);  // the address space holds the reference now
    std::lock_guard<std::mutex> lock(ctx->mu);
    ctx->allocations.insert(p);
    return p;
  }

  void Deallocate(TeplugDeviceContext* c, void* p) override {
    Context* ctx = ContextOf(c, "deallocate");
    if (p == nullptr) return;
    std::lock_guard<std::mutex> lock(ctx->mu);
    if (ctx->allocations.erase(p) == 0 || !DeviceAddressSpace::Instance().Unmap(p, ctx)) {
      throw sdk::InvalidArgument(
          absl::StrFormat("deallocate: %p was not allocated by this context (or is freed)", p));
    }
  }

  void Copy(const TeplugCopyArgs& a) override {
    Context* ctx = ContextOf(a.context, "copy");
    if (a.kind < 0 || a.kind >= TEPLUG_COPY_KIND_COUNT_) {
      throw sdk::InvalidArgument(
          absl::StrCat("TeplugCopyArgs.kind ", a.kind, " is not a TeplugCopyKind"));
    }
    cl_command_queue q = ctx->copy_queue;
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      if (a.stream != nullptr) {
        if (ctx->streams.count(a.stream) == 0) {
          throw sdk::InvalidArgument("TeplugCopyArgs.stream is not a stream of this context");
        }
        q = static_cast<cl_command_queue>(a.stream);
      }
    }
    if (a.bytes == 0) return;
    if (a.dst == nullptr || a.src == nullptr)
      throw sdk::InvalidArgument("TeplugCopyArgs: dst or src is NULL");
    const cl_bool blocking = a.stream == nullptr ? CL_TRUE : CL_FALSE;
    switch (a.kind) {
      case TEPLUG_COPY_HOST_TO_DEVICE: {
        const ResolvedAddress d = Inside(*ctx, a.dst, a.bytes, "dst");
        CheckCl(clEnqueueWriteBuffer(q, d.buffer, blocking, d.offset, a.bytes, a.src, 0, nullptr,
                                     nullptr),
                "clEnqueueWriteBuffer");
        break;
      }
      case TEPLUG_COPY_DEVICE_TO_HOST: {
        const ResolvedAddress s = Inside(*ctx, a.src, a.bytes, "src");
        CheckCl(clEnqueueReadBuffer(q, s.buffer, blocking, s.offset, a.bytes, a.dst, 0, nullptr,
                                    nullptr),
                "clEnqueueReadBuffer");
        break;
      }
      default: {
        const ResolvedAddress s = Inside(*ctx, a.src, a.bytes, "src");
        const ResolvedAddress d = Inside(*ctx, a.dst, a.bytes, "dst");
        CheckCl(clEnqueueCopyBuffer(q, s.buffer, d.buffer, s.offset, d.offset, a.bytes, 0, nullptr,
                                    nullptr),
                "clEnqueueCopyBuffer");
        if (blocking) CheckCl(clFinish(q), "clFinish");
        break;
      }
    }
  }

  TeplugStream CreateStream(TeplugDeviceContext* c) override {
    Context* ctx = ContextOf(c, "stream_create");
    cl_command_queue q = NewQueue(*ctx);
    std::lock_guard<std::mutex> lock(ctx->mu);
    ctx->streams.insert(q);
    return q;
  }

  void SynchronizeStream(TeplugDeviceContext* c, TeplugStream s) override {
    Context* ctx = ContextOf(c, "stream_synchronize");
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      if (ctx->streams.count(s) == 0)
        throw sdk::InvalidArgument("stream_synchronize: not a stream of this context");
    }
    CheckCl(clFinish(static_cast<cl_command_queue>(s)), "clFinish");
  }

  void DestroyStream(TeplugDeviceContext* c, TeplugStream s) override {
    Context* ctx = ContextOf(c, "stream_destroy");
    {
      std::lock_guard<std::mutex> lock(ctx->mu);
      if (ctx->streams.erase(s) == 0)
        throw sdk::InvalidArgument("stream_destroy: not a stream of this context");
    }
    auto q = static_cast<cl_command_queue>(s);
    const cl_int e = clFinish(q);
    clReleaseCommandQueue(q);
    CheckCl(e, "clFinish");
  }

 private:
  // Empty when `device` is one this provider serves, else why not.
  static std::string Unserved(const TeplugDevice& device) {
    if (device.kind != TEPLUG_DEVICE_OPENCL) {
      return absl::StrCat("the opencl device serves kind OPENCL (", TEPLUG_DEVICE_OPENCL,
                          ") only, not kind ", device.kind);
    }
    const size_t count = ClDevices().size();
    if (device.ordinal < 0 || static_cast<size_t>(device.ordinal) >= count) {
      return absl::StrCat("opencl:", device.ordinal, " does not exist: the ICD loader reports ",
                          count, " OpenCL device(s)");
    }
    return "";
  }
};

}  // namespace

std::unique_ptr<sdk::DeviceImpl> NewOpenClDevice() { return std::make_unique<OpenClDevice>(); }

OpenClContextHandles HandlesOfOwner(const void* owner) {
  const auto* ctx = static_cast<const Context*>(owner);
  if (ctx == nullptr || ctx->magic != Context::kMagic) {
    throw sdk::InvalidArgument("device memory of a closed opencl context");
  }
  return OpenClContextHandles{ctx->context, ctx->device, ctx->ordinal, ctx->copy_queue};
}

}  // namespace teplug::opencl::provider
