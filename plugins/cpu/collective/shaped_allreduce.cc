#include "plugins/cpu/collective/shaped_allreduce.h"

#include <cstddef>
#include <cstring>
#include <vector>

#include "gloo/transport/buffer.h"
#include "gloo/transport/pair.h"

namespace teplug::cpu::collective {
namespace {

// The pairs to the ranks left (rank - 1) and right (rank + 1) of this one.
gloo::transport::Pair& LeftPair(gloo::Context& c) { return *c.getPair((c.rank + c.size - 1) % c.size); }
gloo::transport::Pair& RightPair(gloo::Context& c) { return *c.getPair((c.rank + 1) % c.size); }

// The per-round handshake of Gloo's ring algorithms: after a round, tell the
// left neighbour it may write again, and wait for the right one to say so.
// The notification carries no data; sending from and receiving into two
// ints (Gloo's rings use one for both) keeps Gloo's loop thread, writing a
// received one, off the int the caller's thread sends from.
class RoundNotification {
 public:
  explicit RoundNotification(gloo::Context& c) {
    const int slot = c.nextSlot();
    to_left_ = LeftPair(c).createSendBuffer(slot, &sent_, sizeof sent_);
    from_right_ = RightPair(c).createRecvBuffer(slot, &received_, sizeof received_);
  }
  void Exchange() {
    to_left_->send();
    from_right_->waitRecv();
  }

 private:
  int sent_ = 0;
  int received_ = 0;
  std::unique_ptr<gloo::transport::Buffer> to_left_;
  std::unique_ptr<gloo::transport::Buffer> from_right_;
};

// Why alternating copies need no handshake: a rank finishes a run only
// after receiving every rank's message of that run, and a rank sends its
// message of run n + 1 only after finishing run n. So when a neighbour,
// having finished run n + 1, writes run n + 2 into a copy, every rank has
// finished run n, the last run that used that copy.
class ReducingRing : public ShapedAllreduce {
 public:
  ReducingRing(const std::shared_ptr<gloo::Context>& context, size_t element_bytes,
               ReduceFunction reduce, size_t count)
      : context_(context),
        count_(count),
        bytes_(count * element_bytes),
        reduce_(reduce),
        outbox_(bytes_),
        copies_(context->size == 2 ? 2 : 1) {
    for (Copy& c : copies_) {
      c.inbox = std::make_unique<AlignedBytes>(bytes_);
      const int slot = context->nextSlot();
      c.to_right = RightPair(*context).createSendBuffer(slot, outbox_.data(), bytes_);
      c.from_left = LeftPair(*context).createRecvBuffer(slot, c.inbox->data(), bytes_);
    }
    // Three or more ranks reuse the inbox within a run: the left neighbour
    // may write the next round only once this rank has reduced the last.
    if (context->size > 2) notification_ = std::make_unique<RoundNotification>(*context);
  }

  void Run(void* data) override {
    Copy& c = copies_[next_];
    next_ = (next_ + 1) % copies_.size();
    std::memcpy(outbox_.data(), data, bytes_);
    const int rounds = context_->size - 1;
    for (int round = 0; round < rounds; ++round) {
      c.to_right->send();
      c.from_left->waitRecv();
      reduce_(data, data, c.inbox->data(), count_);
      c.to_right->waitSend();
      if (round + 1 < rounds) std::memcpy(outbox_.data(), c.inbox->data(), bytes_);
      if (notification_) notification_->Exchange();
    }
  }

 private:
  struct Copy {
    std::unique_ptr<AlignedBytes> inbox;
    std::unique_ptr<gloo::transport::Buffer> to_right;  // from outbox_ into the right's inbox
    std::unique_ptr<gloo::transport::Buffer> from_left;
  };
  std::shared_ptr<gloo::Context> context_;
  const size_t count_;
  const size_t bytes_;
  const ReduceFunction reduce_;
  AlignedBytes outbox_;
  // Two ranks: two copies used in turn, so no handshake (see above); more:
  // one, with a handshake per round.
  std::vector<Copy> copies_;
  size_t next_ = 0;
  std::unique_ptr<RoundNotification> notification_;
};

class GatherThenFold : public ShapedAllreduce {
 public:
  GatherThenFold(const std::shared_ptr<gloo::Context>& context, size_t element_bytes,
                 ReduceFunction fold, size_t count)
      : context_(context), count_(count), bytes_(count * element_bytes), fold_(fold) {
    const size_t all = bytes_ * static_cast<size_t>(context->size);
    for (Copy& c : copies_) {
      c.gathered = std::make_unique<AlignedBytes>(all);
      const int slot = context->nextSlot();
      c.to_right = RightPair(*context).createSendBuffer(slot, c.gathered->data(), all);
      c.from_left = LeftPair(*context).createRecvBuffer(slot, c.gathered->data(), all);
    }
  }

  // Each round's block lands at its own offset, so no round overwrites
  // another and the rounds need no handshake; runs alternate between the
  // two copies (see above ReducingRing).
  void Run(void* data) override {
    Copy& c = copies_[next_];
    next_ ^= 1;
    const int rank = context_->rank;
    const int world = context_->size;
    unsigned char* gathered = c.gathered->data();
    std::memcpy(gathered + static_cast<size_t>(rank) * bytes_, data, bytes_);
    // Round k sends the block received in round k - 1 (first this rank's own).
    int block = rank;
    for (int round = 0; round + 1 < world; ++round) {
      const size_t offset = static_cast<size_t>(block) * bytes_;
      c.to_right->send(offset, bytes_, offset);
      c.from_left->waitRecv();
      c.to_right->waitSend();
      block = (block + world - 1) % world;
    }
    std::memcpy(data, gathered, bytes_);
    for (int r = 1; r < world; ++r) {
      fold_(data, data, gathered + static_cast<size_t>(r) * bytes_, count_);
    }
  }

 private:
  struct Copy {
    std::unique_ptr<AlignedBytes> gathered;  // rank r's message at r * bytes_
    std::unique_ptr<gloo::transport::Buffer> to_right;
    std::unique_ptr<gloo::transport::Buffer> from_left;
  };
  std::shared_ptr<gloo::Context> context_;
  const size_t count_;
  const size_t bytes_;
  const ReduceFunction fold_;
  Copy copies_[2];
  int next_ = 0;
};

}  // namespace

std::unique_ptr<ShapedAllreduce> MakeReducingRing(const std::shared_ptr<gloo::Context>& context,
                                                  size_t element_bytes, ReduceFunction reduce,
                                                  size_t count) {
  return std::make_unique<ReducingRing>(context, element_bytes, reduce, count);
}

std::unique_ptr<ShapedAllreduce> MakeGatherThenFold(const std::shared_ptr<gloo::Context>& context,
                                                    size_t element_bytes, ReduceFunction reduce,
                                                    size_t count) {
  return std::make_unique<GatherThenFold>(context, element_bytes, reduce, count);
}

}  // namespace teplug::cpu::collective
