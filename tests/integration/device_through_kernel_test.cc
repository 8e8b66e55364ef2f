// IDevice/1 end to end through the kernel's dispatching object: the devices
// every registered implementation serves, opening a device (selection,
// fallback, strict, refusal with the decision record), and a GEMM run the way
// a host tool runs one on a device — inputs copied into device memory, the op
// dispatched on tensors there, the result copied back — checked against this
// test's own product on random inputs. Contexts bind calls to the
// implementation that opened them; foreign and closed contexts are refused.
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug {
namespace {

using ::testing::HasSubstr;

std::string BusyPlugin() {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> r(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  if (r == nullptr) {
    ADD_FAILURE() << error;
    return "";
  }
  return r->Rlocation("teplug/tests/integration/libteplug_busy_device.so");
}

std::unique_ptr<core::Kernel> MakeKernel(bool with_busy, const std::string& config = "log_level: \"error\"\n") {
  core::KernelOptions o;
  o.use_environment = false;
  o.config_text = config;
  if (with_busy) o.plugin_paths = {BusyPlugin()};
  auto k = core::Kernel::Create(o);
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

TeplugDevice Device(int32_t kind, int32_t ordinal = 0) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = kind;
  d.ordinal = ordinal;
  return d;
}

// The dispatching IDevice with one context open on `device`.
struct Opened {
  sdk::Ref<TeplugDeviceV1> dev;
  std::unique_ptr<sdk::DeviceContext> ctx;
  sdk::OwnedError error;

  Opened(const core::Kernel& k, TeplugDevice device) : dev(k.Query<TeplugDeviceV1>(sdk::kIidDeviceV1)) {
    error = sdk::DeviceContext::Open(dev.get(), device, &ctx);
  }
  ~Opened() {
    if (ctx != nullptr) {
      EXPECT_FALSE(ctx->Close());
    }
  }
  void* Allocate(size_t bytes) {
    void* p = nullptr;
    sdk::OwnedError e = ctx->Allocate(bytes, 0, &p);
    EXPECT_FALSE(e) << e.message();
    return p;
  }
};

TEST(DeviceThroughKernel, ListsTheDevicesOfEveryImplementation) {
  auto k = MakeKernel(false);
  ASSERT_NE(k, nullptr);
  const core::DeviceListing l = k->ListDevices();
  ASSERT_EQ(l.devices.size(), 1u);
  EXPECT_TRUE(l.problems.empty());
  EXPECT_EQ(l.devices[0].implementation, "reference/cpu");
  EXPECT_EQ(l.devices[0].device.kind, TEPLUG_DEVICE_CPU);
  EXPECT_THAT(l.devices[0].name, HasSubstr("host CPU"));
  EXPECT_TRUE(l.devices[0].host_pointers_usable);

  // The dispatching object enumerates the same devices.
  auto dev = k->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  ASSERT_TRUE(dev);
  size_t count = 0;
  ASSERT_FALSE(sdk::OwnedError(dev->vtbl->device_count(dev.get(), &count)));
  EXPECT_EQ(count, 1u);
  TeplugDeviceInfo info = sdk::Versioned<TeplugDeviceInfo>();
  ASSERT_FALSE(sdk::OwnedError(dev->vtbl->device_info(dev.get(), 0, &info)));
  EXPECT_EQ(std::string(info.name), l.devices[0].name);
  sdk::OwnedError past(dev->vtbl->device_info(dev.get(), 1, &info));
  EXPECT_EQ(past.code(), TEPLUG_INVALID_ARGUMENT);
}

TEST(DeviceThroughKernel, AnImplementationThatCannotEnumerateIsReportedAndSkipped) {
  auto k = MakeKernel(true);
  ASSERT_NE(k, nullptr);
  const core::DeviceListing l = k->ListDevices();
  ASSERT_EQ(l.devices.size(), 1u);
  EXPECT_EQ(l.devices[0].implementation, "reference/cpu");
  ASSERT_EQ(l.problems.size(), 1u);
  EXPECT_THAT(l.problems[0], HasSubstr("busy/cpu"));
  EXPECT_THAT(l.problems[0], HasSubstr("device_info is broken"));

  // Through the dispatcher, indexes count through implementations in
  // registry order: busy's device is 0 (its error comes back), reference's 1.
  auto dev = k->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  size_t count = 0;
  ASSERT_FALSE(sdk::OwnedError(dev->vtbl->device_count(dev.get(), &count)));
  EXPECT_EQ(count, 2u);
  TeplugDeviceInfo info = sdk::Versioned<TeplugDeviceInfo>();
  sdk::OwnedError broken(dev->vtbl->device_info(dev.get(), 0, &info));
  EXPECT_EQ(broken.code(), TEPLUG_INTERNAL);
  EXPECT_THAT(broken.message(), HasSubstr("device_info is broken"));
  ASSERT_FALSE(sdk::OwnedError(dev->vtbl->device_info(dev.get(), 1, &info)));
  EXPECT_THAT(std::string(info.name), HasSubstr("host CPU"));
}

TEST(DeviceThroughKernel, RunsAGemmOnDeviceMemoryAndReadsTheResultBack) {
  auto k = MakeKernel(false);
  ASSERT_NE(k, nullptr);
  Opened d(*k, Device(TEPLUG_DEVICE_CPU));
  ASSERT_FALSE(d.error) << d.error.message();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  const int64_t m = 7, n = 5, kk = 9;
  std::vector<float> a(m * kk), b(kk * n), out(m * n, 0.f);
  for (float& x : a) x = dist(rng);
  for (float& x : b) x = dist(rng);
  void* da = d.Allocate(a.size() * 4);
  void* db = d.Allocate(b.size() * 4);
  void* dd = d.Allocate(out.size() * 4);
  TeplugStream s = nullptr;
  ASSERT_FALSE(d.ctx->CreateStream(&s));
  ASSERT_FALSE(d.ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, da, a.data(), a.size() * 4, s));
  ASSERT_FALSE(d.ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, db, b.data(), b.size() * 4, s));

  TeplugDevice cpu = Device(TEPLUG_DEVICE_CPU);
  auto tensor = [&](void* data, int64_t rows, int64_t cols) {
    TeplugTensor t = sdk::Versioned<TeplugTensor>();
    t.data = data;
    t.dtype = TEPLUG_DTYPE_FP32;
    t.rank = 2;
    t.shape[0] = rows;
    t.shape[1] = cols;
    t.device = &cpu;
    return t;
  };
  TeplugTensor ta = tensor(da, m, kk), tb = tensor(db, kk, n), td = tensor(dd, m, n);
  TeplugGemmArgs g = sdk::Versioned<TeplugGemmArgs>();
  g.a = &ta;
  g.b = &tb;
  g.d = &td;
  g.alpha = 1.f;
  g.stream = s;
  auto gemm = k->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  sdk::OwnedError ge(gemm->vtbl->gemm(gemm.get(), &g));
  ASSERT_FALSE(ge) << ge.message();
  ASSERT_FALSE(d.ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, out.data(), dd, out.size() * 4, s));
  ASSERT_FALSE(d.ctx->SynchronizeStream(s));
  ASSERT_FALSE(d.ctx->DestroyStream(s));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < kk; ++p) want += double{a[i * kk + p]} * double{b[p * n + j]};
      // fp32 output of an exact fp64 product: within one fp32 rounding.
      EXPECT_NEAR(out[i * n + j], want, 1e-6 * (1 + std::abs(want))) << i << "," << j;
    }
  }
  for (void* p : {da, db, dd}) EXPECT_FALSE(d.ctx->Deallocate(p));
}

TEST(DeviceThroughKernel, ADeviceNoImplementationServesIsRefusedWithTheRecord) {
  auto k = MakeKernel(false);
  ASSERT_NE(k, nullptr);
  Opened d(*k, Device(TEPLUG_DEVICE_CUDA, 1));
  EXPECT_EQ(d.error.code(), TEPLUG_UNSUPPORTED);
  EXPECT_THAT(d.error.message(), HasSubstr("no device provider for device open on cuda:1"));
  EXPECT_THAT(d.error.message(), HasSubstr("reference/cpu"));
  EXPECT_EQ(d.ctx, nullptr);
}

TEST(DeviceThroughKernel, OpenFallsBackPastAnUnavailableFirstChoiceUnlessStrict) {
  auto k = MakeKernel(true);
  ASSERT_NE(k, nullptr);
  {
    Opened d(*k, Device(TEPLUG_DEVICE_CPU));
    ASSERT_FALSE(d.error) << d.error.message();
    // The context is reference's: its memory works.
    std::vector<unsigned char> host = {1, 2, 3, 4}, back(4, 0);
    void* p = d.Allocate(4);
    ASSERT_FALSE(d.ctx->Copy(TEPLUG_COPY_HOST_TO_DEVICE, p, host.data(), 4));
    ASSERT_FALSE(d.ctx->Copy(TEPLUG_COPY_DEVICE_TO_HOST, back.data(), p, 4));
    EXPECT_EQ(back, host);
  }
  auto strict = MakeKernel(true, "log_level: \"error\"\nstrict: true\n");
  ASSERT_NE(strict, nullptr);
  Opened s(*strict, Device(TEPLUG_DEVICE_CPU));
  EXPECT_EQ(s.error.code(), TEPLUG_UNAVAILABLE);
  EXPECT_THAT(s.error.message(), HasSubstr("every context is taken"));
}

TEST(DeviceThroughKernel, ConfigRulesOnOpenDecideTheImplementation) {
  auto k = MakeKernel(true,
                      "log_level: \"error\"\n"
                      "rules { name: \"no-busy\" match { interfaces: \"device\" ops: \"open\" } deny: \"busy\" }\n");
  ASSERT_NE(k, nullptr);
  auto sel = k->Select(sdk::kIidDeviceV1, TEPLUG_DEVICE_OP_OPEN, [] {
    static TeplugDevice cpu = Device(TEPLUG_DEVICE_CPU);
    static TeplugDeviceOpenArgs a = sdk::Versioned<TeplugDeviceOpenArgs>();
    a.device = &cpu;
    return &a;
  }());
  ASSERT_TRUE(sel.ok()) << sel.status();
  const std::string record = sel->record().Format();
  EXPECT_THAT(record, HasSubstr("reference/cpu"));
  EXPECT_THAT(record, HasSubstr("no-busy"));
}

TEST(DeviceThroughKernel, ContextsBindCallsAndForeignOrClosedOnesAreRefused) {
  auto k = MakeKernel(false);
  ASSERT_NE(k, nullptr);
  auto dev = k->Query<TeplugDeviceV1>(sdk::kIidDeviceV1);
  int not_a_context = 0;
  sdk::OwnedError foreign(
      dev->vtbl->deallocate(dev.get(), reinterpret_cast<TeplugDeviceContext*>(&not_a_context), nullptr));
  EXPECT_EQ(foreign.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_THAT(foreign.message(), HasSubstr("not a context opened by this dispatcher"));

  Opened d(*k, Device(TEPLUG_DEVICE_CPU));
  ASSERT_FALSE(d.error);
  TeplugDeviceContext* ctx = d.ctx->get();
  ASSERT_FALSE(d.ctx->Close());
  d.ctx.reset();
  TeplugStream s = nullptr;
  sdk::OwnedError closed(dev->vtbl->stream_create(dev.get(), ctx, &s));
  EXPECT_EQ(closed.code(), TEPLUG_INVALID_ARGUMENT);
  sdk::OwnedError null_ctx(dev->vtbl->close(dev.get(), nullptr));
  EXPECT_THAT(null_ctx.message(), HasSubstr("context is NULL"));
}

}  // namespace
}  // namespace teplug
