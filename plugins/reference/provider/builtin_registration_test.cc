// Linking //plugins/reference:builtin registers "reference" with the core's
// built-in list, pointing at the same entry function the plugin forwards to.
#include <string>

#include "core/builtin/builtin_providers.h"
#include "gtest/gtest.h"
#include "plugins/reference/provider/reference_entry.h"

namespace {

TEST(BuiltinRegistrationTest, ReferenceIsRegisteredWithItsEntry) {
  int found = 0;
  for (const auto& p : teplug::core::BuiltinProviders()) {
    if (p.label != "reference") continue;
    ++found;
    EXPECT_EQ(p.entry, &teplug_reference_entry);
  }
  EXPECT_EQ(found, 1);
}

}  // namespace
