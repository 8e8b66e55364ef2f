// The TeplugRegistrar a plugin's entry receives, as a block of memory that
// stays valid for the life of the process.
//
// A plugin may keep the registrar pointer past its entry (in a global, in a
// thread it started) and call it later; it reads the function pointer out of
// the struct, so the struct itself must never be freed or reused. Each load
// therefore opens a fresh handle on the heap that is never freed: while the
// entry runs it forwards every call to the load's staging state, and once
// the load closes it every call is answered TEPLUG_FAILED_PRECONDITION
// without touching anything else. Every handle is kept in a process-wide
// set, which is also how a call's `self` is checked: a pointer the host did
// not hand out (NULL, a copy of the struct, garbage) is answered
// TEPLUG_INVALID_ARGUMENT without being dereferenced, and leak checkers see
// the handles as reachable. Cost per load (plugin or built-in, accepted or
// refused): one 64-byte block (80 with malloc's header; the recursive mutex
// is 40 of it) plus its slot in the set (8 bytes and a control byte, the set
// between 7/16 and 7/8 full: 10 to 21 bytes): about 100 bytes.
//
// Fork: the set's lock is held across fork() (pthread_atfork), so the
// pre-flight probe's child, which has only the forking thread, never
// inherits it locked by a thread that does not exist there (a plugin thread
// hammering a kept registrar would otherwise hang other plugins' probes).
//
// Threading: calls are serialised by the handle's lock, so a plugin may
// register from several threads during its entry; each registration is
// validated and staged whole before the next starts. The lock is recursive:
// a call made re-entrantly, from a plugin callback the host makes while
// staging (query_interface, say), reaches the sink instead of deadlocking,
// and the sink refuses it. Close() waits for a call in progress to finish.
#ifndef TEPLUG_CORE_LOADER_REGISTRAR_HANDLE_H_
#define TEPLUG_CORE_LOADER_REGISTRAR_HANDLE_H_

#include <mutex>

#include "teplug/teplug.h"

namespace teplug::core {

// What a handle forwards registrations to while it is open.
class RegistrationSink {
 public:
  // Validates and stages one registration; returns NULL or the error the
  // plugin receives. Called with the handle's lock held: one thread at a
  // time, but possibly re-entered by that thread from a plugin callback.
  virtual TeplugError* Register(const TeplugImplementationDesc* desc) noexcept = 0;

 protected:
  ~RegistrationSink() = default;
};

// Private base: the plugin's TeplugRegistrar* is the handle's address, and
// only the handle converts it back.
class RegistrarHandle : private TeplugRegistrar {
 public:
  // A new handle forwarding to `sink` until Close(). Never freed.
  static RegistrarHandle* Open(RegistrationSink* sink);
  RegistrarHandle(const RegistrarHandle&) = delete;
  RegistrarHandle& operator=(const RegistrarHandle&) = delete;

  // What TeplugHostApi.registrar points at.
  TeplugRegistrar* c_registrar() { return this; }

  // Detaches the sink: waits for a registration in progress, after which
  // the sink is never called again and may be destroyed. Idempotent.
  void Close();

 private:
  explicit RegistrarHandle(RegistrationSink* sink);
  static TeplugError* RegisterThunk(TeplugRegistrar* registrar,
                                    const TeplugImplementationDesc* desc) noexcept;

  std::recursive_mutex mutex_;
  RegistrationSink* sink_;  // guarded by mutex_; null once closed
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_REGISTRAR_HANDLE_H_
