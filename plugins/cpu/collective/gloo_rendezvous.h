// Joining a Gloo context over TCP from an ICollective rendezvous.
//
// Two forms (TeplugRendezvous, exactly one):
//  - key-value store: the host's TeplugKvStore, keys "<kv_prefix>/gloo/...".
//  - bootstrap blob "gloo-file:<directory>": a gloo::rendezvous::FileStore
//    in <directory>, which must be empty, private to this communicator and
//    visible to every rank (a shared file system for ranks on several hosts).
// Before connecting, every rank publishes an arrival key and waits up to the
// timeout for the others', so a rank that never arrives is NAMED in the
// DEADLINE_EXCEEDED error; then Gloo connects the full mesh, and a second one
// for roll calls (roll_call.h).
//
// Which address the TCP device binds: $TEPLUG_GLOO_IFNAME (an interface,
// e.g. "lo", "eth0"), else $TEPLUG_GLOO_HOSTNAME (a host name or address),
// else Gloo's default, the address this machine's host name resolves to.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_RENDEZVOUS_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_RENDEZVOUS_H_

#include <chrono>
#include <memory>
#include <string>

#include "gloo/context.h"
#include "plugins/cpu/collective/roll_call.h"
#include "teplug/collective.h"

namespace teplug::cpu::collective {

// The bootstrap blob prefix; the rest of the blob is the directory path.
inline constexpr char kFileBlobPrefix[] = "gloo-file:";

// Used when TeplugRendezvous.timeout_ms is 0.
inline constexpr std::chrono::milliseconds kDefaultTimeout{60000};

// The environment variables naming the address to bind.
inline constexpr char kInterfaceEnv[] = "TEPLUG_GLOO_IFNAME";
inline constexpr char kHostnameEnv[] = "TEPLUG_GLOO_HOSTNAME";

// A connected context, the timeout every later op uses, and (for more than
// one rank) the roll-call mesh that names missing ranks after a failure and
// the mesh the small-message rings run on (side_mesh.h says why apart).
struct JoinedContext {
  std::shared_ptr<gloo::Context> context;
  std::chrono::milliseconds timeout;
  std::unique_ptr<RollCall> roll_call;
  std::shared_ptr<gloo::Context> ring_context;  // `context` for one rank
};

// Validates `args` (rank, world, device, rendezvous) and joins. Throws
// sdk::Exception: INVALID_ARGUMENT naming the field, DEADLINE_EXCEEDED naming
// the ranks that never arrived, UNAVAILABLE for transport failures, the
// store's own code for a failing TeplugKvStore.
JoinedContext JoinGlooContext(const TeplugCommCreateArgs& args);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_GLOO_RENDEZVOUS_H_
