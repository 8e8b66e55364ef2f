#include "plugins/cpu/collective/gloo_rendezvous.h"

#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gloo/barrier.h"
#include "gloo/common/error.h"
#include "gloo/common/logging.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/transport/tcp/device.h"
#include "plugins/cpu/collective/gloo_errors.h"
#include "plugins/cpu/collective/kv_store_adapter.h"
#include "plugins/cpu/collective/side_mesh.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cpu::collective {
namespace {

constexpr char kArgs[] = "TeplugCommCreateArgs";

std::string ArrivalKey(int rank) { return absl::StrCat("arrived-", rank); }

// Publishes this rank's arrival and waits for every other rank's, up to
// `timeout` in all. Returns the ranks whose key never appeared.
std::vector<int> RanksThatNeverArrived(gloo::rendezvous::Store& store, int rank, int world,
                                       std::chrono::milliseconds timeout) {
  store.set(ArrivalKey(rank), std::vector<char>{1});
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<int> missing;
  for (int r = 0; r < world; ++r) {
    if (r == rank) continue;
    // Once one rank is missing the deadline has passed: only look at the rest.
    const auto left = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   deadline - std::chrono::steady_clock::now()),
                               std::chrono::milliseconds(1));
    try {
      store.wait({ArrivalKey(r)}, left);
    } catch (const gloo::IoException&) {
      missing.push_back(r);
    }
  }
  return missing;
}

std::shared_ptr<gloo::transport::Device> MakeDevice() {
  gloo::transport::tcp::attr attr;
  if (const char* iface = std::getenv(kInterfaceEnv); iface != nullptr && *iface != '\0') {
    attr.iface = iface;
  } else if (const char* host = std::getenv(kHostnameEnv); host != nullptr && *host != '\0') {
    attr.hostname = host;
  }
  return gloo::transport::tcp::CreateDevice(attr);
}

// Tags of comm_create's own ops on the communicator's mesh (the roll call's
// address exchange is 0xffffffff; the communicator's ops count up from 0).
constexpr uint32_t kRingMeshTag = 0xfffffffe;
constexpr uint32_t kConnectedTag = 0xfffffffd;
// Sizes the ring mesh's socket send buffers (SizeSendBuffers): the rings'
// messages up to this size never wait for the loop thread to finish a write.
constexpr size_t kRingSendBufferBytes = 256 * 1024;

JoinedContext Connect(gloo::rendezvous::Store& store, int rank, int world,
                      std::chrono::milliseconds timeout, const std::string& where) {
  const std::string what = absl::StrFormat("comm_create (rank %d of %d, %s)", rank, world, where);
  JoinedContext joined;
  joined.timeout = timeout;
  RunGloo(what, [&] {
    std::vector<int> missing = RanksThatNeverArrived(store, rank, world, timeout);
    if (!missing.empty()) {
      throw RankTimeout(absl::StrFormat(
          "timed out after %d ms waiting for rank(s) %s to arrive at the rendezvous",
          timeout.count(), absl::StrJoin(missing, ", ")));
    }
    std::shared_ptr<gloo::transport::Device> device = MakeDevice();
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, world);
    context->setTimeout(timeout);
    context->connectFullMesh(store, device);
    joined.context = std::move(context);
    joined.ring_context = joined.context;
    if (world > 1) {
      joined.roll_call = std::make_unique<RollCall>(joined.context, timeout);
      joined.ring_context = ConnectSideContext(joined.context, kRingMeshTag, timeout);
      SizeSendBuffers(*joined.ring_context, kRingSendBufferBytes);
      // No rank returns before every rank's meshes are connected: a rank that
      // destroyed its communicator at once would otherwise close connections
      // a slower rank is still making ("Connection closed by peer").
      gloo::BarrierOptions connected(joined.context);
      connected.setTag(kConnectedTag);
      connected.setTimeout(timeout);
      gloo::barrier(connected);
    }
  });
  return joined;
}

}  // namespace

JoinedContext JoinGlooContext(const TeplugCommCreateArgs& args) {
  if (args.world_size < 1 || args.rank < 0 || args.rank >= args.world_size) {
    throw sdk::InvalidArgument(absl::StrFormat(
        "%s: rank %d of world_size %d; need world_size >= 1 and 0 <= rank < world_size", kArgs,
        args.rank, args.world_size));
  }
  if (args.device != nullptr && args.device->kind != TEPLUG_DEVICE_CPU) {
    throw sdk::InvalidArgument(absl::StrFormat(
        "%s.device: kind %d, but the Gloo collectives work on host memory (cpu) only", kArgs,
        args.device->kind));
  }
  if (args.rendezvous == nullptr)
    throw sdk::InvalidArgument(absl::StrCat(kArgs, ".rendezvous is NULL"));
  TeplugRendezvous rv;
  if (!sdk::ReadVersioned(args.rendezvous, &rv, TEPLUG_STRUCT_SIZE(TeplugRendezvous, timeout_ms))) {
    throw sdk::InvalidArgument(absl::StrCat(kArgs, ".rendezvous.struct_size is too small"));
  }
  if (rv.timeout_ms < 0) {
    throw sdk::InvalidArgument(
        absl::StrFormat("%s.rendezvous.timeout_ms %d is negative", kArgs, rv.timeout_ms));
  }
  const std::chrono::milliseconds timeout =
      rv.timeout_ms > 0 ? std::chrono::milliseconds(rv.timeout_ms) : kDefaultTimeout;
  const bool has_blob = rv.bootstrap != nullptr && rv.bootstrap_size > 0;
  if (has_blob == (rv.kv != nullptr)) {
    throw sdk::InvalidArgument(absl::StrCat(
        kArgs,
        ".rendezvous: exactly one of bootstrap (with bootstrap_size > 0) or kv must be set; ",
        has_blob ? "both are" : "neither is"));
  }
  if (has_blob) {
    const std::string blob(static_cast<const char*>(rv.bootstrap), rv.bootstrap_size);
    const std::string prefix = kFileBlobPrefix;
    if (blob.compare(0, prefix.size(), prefix) != 0 || blob.size() == prefix.size()) {
      throw sdk::InvalidArgument(absl::StrCat(kArgs, ".rendezvous.bootstrap: a Gloo blob is \"",
                                              prefix, "<directory>\"; got ", blob.size(),
                                              " bytes not of that form"));
    }
    const std::string directory = blob.substr(prefix.size());
    gloo::rendezvous::FileStore store(directory);
    return Connect(store, args.rank, args.world_size, timeout, "file store " + directory);
  }
  TeplugKvStore kv;
  if (!sdk::ReadVersioned(rv.kv, &kv, TEPLUG_STRUCT_SIZE(TeplugKvStore, get)) ||
      kv.put == nullptr || kv.get == nullptr) {
    throw sdk::InvalidArgument(
        absl::StrCat(kArgs, ".rendezvous.kv: struct too small or put/get NULL"));
  }
  const std::string prefix = rv.kv_prefix != nullptr ? rv.kv_prefix : "";
  KvStoreAdapter store(kv, prefix, timeout);
  return Connect(store, args.rank, args.world_size, timeout,
                 "key-value store, prefix \"" + prefix + "\"");
}

}  // namespace teplug::cpu::collective
