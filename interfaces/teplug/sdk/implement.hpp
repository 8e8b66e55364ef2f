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

#include <memory>
#include <string>

#include "teplug/attention.h"
#include "teplug/collective.h"
#include "teplug/gemm.h"
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
          auto a = RequireArgs(static_cast<const TeplugGemmArgs*>(args),
                               TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream), "TeplugGemmArgs");
          return Impl(reinterpret_cast<TeplugGemmV1*>(self))->Supports(a, why);
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

// ------------------------------------------------------------ IAttention v1
class AttentionImpl : public ImplementationBase {
 public:
  virtual bool SupportsForward(const TeplugAttentionFwdArgs& args, std::string* reason) {
    (void)args;
    (void)reason;
    return true;
  }
  virtual bool SupportsBackward(const TeplugAttentionBwdArgs& args, std::string* reason) {
    (void)args;
    (void)reason;
    return true;
  }
  virtual size_t ForwardWorkspaceSize(const TeplugAttentionFwdArgs& args) {
    (void)args;
    return 0;
  }
  virtual size_t BackwardWorkspaceSize(const TeplugAttentionBwdArgs& args) {
    (void)args;
    return 0;
  }
  virtual void Forward(const TeplugAttentionFwdArgs& args) = 0;
  virtual void Backward(const TeplugAttentionBwdArgs& args) = 0;
};

namespace internal {
struct AttentionThunks {
  using B = Binding<TeplugAttentionV1>;
  static constexpr size_t kFwd = TEPLUG_STRUCT_SIZE(TeplugAttentionFwdArgs, stream);
  static constexpr size_t kBwd = TEPLUG_STRUCT_SIZE(TeplugAttentionBwdArgs, stream);
  static AttentionImpl* Impl(TeplugAttentionV1* s) {
    return static_cast<AttentionImpl*>(B::From(s)->impl);
  }
  static TeplugBool Supports(TeplugObject* self, int32_t op, const void* args, char* reason,
                             size_t reason_size) noexcept {
    auto* s = reinterpret_cast<TeplugAttentionV1*>(self);
    return RunSupports(
        [&](std::string* why) {
          if (op == TEPLUG_OP_ATTENTION_FORWARD) {
            return Impl(s)->SupportsForward(
                RequireArgs(static_cast<const TeplugAttentionFwdArgs*>(args), kFwd,
                            "TeplugAttentionFwdArgs"),
                why);
          }
          if (op == TEPLUG_OP_ATTENTION_BACKWARD) {
            return Impl(s)->SupportsBackward(
                RequireArgs(static_cast<const TeplugAttentionBwdArgs*>(args), kBwd,
                            "TeplugAttentionBwdArgs"),
                why);
          }
          *why = "IAttention serves only attention forward/backward";
          return false;
        },
        reason, reason_size);
  }
  static TeplugError* Workspace(TeplugAttentionV1* self, int32_t op, const void* args,
                                size_t* bytes) noexcept {
    return Guard([&] {
      if (bytes == nullptr) throw InvalidArgument("workspace_size: bytes is NULL");
      if (op == TEPLUG_OP_ATTENTION_FORWARD) {
        *bytes = Impl(self)->ForwardWorkspaceSize(RequireArgs(
            static_cast<const TeplugAttentionFwdArgs*>(args), kFwd, "TeplugAttentionFwdArgs"));
      } else if (op == TEPLUG_OP_ATTENTION_BACKWARD) {
        *bytes = Impl(self)->BackwardWorkspaceSize(RequireArgs(
            static_cast<const TeplugAttentionBwdArgs*>(args), kBwd, "TeplugAttentionBwdArgs"));
      } else {
        throw InvalidArgument("workspace_size: op " + std::to_string(op) +
                              " is not an attention op");
      }
    });
  }
  static TeplugError* Forward(TeplugAttentionV1* self, const TeplugAttentionFwdArgs* a) noexcept {
    return Guard([&] { Impl(self)->Forward(RequireArgs(a, kFwd, "TeplugAttentionFwdArgs")); });
  }
  static TeplugError* Backward(TeplugAttentionV1* self, const TeplugAttentionBwdArgs* a) noexcept {
    return Guard([&] { Impl(self)->Backward(RequireArgs(a, kBwd, "TeplugAttentionBwdArgs")); });
  }
  static const TeplugAttentionV1Vtbl* Table() {
    static const TeplugAttentionV1Vtbl t = {B::BaseTable(sizeof(TeplugAttentionV1Vtbl)),
                                            &Supports, &Workspace, &Forward, &Backward};
    return &t;
  }
};
}  // namespace internal

inline TeplugAttentionV1* MakeAttention(std::unique_ptr<AttentionImpl> impl) {
  return Binding<TeplugAttentionV1>::Create(std::move(impl), kIidAttentionV1,
                                            internal::AttentionThunks::Table());
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
                RequireArgs(static_cast<const TeplugQuantizeArgs*>(args), kQ, "TeplugQuantizeArgs"),
                why);
          }
          if (op == TEPLUG_OP_DEQUANTIZE) {
            return Impl(s)->SupportsDequantize(
                RequireArgs(static_cast<const TeplugDequantizeArgs*>(args), kDq,
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
              RequireArgs(static_cast<const TeplugCollectiveArgs*>(args), kArgs,
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

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_IMPLEMENT_HPP_
