// teplug/sdk/binding.hpp — glue between a C++ implementation class and the C
// object layout: the object header the ABI sees, reference counting, and the
// base-table thunks. Interface-specific tables are in implement.hpp.
#ifndef TEPLUG_SDK_BINDING_HPP_
#define TEPLUG_SDK_BINDING_HPP_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "teplug/abi_base.h"
#include "teplug/capability.h"
#include "teplug/sdk/error.hpp"

namespace teplug::sdk {

// Base of every C++ implementation. Override QueryOther to expose further
// interfaces (e.g. IAttention v2 beside v1) from the same object.
class ImplementationBase {
 public:
  virtual ~ImplementationBase() = default;
  // Returns an add_ref'd object for `iid`, or nullptr. Called only for IIDs
  // other than the one the object was created for and the base object IID.
  virtual TeplugObject* QueryOther(const TeplugIID& iid) {
    (void)iid;
    return nullptr;
  }
};

// The object the ABI sees: `iface` must be the first member (the C code casts
// between TeplugXxxV1* and Binding*), so Binding is standard-layout.
template <class CIface>
struct Binding {
  CIface iface;  // { const Vtbl* vtbl; }
  std::atomic<uint32_t> refs;
  TeplugIID iid;
  ImplementationBase* impl;

  static Binding* From(CIface* self) noexcept { return reinterpret_cast<Binding*>(self); }
  static Binding* FromObject(TeplugObject* self) noexcept { return reinterpret_cast<Binding*>(self); }

  static TeplugObject* QueryInterface(TeplugObject* self, const TeplugIID* iid) noexcept {
    static const TeplugIID kObject = TEPLUG_IID_OBJECT_INIT;
    Binding* b = FromObject(self);
    if (iid == nullptr) return nullptr;
    if (teplug_iid_equal(iid, &b->iid) || teplug_iid_equal(iid, &kObject)) {
      AddRef(self);
      return self;
    }
    try {
      return b->impl->QueryOther(*iid);
    } catch (...) {  // query_interface has no error channel: answer "not exposed"
      return nullptr;
    }
  }
  static uint32_t AddRef(TeplugObject* self) noexcept {
    return FromObject(self)->refs.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  static uint32_t Release(TeplugObject* self) noexcept {
    Binding* b = FromObject(self);
    uint32_t left = b->refs.fetch_sub(1, std::memory_order_acq_rel) - 1;
    if (left == 0) {
      delete b->impl;
      delete b;
    }
    return left;
  }
  static TeplugObjectVtbl BaseTable(size_t whole_table_size) noexcept {
    TeplugObjectVtbl t;
    t.struct_size = whole_table_size;
    t.query_interface = &QueryInterface;
    t.add_ref = &AddRef;
    t.release = &Release;
    return t;
  }
  // Wraps `impl` (ownership taken) as a C object with one reference.
  static CIface* Create(std::unique_ptr<ImplementationBase> impl, const TeplugIID& iid,
                        const decltype(CIface::vtbl) vtbl) {
    auto* b = new Binding{};
    b->iface.vtbl = vtbl;
    b->refs.store(1, std::memory_order_relaxed);
    b->iid = iid;
    b->impl = impl.release();
    return &b->iface;
  }
};

// Runs a `supports` query on the C++ side and writes the reason contract:
// when the answer is no, a non-empty NUL-terminated reason is always written.
template <class Fn>
TeplugBool RunSupports(Fn&& fn, char* reason, size_t reason_size) noexcept {
  std::string why;
  bool yes = false;
  try {
    yes = fn(&why);
  } catch (const std::exception& e) {
    yes = false;
    why = std::string("supports() threw: ") + e.what();
  } catch (...) {
    yes = false;
    why = "supports() threw a non-standard exception";
  }
  if (yes) return 1;
  if (why.empty()) why = "declined by the implementation (no reason given)";
  if (reason != nullptr && reason_size > 0) {
    size_t n = why.size() < reason_size - 1 ? why.size() : reason_size - 1;
    std::memcpy(reason, why.data(), n);
    reason[n] = '\0';
  }
  return 0;
}

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_BINDING_HPP_
