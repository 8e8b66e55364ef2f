// How many hosts a communicator's ranks are on, counted at comm_create
// before the implementation is selected, so that one serving ranks on one
// host only (shared memory, TEPLUG_COLLECTIVE_CAP_ONE_HOST) is refused when
// they are spread over several, and a network transport serves instead.
#ifndef TEPLUG_CORE_OPS_COLLECTIVE_HOSTS_H_
#define TEPLUG_CORE_OPS_COLLECTIVE_HOSTS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "teplug/teplug.h"

namespace teplug::core {

// The key rank `rank` publishes its host under: "<prefix>/teplug/host/<rank>"
// ("teplug/host/<rank>" without a prefix), beside the implementation's own
// keys under the same prefix.
std::string HostKey(const char* prefix, int32_t rank);

// Publishes `host_id` for `rank` through the rendezvous' key-value store and
// reads every rank's, waiting up to the rendezvous' timeout (`timeout_ms`,
// 0: `default_timeout_ms`) in all; writes the number of distinct hosts to
// *hosts. Returns a host-made error: DEADLINE_EXCEEDED naming every rank
// whose host had not arrived, or a store callback's error (its code kept)
// with the key it was about. The caller checks that `rdv.kv` is set and
// large enough.
TeplugError* CountHosts(const TeplugRendezvous& rdv, int32_t rank, int32_t world_size, absl::string_view host_id,
                        int64_t default_timeout_ms, int32_t* hosts);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_COLLECTIVE_HOSTS_H_
