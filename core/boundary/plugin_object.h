// References the host holds on plugin objects. `add_ref` and `release` are
// plugin code like any other method: they run inside GuardPluginCall, so a
// C++ exception escaping them is reported instead of ending the process
// (the SDK's Ref calls them as functions that cannot throw, which is right
// for a plugin's own objects and wrong for a host facing any plugin).
#ifndef TEPLUG_CORE_BOUNDARY_PLUGIN_OBJECT_H_
#define TEPLUG_CORE_BOUNDARY_PLUGIN_OBJECT_H_

#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "teplug/abi_base.h"

namespace teplug::core {

// Calls `object`'s add_ref. Returns false, with *failure set to what
// escaped, when it threw (the reference is then not counted as taken).
bool AddPluginReference(TeplugObject* object, absl::string_view who, std::string* failure) noexcept;

// Calls `object`'s release. An exception escaping it is written to stderr
// as one escaped ERROR line naming `who` (there may be no kernel logger left
// when the last reference goes), and the reference counts as released.
void ReleasePluginReference(TeplugObject* object, absl::string_view who) noexcept;

// One reference on a plugin object, released (through
// ReleasePluginReference) when the holder goes away. Move-only: the host
// never needs two of its own references on one object.
class PluginObjectRef {
 public:
  PluginObjectRef() = default;
  // Takes a new reference (add_ref). When add_ref throws the result is
  // empty and *failure says why.
  static PluginObjectRef Share(TeplugObject* object, std::string who, std::string* failure);

  PluginObjectRef(PluginObjectRef&& other) noexcept
      : object_(std::exchange(other.object_, nullptr)), who_(std::move(other.who_)) {}
  PluginObjectRef& operator=(PluginObjectRef&& other) noexcept {
    if (this != &other) {
      Reset();
      object_ = std::exchange(other.object_, nullptr);
      who_ = std::move(other.who_);
    }
    return *this;
  }
  PluginObjectRef(const PluginObjectRef&) = delete;
  PluginObjectRef& operator=(const PluginObjectRef&) = delete;
  ~PluginObjectRef() { Reset(); }

  TeplugObject* get() const { return object_; }
  TeplugObject* operator->() const { return object_; }
  explicit operator bool() const { return object_ != nullptr; }
  // Releases the reference now (no-op when empty).
  void Reset() noexcept;

 private:
  PluginObjectRef(TeplugObject* object, std::string who) : object_(object), who_(std::move(who)) {}

  TeplugObject* object_ = nullptr;
  std::string who_;  // names the object in the message when release throws
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_BOUNDARY_PLUGIN_OBJECT_H_
