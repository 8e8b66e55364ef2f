// Where every rank of a communicator is, asked after one of its collectives
// failed, so the error names the ranks that never called it.
//
// Gloo's collectives time out without saying which peer they waited for, and
// a timeout closes every connection of the Gloo context it happened on. So a
// communicator of several ranks connects a second full mesh for roll calls
// (on the same TCP device; the pairs' addresses travel by one all-gather on
// the first mesh, not through the rendezvous store again) and runs one
// thread that answers roll calls on it with this rank's
// progress: the number and op of the collective it is in or last left, and
// how it left. The op's thread records its progress with one atomic store
// when a collective starts and one when it ends; nothing else is on the path
// of a successful op. After a failed collective the rank asks every peer,
// waits a bounded time for the answers, and its error names the ranks that
// have not called the collective, are in another one, or did not answer. A
// question carries the asker's own progress, which the answering side keeps:
// a rank that failed first, asked and left is still placed by those that
// ask after it.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_ROLL_CALL_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_ROLL_CALL_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gloo/context.h"
#include "gloo/transport/context.h"
#include "gloo/transport/unbound_buffer.h"

namespace teplug::cpu::collective {

// The op number a rank reports while comm_destroy waits for every rank (the
// collectives report their TeplugCollectiveOp).
inline constexpr int32_t kCommDestroyWait = 0xff;

// "all_reduce", ..., or "comm_destroy" for kCommDestroyWait.
const char* CollectiveOpName(int32_t op);

// How a rank stands with the collective its Progress names.
enum class Stage : uint8_t {
  kNone = 0,    // no collective called yet
  kIn = 1,      // inside it
  kDone = 2,    // left it having finished
  kFailed = 3,  // left it with an error
};

// One rank's progress through its communicator's collectives, packed into 64
// bits for the atomic and the wire: collective number (48 bits), op (8),
// stage (8).
struct Progress {
  uint64_t collective = 0;  // 1-based number on the communicator; 0 with kNone
  int32_t op = 0;           // TeplugCollectiveOp, or kCommDestroyWait
  Stage stage = Stage::kNone;

  uint64_t Pack() const;
  static Progress Unpack(uint64_t word);
};

// A peer's answer to a roll call: its progress, or why it gave none.
struct RollCallAnswer {
  int rank = 0;
  std::optional<Progress> progress;
  std::string silence;  // set when progress is not: "did not answer within 1000 ms", ...
  // The progress is what the rank sent when it asked this rank in its own
  // roll call; it did not answer this one (a rank that failed first often
  // returns its error and exits before the others ask).
  bool from_its_roll_call = false;
};

// The text a failed collective's error ends with: "; missing: rank 2 (has
// called no collective), rank 3 (did not answer ...); rank 1 is in it"
// (empty for no answers). `self` is the failing rank's own progress.
std::string DescribeRollCall(const Progress& self, const std::vector<RollCallAnswer>& answers);

class RollCall {
 public:
  // Connects the roll-call mesh beside `mesh` (a connected context of two or
  // more ranks, every rank constructing its RollCall before any op on it)
  // and starts the answering thread. Throws Gloo's exceptions; the caller
  // translates them.
  RollCall(const std::shared_ptr<gloo::Context>& mesh, std::chrono::milliseconds timeout);
  // Stops the answering thread, then closes the mesh.
  ~RollCall();
  RollCall(const RollCall&) = delete;
  RollCall& operator=(const RollCall&) = delete;

  // What the answering thread reports from now on.
  void Record(const Progress& progress) {
    progress_.store(progress.Pack(), std::memory_order_release);
  }

  // Asks every other rank where it is and waits up to `wait` in all for the
  // answers. Never throws Gloo's exceptions: a rank whose connection failed
  // or that did not answer in time has `silence` saying so.
  std::vector<RollCallAnswer> Ask(std::chrono::milliseconds wait);

 private:
  // One asked peer's buffers; kept until the mesh closes, because Gloo may
  // still hold a pending receive of an answer that came too late.
  struct Question {
    int rank = 0;
    uint64_t asked = 0;
    uint64_t answer = 0;
    std::unique_ptr<gloo::transport::UnboundBuffer> query;
    std::unique_ptr<gloo::transport::UnboundBuffer> reply;
    std::string failure;
  };

  // The answering thread: waits for a query from any peer, keeps the
  // progress it carries, sends back the current progress; ends when stopped
  // or when its own receive fails.
  void Answer();

  std::shared_ptr<gloo::transport::Context> context_;
  std::chrono::milliseconds timeout_;
  std::vector<int> peers_;
  std::atomic<uint64_t> progress_{0};
  std::unique_ptr<std::atomic<uint64_t>[]> heard_;  // per rank: its last question's progress
  std::atomic<bool> stopping_{false};
  uint64_t query_word_ = 0;
  std::unique_ptr<gloo::transport::UnboundBuffer> query_;  // the answering thread's receive
  std::vector<std::unique_ptr<Question>> asked_;
  std::thread answering_;
};

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_ROLL_CALL_H_
