#include "plugins/cpu/collective/gloo_communicator.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gloo/allgatherv.h"
#include "gloo/allreduce.h"
#include "gloo/barrier.h"
#include "gloo/broadcast.h"
#include "gloo/common/error.h"
#include "gloo/transport/unbound_buffer.h"
#include "gloo/types.h"
#include "plugins/cpu/collective/element_reduction.h"
#include "plugins/cpu/collective/gloo_errors.h"
#include "plugins/cpu/collective/half_float.h"
#include "teplug/sdk/names.hpp"

namespace teplug::cpu::collective {
namespace {

// Slot prefix of send/recv messages; Gloo's collectives use 0x01..0x08.
constexpr uint8_t kPointToPointSlotPrefix = 0x40;

// The longest a failed collective waits for the other ranks' roll-call answers.
constexpr std::chrono::milliseconds kRollCallWait{1000};

const char* ReduceName(int32_t op) {
  switch (op) {
    case TEPLUG_REDUCE_SUM:
      return "sum";
    case TEPLUG_REDUCE_PROD:
      return "prod";
    case TEPLUG_REDUCE_MIN:
      return "min";
    case TEPLUG_REDUCE_MAX:
      return "max";
    case TEPLUG_REDUCE_AVG:
      return "avg";
    default:
      return "?";
  }
}

bool IsInteger(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_INT8 || dtype == TEPLUG_DTYPE_INT32 || dtype == TEPLUG_DTYPE_INT64 ||
         dtype == TEPLUG_DTYPE_UINT8;
}

WireOp WireOpFor(int32_t op) {
  switch (op) {
    case TEPLUG_REDUCE_PROD:
      return WireOp::kProd;
    case TEPLUG_REDUCE_MIN:
      return WireOp::kMin;
    case TEPLUG_REDUCE_MAX:
      return WireOp::kMax;
    default:
      return WireOp::kSum;  // sum, and avg (divided after)
  }
}

WireType WireTypeFor(int32_t dtype, bool avg) {
  if (IsInteger(dtype) && avg) return WireType::kInt128;
  switch (dtype) {
    case TEPLUG_DTYPE_INT8:
      return WireType::kInt8;
    case TEPLUG_DTYPE_UINT8:
      return WireType::kUint8;
    case TEPLUG_DTYPE_INT32:
      return WireType::kInt32;
    case TEPLUG_DTYPE_INT64:
      return WireType::kInt64;
    default:
      return WireType::kFloat;  // fp32, fp16, bf16
  }
}

// Whether the wire elements are the dtype's own (so `out` can be the wire).
bool WireIsNative(int32_t dtype, WireType wire) {
  return (dtype == TEPLUG_DTYPE_FP32 && wire == WireType::kFloat) ||
         (IsInteger(dtype) && wire != WireType::kInt128);
}

template <class T>
T Load(const void* p, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(p) + i * sizeof(T), sizeof(T));
  return v;
}

template <class T>
void Store(void* p, size_t i, T v) {
  std::memcpy(static_cast<unsigned char*>(p) + i * sizeof(T), &v, sizeof(T));
}

__int128 IntegerAt(const void* p, int32_t dtype, size_t i) {
  switch (dtype) {
    case TEPLUG_DTYPE_INT8:
      return Load<int8_t>(p, i);
    case TEPLUG_DTYPE_UINT8:
      return Load<uint8_t>(p, i);
    case TEPLUG_DTYPE_INT32:
      return Load<int32_t>(p, i);
    default:
      return Load<int64_t>(p, i);
  }
}

void StoreInteger(void* p, int32_t dtype, size_t i, __int128 v) {
  switch (dtype) {
    case TEPLUG_DTYPE_INT8:
      Store<int8_t>(p, i, static_cast<int8_t>(v));
      break;
    case TEPLUG_DTYPE_UINT8:
      Store<uint8_t>(p, i, static_cast<uint8_t>(v));
      break;
    case TEPLUG_DTYPE_INT32:
      Store<int32_t>(p, i, static_cast<int32_t>(v));
      break;
    default:
      Store<int64_t>(p, i, static_cast<int64_t>(v));
      break;
  }
}

// The dtype's elements as wire elements (fp16/bf16 -> fp32, integers -> 128-bit).
void Encode(const void* in, int32_t dtype, size_t count, WireType wire, void* out) {
  for (size_t i = 0; i < count; ++i) {
    if (wire == WireType::kInt128) {
      Store<__int128>(out, i, IntegerAt(in, dtype, i));
    } else if (dtype == TEPLUG_DTYPE_FP16) {
      Store<float>(out, i, Fp16ToFloat(Load<uint16_t>(in, i)));
    } else {
      Store<float>(out, i, Bf16ToFloat(Load<uint16_t>(in, i)));
    }
  }
}

// Wire results back into the dtype, dividing by `world` for avg (integers
// truncate toward zero, floats divide in fp32 and round once).
void Decode(const void* wire_data, WireType wire, size_t count, int32_t dtype, bool avg, int world,
            void* out) {
  for (size_t i = 0; i < count; ++i) {
    if (wire == WireType::kInt128) {
      const __int128 sum = Load<__int128>(wire_data, i);
      StoreInteger(out, dtype, i, avg ? sum / world : sum);
      continue;
    }
    float v = Load<float>(wire_data, i);
    if (avg) v /= static_cast<float>(world);
    if (dtype == TEPLUG_DTYPE_FP32) {
      Store<float>(out, i, v);
    } else if (dtype == TEPLUG_DTYPE_FP16) {
      Store<uint16_t>(out, i, FloatToFp16(v));
    } else {
      Store<uint16_t>(out, i, FloatToBf16(v));
    }
  }
}

template <class T>
void GlooAllreduce(const std::shared_ptr<gloo::Context>& context, void* data, size_t count,
                   ReduceFunction fn, uint32_t tag, std::chrono::milliseconds timeout) {
  gloo::AllreduceOptions opts(context);
  opts.setOutput(static_cast<T*>(data), count);
  opts.setReduceFunction(fn);
  opts.setTag(tag);
  opts.setTimeout(timeout);
  gloo::allreduce(opts);
}

void AllreduceWire(const std::shared_ptr<gloo::Context>& context, WireType wire, void* data,
                   size_t count, WireOp op, uint32_t tag, std::chrono::milliseconds timeout) {
  const ReduceFunction fn = ReduceFunctionFor(wire, op);
  switch (wire) {
    case WireType::kFloat:
      return GlooAllreduce<float>(context, data, count, fn, tag, timeout);
    case WireType::kInt8:
      return GlooAllreduce<int8_t>(context, data, count, fn, tag, timeout);
    case WireType::kUint8:
      return GlooAllreduce<uint8_t>(context, data, count, fn, tag, timeout);
    case WireType::kInt32:
      return GlooAllreduce<int32_t>(context, data, count, fn, tag, timeout);
    case WireType::kInt64:
      return GlooAllreduce<int64_t>(context, data, count, fn, tag, timeout);
    case WireType::kInt128:
      return GlooAllreduce<__int128>(context, data, count, fn, tag, timeout);
  }
}

}  // namespace

bool IsServedDType(int32_t dtype) {
  return dtype == TEPLUG_DTYPE_FP32 || dtype == TEPLUG_DTYPE_FP16 || dtype == TEPLUG_DTYPE_BF16 ||
         IsInteger(dtype);
}

size_t DTypeBytes(int32_t dtype) {
  switch (dtype) {
    case TEPLUG_DTYPE_FP32:
    case TEPLUG_DTYPE_INT32:
      return 4;
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16:
      return 2;
    case TEPLUG_DTYPE_INT64:
      return 8;
    default:
      return 1;
  }
}

GlooCommunicator::GlooCommunicator(JoinedContext joined)
    : context_(std::move(joined.context)),
      timeout_(joined.timeout),
      roll_call_(std::move(joined.roll_call)),
      small_allreduces_(std::move(joined.ring_context)),
      sends_to_(context_->size, 0),
      recvs_from_(context_->size, 0) {}

GlooCommunicator::~GlooCommunicator() = default;

int GlooCommunicator::rank() const { return context_->rank; }
int GlooCommunicator::world() const { return context_->size; }

std::string GlooCommunicator::Describe(uint64_t call, const std::string& op,
                                       const std::string& detail) const {
  return absl::StrFormat("%s #%d (%s) on rank %d of %d", op, call, detail, rank(), world());
}

void GlooCommunicator::CheckNotFailed(const std::function<std::string()>& describe) const {
  if (failed_) {
    throw sdk::Exception(
        TEPLUG_FAILED_PRECONDITION,
        absl::StrCat(describe(), ": the communicator failed earlier: ", failed_->what()));
  }
}

void GlooCommunicator::Issue(int32_t op, std::function<std::string()> describe,
                             std::function<void()> body) {
  CheckNotFailed(describe);
  Collective c{++collectives_, op, std::move(describe), std::move(body)};
  if (in_group_) {
    queued_collectives_.push_back(std::move(c));
    return;
  }
  RunCollective(c, c.describe);
}

void GlooCommunicator::RunCollective(const Collective& c,
                                     const std::function<std::string()>& describe) {
  Progress progress{c.number, c.op, Stage::kIn};
  if (roll_call_) roll_call_->Record(progress);
  try {
    RunGloo(describe, c.body);
  } catch (const sdk::Exception& e) {
    progress.stage = Stage::kFailed;
    if (roll_call_) roll_call_->Record(progress);
    failed_ = WithRollCall(e, progress);
    throw *failed_;
  }
  progress.stage = Stage::kDone;
  if (roll_call_) roll_call_->Record(progress);
}

sdk::Exception GlooCommunicator::WithRollCall(const sdk::Exception& e, const Progress& mine) {
  if (!roll_call_ || (e.code() != TEPLUG_DEADLINE_EXCEEDED && e.code() != TEPLUG_UNAVAILABLE)) {
    return e;
  }
  // A live rank answers within microseconds; the bound matters only for a
  // rank that is stopped or unreachable, and adds to the time the error takes.
  const std::chrono::milliseconds wait = std::min(timeout_, kRollCallWait);
  return sdk::Exception(e.code(),
                        std::string(e.what()) + DescribeRollCall(mine, roll_call_->Ask(wait)));
}

void GlooCommunicator::AllReduceNow(const void* in, void* out, size_t count, int32_t dtype,
                                    int32_t op, uint32_t tag) {
  if (count == 0) return;
  const bool avg = op == TEPLUG_REDUCE_AVG;
  const WireType wire = WireTypeFor(dtype, avg);
  const size_t bytes = count * DTypeBytes(dtype);
  if (WireIsNative(dtype, wire)) {
    if (in != out) std::memmove(out, in, bytes);
    if (!small_allreduces_.Run(wire, WireOpFor(op), out, count)) {
      AllreduceWire(context_, wire, out, count, WireOpFor(op), tag, timeout_);
    }
    if (avg) Decode(out, wire, count, dtype, /*avg=*/true, world(), out);  // fp32: divide in place
    return;
  }
  std::vector<unsigned char> scratch(count * WireElementBytes(wire));
  Encode(in, dtype, count, wire, scratch.data());
  if (!small_allreduces_.Run(wire, WireOpFor(op), scratch.data(), count)) {
    AllreduceWire(context_, wire, scratch.data(), count, WireOpFor(op), tag, timeout_);
  }
  Decode(scratch.data(), wire, count, dtype, avg, world(), out);
}

void GlooCommunicator::AllReduce(const void* in, void* out, size_t count, int32_t dtype,
                                 int32_t op) {
  const uint64_t call = ++calls_;
  Issue(
      TEPLUG_OP_ALL_REDUCE,
      [=] {
        return Describe(
            call, "all_reduce",
            absl::StrFormat("%s %s, count %d", sdk::DTypeName(dtype), ReduceName(op), count));
      },
      [=] { AllReduceNow(in, out, count, dtype, op, NextTag()); });
}

void GlooCommunicator::ReduceScatterV(const void* in, void* out, const std::vector<size_t>& counts,
                                      int32_t dtype, int32_t op) {
  const uint64_t call = ++calls_;
  size_t total = 0, offset = 0;
  for (int r = 0; r < world(); ++r) {
    if (r == rank()) offset = total;
    total += counts[r];
  }
  const size_t mine = counts[rank()];
  auto describe = [=] {
    return Describe(
        call, "reduce_scatter",
        absl::StrFormat("%s %s, %d elements in all", sdk::DTypeName(dtype), ReduceName(op), total));
  };
  Issue(TEPLUG_OP_REDUCE_SCATTER, describe, [=] {
    if (total == 0) return;
    const size_t eb = DTypeBytes(dtype);
    std::vector<unsigned char> reduced(total * eb);
    AllReduceNow(in, reduced.data(), total, dtype, op, NextTag());
    // A rank whose block is empty may pass no buffer at all.
    if (mine > 0) std::memmove(out, reduced.data() + offset * eb, mine * eb);
  });
}

void GlooCommunicator::AllGatherV(const void* in, void* out, const std::vector<size_t>& counts,
                                  int32_t dtype) {
  const uint64_t call = ++calls_;
  const size_t eb = DTypeBytes(dtype);
  std::vector<size_t> bytes;
  size_t total = 0, offset = 0;
  for (int r = 0; r < world(); ++r) {
    if (r == rank()) offset = total;
    bytes.push_back(counts[r] * eb);
    total += counts[r] * eb;
  }
  auto describe = [=] {
    return Describe(call, "all_gather",
                    absl::StrFormat("%s, %d bytes in all", sdk::DTypeName(dtype), total));
  };
  Issue(TEPLUG_OP_ALL_GATHER, describe, [=] {
    if (total == 0) return;
    auto* base = static_cast<uint8_t*>(out);
    // Place this rank's block first so Gloo gathers in place.
    // A rank that sends nothing may pass no buffer at all.
    if (bytes[rank()] > 0 && in != base + offset) std::memmove(base + offset, in, bytes[rank()]);
    gloo::AllgathervOptions opts(context_);
    opts.setOutput(base, bytes);
    opts.setTag(NextTag());
    opts.setTimeout(timeout_);
    gloo::allgatherv(opts);
  });
}

void GlooCommunicator::Broadcast(const void* in, void* out, size_t count, int32_t dtype, int root) {
  const uint64_t call = ++calls_;
  auto describe = [=] {
    return Describe(call, "broadcast",
                    absl::StrFormat("%s, count %d, root %d", sdk::DTypeName(dtype), count, root));
  };
  const size_t bytes = count * DTypeBytes(dtype);
  Issue(TEPLUG_OP_BROADCAST, describe, [=] {
    if (bytes == 0) return;
    if (rank() == root && in != nullptr && in != out) std::memmove(out, in, bytes);
    gloo::BroadcastOptions opts(context_);
    opts.setOutput(static_cast<uint8_t*>(out), bytes);
    opts.setRoot(root);
    opts.setTag(NextTag());
    opts.setTimeout(timeout_);
    gloo::broadcast(opts);
  });
}

void GlooCommunicator::Barrier() {
  const uint64_t call = ++calls_;
  Issue(TEPLUG_OP_BARRIER, [=] { return Describe(call, "barrier", "no data"); },
        [=] {
          gloo::BarrierOptions opts(context_);
          opts.setTag(NextTag());
          opts.setTimeout(timeout_);
          gloo::barrier(opts);
        });
}

void GlooCommunicator::Send(const void* in, size_t count, int32_t dtype, int peer) {
  const uint64_t call = ++calls_;
  IssueTransfer(PointToPoint{true, const_cast<void*>(in), count * DTypeBytes(dtype), peer, [=] {
                               return Describe(call, "send",
                                               absl::StrFormat("%s, count %d, to rank %d",
                                                               sdk::DTypeName(dtype), count, peer));
                             }});
}

void GlooCommunicator::Recv(void* out, size_t count, int32_t dtype, int peer) {
  const uint64_t call = ++calls_;
  IssueTransfer(PointToPoint{false, out, count * DTypeBytes(dtype), peer, [=] {
                               return Describe(call, "recv",
                                               absl::StrFormat("%s, count %d, from rank %d",
                                                               sdk::DTypeName(dtype), count, peer));
                             }});
}

void GlooCommunicator::IssueTransfer(PointToPoint t) {
  CheckNotFailed(t.describe);
  if (in_group_) {
    queued_transfers_.push_back(std::move(t));
    return;
  }
  std::vector<PointToPoint> one;
  one.push_back(std::move(t));
  RunTransfers(std::move(one));
}

void GlooCommunicator::RunTransfers(std::vector<PointToPoint> transfers) {
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> buffers(transfers.size());
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  try {
    for (size_t i = 0; i < transfers.size(); ++i) {
      PointToPoint& t = transfers[i];
      if (t.bytes == 0) continue;  // completes at once on both sides
      RunGloo(t.describe, [&] {
        buffers[i] = context_->createUnboundBuffer(t.data, t.bytes);
        if (t.send) {
          const uint32_t n = static_cast<uint32_t>(sends_to_[t.peer]++);
          buffers[i]->send(t.peer, gloo::Slot::build(kPointToPointSlotPrefix, n));
        } else {
          const uint32_t n = static_cast<uint32_t>(recvs_from_[t.peer]++);
          buffers[i]->recv(t.peer, gloo::Slot::build(kPointToPointSlotPrefix, n));
        }
      });
    }
    for (size_t i = 0; i < transfers.size(); ++i) {
      if (!buffers[i]) continue;
      PointToPoint& t = transfers[i];
      RunGloo(t.describe, [&] {
        const auto left = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       deadline - std::chrono::steady_clock::now()),
                                   std::chrono::milliseconds(1));
        try {
          if (t.send) {
            buffers[i]->waitSend(left);
          } else {
            buffers[i]->waitRecv(left);
          }
        } catch (const gloo::IoException& e) {
          if (!IsGlooTimeoutMessage(e.what())) throw;
          throw RankTimeout(absl::StrFormat("timed out after %d ms waiting for rank %d (Gloo: %s)",
                                            timeout_.count(), t.peer, e.what()));
        }
      });
    }
  } catch (const sdk::Exception& e) {
    failed_ = e;
    throw;
  }
}

void GlooCommunicator::Quiesce() {
  if (failed_ || !small_allreduces_.used() || world() == 1) return;
  Collective wait{++collectives_, kCommDestroyWait,
                  [this] {
                    return absl::StrFormat(
                        "comm_destroy on rank %d of %d: waiting for every rank to finish", rank(),
                        world());
                  },
                  [this] {
                    gloo::BarrierOptions opts(context_);
                    opts.setTag(NextTag());
                    opts.setTimeout(timeout_);
                    gloo::barrier(opts);
                  }};
  RunCollective(wait, wait.describe);
}

void GlooCommunicator::GroupStart() {
  CheckNotFailed([] { return std::string("group_start"); });
  if (in_group_) {
    throw sdk::Exception(TEPLUG_FAILED_PRECONDITION,
                         "group_start inside a group: groups do not nest");
  }
  in_group_ = true;
}

void GlooCommunicator::GroupEnd() {
  if (!in_group_) {
    throw sdk::Exception(TEPLUG_FAILED_PRECONDITION, "group_end without a group_start");
  }
  in_group_ = false;
  auto collectives = std::move(queued_collectives_);
  std::vector<PointToPoint> transfers = std::move(queued_transfers_);
  queued_collectives_.clear();
  queued_transfers_.clear();
  CheckNotFailed([] { return std::string("group_end"); });
  for (const Collective& c : collectives) {
    RunCollective(c, [&c] { return c.describe() + ", issued at group_end"; });
  }
  RunTransfers(std::move(transfers));
}

}  // namespace teplug::cpu::collective
