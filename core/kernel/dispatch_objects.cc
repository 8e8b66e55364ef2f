#include "core/kernel/dispatch_objects.h"

#include <atomic>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/boundary/plugin_call.h"
#include "teplug/sdk/iids.hpp"

namespace teplug::core {
namespace dispatch {

uint32_t AddRef(TeplugObject* o) { return Self(o)->refs.fetch_add(1, std::memory_order_relaxed) + 1; }
uint32_t Release(TeplugObject* o) {
  DispatchObject* d = Self(o);
  uint32_t left = d->refs.fetch_sub(1, std::memory_order_acq_rel) - 1;
  if (left == 0) delete d;
  return left;
}
TeplugObject* QueryInterface(TeplugObject* o, const TeplugIID* iid) {
  if (iid == nullptr) return nullptr;
  if (sdk::SameIid(*iid, Self(o)->module->iid()) || sdk::SameIid(*iid, sdk::kIidObject)) {
    AddRef(o);
    return o;
  }
  return nullptr;
}

TeplugBool Supports(TeplugObject* o, int32_t op, const void* args, char* reason, size_t reason_size) {
  std::string why;
  const InterfaceModule& module = *Self(o)->module;
  const OpSpec* spec = module.FindOp(op);
  if (spec == nullptr) {
    why = absl::StrCat("op ", op, " is not an op of ", module.display_name());
  } else {
    TeplugError* err = Core(o).WithDecision(module, *spec, args, [&](const Decision& d) -> TeplugError* {
      if (!d.served()) why = absl::StrCat("no provider can serve it:\n", d.record().Format());
      return nullptr;
    });
    if (err != nullptr) {  // host-made: malformed args
      why = err->message;
      err->destroy(err);
    }
  }
  if (why.empty()) return 1;
  if (reason != nullptr && reason_size > 0) {
    size_t n = std::min(why.size(), reason_size - 1);
    std::memcpy(reason, why.data(), n);
    reason[n] = '\0';
  }
  return 0;
}

// Uses the decision cache. An error a candidate returns goes back to the
// caller (host-made, through CallPlugin). A candidate whose workspace_size
// throws is treated as failed, as at call time: skipped with a warning (once
// per signature and implementation) unless the decision is strict or no
// candidate answered.
TeplugError* WorkspaceMax(const void* self, const OpSpec& op, const void* args, size_t* bytes,
                          TeplugError* (*ask)(const Implementation& impl, const void* args, int32_t op, size_t* need)) {
  if (bytes == nullptr) return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "workspace_size: bytes is NULL");
  const KernelCore& core = Core(self);
  return core.WithDecision(*Self(self)->module, op, args, [&](const Decision& d) -> TeplugError* {
    *bytes = 0;
    TeplugError* thrown = nullptr;
    bool answered = false;
    for (const auto& impl : d.ranked) {
      size_t need = 0;
      bool threw = false;
      TeplugError* e = CallPlugin({impl->QualifiedName(), "workspace_size"}, [&] { return ask(*impl, args, op.op, &need); },
                                  &threw);
      if (e == nullptr) {
        answered = true;
        *bytes = std::max(*bytes, need);
        continue;
      }
      if (!threw || d.strict()) {
        if (thrown != nullptr) thrown->destroy(thrown);
        return e;
      }
      core.logger().LogOnce(absl::StrCat("exception:", d.op_summary(), ":", impl->QualifiedName()), LogLevel::kWarn,
                            absl::StrCat(e->message, " (serving ", d.op_summary(), "); its workspace is not counted"));
      if (thrown != nullptr) thrown->destroy(thrown);
      thrown = e;
    }
    if (thrown != nullptr && !answered) return thrown;
    if (thrown != nullptr) thrown->destroy(thrown);
    return nullptr;
  });
}

}  // namespace dispatch

__thread ServedByRecorder* ServedByRecorder::active_ = nullptr;
ServedByRecorder::ServedByRecorder() : previous_(active_) { active_ = this; }
ServedByRecorder::~ServedByRecorder() { active_ = previous_; }
void ServedByRecorder::Record(const Implementation& impl) {
  if (active_ != nullptr) active_->last_ = impl.QualifiedName();
}

TeplugObject* MakeDispatchObject(std::shared_ptr<const KernelCore> core, const InterfaceModule& module) {
  auto* d = new DispatchObject{module.DispatchTable(), {1}, &module, std::move(core), nullptr};
  return reinterpret_cast<TeplugObject*>(d);
}

TeplugObject* MakePreparedObject(std::shared_ptr<const KernelCore> core, const InterfaceModule& module,
                                 std::unique_ptr<const PreparedOp> prepared) {
  auto* d = new DispatchObject{module.DispatchTable(), {1}, &module, std::move(core), std::move(prepared)};
  return reinterpret_cast<TeplugObject*>(d);
}

}  // namespace teplug::core
