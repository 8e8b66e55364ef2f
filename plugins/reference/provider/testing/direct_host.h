// Test support: runs an entry function directly (no dlopen) with a registrar
// that records what was registered, and hands out the registered objects by
// interface: how the built-in registration is exercised without the core.
// Also finds libteplug_reference.so in the runfiles for the plugin path.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_DIRECT_HOST_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_DIRECT_HOST_H_

#include <string>
#include <vector>

#include "interfaces/tests/test_host.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/ref.hpp"
#include "teplug/teplug.h"

namespace teplug::reference::provider::testing {

class DirectHost {
 public:
  DirectHost();
  DirectHost(const DirectHost&) = delete;
  DirectHost& operator=(const DirectHost&) = delete;

  // Calls `entry` once; returns its error (empty on success).
  sdk::OwnedError Run(TeplugPluginEntryFn entry);

  const TeplugPluginInfo& info() const { return info_; }
  std::vector<teplug::testing::Recorded> recorded;

 private:
  struct RegistrarBox {
    TeplugRegistrar self;  // first: the entry sees a TeplugRegistrar*
    DirectHost* host;
  };
  static TeplugError* RegisterThunk(TeplugRegistrar* self, const TeplugImplementationDesc* d);

  RegistrarBox registrar_{};
  TeplugHostApi api_;
  TeplugPluginInfo info_;
};

// The registered object for `iid` viewed as interface `T` (nullptr if none).
template <class T>
T* Find(std::vector<teplug::testing::Recorded>& recorded, const TeplugIID& iid) {
  for (auto& r : recorded) {
    if (teplug_iid_equal(&r.desc.iid, &iid)) return reinterpret_cast<T*>(r.object.get());
  }
  return nullptr;
}

// The registration of `iid` (nullptr if none).
const teplug::testing::Recorded* FindRecord(const std::vector<teplug::testing::Recorded>& recorded,
                                            const TeplugIID& iid);

// Absolute path of //plugins/reference:libteplug_reference.so in the runfiles.
std::string ReferencePluginPath();

}  // namespace teplug::reference::provider::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_DIRECT_HOST_H_
