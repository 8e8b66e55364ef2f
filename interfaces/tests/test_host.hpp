// A minimal host for the ABI's own tests: dlopens a plugin, calls its entry
// with a registrar that records registrations, and offers the objects. The
// real host (core/) adds staging, selection and policy; this one exists so the
// contract can be tested without the core.
#ifndef TEPLUG_INTERFACES_TESTS_TEST_HOST_HPP_
#define TEPLUG_INTERFACES_TESTS_TEST_HOST_HPP_

#include <dlfcn.h>

#include <string>
#include <vector>

#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/ref.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "teplug/teplug.h"

namespace teplug::testing {

struct Recorded {
  TeplugImplementationDesc desc;  // as read with ReadVersioned
  std::string name;
  sdk::Ref<TeplugObject> object;
};

class TestHost {
 public:
  TestHost(uint32_t abi_min = TEPLUG_ABI_VERSION_CURRENT,
           uint32_t abi_max = TEPLUG_ABI_VERSION_CURRENT) {
    registrar_.self.struct_size = sizeof(TeplugRegistrar);
    registrar_.self.register_implementation = &RegisterThunk;
    registrar_.host = this;
    api_ = sdk::Versioned<TeplugHostApi>();
    api_.abi_min = abi_min;
    api_.abi_max = abi_max;
    api_.log_ctx = this;
    api_.log = &LogThunk;
    api_.registrar = &registrar_.self;
    info_ = sdk::Versioned<TeplugPluginInfo>();
  }
  ~TestHost() {
    recorded.clear();  // release objects before unloading their code
    if (handle_ != nullptr) dlclose(handle_);
  }

  // Loads `path` and runs its entry. Returns the entry's error (empty on success).
  sdk::OwnedError Load(const std::string& path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      return sdk::OwnedError(teplug_error_create(TEPLUG_NOT_FOUND, dlerror()));
    }
    auto entry = reinterpret_cast<TeplugPluginEntryFn>(dlsym(handle_, TEPLUG_PLUGIN_ENTRY_SYMBOL));
    if (entry == nullptr) {
      return sdk::OwnedError(teplug_error_create(TEPLUG_NOT_FOUND, "no teplug_plugin_entry"));
    }
    api_.plugin_path = path.c_str();
    return sdk::OwnedError(entry(&api_, &info_));
  }

  // Runs an entry function linked into this binary (a built-in provider's
  // entry) the same way, without dlopen. Returns the entry's error.
  sdk::OwnedError Run(TeplugPluginEntryFn entry) {
    api_.plugin_path = "built-in";
    return sdk::OwnedError(entry(&api_, &info_));
  }

  const TeplugPluginInfo& info() const { return info_; }
  std::vector<Recorded> recorded;
  std::vector<std::string> log_lines;

 private:
  struct RegistrarBox {
    TeplugRegistrar self;  // first: the plugin sees a TeplugRegistrar*
    TestHost* host;
  };
  static TeplugError* RegisterThunk(TeplugRegistrar* self, const TeplugImplementationDesc* d) {
    TestHost* host = reinterpret_cast<RegistrarBox*>(self)->host;
    Recorded r;
    if (!sdk::ReadVersioned(d, &r.desc, TEPLUG_STRUCT_SIZE(TeplugImplementationDesc, priority))) {
      return teplug_error_create(TEPLUG_ABI_MISMATCH, "TeplugImplementationDesc too small");
    }
    // Like the core: an interface this host does not serve is UNSUPPORTED.
    if (sdk::IidName(r.desc.iid) == nullptr || sdk::SameIid(r.desc.iid, sdk::kIidObject)) {
      return teplug_error_create(TEPLUG_UNSUPPORTED, "unknown interface id; registration skipped");
    }
    if (r.desc.object == nullptr || r.desc.capability == nullptr) {
      return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "object and capability are required");
    }
    r.name = r.desc.name ? r.desc.name : "default";
    r.object = sdk::Ref<TeplugObject>::Share(r.desc.object);
    host->recorded.push_back(std::move(r));
    return nullptr;
  }
  static void LogThunk(void* ctx, int32_t level, const char* message) {
    static_cast<TestHost*>(ctx)->log_lines.push_back(std::to_string(level) + ": " + message);
  }

  RegistrarBox registrar_{};
  TeplugHostApi api_;
  TeplugPluginInfo info_;
  void* handle_ = nullptr;
};

}  // namespace teplug::testing

#endif  // TEPLUG_INTERFACES_TESTS_TEST_HOST_HPP_
