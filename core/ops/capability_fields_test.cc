// CapabilityFields lists every field of a descriptor through its module's
// table: the device list, sets by the names of their bits, limits with what
// 0 means, reserved fields left out; Text() is how `teplug list` prints them.
#include "core/ops/capability_fields.h"

#include <string>
#include <vector>

#include "core/ops/gemm.h"
#include "core/ops/interface_module.h"
#include "core/ops/norm.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Names(const std::vector<CapabilityField>& fields) {
  std::vector<std::string> out;
  for (const CapabilityField& f : fields) out.push_back(f.name);
  return out;
}

TEST(CapabilityFieldsTest, EveryGemmFieldWithItsValue) {
  TeplugGemmCaps c = sdk::Versioned<TeplugGemmCaps>();
  c.a_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32) | TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  c.b_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  c.d_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  c.epilogues = TEPLUG_GEMM_CAP_GELU_AUX | TEPLUG_GEMM_CAP_ACCUMULATE;
  c.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
  c.alignment = 16;
  c.max_dim = 0;
  Capability cap;
  cap.module = &GemmModule();
  cap.Set(c);
  cap.devices.push_back({sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, 0, 0, 0});
  const std::vector<CapabilityField> fields = CapabilityFields(cap);
  ASSERT_THAT(Names(fields), ElementsAre("devices", "a_dtypes", "b_dtypes", "d_dtypes", "epilogues",
                                         "scaling_modes", "alignment", "max_dim"));
  EXPECT_EQ(fields[0].Text(), "cpu");
  EXPECT_THAT(fields[1].members, ElementsAre("fp32", "bf16"));
  EXPECT_THAT(fields[4].members, ElementsAre("gelu_aux", "accumulate"));
  EXPECT_EQ(fields[5].Text(), "mxfp8_1d32");
  EXPECT_FALSE(fields[6].is_set);
  EXPECT_EQ(fields[6].number, 16);
  EXPECT_EQ(fields[6].Text(), "16");
  EXPECT_EQ(fields[7].Text(), "0 (unbounded)");
}

TEST(CapabilityFieldsTest, EmptySetsReadNoneAndReservedFieldsAreLeftOut) {
  TeplugNormCaps c = sdk::Versioned<TeplugNormCaps>();
  c.input_dtypes = c.weight_dtypes = c.output_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32);
  c.norm_types = TEPLUG_NORM_TYPE_BIT(TEPLUG_NORM_RMSNORM);
  c.hidden_max = 8192;
  Capability cap;
  cap.module = &NormModule();
  cap.Set(c);
  const std::vector<CapabilityField> fields = CapabilityFields(cap);
  ASSERT_THAT(Names(fields), ElementsAre("devices", "input_dtypes", "weight_dtypes", "output_dtypes",
                                         "norm_types", "scaling_modes", "features", "hidden_min",
                                         "hidden_max", "hidden_multiple"));
  EXPECT_EQ(fields[0].Text(), "none");  // no devices
  EXPECT_EQ(fields[4].Text(), "rmsnorm");
  EXPECT_EQ(fields[6].Text(), "none");
  EXPECT_EQ(fields[7].Text(), "0 (no bound)");
  EXPECT_EQ(fields[8].Text(), "8192");
  EXPECT_EQ(fields[9].Text(), "0 (any)");
}

// The compile-time check that a table names every byte of its struct.
struct TwoFieldCaps {
  size_t struct_size;
  const void* devices;
  size_t num_devices;
  uint64_t dtypes;
  int64_t limit;
};
constexpr CapsField kComplete[] = {DTypesCapsField("dtypes", offsetof(TwoFieldCaps, dtypes)),
                                   LimitCapsField("limit", offsetof(TwoFieldCaps, limit), "")};
constexpr CapsField kMissingOne[] = {DTypesCapsField("dtypes", offsetof(TwoFieldCaps, dtypes))};
constexpr CapsField kOverlapping[] = {DTypesCapsField("dtypes", offsetof(TwoFieldCaps, dtypes)),
                                      LimitCapsField("again", offsetof(TwoFieldCaps, dtypes), "")};
static_assert(CoversDescriptor<TwoFieldCaps>(kComplete));
static_assert(!CoversDescriptor<TwoFieldCaps>(kMissingOne));
static_assert(!CoversDescriptor<TwoFieldCaps>(kOverlapping));

}  // namespace
}  // namespace teplug::core
