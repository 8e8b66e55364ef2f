// Device-kind and vendor names declared by providers, through the kernel:
// an op on vendor kind 1100 of vendor 0x1da3 reads "gaudi:0 (habana)" in its
// record, config rules match it by name and by number, names no provider
// declares are config warnings, a clashing later declaration is ignored with
// a warning naming both providers, and ListProviders shows the names.
#include <string>

#include "core/kernel/device_names.h"
#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

using ::testing::ElementsAre;
using testing::GemmCall;
using ::testing::HasSubstr;
using testing::IsolatedOptions;
using testing::LogCapture;
using testing::Runfile;

std::string Named() { return Runfile("tests/hostile/libteplug_hostile_named_devices.so"); }
std::string Renamed() { return Runfile("tests/hostile/libteplug_hostile_renamed_devices.so"); }

// Points every tensor of `args` (owned by a GemmCall) at `device`.
void PutOn(const TeplugGemmArgs* args, const TeplugDevice* device) {
  const_cast<TeplugTensor*>(static_cast<const TeplugTensor*>(args->a))->device = device;
  const_cast<TeplugTensor*>(static_cast<const TeplugTensor*>(args->b))->device = device;
  const_cast<TeplugTensor*>(static_cast<const TeplugTensor*>(args->d))->device = device;
}

// A GEMM whose tensors live on device 0 of `kind` and `vendor`: by default
// kind 1100, vendor 0x1da3 (named "gaudi" and "habana" by the named-devices
// plugin).
class GemmOnDevice {
 public:
  explicit GemmOnDevice(int32_t kind = 1100, uint32_t vendor = 0x1da3) {
    device_ = sdk::Versioned<TeplugDevice>();
    device_.kind = kind;
    device_.vendor_id = vendor;
    PutOn(call_.args(), &device_);
  }
  const TeplugGemmArgs* args() const { return call_.args(); }

 private:
  GemmCall call_;
  TeplugDevice device_;
};

std::unique_ptr<Kernel> MakeKernel(std::vector<std::string> plugins, const std::string& config,
                                   LogCapture* log = nullptr) {
  KernelOptions o = IsolatedOptions(std::move(plugins), config);
  if (log != nullptr) o.log_sink = log->sink();
  auto k = Kernel::Create(std::move(o));
  EXPECT_TRUE(k.ok()) << k.status();
  return k.ok() ? *std::move(k) : nullptr;
}

TEST(KernelDeviceNamesTest, RecordsShowTheDeclaredNames) {
  auto k = MakeKernel({Named()}, "");
  ASSERT_TRUE(k);
  GemmOnDevice g;
  auto rec = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, g.args());
  ASSERT_TRUE(rec.ok()) << rec.status();
  EXPECT_THAT(rec->op_summary, ::testing::EndsWith(" on gaudi:0 (habana)")) << rec->Format();
  ASSERT_NE(rec->chosen(), nullptr) << rec->Format();

  // Another kind's refusal lists the provider's devices by name.
  GemmOnDevice c(1101, TEPLUG_VENDOR_ANY);  // a kind no provider declares
  auto refused = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, c.args());
  ASSERT_TRUE(refused.ok());
  ASSERT_EQ(refused->candidates.size(), 1u);
  EXPECT_THAT(refused->Reason(refused->candidates[0]), HasSubstr("gaudi habana")) << refused->Format();
}

TEST(KernelDeviceNamesTest, ADispatchedCallNoProviderServesNamesTheDevicesToo) {
  auto k = MakeKernel({Named()}, "");
  ASSERT_TRUE(k);
  GemmOnDevice c(1101, TEPLUG_VENDOR_ANY);  // a kind no provider declares
  auto gemm = k->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  ASSERT_TRUE(gemm);
  sdk::OwnedError err(gemm->vtbl->gemm(gemm.get(), c.args()));
  EXPECT_EQ(err.code(), TEPLUG_UNSUPPORTED);
  EXPECT_THAT(err.message(), HasSubstr("not in {cpu, gaudi habana}")) << err.message();
}

// Every way a record is read names the declared devices: the record of the
// selection Select returns and the reason the dispatching object's
// supports() writes, not only Explain's record and the dispatch error.
TEST(KernelDeviceNamesTest, EveryRecordOfADecisionNamesTheDevices) {
  auto k = MakeKernel({Named(), testing::FakePlugin("fast")}, "");
  ASSERT_TRUE(k);
  GemmOnDevice g;
  auto served = k->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, g.args());
  ASSERT_TRUE(served.ok()) << served.status();
  const DecisionRecord& rec = served->record();
  ASSERT_EQ(rec.candidates.size(), 2u) << rec.Format();
  EXPECT_EQ(rec.Reason(rec.candidates[1]), "device gaudi:0 (habana) not in {cpu}");

  GemmOnDevice c(1101, TEPLUG_VENDOR_ANY);  // a kind no provider declares
  auto gemm = k->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  ASSERT_TRUE(gemm);
  char reason[1024] = "";
  EXPECT_EQ(gemm->vtbl->supports(reinterpret_cast<TeplugObject*>(gemm.get()), TEPLUG_OP_GEMM, c.args(), reason,
                                 sizeof reason),
            0);
  EXPECT_THAT(std::string(reason), HasSubstr("not in {cpu, gaudi habana}"));
}

TEST(KernelDeviceNamesTest, ConfigRulesMatchByNameAndByNumber) {
  for (const char* kinds : {"\"gaudi\"", "\"1100\"", "\"vendor1100\""}) {
    for (const char* vendors : {"\"habana\"", "\"0x1da3\"", "\"HABANA\""}) {
      SCOPED_TRACE(std::string(kinds) + " " + vendors);
      const std::string config = std::string("rules { name: \"no-gaudi\" match { device_kinds: ") +
                                 kinds + " vendors: " + vendors +
                                 " } deny: \"hostile_named_devices\" }\n";
      auto k = MakeKernel({Named()}, config);
      ASSERT_TRUE(k);
      EXPECT_THAT(k->ConfigWarnings(), ::testing::IsEmpty());
      GemmOnDevice g;
      auto rec = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, g.args());
      ASSERT_TRUE(rec.ok());
      ASSERT_EQ(rec->candidates.size(), 1u);
      EXPECT_EQ(rec->candidates[0].verdict, Verdict::kRejected) << rec->Format();
      EXPECT_THAT(rec->Rule(rec->candidates[0]), HasSubstr("no-gaudi"));
      // The rule does not touch an op on the host CPU.
      GemmCall cpu;
      auto on_cpu = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, cpu.args());
      ASSERT_TRUE(on_cpu.ok());
      EXPECT_NE(on_cpu->chosen(), nullptr) << on_cpu->Format();
    }
  }
}

TEST(KernelDeviceNamesTest, NamesNoProviderDeclaresAreConfigWarnings) {
  const std::string config =
      "rules { name: \"r\" match { device_kinds: \"gaudi\" vendors: \"habana\" } deny: \"x\" }\n";
  LogCapture log;
  auto without = MakeKernel({}, config, &log);
  ASSERT_TRUE(without);
  std::vector<std::string> device_warnings;
  for (const std::string& w : without->ConfigWarnings()) {
    if (w.find("unknown device kind") != std::string::npos ||
        w.find("unknown vendor") != std::string::npos) {
      device_warnings.push_back(w);
    }
  }
  EXPECT_THAT(
      device_warnings,
      ElementsAre(
          "test.textproto:1:27: rules[0].match.device_kinds[0]: unknown device kind \"gaudi\"; "
          "expected cpu, cuda, opencl, a vendor kind number (1024 or more, or vendor1024) or a "
          "name a loaded provider declares (declared: none)",
          "test.textproto:1:49: rules[0].match.vendors[0]: unknown vendor \"habana\"; expected "
          "nvidia, amd, intel, a vendor id like 0x1da3 or a name a loaded provider declares "
          "(declared: none)"));
  EXPECT_EQ(log.Count("unknown device kind \"gaudi\""), 1) << "a warning at run time:\n"
                                                           << log.All();

  auto with = MakeKernel({Named()}, config);
  ASSERT_TRUE(with);
  for (const std::string& w : with->ConfigWarnings())
    EXPECT_THAT(w, ::testing::Not(HasSubstr("unknown device")));
  for (const std::string& w : with->ConfigWarnings())
    EXPECT_THAT(w, ::testing::Not(HasSubstr("unknown vendor")));
}

TEST(KernelDeviceNamesTest, ALaterClashingNameIsIgnoredWithAWarningNamingBothProviders) {
  LogCapture log;
  auto k = MakeKernel({Named(), Renamed()}, "", &log);
  ASSERT_TRUE(k);
  EXPECT_EQ(
      log.Count(
          "provider hostile_renamed_devices names device kind 1100 \"other_npu\", but device kind "
          "1100 is already named \"gaudi\" by provider hostile_named_devices; "
          "hostile_renamed_devices's name is ignored"),
      1)
      << log.All();
  EXPECT_EQ(log.Count("vendor"), 0) << "the same vendor name twice is no clash:\n" << log.All();
  EXPECT_EQ(k->DeviceNaming()->ResolveKind("gaudi"), 1100);
  EXPECT_EQ(k->DeviceNaming()->ResolveKind("other_npu"), std::nullopt);
  auto providers = k->ListProviders();
  ASSERT_EQ(providers.size(), 2u);
  EXPECT_THAT(providers[0].declared_names,
              ElementsAre("device kind 1100 = gaudi", "vendor 0x1da3 = habana"));
  EXPECT_THAT(providers[0].implementations.at(0).capability_summary, HasSubstr("gaudi habana"));
}

TEST(KernelDeviceNamesTest, APluginLoadedLaterNamesWhatTheRunningConfigSays) {
  auto k = MakeKernel({},
                      "rules { name: \"no-gaudi\" match { device_kinds: \"gaudi\" } deny: "
                      "\"hostile_named_devices\" }\n");
  ASSERT_TRUE(k);
  ASSERT_TRUE(k->LoadPlugin(Named()).ok());
  EXPECT_THAT(k->ConfigWarnings(), ::testing::IsEmpty());
  GemmOnDevice g;
  auto rec = k->Explain(sdk::kIidGemmV1, TEPLUG_OP_GEMM, g.args());
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->candidates.at(0).verdict, Verdict::kRejected) << rec->Format();
}

TEST(DeviceNamesTest, ResolvesNamesAndNumbersAndRenamesWholeWordsOnly) {
  Provider p;
  p.name = "acme";
  p.device_kind_names = {{1100, "gaudi"}};
  p.vendor_names = {{0x1da3, "habana"}};
  DeviceNames names;
  EXPECT_TRUE(names.Add(p).empty());
  EXPECT_EQ(names.ResolveKind("gaudi"), 1100);
  EXPECT_EQ(names.ResolveKind("vendor1100"), 1100);
  EXPECT_EQ(names.ResolveKind("1200"), 1200);
  EXPECT_EQ(names.ResolveKind("cuda"), TEPLUG_DEVICE_CUDA);
  EXPECT_EQ(names.ResolveKind("any"), std::nullopt);
  EXPECT_EQ(names.ResolveKind("12"), std::nullopt) << "below TEPLUG_DEVICE_VENDOR_BASE";
  EXPECT_EQ(names.ResolveVendor("Habana"), 0x1da3u);
  EXPECT_EQ(names.ResolveVendor("0x1DA3"), 0x1da3u);
  EXPECT_EQ(names.ResolveVendor("NVIDIA"), TEPLUG_VENDOR_NVIDIA);
  EXPECT_EQ(names.ResolveVendor("7587"), std::nullopt) << "vendor ids are hex, as facts spell them";
  EXPECT_EQ(names.ResolveVendor("0x0"), std::nullopt);
  EXPECT_EQ(names.Rename("devices {cpu, vendor1100 0x1da3, vendor11000 0x1da30}"),
            "devices {cpu, gaudi habana, vendor11000 0x1da30}");
  EXPECT_EQ(names.KindSpelling(1101), "vendor1101");
  EXPECT_EQ(names.VendorSpelling(0), "");
}

}  // namespace
}  // namespace teplug::core
