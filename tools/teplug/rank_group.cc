#include "tools/teplug/rank_group.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cli {

RankGroup::RankGroup(int world_size)
    : world_size_(world_size), slots_(static_cast<size_t>(world_size)) {
  kv_ = sdk::Versioned<TeplugKvStore>();
  kv_.ctx = this;
  kv_.put = &RankGroup::Put;
  kv_.get = &RankGroup::Get;
}

RankGroup::RankGroup(Rendezvous* rendezvous)
    : world_size_(rendezvous->world_size()), rendezvous_(rendezvous) {
  kv_ = *rendezvous->kv_store();
}

std::vector<int> RankGroup::local_ranks() const {
  if (rendezvous_ != nullptr) return {rendezvous_->rank()};
  std::vector<int> all(static_cast<size_t>(world_size_));
  for (int r = 0; r < world_size_; ++r) all[static_cast<size_t>(r)] = r;
  return all;
}

TeplugError* RankGroup::Put(void* ctx, const char* key, const void* value, size_t size) {
  auto* self = static_cast<RankGroup*>(ctx);
  if (key == nullptr || (value == nullptr && size > 0)) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "kv put: key or value is NULL");
  }
  {
    std::lock_guard<std::mutex> l(self->mu_);
    self->store_[key] = std::string(static_cast<const char*>(value), size);
  }
  self->cv_.notify_all();
  return nullptr;
}

TeplugError* RankGroup::Get(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
                            int64_t timeout_ms) {
  auto* self = static_cast<RankGroup*>(ctx);
  if (key == nullptr || size == nullptr)
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "kv get: NULL argument");
  std::unique_lock<std::mutex> l(self->mu_);
  const bool found = self->cv_.wait_for(l, std::chrono::milliseconds(timeout_ms), [&] {
    return self->store_.count(key) != 0 || self->aborted_;
  });
  if (!found || self->aborted_) {
    return teplug_error_create(
        TEPLUG_DEADLINE_EXCEEDED,
        self->aborted_ ? "kv get: another rank failed" : "kv get: key did not appear in time");
  }
  const std::string& v = self->store_[key];
  *size = v.size();
  if (v.size() > capacity)
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "kv get: buffer too small");
  if (!v.empty()) std::memcpy(buffer, v.data(), v.size());
  return nullptr;
}

absl::StatusOr<std::vector<std::vector<double>>> RankGroup::Exchange(int rank,
                                                                     std::vector<double> mine,
                                                                     int64_t timeout_ms) {
  if (rendezvous_ != nullptr) return ExchangeThroughRendezvous(rank, mine, timeout_ms);
  std::unique_lock<std::mutex> l(mu_);
  const uint64_t my_round = round_;
  slots_[static_cast<size_t>(rank)] = std::move(mine);
  if (++arrived_ == world_size_) {
    last_round_ = std::move(slots_);
    slots_.assign(static_cast<size_t>(world_size_), {});
    arrived_ = 0;
    ++round_;
    cv_.notify_all();
  } else if (!cv_.wait_for(l, std::chrono::milliseconds(timeout_ms),
                           [&] { return round_ != my_round || aborted_; }) ||
             aborted_) {
    return absl::DeadlineExceededError(
        absl::StrCat("rank ", rank, ": exchange with the other ranks ",
                     aborted_ ? "abandoned: another rank failed" : "timed out"));
  }
  return last_round_;  // valid until every rank has copied it: next round needs all ranks again
}

absl::StatusOr<std::vector<std::vector<double>>> RankGroup::ExchangeThroughRendezvous(
    int rank, const std::vector<double>& mine, int64_t timeout_ms) {
  // Every rank calls Exchange equally often, so the rounds line up. Values
  // travel as raw doubles: the ranks' hosts share one byte order.
  const uint64_t my_round = round_++;
  auto key = [&](int r) { return absl::StrCat("teplug-exchange/", my_round, "/", r); };
  if (absl::Status s = rendezvous_->Set(
          key(rank), absl::string_view(reinterpret_cast<const char*>(mine.data()),
                                       mine.size() * sizeof(double)));
      !s.ok()) {
    return s;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::vector<std::vector<double>> all(static_cast<size_t>(world_size_));
  std::vector<int> late;
  for (int r = 0; r < world_size_; ++r) {
    // After one rank was late the deadline has passed: only look at the rest.
    const int64_t left = std::max<int64_t>(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(
               deadline - std::chrono::steady_clock::now())
               .count());
    absl::StatusOr<std::string> bytes =
        r == rank ? absl::StatusOr<std::string>(std::string()) : rendezvous_->Get(key(r), left);
    if (bytes.status().code() == absl::StatusCode::kAborted) {
      return absl::AbortedError(absl::StrCat("rank ", rank, ": exchange with the other ranks ",
                                             "abandoned: ", bytes.status().message()));
    }
    if (!bytes.ok()) {
      late.push_back(r);
      continue;
    }
    if (r == rank) {
      all[static_cast<size_t>(r)] = mine;
    } else {
      std::vector<double>& theirs = all[static_cast<size_t>(r)];
      theirs.resize(bytes->size() / sizeof(double));
      // An empty vector's data() may be NULL, which memcpy must not get.
      if (!theirs.empty()) std::memcpy(theirs.data(), bytes->data(), theirs.size() * sizeof(double));
    }
  }
  if (!late.empty()) {
    const std::vector<int> never = rendezvous_->MissingRanks();
    return absl::DeadlineExceededError(absl::StrFormat(
        "rank %d: exchange %d with the other ranks timed out after %d ms in rendezvous %s: no "
        "values from rank%s %s%s",
        rank, my_round, timeout_ms, rendezvous_->where(), late.size() == 1 ? "" : "s",
        absl::StrJoin(late, ", "),
        never.empty() ? "" : absl::StrCat(" (never arrived: ", absl::StrJoin(never, ", "), ")")));
  }
  return all;
}

void RankGroup::Abort() {
  {
    std::lock_guard<std::mutex> l(mu_);
    aborted_ = true;
  }
  cv_.notify_all();
}

absl::Status RankGroup::Run(const std::function<absl::Status(int rank)>& body) {
  ran_ = true;
  if (rendezvous_ != nullptr) {
    const int rank = rendezvous_->rank();
    const absl::Status s = body(rank);
    if (s.ok()) return rendezvous_->MarkFinished();
    const std::string message = absl::StrCat("rank ", rank, ": ", s.message());
    rendezvous_->Abort(message);
    return absl::Status(s.code(), message);
  }
  std::vector<absl::Status> results(static_cast<size_t>(world_size_));
  std::vector<std::thread> threads;
  int first_failed = -1;  // the rank that failed first: the others usually fail because of it
  for (int r = 0; r < world_size_; ++r) {
    threads.emplace_back([&, r] {
      results[static_cast<size_t>(r)] = body(r);
      if (results[static_cast<size_t>(r)].ok()) return;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (first_failed < 0) first_failed = r;
      }
      Abort();
    });
  }
  for (auto& t : threads) t.join();
  if (first_failed < 0) return absl::OkStatus();
  const absl::Status& s = results[static_cast<size_t>(first_failed)];
  return absl::Status(s.code(), absl::StrCat("rank ", first_failed, ": ", s.message()));
}

}  // namespace teplug::cli
