#include "plugins/reference/provider/testing/direct_host.h"

#include <memory>

#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::reference::provider::testing {

const teplug::testing::Recorded* FindRecord(const std::vector<teplug::testing::Recorded>& recorded,
                                            const TeplugIID& iid) {
  for (const auto& r : recorded) {
    if (teplug_iid_equal(&r.desc.iid, &iid)) return &r;
  }
  return nullptr;
}

std::string ReferencePluginPath() {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  if (runfiles == nullptr) return "runfiles unavailable: " + error;
  return runfiles->Rlocation("teplug/plugins/reference/libteplug_reference.so");
}

}  // namespace teplug::reference::provider::testing
