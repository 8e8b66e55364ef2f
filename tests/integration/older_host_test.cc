// Every shipped provider, loaded as a plugin into a host of each earlier ABI
// minor, registers only capability bits that host knows: an older host
// refuses a descriptor with a newer bit, which would cost it the provider's
// quantizer (or norm). With the current host the v1.3 bits are declared, so
// the test also fails if a provider stopped offering them.
//
// The plugins are the test's arguments (runfiles paths).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "interfaces/tests/test_host.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/teplug.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug {
namespace {

std::vector<std::string> g_plugins;  // runfiles paths from argv

// Feature bits each minor knows, per interface.
uint32_t QuantizerBitsKnownAt(uint32_t abi) {
  uint32_t bits = TEPLUG_QUANT_CAP_COLUMNWISE | TEPLUG_QUANT_CAP_DEQUANTIZE |
                  TEPLUG_QUANT_CAP_CURRENT_SCALING | TEPLUG_QUANT_CAP_DELAYED_SCALING;
  if (abi >= TEPLUG_ABI_VERSION(1, 3)) bits |= TEPLUG_QUANT_CAP_MX_TE_SCALE;
  return bits;
}
uint32_t NormBitsKnownAt(uint32_t abi) {
  uint32_t bits = TEPLUG_NORM_CAP_BACKWARD | TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA;
  if (abi >= TEPLUG_ABI_VERSION(1, 3)) bits |= TEPLUG_NORM_CAP_MX_TE_SCALE;
  return bits;
}

TEST(OlderHost, ProvidersDeclareOnlyBitsTheHostKnows) {
  ASSERT_FALSE(g_plugins.empty()) << "no plugins given";
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  ASSERT_NE(runfiles, nullptr) << error;
  for (const std::string& plugin : g_plugins) {
    for (uint32_t abi : {TEPLUG_ABI_VERSION(1, 0), TEPLUG_ABI_VERSION(1, 1),
                         TEPLUG_ABI_VERSION(1, 2), TEPLUG_ABI_VERSION_CURRENT}) {
      SCOPED_TRACE(plugin + " in a host of ABI " + std::to_string(TEPLUG_ABI_MAJOR(abi)) + "." +
                   std::to_string(TEPLUG_ABI_MINOR(abi)));
      testing::TestHost host(TEPLUG_ABI_VERSION(1, 0), abi);
      sdk::OwnedError e = host.Load(runfiles->Rlocation(plugin));
      ASSERT_TRUE(e.ok()) << e.message();
      int quantizers = 0;
      for (const testing::Recorded& r : host.recorded) {
        if (sdk::SameIid(r.desc.iid, sdk::kIidQuantizerV1)) {
          ++quantizers;
          const uint32_t features =
              static_cast<const TeplugQuantizerCaps*>(r.desc.capability)->features;
          EXPECT_EQ(features & ~QuantizerBitsKnownAt(abi), 0u) << r.name;
          if (abi == TEPLUG_ABI_VERSION_CURRENT) {
            EXPECT_NE(features & TEPLUG_QUANT_CAP_MX_TE_SCALE, 0u) << r.name;
          }
        } else if (sdk::SameIid(r.desc.iid, sdk::kIidNormV1)) {
          const uint32_t features = static_cast<const TeplugNormCaps*>(r.desc.capability)->features;
          EXPECT_EQ(features & ~NormBitsKnownAt(abi), 0u) << r.name;
          if (abi == TEPLUG_ABI_VERSION_CURRENT) {
            EXPECT_NE(features & TEPLUG_NORM_CAP_MX_TE_SCALE, 0u) << r.name;
          }
        }
      }
      EXPECT_EQ(quantizers, 1) << "every provider here serves IQuantizer";
    }
  }
}

}  // namespace
}  // namespace teplug

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) teplug::g_plugins.push_back(argv[i]);
  return RUN_ALL_TESTS();
}
