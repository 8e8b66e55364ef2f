// Proves teplug_plugin builds a loadable shared library exporting only
// teplug_plugin_entry: the helper, though extern "C", is not visible to dlsym.
#include <dlfcn.h>

#include <cstdint>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace {

using bazel::tools::cpp::runfiles::Runfiles;

TEST(PluginExportsTest, OnlyTheEntrySymbolIsExported) {
  std::string error;
  std::unique_ptr<Runfiles> runfiles(Runfiles::CreateForTest(&error));
  ASSERT_NE(runfiles, nullptr) << error;
  const std::string path =
      runfiles->Rlocation("teplug/tools/bazel/tests/libteplug_export_probe.so");
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();

  using Entry = int32_t (*)(int32_t);
  auto entry = reinterpret_cast<Entry>(dlsym(handle, "teplug_plugin_entry"));
  ASSERT_NE(entry, nullptr) << "teplug_plugin_entry not exported from " << path;
  EXPECT_EQ(entry(5), 16);
  EXPECT_EQ(dlsym(handle, "teplug_export_probe_hidden_helper"), nullptr)
      << "the version script should hide every symbol but the entry";
  dlclose(handle);
}

}  // namespace
