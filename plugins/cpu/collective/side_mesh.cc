#include "plugins/cpu/collective/side_mesh.h"

#include <utility>
#include <vector>

#include "gloo/allgather.h"
#include "gloo/transport/buffer.h"
#include "gloo/transport/device.h"
#include "gloo/transport/pair.h"

namespace teplug::cpu::collective {
namespace {

// A gloo::Context over a transport context connected elsewhere (Gloo's own
// contexts connect theirs through a store).
class SideContext : public gloo::Context {
 public:
  SideContext(const std::shared_ptr<gloo::Context>& mesh,
              std::shared_ptr<gloo::transport::Context> transport, std::chrono::milliseconds timeout)
      : gloo::Context(mesh->rank, mesh->size) {
    device_ = mesh->getDevice();
    transportContext_ = std::move(transport);
    setTimeout(timeout);
  }
};

}  // namespace

std::shared_ptr<gloo::transport::Context> ConnectSideMesh(const std::shared_ptr<gloo::Context>& mesh,
                                                          uint32_t tag, std::chrono::milliseconds timeout) {
  const int rank = mesh->rank;
  const int world = mesh->size;
  std::shared_ptr<gloo::transport::Context> side = mesh->getDevice()->createContext(rank, world);
  side->setTimeout(timeout);
  // Each rank lists its pairs' addresses in peer order (skipping itself);
  // every address has the transport's one size.
  std::vector<char> mine;
  for (int r = 0; r < world; ++r) {
    if (r == rank) continue;
    const std::vector<char> address = side->createPair(r)->address().bytes();
    mine.insert(mine.end(), address.begin(), address.end());
  }
  std::vector<char> all(mine.size() * world);
  gloo::AllgatherOptions exchange(mesh);
  exchange.setInput(mine.data(), mine.size());
  exchange.setOutput(all.data(), all.size());
  exchange.setTag(tag);
  exchange.setTimeout(timeout);
  gloo::allgather(exchange);
  const size_t address_bytes = mine.size() / (world - 1);
  for (int r = 0; r < world; ++r) {
    if (r == rank) continue;
    // Rank r's list skips r, so this rank's entry is at rank or rank - 1.
    const size_t index = rank < r ? rank : rank - 1;
    const char* at = all.data() + r * mine.size() + index * address_bytes;
    side->getPair(r)->connect(std::vector<char>(at, at + address_bytes));
  }
  return side;
}

std::shared_ptr<gloo::Context> ConnectSideContext(const std::shared_ptr<gloo::Context>& mesh, uint32_t tag,
                                                  std::chrono::milliseconds timeout) {
  return std::make_shared<SideContext>(mesh, ConnectSideMesh(mesh, tag, timeout), timeout);
}

void SizeSendBuffers(gloo::Context& context, size_t bytes) {
  const uint64_t slot = context.nextSlot();
  // Every receive lands in one buffer: the device's one loop thread writes
  // them one after another, and the bytes are never read.
  std::vector<char> out(bytes);
  std::vector<char> in(bytes);
  std::vector<std::unique_ptr<gloo::transport::Buffer>> sends;
  std::vector<std::unique_ptr<gloo::transport::Buffer>> receives;
  for (int r = 0; r < context.size; ++r) {
    if (r == context.rank) continue;
    receives.push_back(context.getPair(r)->createRecvBuffer(slot, in.data(), bytes));
    sends.push_back(context.getPair(r)->createSendBuffer(slot, out.data(), bytes));
  }
  for (auto& s : sends) s->send();
  for (auto& r : receives) r->waitRecv();
  for (auto& s : sends) s->waitSend();
}

}  // namespace teplug::cpu::collective
