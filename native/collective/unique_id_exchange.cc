#include "native/collective/unique_id_exchange.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/error.hpp"

namespace teplug::native::collective {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds Left(Clock::time_point deadline) {
  return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()),
                  std::chrono::milliseconds(1));
}

}  // namespace

std::string ArrivalKey(int rank) { return absl::StrCat("arrived-", rank); }

ncclUniqueId ExchangeUniqueId(RendezvousStore& store, int rank, int world,
                              Clock::time_point deadline,
                              const std::function<ncclUniqueId()>& make_id,
                              const std::string& what) {
  const auto start = Clock::now();
  ncclUniqueId id{};
  if (rank == 0) {
    id = make_id();
    store.Put(kUniqueIdKey, std::string(id.internal, sizeof id.internal));
  }
  store.Put(ArrivalKey(rank), "1");
  std::vector<int> missing;
  std::vector<std::string> missing_keys;
  for (int r = 0; r < world; ++r) {
    if (r == rank) continue;
    // Once one rank is missing the deadline has passed: the rest get 1 ms.
    if (!store.Get(ArrivalKey(r), Left(deadline)).has_value()) {
      missing.push_back(r);
      missing_keys.push_back("\"" + store.Where(ArrivalKey(r)) + "\"");
    }
  }
  const auto waited = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
  };
  if (!missing.empty()) {
    throw sdk::Exception(
        TEPLUG_DEADLINE_EXCEEDED,
        absl::StrCat(what, ": timed out after ", waited(), " ms waiting for rank(s) ",
                     absl::StrJoin(missing, ", "), " of ", world,
                     " to arrive at the rendezvous (", store.Describe(), "): no ",
                     absl::StrJoin(missing_keys, ", ")));
  }
  if (rank == 0) return id;
  std::optional<std::string> value = store.Get(kUniqueIdKey, Left(deadline));
  if (!value.has_value()) {
    throw sdk::Exception(TEPLUG_DEADLINE_EXCEEDED,
                         absl::StrCat(what, ": timed out after ", waited(),
                                      " ms waiting for rank 0's ncclUniqueId under \"",
                                      store.Where(kUniqueIdKey), "\" (", store.Describe(), ")"));
  }
  if (value->size() != sizeof id.internal) {
    throw sdk::Internal(absl::StrCat(what, ": \"", store.Where(kUniqueIdKey), "\" holds ",
                                     value->size(), " bytes; an ncclUniqueId is ",
                                     sizeof id.internal));
  }
  std::memcpy(id.internal, value->data(), sizeof id.internal);
  return id;
}

}  // namespace teplug::native::collective
