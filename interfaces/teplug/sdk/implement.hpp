// teplug/sdk/implement.hpp — implement a teplug interface as a C++ class.
//
//   class MyGemm : public teplug::sdk::GemmImpl {
//     void Gemm(const TeplugGemmArgs& args) override { ... throw on error ... }
//   };
//   TeplugGemmV1* obj = teplug::sdk::MakeGemm(std::make_unique<MyGemm>());
//
// The SDK provides the function table, reference counting, struct_size
// checks on incoming args (a too-small struct is an ABI_MISMATCH error naming
// the struct) and exception-to-status conversion.
#ifndef TEPLUG_SDK_IMPLEMENT_HPP_
#define TEPLUG_SDK_IMPLEMENT_HPP_

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "teplug/attention.h"
#include "teplug/collective.h"
#include "teplug/device.h"
#include "teplug/gemm.h"
#include "teplug/norm.h"
#include "teplug/quantizer.h"
#include "teplug/sdk/binding.hpp"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::sdk {

// Copies a caller's versioned args struct, requiring every field up to
// `min_size` (the v1 layout). Throws ABI_MISMATCH naming the struct otherwise.
template <class T>
T RequireArgs(const T* p, size_t min_size, const char* name) {
  T out;
  if (p == nullptr) throw Exception(TEPLUG_INVALID_ARGUMENT, std::string(name) + " is NULL");
  if (!ReadVersioned(p, &out, min_size)) {
    throw Exception(TEPLUG_ABI_MISMATCH, std::string(name) + ".struct_size " +
                                             std::to_string(p->struct_size) + " < required " +
                                             std::to_string(min_size));
  }
  return out;
}

// The caller's args for a `supports` query, after RequireArgs' checks. A
// struct of exactly sizeof(T) is read in place: RequireArgs' copy of it would
// be byte-identical, and selection asks every candidate's hook, so the copy
// would be paid once per candidate. A shorter struct (zero-extended) or a
// longer one (struct_size capped) is read from RequireArgs' copy.
template <class T>
class ArgsRef {
 public:
  ArgsRef(const T* p, size_t min_size, const char* name) : ref_(p) {
    if (p == nullptr || p->struct_size != sizeof(T)) {
      copy_ = RequireArgs(p, min_size, name);
      ref_ = &copy_;
    }
  }
  ArgsRef(const ArgsRef&) = delete;
  ArgsRef& operator=(const ArgsRef&) = delete;
  const T& operator*() const { return *ref_; }

 private:
  const T* ref_;
  T copy_;  // written only when read from
};

// ---------------------------------------------------------------- IGemm v1
class GemmImpl : public ImplementationBase {
 public:
  // Return false and set *reason to decline an op the static caps accepted.
  virtual bool Supports(const TeplugGemmArgs& args, std::string* reason) {
    (void)args;
    (void)reason;
    return true;
  }
  virtual size_t WorkspaceSize(const TeplugGemmArgs& args) {
    (void)args;
    return 0;
  }
  virtual void Gemm(const TeplugGemmArgs& args) = 0;
};

namespace internal {
struct GemmThunks {
  using B = Binding<TeplugGemmV1>;
  static GemmImpl* Impl(TeplugGemmV1* s) { return static_cast<GemmImpl*>(B::From(s)->impl); }
  static TeplugBool Supports(TeplugObject* self, int32_t op, const void* args, char* reason,
                             size_t reason_size) noexcept {
    return RunSupports(
        [&](std::string* why) {
          if (op != TEPLUG_OP_GEMM) {
            *why = "IGemm serves only the gemm op";
            return false;
          }
          ArgsRef<TeplugGemmArgs> a(static_cast<const TeplugGemmArgs*>(args),
                                    TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream), "TeplugGemmArgs");
          return Impl(reinterpret_cast<TeplugGemmV1*>(self))->Supports(*a, why);
        },
        reason, reason_size);
  }
  static TeplugError* Workspace(TeplugGemmV1* self, const TeplugGemmArgs* args,
                                size_t* bytes) noexcept {
    return Guard([&] {
      auto a = RequireArgs(args, TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream), "TeplugGemmArgs");
      if (bytes == nullptr) throw InvalidArgument("workspace_size: bytes is NULL");
      *bytes = Impl(self)->WorkspaceSize(a);
    });
  }
  static TeplugError* Run(TeplugGemmV1* self, const TeplugGemmArgs* args) noexcept {
    return Guard([&] {
      Impl(self)->Gemm(
          RequireArgs(args, TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream), "TeplugGemmArgs"));
    });
  }
  static const TeplugGemmV1Vtbl* Table() {
    static const TeplugGemmV1Vtbl t = {B::BaseTable(sizeof(TeplugGemmV1Vtbl)), &Supports,
                                       &Workspace, &Run};
    return &t;
  }
};
}  // namespace internal

inline TeplugGemmV1* MakeGemm(std::unique_ptr<GemmImpl> impl) {
  return Binding<TeplugGemmV1>::Create(std::move(impl), kIidGemmV1, internal::GemmThunks::Table());
}

// ------------------------------------- interfaces with a forward and a backward
// The C++ base of an interface whose ops are one forward and one backward
// (IAttention, INorm): FwdArgs/BwdArgs are its two args structs.
template <class FwdArgs, class BwdArgs>
class ForwardBackwardImpl : public ImplementationBase {
 public:
  virtual bool SupportsForward(const FwdArgs& args, std::string* reason) {
    (void)args;
    (void)reason;
    return true;
  }
  virtual bool SupportsBackward(const BwdArgs& args, std::string* reason) {
    (void)args;
    (void)reason;
    return true;
  }
  virtual size_t ForwardWorkspaceSize(const FwdArgs& args) {
    (void)args;
    return 0;
  }
  virtual size_t BackwardWorkspaceSize(const BwdArgs& args) {
    (void)args;
    return 0;
  }
  virtual void Forward(const FwdArgs& args) = 0;
  virtual void Backward(const BwdArgs& args) = 0;
};

namespace internal {
// The function table of a ForwardBackwardImpl. Traits names the C types
// (CIface, Vtbl, FwdArgs, BwdArgs), the two op numbers (kFwdOp, kBwdOp), the
// v1 sizes of the args structs (kFwdSize, kBwdSize), their names for messages
// (kFwdName, kBwdName) and the interface's name (kInterface).
template <class Traits>
struct ForwardBackwardThunks {
  using CIface = typename Traits::CIface;
  using FwdArgs = typename Traits::FwdArgs;
  using BwdArgs = typename Traits::BwdArgs;
  using Impl = ForwardBackwardImpl<FwdArgs, BwdArgs>;
  using B = Binding<CIface>;
  static Impl* ImplOf(CIface* s) { return static_cast<Impl*>(B::From(s)->impl); }
  // The caller's args copied after the struct_size check (ABI_MISMATCH otherwise).
  static FwdArgs Fwd(const void* args) {
    return RequireArgs(static_cast<const FwdArgs*>(args), Traits::kFwdSize, Traits::kFwdName);
  }
  static BwdArgs Bwd(const void* args) {
    return RequireArgs(static_cast<const BwdArgs*>(args), Traits::kBwdSize, Traits::kBwdName);
  }
  static TeplugBool Supports(TeplugObject* self, int32_t op, const void* args, char* reason,
                             size_t reason_size) noexcept {
    auto* s = reinterpret_cast<CIface*>(self);
    return RunSupports(
        [&](std::string* why) {
          if (op == Traits::kFwdOp) {
            return ImplOf(s)->SupportsForward(*ArgsRef<FwdArgs>(static_cast<const FwdArgs*>(args),
                                                                Traits::kFwdSize, Traits::kFwdName),
                                              why);
          }
          if (op == Traits::kBwdOp) {
            return ImplOf(s)->SupportsBackward(
                *ArgsRef<BwdArgs>(static_cast<const BwdArgs*>(args), Traits::kBwdSize,
                                  Traits::kBwdName),
                why);
          }
          *why = NotAnOp(op);
          return false;
        },
        reason, reason_size);
  }
  // Out of the thunk's way: asked about every candidate, it builds this
  // message only for an op its interface does not have.
  static std::string NotAnOp(int32_t op) {
    return std::string(Traits::kInterface) + " serves only its forward (op " +
           std::to_string(Traits::kFwdOp) + ") and backward (op " + std::to_string(Traits::kBwdOp) +
           "), not op " + std::to_string(op);
  }
  static TeplugError* Workspace(CIface* self, int32_t op, const void* args,
                                size_t* bytes) noexcept {
    return Guard([&] {
      if (bytes == nullptr) throw InvalidArgument("workspace_size: bytes is NULL");
      if (op == Traits::kFwdOp) {
        *bytes = ImplOf(self)->ForwardWorkspaceSize(Fwd(args));
      } else if (op == Traits::kBwdOp) {
        *bytes = ImplOf(self)->BackwardWorkspaceSize(Bwd(args));
      } else {
        throw InvalidArgument("workspace_size: op " + std::to_string(op) + " is not an op of " +
                              Traits::kInterface);
      }
    });
  }
  static TeplugError* Forward(CIface* self, const FwdArgs* a) noexcept {
    return Guard([&] { ImplOf(self)->Forward(Fwd(a)); });
  }
  static TeplugError* Backward(CIface* self, const BwdArgs* a) noexcept {
    return Guard([&] { ImplOf(self)->Backward(Bwd(a)); });
  }
  static const typename Traits::Vtbl* Table() {
    static const typename Traits::Vtbl t = {B::BaseTable(sizeof(typename Traits::Vtbl)),
                                            &Supports, &Workspace, &Forward, &Backward};
    return &t;
  }
};
}  // namespace internal

// ------------------------------------------------------------ IAttention v1
using AttentionImpl = ForwardBackwardImpl<TeplugAttentionFwdArgs, TeplugAttentionBwdArgs>;

namespace internal {
struct AttentionTraits {
  using CIface = TeplugAttentionV1;
  using Vtbl = TeplugAttentionV1Vtbl;
  using FwdArgs = TeplugAttentionFwdArgs;
  using BwdArgs = TeplugAttentionBwdArgs;
  static constexpr int32_t kFwdOp = TEPLUG_OP_ATTENTION_FORWARD;
  static constexpr int32_t kBwdOp = TEPLUG_OP_ATTENTION_BACKWARD;
  static constexpr size_t kFwdSize = TEPLUG_STRUCT_SIZE(TeplugAttentionFwdArgs, stream);
  static constexpr size_t kBwdSize = TEPLUG_STRUCT_SIZE(TeplugAttentionBwdArgs, stream);
  static constexpr const char* kFwdName = "TeplugAttentionFwdArgs";
  static constexpr const char* kBwdName = "TeplugAttentionBwdArgs";
  static constexpr const char* kInterface = "IAttention";
};
}  // namespace internal

inline TeplugAttentionV1* MakeAttention(std::unique_ptr<AttentionImpl> impl) {
  return Binding<TeplugAttentionV1>::Create(
      std::move(impl), kIidAttentionV1,
      internal::ForwardBackwardThunks<internal::AttentionTraits>::Table());
}

// ----------------------------------------------------------------- INorm v1
// Ops are TEPLUG_NORM_OP_FORWARD and TEPLUG_NORM_OP_BACKWARD (local to INorm).
using NormImpl = ForwardBackwardImpl<TeplugNormFwdArgs, TeplugNormBwdArgs>;

namespace internal {
struct NormTraits {
  using CIface = TeplugNormV1;
  using Vtbl = TeplugNormV1Vtbl;
  using FwdArgs = TeplugNormFwdArgs;
  using BwdArgs = TeplugNormBwdArgs;
  static constexpr int32_t kFwdOp = TEPLUG_NORM_OP_FORWARD;
  static constexpr int32_t kBwdOp = TEPLUG_NORM_OP_BACKWARD;
  static constexpr size_t kFwdSize = TEPLUG_STRUCT_SIZE(TeplugNormFwdArgs, stream);
  static constexpr size_t kBwdSize = TEPLUG_STRUCT_SIZE(TeplugNormBwdArgs, stream);
  static constexpr const char* kFwdName = "TeplugNormFwdArgs";
  static constexpr const char* kBwdName = "TeplugNormBwdArgs";
  static constexpr const char* kInterface = "INorm";
};
}  // namespace internal

inline TeplugNormV1* MakeNorm(std::unique_ptr<NormImpl> impl) {
  return Binding<TeplugNormV1>::Create(std::move(impl), kIidNormV1,
                                       internal::ForwardBackwardThunks<internal::NormTraits>::Table());
}

// ------------------------------------------------------------ IQuantizer v1
class QuantizerImpl : public ImplementationBase {
 public:
  virtual bool SupportsQuantize(const TeplugQuantizeArgs& args, std::string* reason) {
    (void)args;
    (void)reason;
    return true;
  }
  virtual bool SupportsDequantize(const TeplugDequantizeArgs& args, std::string* reason) {
    (void)args;
    (void)reason;
    return true;
  }
  virtual void Quantize(const TeplugQuantizeArgs& args) = 0;
  virtual void Dequantize(const TeplugDequantizeArgs& args) = 0;
};

namespace internal {
struct QuantizerThunks {
  using B = Binding<TeplugQuantizerV1>;
  static constexpr size_t kQ = TEPLUG_STRUCT_SIZE(TeplugQuantizeArgs, stream);
  static constexpr size_t kDq = TEPLUG_STRUCT_SIZE(TeplugDequantizeArgs, stream);
  static QuantizerImpl* Impl(TeplugQuantizerV1* s) {
    return static_cast<QuantizerImpl*>(B::From(s)->impl);
  }
  static TeplugBool Supports(TeplugObject* self, int32_t op, const void* args, char* reason,
                             size_t reason_size) noexcept {
    auto* s = reinterpret_cast<TeplugQuantizerV1*>(self);
    return RunSupports(
        [&](std::string* why) {
          if (op == TEPLUG_OP_QUANTIZE) {
            return Impl(s)->SupportsQuantize(
                *ArgsRef<TeplugQuantizeArgs>(static_cast<const TeplugQuantizeArgs*>(args), kQ,
                                             "TeplugQuantizeArgs"),
                why);
          }
          if (op == TEPLUG_OP_DEQUANTIZE) {
            return Impl(s)->SupportsDequantize(
                *ArgsRef<TeplugDequantizeArgs>(static_cast<const TeplugDequantizeArgs*>(args), kDq,
                                               "TeplugDequantizeArgs"),
                why);
          }
          *why = "IQuantizer serves only quantize/dequantize";
          return false;
        },
        reason, reason_size);
  }
  static TeplugError* Quantize(TeplugQuantizerV1* self, const TeplugQuantizeArgs* a) noexcept {
    return Guard([&] { Impl(self)->Quantize(RequireArgs(a, kQ, "TeplugQuantizeArgs")); });
  }
  static TeplugError* Dequantize(TeplugQuantizerV1* self, const TeplugDequantizeArgs* a) noexcept {
    return Guard([&] { Impl(self)->Dequantize(RequireArgs(a, kDq, "TeplugDequantizeArgs")); });
  }
  static const TeplugQuantizerV1Vtbl* Table() {
    static const TeplugQuantizerV1Vtbl t = {B::BaseTable(sizeof(TeplugQuantizerV1Vtbl)),
                                            &Supports, &Quantize, &Dequantize};
    return &t;
  }
};
}  // namespace internal

inline TeplugQuantizerV1* MakeQuantizer(std::unique_ptr<QuantizerImpl> impl) {
  return Binding<TeplugQuantizerV1>::Create(std::move(impl), kIidQuantizerV1,
                                            internal::QuantizerThunks::Table());
}

// ----------------------------------------------------------- ICollective v1
class CollectiveImpl : public ImplementationBase {
 public:
  virtual bool Supports(int32_t op, const TeplugCollectiveArgs& args, std::string* reason) {
    (void)op;
    (void)args;
    (void)reason;
    return true;
  }
  virtual TeplugCommunicator* CreateCommunicator(const TeplugCommCreateArgs& args) = 0;
  virtual void DestroyCommunicator(TeplugCommunicator* comm) = 0;
  // op is TEPLUG_OP_ALL_REDUCE .. TEPLUG_OP_BARRIER.
  virtual void Run(int32_t op, const TeplugCollectiveArgs& args) = 0;
  virtual void GroupStart(TeplugCommunicator* comm) = 0;
  virtual void GroupEnd(TeplugCommunicator* comm) = 0;
};

namespace internal {
struct CollectiveThunks {
  using B = Binding<TeplugCollectiveV1>;
  static constexpr size_t kArgs = TEPLUG_STRUCT_SIZE(TeplugCollectiveArgs, stream);
  static CollectiveImpl* Impl(TeplugCollectiveV1* s) {
    return static_cast<CollectiveImpl*>(B::From(s)->impl);
  }
  static TeplugBool Supports(TeplugObject* self, int32_t op, const void* args, char* reason,
                             size_t reason_size) noexcept {
    auto* s = reinterpret_cast<TeplugCollectiveV1*>(self);
    return RunSupports(
        [&](std::string* why) {
          return Impl(s)->Supports(
              op,
              *ArgsRef<TeplugCollectiveArgs>(static_cast<const TeplugCollectiveArgs*>(args), kArgs,
                                             "TeplugCollectiveArgs"),
              why);
        },
        reason, reason_size);
  }
  static TeplugError* Create(TeplugCollectiveV1* self, const TeplugCommCreateArgs* a,
                             TeplugCommunicator** out) noexcept {
    return Guard([&] {
      if (out == nullptr) throw InvalidArgument("comm_create: out is NULL");
      *out = Impl(self)->CreateCommunicator(
          RequireArgs(a, TEPLUG_STRUCT_SIZE(TeplugCommCreateArgs, device), "TeplugCommCreateArgs"));
    });
  }
  static TeplugError* Destroy(TeplugCollectiveV1* self, TeplugCommunicator* c) noexcept {
    return Guard([&] { Impl(self)->DestroyCommunicator(c); });
  }
  static TeplugError* Run(TeplugCollectiveV1* self, int32_t op,
                          const TeplugCollectiveArgs* a) noexcept {
    return Guard([&] { Impl(self)->Run(op, RequireArgs(a, kArgs, "TeplugCollectiveArgs")); });
  }
  static TeplugError* GroupStart(TeplugCollectiveV1* self, TeplugCommunicator* c) noexcept {
    return Guard([&] { Impl(self)->GroupStart(c); });
  }
  static TeplugError* GroupEnd(TeplugCollectiveV1* self, TeplugCommunicator* c) noexcept {
    return Guard([&] { Impl(self)->GroupEnd(c); });
  }
  static const TeplugCollectiveV1Vtbl* Table() {
    static const TeplugCollectiveV1Vtbl t = {B::BaseTable(sizeof(TeplugCollectiveV1Vtbl)),
                                             &Supports, &Create, &Destroy, &Run, &GroupStart,
                                             &GroupEnd};
    return &t;
  }
};
}  // namespace internal

inline TeplugCollectiveV1* MakeCollective(std::unique_ptr<CollectiveImpl> impl) {
  return Binding<TeplugCollectiveV1>::Create(std::move(impl), kIidCollectiveV1,
                                             internal::CollectiveThunks::Table());
}

// --------------------------------------------------------------- IDevice v1
// The devices an implementation serves, contexts (an opened device), memory
// and streams. Throw sdk::Exception (or InvalidArgument) to fail a call.
class DeviceImpl : public ImplementationBase {
 public:
  virtual bool SupportsOpen(const TeplugDeviceOpenArgs& args, std::string* reason) {
    (void)args;
    (void)reason;
    return true;
  }
  virtual size_t DeviceCount() = 0;
  // Fills `info` (a zeroed, full-size struct; the SDK copies what fits into
  // the caller's). index < DeviceCount().
  virtual void DescribeDevice(size_t index, TeplugDeviceInfo* info) = 0;
  virtual TeplugDeviceContext* Open(const TeplugDeviceOpenArgs& args) = 0;
  virtual void Close(TeplugDeviceContext* context) = 0;
  virtual void* Allocate(const TeplugAllocateArgs& args) = 0;
  virtual void Deallocate(TeplugDeviceContext* context, void* ptr) = 0;
  virtual void Copy(const TeplugCopyArgs& args) = 0;
  virtual TeplugStream CreateStream(TeplugDeviceContext* context) = 0;
  virtual void SynchronizeStream(TeplugDeviceContext* context, TeplugStream stream) = 0;
  virtual void DestroyStream(TeplugDeviceContext* context, TeplugStream stream) = 0;
};

namespace internal {
struct DeviceThunks {
  using B = Binding<TeplugDeviceV1>;
  static constexpr size_t kOpen = TEPLUG_STRUCT_SIZE(TeplugDeviceOpenArgs, device);
  static constexpr size_t kAlloc = TEPLUG_STRUCT_SIZE(TeplugAllocateArgs, alignment);
  static constexpr size_t kCopy = TEPLUG_STRUCT_SIZE(TeplugCopyArgs, stream);
  static DeviceImpl* Impl(TeplugDeviceV1* s) { return static_cast<DeviceImpl*>(B::From(s)->impl); }
  static TeplugBool Supports(TeplugObject* self, int32_t op, const void* args, char* reason,
                             size_t reason_size) noexcept {
    auto* s = reinterpret_cast<TeplugDeviceV1*>(self);
    return RunSupports(
        [&](std::string* why) {
          if (op != TEPLUG_DEVICE_OP_OPEN) {
            *why = "IDevice decides only open";
            return false;
          }
          return Impl(s)->SupportsOpen(
              *ArgsRef<TeplugDeviceOpenArgs>(static_cast<const TeplugDeviceOpenArgs*>(args), kOpen,
                                             "TeplugDeviceOpenArgs"),
              why);
        },
        reason, reason_size);
  }
  static TeplugError* Count(TeplugDeviceV1* self, size_t* count) noexcept {
    return Guard([&] {
      if (count == nullptr) throw InvalidArgument("device_count: count is NULL");
      *count = Impl(self)->DeviceCount();
    });
  }
  static TeplugError* Info(TeplugDeviceV1* self, size_t index, TeplugDeviceInfo* info) noexcept {
    return Guard([&] {
      constexpr size_t kMin = TEPLUG_STRUCT_SIZE(TeplugDeviceInfo, struct_size);
      if (info == nullptr || info->struct_size < kMin) {
        throw InvalidArgument("device_info: info is NULL or its struct_size is 0");
      }
      if (index >= Impl(self)->DeviceCount()) {
        throw InvalidArgument("device_info: index " + std::to_string(index) + " >= device_count");
      }
      TeplugDeviceInfo full = Versioned<TeplugDeviceInfo>();
      Impl(self)->DescribeDevice(index, &full);
      full.name[sizeof full.name - 1] = '\0';
      const size_t n = std::min(info->struct_size, sizeof full);
      std::memcpy(reinterpret_cast<char*>(info) + sizeof(size_t),
                  reinterpret_cast<const char*>(&full) + sizeof(size_t), n - sizeof(size_t));
    });
  }
  static TeplugError* Open(TeplugDeviceV1* self, const TeplugDeviceOpenArgs* a,
                           TeplugDeviceContext** out) noexcept {
    return Guard([&] {
      if (out == nullptr) throw InvalidArgument("open: out is NULL");
      *out = Impl(self)->Open(RequireArgs(a, kOpen, "TeplugDeviceOpenArgs"));
    });
  }
  static TeplugError* Close(TeplugDeviceV1* self, TeplugDeviceContext* c) noexcept {
    return Guard([&] { Impl(self)->Close(c); });
  }
  static TeplugError* Allocate(TeplugDeviceV1* self, const TeplugAllocateArgs* a, void** out) noexcept {
    return Guard([&] {
      if (out == nullptr) throw InvalidArgument("allocate: out is NULL");
      *out = Impl(self)->Allocate(RequireArgs(a, kAlloc, "TeplugAllocateArgs"));
    });
  }
  static TeplugError* Deallocate(TeplugDeviceV1* self, TeplugDeviceContext* c, void* p) noexcept {
    return Guard([&] { Impl(self)->Deallocate(c, p); });
  }
  static TeplugError* Copy(TeplugDeviceV1* self, const TeplugCopyArgs* a) noexcept {
    return Guard([&] { Impl(self)->Copy(RequireArgs(a, kCopy, "TeplugCopyArgs")); });
  }
  static TeplugError* StreamCreate(TeplugDeviceV1* self, TeplugDeviceContext* c, TeplugStream* out) noexcept {
    return Guard([&] {
      if (out == nullptr) throw InvalidArgument("stream_create: out is NULL");
      *out = Impl(self)->CreateStream(c);
    });
  }
  static TeplugError* StreamSync(TeplugDeviceV1* self, TeplugDeviceContext* c, TeplugStream s) noexcept {
    return Guard([&] { Impl(self)->SynchronizeStream(c, s); });
  }
  static TeplugError* StreamDestroy(TeplugDeviceV1* self, TeplugDeviceContext* c, TeplugStream s) noexcept {
    return Guard([&] { Impl(self)->DestroyStream(c, s); });
  }
  static const TeplugDeviceV1Vtbl* Table() {
    static const TeplugDeviceV1Vtbl t = {B::BaseTable(sizeof(TeplugDeviceV1Vtbl)),
                                         &Supports, &Count, &Info, &Open, &Close, &Allocate,
                                         &Deallocate, &Copy, &StreamCreate, &StreamSync,
                                         &StreamDestroy};
    return &t;
  }
};
}  // namespace internal

inline TeplugDeviceV1* MakeDevice(std::unique_ptr<DeviceImpl> impl) {
  return Binding<TeplugDeviceV1>::Create(std::move(impl), kIidDeviceV1, internal::DeviceThunks::Table());
}

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_IMPLEMENT_HPP_
