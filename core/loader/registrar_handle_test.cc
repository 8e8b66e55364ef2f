// RegistrarHandle: the TeplugRegistrar memory stays valid and answers
// FAILED_PRECONDITION once closed, a `self` the host did not hand out is
// refused without being dereferenced, concurrent calls reach the sink one at
// a time, and Close() waits for a call in progress.
#include "core/loader/registrar_handle.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"

namespace teplug::core {
namespace {

// Counts calls and how many run at once; accepts every registration.
class CountingSink final : public RegistrationSink {
 public:
  TeplugError* Register(const TeplugImplementationDesc*) noexcept override {
    const int now = ++inside_;
    int seen = most_at_once_.load();
    while (now > seen && !most_at_once_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::yield();
    ++calls_;
    --inside_;
    return nullptr;
  }
  int calls() const { return calls_.load(); }
  int most_at_once() const { return most_at_once_.load(); }

 private:
  std::atomic<int> inside_{0}, most_at_once_{0}, calls_{0};
};

sdk::OwnedError Call(TeplugRegistrar* registrar) {
  return sdk::OwnedError(registrar->register_implementation(registrar, nullptr));
}

TEST(RegistrarHandleTest, ForwardsWhileOpenAndRefusesOnceClosed) {
  CountingSink sink;
  RegistrarHandle* handle = RegistrarHandle::Open(&sink);
  TeplugRegistrar* registrar = handle->c_registrar();
  EXPECT_EQ(registrar->struct_size, sizeof(TeplugRegistrar));
  EXPECT_TRUE(Call(registrar).ok());
  handle->Close();
  sdk::OwnedError late = Call(registrar);
  EXPECT_EQ(late.code(), TEPLUG_FAILED_PRECONDITION);
  EXPECT_EQ(late.message(), "register_implementation called after teplug_plugin_entry returned");
  EXPECT_EQ(sink.calls(), 1) << "the sink was called after Close()";
  handle->Close();  // idempotent
}

TEST(RegistrarHandleTest, RefusesASelfItDidNotHandOut) {
  CountingSink sink;
  RegistrarHandle* handle = RegistrarHandle::Open(&sink);
  TeplugRegistrar copy = *handle->c_registrar();  // a plugin's copy of the struct
  sdk::OwnedError wrong(copy.register_implementation(&copy, nullptr));
  EXPECT_EQ(wrong.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(wrong.message(),
            "register_implementation: self is not the registrar the host passed in "
            "TeplugHostApi.registrar");
  sdk::OwnedError null(copy.register_implementation(nullptr, nullptr));
  EXPECT_EQ(null.code(), TEPLUG_INVALID_ARGUMENT);
  EXPECT_EQ(sink.calls(), 0);
  handle->Close();
}

TEST(RegistrarHandleTest, SerialisesCallsFromManyThreads) {
  CountingSink sink;
  RegistrarHandle* handle = RegistrarHandle::Open(&sink);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) EXPECT_TRUE(Call(handle->c_registrar()).ok());
    });
  }
  for (std::thread& t : threads) t.join();
  handle->Close();
  EXPECT_EQ(sink.calls(), 8 * 500);
  EXPECT_EQ(sink.most_at_once(), 1);
}

// Blocks in Register until released. Plain atomics, not absl::Notification:
// the system Abseil is not built for ThreadSanitizer, and its out-of-line
// notification code made tsan report the test's own handshake as a race.
class BlockingSink final : public RegistrationSink {
 public:
  TeplugError* Register(const TeplugImplementationDesc*) noexcept override {
    entered.store(true, std::memory_order_release);
    WaitFor(release);
    return nullptr;
  }
  static void WaitFor(const std::atomic<bool>& flag) {
    while (!flag.load(std::memory_order_acquire)) std::this_thread::yield();
  }
  std::atomic<bool> entered{false}, release{false};
};

TEST(RegistrarHandleTest, CloseWaitsForACallInProgress) {
  BlockingSink sink;
  RegistrarHandle* handle = RegistrarHandle::Open(&sink);
  std::thread caller([&] { EXPECT_TRUE(Call(handle->c_registrar()).ok()); });
  BlockingSink::WaitFor(sink.entered);
  std::atomic<bool> closed{false};
  std::thread closer([&] {
    handle->Close();
    closed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(closed.load()) << "Close() returned while the sink was still being called";
  sink.release.store(true, std::memory_order_release);
  caller.join();
  closer.join();
  EXPECT_TRUE(closed.load());
  EXPECT_EQ(Call(handle->c_registrar()).code(), TEPLUG_FAILED_PRECONDITION);
}

}  // namespace
}  // namespace teplug::core
