#include "core/boundary/plugin_object.h"

#include <cstdio>

#include "core/boundary/plugin_call.h"

namespace teplug::core {

bool AddPluginReference(TeplugObject* object, absl::string_view who, std::string* failure) noexcept {
  return GuardPluginCall({who, "add_ref"}, [&] { object->vtbl->add_ref(object); }, failure);
}

void ReleasePluginReference(TeplugObject* object, absl::string_view who) noexcept {
  std::string failure;
  if (GuardPluginCall({who, "release"}, [&] { object->vtbl->release(object); }, &failure)) return;
  // `failure` is escaped text (DescribeCurrentException); `who` is a name the
  // loader validated.
  std::fprintf(stderr, "teplug ERROR: %s; the reference is counted as released\n", failure.c_str());
}

PluginObjectRef PluginObjectRef::Share(TeplugObject* object, std::string who, std::string* failure) {
  if (!AddPluginReference(object, who, failure)) return PluginObjectRef();
  return PluginObjectRef(object, std::move(who));
}

void PluginObjectRef::Reset() noexcept {
  if (TeplugObject* object = std::exchange(object_, nullptr)) ReleasePluginReference(object, who_);
}

}  // namespace teplug::core
