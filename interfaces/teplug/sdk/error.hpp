// teplug/sdk/error.hpp — exceptions on the C++ side, TeplugError* on the ABI.
//
// Plugin authors throw teplug::sdk::Exception (or any std::exception) from
// their methods; the SDK's thunks catch at the C boundary and turn it into a
// TeplugError* carrying the message, so nothing crosses the ABI and nothing is
// dropped. Hosts wrap returned errors in OwnedError so they are destroyed
// exactly once.
#ifndef TEPLUG_SDK_ERROR_HPP_
#define TEPLUG_SDK_ERROR_HPP_

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "teplug/status.h"

namespace teplug::sdk {

// An error with a teplug code. Throw it to return that code from an ABI call.
class Exception : public std::runtime_error {
 public:
  Exception(TeplugCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  TeplugCode code() const noexcept { return code_; }

 private:
  TeplugCode code_;
};

inline Exception InvalidArgument(const std::string& m) { return {TEPLUG_INVALID_ARGUMENT, m}; }
inline Exception Unsupported(const std::string& m) { return {TEPLUG_UNSUPPORTED, m}; }
inline Exception Unavailable(const std::string& m) { return {TEPLUG_UNAVAILABLE, m}; }
inline Exception Internal(const std::string& m) { return {TEPLUG_INTERNAL, m}; }

// Runs `body` (returning void) and converts whatever it throws into an error.
// The ABI boundary is the one place where every exception type must be caught:
// each is turned into an error status with its message, none is dropped.
template <class Body>
TeplugError* Guard(Body&& body) noexcept {
  try {
    std::forward<Body>(body)();
    return nullptr;
  } catch (const Exception& e) {
    return teplug_error_create(e.code(), e.what());
  } catch (const std::bad_alloc& e) {
    return teplug_error_create(TEPLUG_OUT_OF_MEMORY, e.what());
  } catch (const std::invalid_argument& e) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return teplug_error_create(TEPLUG_INTERNAL, e.what());
  } catch (...) {
    return teplug_error_create(TEPLUG_INTERNAL, "a non-standard C++ exception escaped the implementation");
  }
}

// Owns a TeplugError* received from the other side of the ABI and destroys it
// with the destroy function the error carries. Empty means success.
class OwnedError {
 public:
  OwnedError() = default;
  explicit OwnedError(TeplugError* e) noexcept : e_(e) {}
  OwnedError(OwnedError&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  OwnedError& operator=(OwnedError&& o) noexcept {
    if (this != &o) {
      reset();
      e_ = std::exchange(o.e_, nullptr);
    }
    return *this;
  }
  OwnedError(const OwnedError&) = delete;
  OwnedError& operator=(const OwnedError&) = delete;
  ~OwnedError() { reset(); }

  bool ok() const noexcept { return e_ == nullptr; }
  explicit operator bool() const noexcept { return e_ != nullptr; }
  // TEPLUG_OK when empty; unknown codes from a newer peer read as INTERNAL.
  TeplugCode code() const noexcept {
    if (e_ == nullptr) return TEPLUG_OK;
    int32_t c = e_->code;
    return (c > TEPLUG_OK && c <= TEPLUG_FAILED_PRECONDITION) ? static_cast<TeplugCode>(c)
                                                              : TEPLUG_INTERNAL;
  }
  std::string message() const {
    return (e_ == nullptr || e_->message == nullptr) ? std::string() : std::string(e_->message);
  }
  // Gives up ownership (e.g. to return the error through the ABI unchanged).
  TeplugError* release() noexcept { return std::exchange(e_, nullptr); }
  void reset() noexcept {
    if (e_ != nullptr && e_->destroy != nullptr) e_->destroy(e_);
    e_ = nullptr;
  }
  // Throws Exception with this error's code and message; no-op on success.
  void ThrowIfError() {
    if (e_ != nullptr) {
      Exception ex(code(), message());
      reset();
      throw ex;
    }
  }

 private:
  TeplugError* e_ = nullptr;
};

}  // namespace teplug::sdk

#endif  // TEPLUG_SDK_ERROR_HPP_
