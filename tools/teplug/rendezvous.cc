#include "tools/teplug/rendezvous.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cli {

Rendezvous::Rendezvous(int rank, int world_size) : rank_(rank), world_size_(world_size) {
  kv_ = sdk::Versioned<TeplugKvStore>();
  kv_.ctx = this;
  kv_.put = &Rendezvous::KvPut;
  kv_.get = &Rendezvous::KvGet;
}

absl::StatusOr<std::string> Rendezvous::Get(absl::string_view key, int64_t timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto pause = std::chrono::microseconds(100);
  while (true) {
    absl::StatusOr<std::optional<std::string>> value = TryGet(key);
    if (!value.ok()) return value.status();
    if (value->has_value()) return **value;
    absl::StatusOr<std::optional<std::string>> note = AbortNote();
    if (!note.ok()) return note.status();
    if (note->has_value()) {
      return absl::AbortedError(absl::StrFormat("rendezvous %s: stopped waiting for key \"%s\": %s",
                                                where(), absl::CHexEscape(key), **note));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) break;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  const std::vector<int> missing = MissingRanks();
  return absl::DeadlineExceededError(absl::StrFormat(
      "rendezvous %s: key \"%s\" did not appear within %d ms; %s", where(), absl::CHexEscape(key),
      timeout_ms,
      missing.empty()
          ? absl::StrFormat("every rank of %d arrived, so a rank that did is late or stopped",
                            world_size_)
          : absl::StrFormat("rank%s %s of %d never arrived", missing.size() == 1 ? "" : "s",
                            absl::StrJoin(missing, ", "), world_size_)));
}

TeplugError* Rendezvous::KvPut(void* ctx, const char* key, const void* value, size_t size) {
  if (key == nullptr || (value == nullptr && size > 0)) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "kv put: key or value is NULL");
  }
  absl::Status s = static_cast<Rendezvous*>(ctx)->Set(
      key, absl::string_view(static_cast<const char*>(value), size));
  if (s.ok()) return nullptr;
  return teplug_error_create(
      s.code() == absl::StatusCode::kInvalidArgument ? TEPLUG_INVALID_ARGUMENT : TEPLUG_INTERNAL,
      std::string(s.message()).c_str());
}

TeplugError* Rendezvous::KvGet(void* ctx, const char* key, void* buffer, size_t capacity,
                               size_t* size, int64_t timeout_ms) {
  if (key == nullptr || size == nullptr || (buffer == nullptr && capacity > 0)) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "kv get: NULL argument");
  }
  absl::StatusOr<std::string> v = static_cast<Rendezvous*>(ctx)->Get(key, timeout_ms);
  if (!v.ok()) {
    // A posted abort note is not a timeout: callers that retry on timeouts
    // must stop.
    return teplug_error_create(v.status().code() == absl::StatusCode::kAborted
                                   ? TEPLUG_UNAVAILABLE
                                   : TEPLUG_DEADLINE_EXCEEDED,
                               std::string(v.status().message()).c_str());
  }
  *size = v->size();
  if (v->size() > capacity) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "kv get: buffer too small");
  }
  if (!v->empty()) std::memcpy(buffer, v->data(), v->size());
  return nullptr;
}

}  // namespace teplug::cli
