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

// Runs an entry function directly (TestHost::Run) and records its
// registrations; the same host the ABI tests use to load a .so.
using DirectHost = teplug::testing::TestHost;

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
