#include "plugins/cpu/collective/roll_call.h"

#include <condition_variable>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gloo/common/error.h"
#include "gloo/common/logging.h"
#include "gloo/transport/pair.h"
#include "plugins/cpu/collective/side_mesh.h"
#include "teplug/collective.h"
#include "teplug/sdk/names.hpp"

namespace teplug::cpu::collective {
namespace {

// Slots of the roll-call mesh (its own Gloo context, so any value is free).
constexpr uint64_t kQuerySlot = 1;
constexpr uint64_t kAnswerSlot = 2;

// Waits that end only by completing, failing or being aborted: the roll-call
// mesh never uses Gloo's timeouts, because one closes every connection of
// its context.
constexpr auto kUntilAborted = std::chrono::hours(24 * 365);

// The tag of the all-gather that exchanges the roll-call mesh's addresses
// on the communicator's mesh, whose ops count their tags up from 0.
constexpr uint32_t kAddressExchangeTag = 0xffffffff;

std::string Where(const Progress& p) {
  const char* stage = p.stage == Stage::kIn ? "in it" : p.stage == Stage::kDone ? "done" : "failed";
  return absl::StrFormat("%s, the communicator's collective %d, %s", CollectiveOpName(p.op),
                         p.collective, stage);
}

}  // namespace

const char* CollectiveOpName(int32_t op) {
  return op == kCommDestroyWait ? "comm_destroy" : sdk::OpName(op);
}

uint64_t Progress::Pack() const {
  return (collective << 16) | (static_cast<uint64_t>(op & 0xff) << 8) |
         static_cast<uint64_t>(stage);
}

Progress Progress::Unpack(uint64_t word) {
  Progress p;
  p.collective = word >> 16;
  p.op = static_cast<int32_t>((word >> 8) & 0xff);
  const uint64_t stage = word & 0xff;
  p.stage = stage <= static_cast<uint64_t>(Stage::kFailed) ? static_cast<Stage>(stage)
                                                            : Stage::kFailed;
  return p;
}

std::string DescribeRollCall(const Progress& self, const std::vector<RollCallAnswer>& answers) {
  if (answers.empty()) return "";
  std::vector<std::string> missing, present;
  for (const RollCallAnswer& a : answers) {
    if (!a.progress) {
      missing.push_back(absl::StrFormat("rank %d (%s)", a.rank, a.silence));
      continue;
    }
    const Progress& p = *a.progress;
    const char* told = a.from_its_roll_call ? ", as it said in its own roll call before leaving" : "";
    if (p.stage == Stage::kNone) {
      missing.push_back(absl::StrFormat("rank %d (has called no collective%s)", a.rank, told));
    } else if (p.collective < self.collective) {
      missing.push_back(absl::StrFormat("rank %d (last at %s%s)", a.rank, Where(p), told));
    } else if (p.collective == self.collective && p.op != self.op) {
      missing.push_back(absl::StrFormat("rank %d (at %s%s: the ranks called different ops)",
                                        a.rank, Where(p), told));
    } else if (p.collective > self.collective) {
      present.push_back(absl::StrFormat("rank %d is past it (at %s%s)", a.rank, Where(p), told));
    } else {
      const char* how = p.stage == Stage::kIn     ? "is in it"
                        : p.stage == Stage::kDone ? "finished it"
                                                  : "failed in it";
      present.push_back(absl::StrFormat("rank %d %s%s", a.rank, how,
                                        a.from_its_roll_call ? " (as it said in its own roll "
                                                               "call before leaving)"
                                                             : ""));
    }
  }
  std::string out = absl::StrFormat("; roll call at the communicator's collective %d: ",
                                    self.collective);
  absl::StrAppend(&out, missing.empty() ? "no rank is missing"
                                        : absl::StrCat("missing ", absl::StrJoin(missing, ", ")));
  if (!present.empty()) absl::StrAppend(&out, "; ", absl::StrJoin(present, ", "));
  return out;
}

RollCall::RollCall(const std::shared_ptr<gloo::Context>& mesh, std::chrono::milliseconds timeout)
    : timeout_(timeout) {
  const int world = mesh->size;
  context_ = ConnectSideMesh(mesh, kAddressExchangeTag, timeout);
  for (int r = 0; r < world; ++r) {
    if (r != mesh->rank) peers_.push_back(r);
  }
  heard_ = std::make_unique<std::atomic<uint64_t>[]>(world);
  for (int r = 0; r < world; ++r) heard_[r].store(0);
  query_ = context_->createUnboundBuffer(&query_word_, sizeof(query_word_));
  answering_ = std::thread([this] { Answer(); });
}

RollCall::~RollCall() {
  stopping_.store(true);
  query_->abortWaitRecv();  // remembered if the thread is not waiting yet
  answering_.join();
}

void RollCall::Answer() {
  while (!stopping_.load()) {
    int from = -1;
    try {
      query_->recv(peers_, kQuerySlot);
      if (!query_->waitRecv(&from, kUntilAborted)) return;  // aborted: stopping
    } catch (const gloo::Exception&) {
      // This rank's own receive failed (its mesh closed): nothing more can
      // be answered; askers see the failed connection or no answer.
      return;
    } catch (const gloo::EnforceNotMet&) {
      return;  // Gloo's own invariant failed on this mesh: the same
    }
    heard_[from].store(query_word_, std::memory_order_release);
    uint64_t word = progress_.load(std::memory_order_acquire);
    try {
      std::unique_ptr<gloo::transport::UnboundBuffer> reply =
          context_->createUnboundBuffer(&word, sizeof(word));
      reply->send(from, kAnswerSlot);
      reply->waitSend(timeout_);
    } catch (const gloo::Exception&) {
      // The asker's connection failed; it sees that on its side. Keep
      // answering the others.
    } catch (const gloo::EnforceNotMet&) {
      // Likewise (Gloo checks the pair's state with its enforce macros).
    }
  }
}

std::vector<RollCallAnswer> RollCall::Ask(std::chrono::milliseconds wait) {
  const uint64_t mine = progress_.load(std::memory_order_acquire);
  std::vector<Question*> questions;
  for (int peer : peers_) {
    auto q = std::make_unique<Question>();
    q->rank = peer;
    q->asked = mine;
    try {
      q->reply = context_->createUnboundBuffer(&q->answer, sizeof(q->answer));
      q->reply->recv(peer, kAnswerSlot);
      q->query = context_->createUnboundBuffer(&q->asked, sizeof(q->asked));
      q->query->send(peer, kQuerySlot);
    } catch (const gloo::Exception& e) {
      q->failure = absl::StrCat("its roll-call connection failed: ", e.what());
    } catch (const gloo::EnforceNotMet& e) {
      q->failure = absl::StrCat("its roll-call connection failed: ", e.what());
    }
    questions.push_back(q.get());
    asked_.push_back(std::move(q));
  }
  // A timer aborts the waits still pending at the deadline (an abort, unlike
  // a Gloo timeout, leaves the connections open for other askers).
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  std::thread timer([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (cv.wait_for(lock, wait, [&] { return finished; })) return;
    for (Question* q : questions) {
      if (q->reply) q->reply->abortWaitRecv();
    }
  });
  std::vector<RollCallAnswer> answers;
  for (Question* q : questions) {
    RollCallAnswer a;
    a.rank = q->rank;
    if (q->failure.empty()) {
      try {
        if (q->reply->waitRecv(kUntilAborted)) {
          a.progress = Progress::Unpack(q->answer);
        } else {
          a.silence = absl::StrFormat("did not answer a roll call within %d ms", wait.count());
        }
      } catch (const gloo::Exception& e) {
        q->failure = absl::StrCat("its roll-call connection failed: ", e.what());
      }
    }
    if (!a.progress && a.silence.empty()) a.silence = q->failure;
    if (const uint64_t heard = heard_[q->rank].load(std::memory_order_acquire);
        !a.progress && heard != 0) {
      a.progress = Progress::Unpack(heard);
      a.from_its_roll_call = true;
    }
    answers.push_back(std::move(a));
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    finished = true;
  }
  cv.notify_one();
  timer.join();
  return answers;
}

}  // namespace teplug::cpu::collective
