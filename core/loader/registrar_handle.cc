#include "core/loader/registrar_handle.h"

#include <pthread.h>

#include <mutex>

#include "absl/container/flat_hash_set.h"

namespace teplug::core {
namespace {

// Every handle ever opened, by the address the plugin holds. Allocated once
// and never destroyed, so a late call during static destruction still finds
// it.
struct OpenedHandles {
  std::mutex mutex;  // a plain mutex: it is unlocked in a forked child (below)
  absl::flat_hash_set<const TeplugRegistrar*> all;  // guarded by mutex
};
OpenedHandles& Opened();

// fork() holds the set's lock across the fork. A forked child (the
// pre-flight probe's) has only the forking thread: had another thread held
// the lock at that moment (a plugin thread calling a kept registrar, say),
// it would never be released there and the child's own load would hang.
// (Not absl::Mutex: its Unlock in the child may wait on the state of
// threads that do not exist there.)
void LockBeforeFork() { Opened().mutex.lock(); }
void UnlockAfterFork() { Opened().mutex.unlock(); }

OpenedHandles& Opened() {
  static OpenedHandles* const opened = [] {
    auto* o = new OpenedHandles;
    pthread_atfork(&LockBeforeFork, &UnlockAfterFork, &UnlockAfterFork);
    return o;
  }();
  return *opened;
}

bool WasOpened(const TeplugRegistrar* registrar) {
  OpenedHandles& opened = Opened();
  std::lock_guard<std::mutex> lock(opened.mutex);
  return opened.all.contains(registrar);
}

}  // namespace

// registrar_handle.h states what each load keeps allocated.
static_assert(sizeof(RegistrarHandle) <= 64, "update the per-load cost in registrar_handle.h");

RegistrarHandle::RegistrarHandle(RegistrationSink* sink) : TeplugRegistrar(), sink_(sink) {
  struct_size = sizeof(TeplugRegistrar);
  register_implementation = &RegisterThunk;
}

RegistrarHandle* RegistrarHandle::Open(RegistrationSink* sink) {
  RegistrarHandle* handle = new RegistrarHandle(sink);
  OpenedHandles& opened = Opened();
  std::lock_guard<std::mutex> lock(opened.mutex);
  opened.all.insert(handle->c_registrar());
  return handle;
}

void RegistrarHandle::Close() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  sink_ = nullptr;
}

TeplugError* RegistrarHandle::RegisterThunk(TeplugRegistrar* registrar,
                                            const TeplugImplementationDesc* desc) noexcept {
  if (registrar == nullptr || !WasOpened(registrar)) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT,
                               "register_implementation: self is not the registrar the host "
                               "passed in TeplugHostApi.registrar");
  }
  RegistrarHandle* self = static_cast<RegistrarHandle*>(registrar);
  std::lock_guard<std::recursive_mutex> lock(self->mutex_);
  if (self->sink_ == nullptr) {
    return teplug_error_create(TEPLUG_FAILED_PRECONDITION,
                               "register_implementation called after teplug_plugin_entry returned");
  }
  return self->sink_->Register(desc);
}

}  // namespace teplug::core
