// teplug/sdk/ref.hpp — RAII reference to a COM-style teplug object, for hosts
// and plugins alike: copying adds a reference, destruction releases one.
#ifndef TEPLUG_SDK_REF_HPP_
#define TEPLUG_SDK_REF_HPP_

#include <utility>

#include "teplug/abi_base.h"

namespace teplug::sdk {

// T is an interface struct whose first member is `vtbl`, whose first member is
// a TeplugObjectVtbl `base` (TeplugGemmV1, TeplugAttentionV1, ...), or
// TeplugObject itself.
template <class T>
class Ref {
 public:
  Ref() = default;
  // Adopts a reference the caller already owns (e.g. from query_interface).
  static Ref Adopt(T* p) noexcept { return Ref(p); }
  // Adds a reference to a borrowed pointer.
  static Ref Share(T* p) noexcept {
    if (p != nullptr) Base(p)->vtbl->add_ref(Base(p));
    return Ref(p);
  }
  Ref(const Ref& o) noexcept : p_(o.p_) {
    if (p_ != nullptr) Base(p_)->vtbl->add_ref(Base(p_));
  }
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~Ref() { reset(); }

  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  // Gives the caller the reference.
  T* release() noexcept { return std::exchange(p_, nullptr); }
  void reset() noexcept {
    if (T* p = std::exchange(p_, nullptr)) Base(p)->vtbl->release(Base(p));
  }

  // Asks for another interface of the same object; empty if the object does not expose it.
  template <class U>
  Ref<U> Query(const TeplugIID& iid) const noexcept {
    if (p_ == nullptr) return Ref<U>();
    TeplugObject* o = Base(p_)->vtbl->query_interface(Base(p_), &iid);
    return Ref<U>::Adopt(reinterpret_cast<U*>(o));
  }

  // The object viewed through its base table (every interface starts with it).
  static TeplugObject* Base(T* p) noexcept { return reinterpret_cast<TeplugObject*>(p); }

 private:
  explicit Ref(T* p) noexcept : p_(p) {}
  T* p_ = nullptr;
};

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_REF_HPP_
