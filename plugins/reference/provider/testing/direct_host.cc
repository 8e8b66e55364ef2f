#include "plugins/reference/provider/testing/direct_host.h"

#include <memory>

#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::reference::provider::testing {

DirectHost::DirectHost() {
  registrar_.self.struct_size = sizeof(TeplugRegistrar);
  registrar_.self.register_implementation = &RegisterThunk;
  registrar_.host = this;
  api_ = sdk::Versioned<TeplugHostApi>();
  api_.abi_min = TEPLUG_ABI_VERSION_CURRENT;
  api_.abi_max = TEPLUG_ABI_VERSION_CURRENT;
  api_.registrar = &registrar_.self;
  info_ = sdk::Versioned<TeplugPluginInfo>();
}

sdk::OwnedError DirectHost::Run(TeplugPluginEntryFn entry) {
  return sdk::OwnedError(entry(&api_, &info_));
}

TeplugError* DirectHost::RegisterThunk(TeplugRegistrar* self, const TeplugImplementationDesc* d) {
  DirectHost* host = reinterpret_cast<RegistrarBox*>(self)->host;
  teplug::testing::Recorded r;
  if (!sdk::ReadVersioned(d, &r.desc, TEPLUG_STRUCT_SIZE(TeplugImplementationDesc, priority))) {
    return teplug_error_create(TEPLUG_ABI_MISMATCH, "TeplugImplementationDesc too small");
  }
  if (r.desc.object == nullptr || r.desc.capability == nullptr) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "object and capability are required");
  }
  r.name = r.desc.name ? r.desc.name : "default";
  r.object = sdk::Ref<TeplugObject>::Share(r.desc.object);
  host->recorded.push_back(std::move(r));
  return nullptr;
}

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
