// ThreadSanitizer support for the system Abseil (--config=tsan links this into every
// binary through --custom_malloc).
//
// Debian's libabsl_synchronization.so is not built with -fsanitize=thread, so TSan does
// not see absl::Mutex lock and unlock and reports every access guarded by one as a data
// race. This file interposes the out-of-line absl::Mutex / absl::CondVar members: each
// forwards to the library's own implementation (found with dlsym(RTLD_NEXT)) and tells
// TSan about the happens-before edge: release before giving the mutex up, acquire after
// taking it. Lock-order (deadlock) detection is not provided.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/synchronization/mutex.h"

extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);

namespace {

#define TEPLUG_STRINGIFY_INNER(x) #x
#define TEPLUG_STRINGIFY(x) TEPLUG_STRINGIFY_INNER(x)

// Returns the library's definition of the absl member whose Itanium mangled name is
// "_ZN4absl<inline namespace>" + `suffix`; aborts naming it when it is missing.
template <typename Function>
Function Real(const char* suffix) {
  const char* inline_namespace = TEPLUG_STRINGIFY(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string symbol =
      "_ZN4absl" + std::to_string(std::strlen(inline_namespace)) + inline_namespace + suffix;
  void* address = dlsym(RTLD_NEXT, symbol.c_str());
  if (address == nullptr) {
    std::fprintf(stderr, "tsan absl annotations: %s not found in the loaded Abseil: %s\n",
                 symbol.c_str(), dlerror());
    std::abort();
  }
  return reinterpret_cast<Function>(address);
}

// A Condition evaluated on behalf of `mutex`. Abseil evaluates conditions inside its
// uninstrumented code while holding the mutex, sometimes on the unlocking thread, so
// the user's predicate must itself be bracketed by acquire and release to be ordered
// with the writes it reads.
struct AnnotatedCondition {
  const absl::Condition* condition;
  absl::Mutex* mutex;

  static bool Eval(AnnotatedCondition* self) {
    __tsan_acquire(self->mutex);
    const bool result = self->condition->Eval();
    __tsan_release(self->mutex);
    return result;
  }
};

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex4LockEv");
  real(this);
  __tsan_acquire(this);
}

void Mutex::ReaderLock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex10ReaderLockEv");
  real(this);
  __tsan_acquire(this);
}

bool Mutex::TryLock() {
  static const auto real = Real<bool (*)(Mutex*)>("5Mutex7TryLockEv");
  const bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

bool Mutex::ReaderTryLock() {
  static const auto real = Real<bool (*)(Mutex*)>("5Mutex13ReaderTryLockEv");
  const bool locked = real(this);
  if (locked) __tsan_acquire(this);
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  static const auto real =
      Real<void (*)(Mutex*, const Condition&)>("5Mutex8LockWhenERKNS0_9ConditionE");
  AnnotatedCondition annotated{&cond, this};
  real(this, Condition(&AnnotatedCondition::Eval, &annotated));
  __tsan_acquire(this);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  static const auto real =
      Real<void (*)(Mutex*, const Condition&)>("5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  AnnotatedCondition annotated{&cond, this};
  real(this, Condition(&AnnotatedCondition::Eval, &annotated));
  __tsan_acquire(this);
}

void Mutex::Unlock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex6UnlockEv");
  __tsan_release(this);
  real(this);
}

void Mutex::ReaderUnlock() {
  static const auto real = Real<void (*)(Mutex*)>("5Mutex12ReaderUnlockEv");
  __tsan_release(this);
  real(this);
}

// Await and CondVar waits give the mutex up and take it back before returning.
void Mutex::Await(const Condition& cond) {
  static const auto real =
      Real<void (*)(Mutex*, const Condition&)>("5Mutex5AwaitERKNS0_9ConditionE");
  __tsan_release(this);
  AnnotatedCondition annotated{&cond, this};
  real(this, Condition(&AnnotatedCondition::Eval, &annotated));
  __tsan_acquire(this);
}

bool Mutex::AwaitWithTimeout(const Condition& cond, absl::Duration timeout) {
  static const auto real = Real<bool (*)(Mutex*, const Condition&, absl::Duration)>(
      "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  __tsan_release(this);
  AnnotatedCondition annotated{&cond, this};
  const bool result = real(this, Condition(&AnnotatedCondition::Eval, &annotated), timeout);
  __tsan_acquire(this);
  return result;
}

void CondVar::Wait(Mutex* mu) {
  static const auto real = Real<void (*)(CondVar*, Mutex*)>("7CondVar4WaitEPNS0_5MutexE");
  __tsan_release(mu);
  real(this, mu);
  __tsan_acquire(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, absl::Duration timeout) {
  static const auto real = Real<bool (*)(CondVar*, Mutex*, absl::Duration)>(
      "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  __tsan_release(mu);
  const bool result = real(this, mu, timeout);
  __tsan_acquire(mu);
  return result;
}

ABSL_NAMESPACE_END
}  // namespace absl
