#include "core/ops/collective_hosts.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace teplug::core {
namespace {

// A store error (ours to destroy) as a host-made error with its code, saying
// what the store was asked.
TeplugError* FromStoreError(TeplugError* e, absl::string_view what) {
  const std::string message =
      absl::StrCat("teplug: counting the communicator's hosts: ", what, ": ", e->message != nullptr ? e->message : "");
  const int32_t code = e->code > TEPLUG_OK && e->code <= TEPLUG_FAILED_PRECONDITION ? e->code : TEPLUG_INTERNAL;
  e->destroy(e);
  return teplug_error_create(static_cast<TeplugCode>(code), message.c_str());
}

}  // namespace

std::string HostKey(const char* prefix, int32_t rank) {
  if (prefix == nullptr || prefix[0] == '\0') return absl::StrCat("teplug/host/", rank);
  return absl::StrCat(prefix, "/teplug/host/", rank);
}

TeplugError* CountHosts(const TeplugRendezvous& rdv, int32_t rank, int32_t world_size, absl::string_view host_id,
                        int64_t default_timeout_ms, int32_t* hosts_out) {
  const TeplugKvStore& kv = *rdv.kv;
  const std::string mine = HostKey(rdv.kv_prefix, rank);
  if (TeplugError* e = kv.put(kv.ctx, mine.c_str(), host_id.data(), host_id.size())) {
    return FromStoreError(e, absl::StrCat("publishing this rank's host under \"", mine, "\""));
  }
  const int64_t timeout_ms = rdv.timeout_ms > 0 ? rdv.timeout_ms : default_timeout_ms;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  absl::flat_hash_set<std::string> hosts;
  std::vector<int32_t> missing;
  std::string value(256, '\0');
  for (int32_t r = 0; r < world_size; ++r) {
    const std::string key = HostKey(rdv.kv_prefix, r);
    // Once one rank timed out the deadline has passed: the others are only
    // looked at, so that the error names every rank that is missing.
    const int64_t left = std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - std::chrono::steady_clock::now()).count();
    size_t size = 0;
    TeplugError* e = kv.get(kv.ctx, key.c_str(), value.data(), value.size(), &size, left > 0 ? left : 0);
    if (e != nullptr && e->code == TEPLUG_INVALID_ARGUMENT && size > value.size()) {  // a longer id: retry
      e->destroy(e);
      value.resize(size);
      e = kv.get(kv.ctx, key.c_str(), value.data(), value.size(), &size, 0);
    }
    if (e != nullptr && e->code == TEPLUG_DEADLINE_EXCEEDED) {
      e->destroy(e);
      missing.push_back(r);
      continue;
    }
    if (e != nullptr) return FromStoreError(e, absl::StrCat("reading rank ", r, "'s host under \"", key, "\""));
    hosts.insert(value.substr(0, std::min(size, value.size())));
  }
  if (!missing.empty()) {
    const bool several = missing.size() > 1;
    const std::string message = absl::StrCat(
        "teplug: comm_create rank ", rank, " of ", world_size, ": rank", several ? "s " : " ",
        absl::StrJoin(missing, ", "), " did not publish ", several ? "their hosts" : "its host", " (key \"",
        HostKey(rdv.kv_prefix, missing[0]), "\"", several ? ", ..." : "", ") within ", timeout_ms, " ms: ",
        several ? "have they" : "has it", " called comm_create with the same rendezvous?");
    return teplug_error_create(TEPLUG_DEADLINE_EXCEEDED, message.c_str());
  }
  *hosts_out = static_cast<int32_t>(hosts.size());
  return nullptr;
}

}  // namespace teplug::core
