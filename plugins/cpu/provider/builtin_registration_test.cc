// Linking //plugins/cpu:builtin registers "cpu" with the core's built-in
// list, pointing at the same entry function the plugin forwards to.
#include <string>

#include "core/builtin/builtin_providers.h"
#include "gtest/gtest.h"
#include "plugins/cpu/provider/cpu_entry.h"

namespace {

TEST(CpuBuiltinRegistrationTest, CpuIsRegisteredWithItsEntry) {
  int found = 0;
  for (const auto& p : teplug::core::BuiltinProviders()) {
    if (p.label != "cpu") continue;
    ++found;
    EXPECT_EQ(p.entry, &teplug_cpu_entry);
  }
  EXPECT_EQ(found, 1);
}

}  // namespace
