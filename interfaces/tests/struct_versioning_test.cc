// Append-only evolution: a reader must accept a writer built against an older,
// shorter version of a struct (missing fields read as their zero default) and
// a newer writer whose structs carry extra trailing fields (ignored). Both are
// simulated here with prefix/extended copies of the v1 structs.
#include <cstring>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "teplug/sdk/implement.hpp"
#include "teplug/sdk/plugin.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace {

using teplug::sdk::ReadVersioned;
using teplug::sdk::Versioned;

// What TeplugGemmCaps looked like if `alignment` and `max_dim` had been added
// in a later minor version: an older plugin compiled this.
struct OlderGemmCaps {
  size_t struct_size;
  const TeplugDeviceSupport* devices;
  size_t num_devices;
  uint64_t a_dtypes;
  uint64_t b_dtypes;
  uint64_t d_dtypes;
  uint32_t epilogues;
  uint32_t scaling_modes;
};

// A newer plugin's view: v1 plus fields this host has never heard of.
struct NewerGemmCaps {
  TeplugGemmCaps v1;
  int64_t future_min_k;
  const char* future_note;
};

TEST(StructVersioningTest, OlderShorterStructReadsMissingFieldsAsDefaults) {
  OlderGemmCaps old{};
  old.struct_size = sizeof(OlderGemmCaps);
  old.a_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16);
  old.epilogues = TEPLUG_GEMM_CAP_BIAS;
  old.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR);
  // Memory after the old struct holds garbage that must never be read.
  struct {
    OlderGemmCaps caps;
    unsigned char garbage[64];
  } block;
  block.caps = old;
  std::memset(block.garbage, 0xAB, sizeof block.garbage);

  TeplugGemmCaps read;
  ASSERT_TRUE(ReadVersioned(reinterpret_cast<const TeplugGemmCaps*>(&block.caps), &read,
                            TEPLUG_STRUCT_SIZE(TeplugGemmCaps, scaling_modes)));
  EXPECT_EQ(read.struct_size, sizeof(OlderGemmCaps));
  EXPECT_EQ(read.a_dtypes, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_BF16));
  EXPECT_EQ(read.scaling_modes, TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR));
  EXPECT_EQ(read.alignment, 0) << "missing field must read as its default, not garbage";
  EXPECT_EQ(read.max_dim, 0);
  EXPECT_FALSE(TEPLUG_HAS_FIELD(&read, TeplugGemmCaps, alignment));
  EXPECT_TRUE(TEPLUG_HAS_FIELD(&read, TeplugGemmCaps, scaling_modes));
}

// A field of a later minor read in place: its value when the writer's
// struct holds it, the fallback when the struct ends before it (whatever
// bytes lie there).
TEST(StructVersioningTest, FieldOrReadsALaterFieldOnlyWhenTheStructHoldsIt) {
  TeplugQuantizeArgs args = teplug::sdk::Versioned<TeplugQuantizeArgs>();
  args.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE;
  EXPECT_EQ(TEPLUG_FIELD_OR(args, TeplugQuantizeArgs, mx_scale_rule, TEPLUG_MX_SCALE_OCP),
            TEPLUG_MX_SCALE_TRANSFORMER_ENGINE);
  args.struct_size = TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, mx_scale_rule);
  EXPECT_EQ(TEPLUG_FIELD_OR(args, TeplugQuantizeArgs, mx_scale_rule, TEPLUG_MX_SCALE_OCP),
            TEPLUG_MX_SCALE_TRANSFORMER_ENGINE);
  args.struct_size = TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, stream);  // a v1.0 writer
  EXPECT_EQ(TEPLUG_FIELD_OR(args, TeplugQuantizeArgs, mx_scale_rule, TEPLUG_MX_SCALE_OCP),
            TEPLUG_MX_SCALE_OCP);
}

TEST(StructVersioningTest, TooShortForTheRequiredFieldsIsRefused) {
  OlderGemmCaps old{};
  old.struct_size = TEPLUG_STRUCT_SIZE(TeplugGemmCaps, num_devices);
  TeplugGemmCaps read;
  EXPECT_FALSE(ReadVersioned(reinterpret_cast<const TeplugGemmCaps*>(&old), &read,
                             TEPLUG_STRUCT_SIZE(TeplugGemmCaps, scaling_modes)));
  EXPECT_FALSE(ReadVersioned<TeplugGemmCaps>(nullptr, &read));
}

TEST(StructVersioningTest, NewerStructWithTrailingFieldsIsAccepted) {
  NewerGemmCaps newer{};
  newer.v1 = Versioned<TeplugGemmCaps>();
  newer.v1.struct_size = sizeof(NewerGemmCaps);
  newer.v1.d_dtypes = TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16);
  newer.v1.max_dim = 1 << 20;
  newer.future_min_k = 64;
  TeplugGemmCaps read;
  ASSERT_TRUE(ReadVersioned(&newer.v1, &read, TEPLUG_STRUCT_SIZE(TeplugGemmCaps, max_dim)));
  EXPECT_EQ(read.struct_size, sizeof(TeplugGemmCaps)) << "capped at what this reader knows";
  EXPECT_EQ(read.d_dtypes, TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP16));
  EXPECT_EQ(read.max_dim, 1 << 20);
}

// A plugin-side implementation built with this SDK receives args from a newer
// host (extra trailing fields): it must serve the call.
class EchoGemm : public teplug::sdk::GemmImpl {
 public:
  explicit EchoGemm(float* seen_alpha) : seen_alpha_(seen_alpha) {}
  void Gemm(const TeplugGemmArgs& args) override { *seen_alpha_ = args.alpha; }

 private:
  float* seen_alpha_;
};

TEST(StructVersioningTest, ImplementationAcceptsArgsFromANewerHost) {
  float seen = 0;
  TeplugGemmV1* gemm = teplug::sdk::MakeGemm(std::make_unique<EchoGemm>(&seen));
  struct {
    TeplugGemmArgs v1;
    int64_t future_field;
  } newer{};
  newer.v1 = Versioned<TeplugGemmArgs>();
  newer.v1.struct_size = sizeof(newer);
  newer.v1.alpha = 2.5f;
  newer.future_field = -1;
  teplug::sdk::OwnedError err(gemm->vtbl->gemm(gemm, &newer.v1));
  EXPECT_TRUE(err.ok()) << err.message();
  EXPECT_EQ(seen, 2.5f);
  gemm->vtbl->base.release(reinterpret_cast<TeplugObject*>(gemm));
}

// An older host passes a shorter TeplugPluginInfo: the SDK entry writes only
// the fields that fit, never past struct_size.
TEST(StructVersioningTest, EntryWritesOnlyTheInfoFieldsAnOlderHostHas) {
  struct {
    TeplugPluginInfo info;
  } block;
  std::memset(&block, 0xCD, sizeof block);
  block.info.struct_size = TEPLUG_STRUCT_SIZE(TeplugPluginInfo, version);
  TeplugHostApi api = Versioned<TeplugHostApi>();
  api.abi_min = api.abi_max = TEPLUG_ABI_VERSION_CURRENT;
  TeplugRegistrar registrar{sizeof(TeplugRegistrar),
                            [](TeplugRegistrar*, const TeplugImplementationDesc*) -> TeplugError* {
                              return nullptr;
                            }};
  api.registrar = &registrar;
  teplug::sdk::OwnedError err(teplug::sdk::RunPluginEntry(
      &api, &block.info, "p", "v", "1", TEPLUG_ABI_VERSION_CURRENT, TEPLUG_ABI_VERSION_CURRENT,
      [](teplug::sdk::Registrar&) {}));
  EXPECT_TRUE(err.ok()) << err.message();
  EXPECT_STREQ(block.info.name, "p");
  EXPECT_STREQ(block.info.version, "1");
  uint32_t untouched;
  std::memset(&untouched, 0xCD, sizeof untouched);
  EXPECT_EQ(block.info.abi_min, untouched) << "abi_min lies beyond the older struct_size";
  EXPECT_EQ(block.info.abi_max, untouched);
}

}  // namespace
