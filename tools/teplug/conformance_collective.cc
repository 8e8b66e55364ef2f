#include "tools/teplug/conformance_collective.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "teplug/teplug.h"
#include "tools/teplug/conformance_contract.h"
#include "tools/teplug/float_format_codecs.h"
#include "tools/teplug/rank_group.h"

namespace teplug::cli {
namespace {

// The case's `op`: one collective op, or send_recv (a send and a recv on
// each rank: in order on 2 ranks, a ring inside group_start/group_end on more).
constexpr const char* kOps[] = {"all_reduce", "all_gather", "reduce_scatter",
                                "broadcast",  "send_recv",  "barrier"};
constexpr int32_t kDTypes[] = {TEPLUG_DTYPE_FP32,  TEPLUG_DTYPE_BF16,  TEPLUG_DTYPE_FP16,
                               TEPLUG_DTYPE_INT32, TEPLUG_DTYPE_INT64, TEPLUG_DTYPE_INT8,
                               TEPLUG_DTYPE_UINT8};
constexpr int64_t kTimeoutMs = 20000;

struct CollectiveCase {
  std::string op = "all_reduce";
  int32_t dtype = TEPLUG_DTYPE_FP32;
  int32_t reduce = TEPLUG_REDUCE_SUM;
  int world = 2;
  int64_t count = 37;
  bool uneven = false;  // all_gather / reduce_scatter: per-rank counts
};

bool Reducing(const std::string& op) { return op == "all_reduce" || op == "reduce_scatter"; }
bool Gathering(const std::string& op) { return op == "all_gather" || op == "reduce_scatter"; }

std::string Format(const CollectiveCase& c) {
  return absl::StrCat("op=", c.op, ",dtype=", sdk::DTypeName(c.dtype),
                      ",reduce=", sdk::ReduceName(c.reduce), ",world=", c.world, ",count=", c.count,
                      ",uneven=", int{c.uneven});
}

absl::StatusOr<CollectiveCase> Parse(const std::string& text) {
  CollectiveCase c;
  const absl::Status parsed =
      ForEachCaseItem(text, [&](const std::string& key, const std::string& value) -> absl::Status {
        auto bad = [&](const std::string& want) { return BadCaseValue(key, value, want); };
        if (key == "op") {
          if (std::find(std::begin(kOps), std::end(kOps), value) == std::end(kOps))
            return bad("all_reduce, all_gather, reduce_scatter, broadcast, send_recv or barrier");
          c.op = value;
        } else if (key == "dtype") {
          if (!sdk::ParseDType(value, &c.dtype) ||
              std::find(std::begin(kDTypes), std::end(kDTypes), c.dtype) == std::end(kDTypes))
            return bad("fp32, bf16, fp16, int32, int64, int8 or uint8");
        } else if (key == "reduce") {
          if (!sdk::ParseReduce(value, &c.reduce)) return bad("sum, prod, min, max or avg");
        } else if (key == "world") {
          if (!absl::SimpleAtoi(value, &c.world) || c.world < 2 || c.world > 8)
            return bad("an integer in [2, 8]");
        } else if (key == "count") {
          if (!absl::SimpleAtoi(value, &c.count) || c.count < 1 || c.count > 4096)
            return bad("an integer in [1, 4096]");
        } else if (key == "uneven") {
          if (value != "0" && value != "1") return bad("0 or 1");
          c.uneven = value == "1";
        } else {
          return absl::InvalidArgumentError(absl::StrCat(
              "--case: unknown key \"", key, "\" (keys: op, dtype, reduce, world, count, uneven)"));
        }
        return absl::OkStatus();
      });
  if (!parsed.ok()) return parsed;
  if (c.uneven && !Gathering(c.op))
    return BadCaseValue("uneven", "1", "0 outside all_gather and reduce_scatter");
  return c;
}

std::vector<std::string> Exercised(const CollectiveCase& c) {
  std::vector<std::string> e;
  if (c.op == "send_recv") {
    e = {Claim("ops", "send"), Claim("ops", "recv")};
  } else {
    e = {Claim("ops", c.op)};
  }
  if (c.op != "barrier") e.push_back(Claim("dtypes", sdk::DTypeName(c.dtype)));
  if (Reducing(c.op)) e.push_back(Claim("reductions", sdk::ReduceName(c.reduce)));
  return e;
}

std::vector<std::string> AllClaims() {
  std::vector<std::string> all;
  for (int32_t d = 1; d < TEPLUG_DTYPE_COUNT_; ++d)
    all.push_back(Claim("dtypes", sdk::DTypeName(d)));
  for (int32_t op = TEPLUG_OP_ALL_REDUCE; op <= TEPLUG_OP_BARRIER; ++op)
    all.push_back(Claim("ops", sdk::OpName(op)));
  for (int32_t r = 0; r < TEPLUG_REDUCE_COUNT_; ++r)
    all.push_back(Claim("reductions", sdk::ReduceName(r)));
  return all;
}

bool Checkable(const std::string& claim) {
  if (claim.rfind("ops=", 0) == 0 || claim.rfind("reductions=", 0) == 0) return true;
  for (int32_t d : kDTypes)
    if (claim == Claim("dtypes", sdk::DTypeName(d))) return true;
  return false;
}

std::vector<PlannedCase> Plan(const std::vector<std::string>& claims, bool quick, uint64_t seed) {
  std::vector<std::string> ops;
  for (const char* op : kOps) {
    const bool declared = std::string(op) == "send_recv"
                              ? HasClaim(claims, "ops=send") && HasClaim(claims, "ops=recv")
                              : HasClaim(claims, Claim("ops", op));
    if (declared) ops.push_back(op);
  }
  std::vector<int32_t> dtypes, reduces;
  for (int32_t d : kDTypes)
    if (HasClaim(claims, Claim("dtypes", sdk::DTypeName(d)))) dtypes.push_back(d);
  for (int32_t r = 0; r < TEPLUG_REDUCE_COUNT_; ++r)
    if (HasClaim(claims, Claim("reductions", sdk::ReduceName(r)))) reduces.push_back(r);
  std::vector<PlannedCase> plan;
  if (ops.empty() || dtypes.empty()) return plan;
  auto add = [&](CollectiveCase c) {
    if (Reducing(c.op) && reduces.empty()) return;
    const std::string text = Format(c);
    for (const PlannedCase& p : plan)
      if (p.text == text) return;
    plan.push_back({text, seed + 7919 * plan.size(), Exercised(c)});
  };
  const int32_t reduce = reduces.empty() ? TEPLUG_REDUCE_SUM : reduces[0];
  for (const std::string& op : ops) {
    add({op, dtypes[0], reduce, 2, 37, false});
    add({op, dtypes[0], reduce, 3, 37, false});
    if (Gathering(op)) add({op, dtypes[0], reduce, 3, 37, true});
  }
  auto declared_op = [&](const char* op) {
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  };
  // The op that carries the dtype cases.
  std::string data_op;
  for (const char* op : {"all_reduce", "reduce_scatter", "all_gather", "broadcast", "send_recv"})
    if (data_op.empty() && declared_op(op)) data_op = op;
  if (data_op.empty()) return plan;
  for (int32_t d : dtypes) add({data_op, d, reduce, 2, 37, false});
  // The op that carries the reduction cases (none: no reducing op declared).
  const std::string reducing_op = declared_op("all_reduce")       ? "all_reduce"
                                  : declared_op("reduce_scatter") ? "reduce_scatter"
                                                                  : "";
  if (reducing_op.empty()) reduces.clear();
  for (int32_t r : reduces) add({reducing_op, dtypes[0], r, 3, 37, false});
  if (quick) return plan;
  // Every dtype with every reduction, and every data op with every dtype.
  for (int32_t d : dtypes) {
    for (int32_t r : reduces) add({reducing_op, d, r, 3, 29, false});
    for (const std::string& op : ops)
      if (op != "barrier") add({op, d, reduce, 3, 29, Gathering(op)});
  }
  return plan;
}

absl::StatusOr<std::vector<std::string>> ParseCase(const std::string& text) {
  absl::StatusOr<CollectiveCase> c = Parse(text);
  if (!c.ok()) return c.status();
  return Exercised(*c);
}

// Elements of the case's buffers, as doubles (exact for the small integers
// the inputs hold).
void Store(void* data, int32_t dtype, int64_t i, double v) {
  auto* b = static_cast<uint8_t*>(data);
  switch (dtype) {
    case TEPLUG_DTYPE_FP32: {
      const float f = static_cast<float>(v);
      std::memcpy(b + 4 * i, &f, 4);
      return;
    }
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16: {
      const uint16_t h = dtype == TEPLUG_DTYPE_FP16 ? EncodeFp16(v) : EncodeBf16(v);
      std::memcpy(b + 2 * i, &h, 2);
      return;
    }
    case TEPLUG_DTYPE_INT32: {
      const int32_t x = static_cast<int32_t>(v);
      std::memcpy(b + 4 * i, &x, 4);
      return;
    }
    case TEPLUG_DTYPE_INT64: {
      const int64_t x = static_cast<int64_t>(v);
      std::memcpy(b + 8 * i, &x, 8);
      return;
    }
    case TEPLUG_DTYPE_INT8:
      b[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
      return;
    default:  // uint8
      b[i] = static_cast<uint8_t>(v);
  }
}

double Load(const void* data, int32_t dtype, int64_t i) {
  const auto* b = static_cast<const uint8_t*>(data);
  switch (dtype) {
    case TEPLUG_DTYPE_FP32: {
      float f;
      std::memcpy(&f, b + 4 * i, 4);
      return f;
    }
    case TEPLUG_DTYPE_FP16:
    case TEPLUG_DTYPE_BF16: {
      uint16_t h;
      std::memcpy(&h, b + 2 * i, 2);
      return dtype == TEPLUG_DTYPE_FP16 ? DecodeFp16(h) : DecodeBf16(h);
    }
    case TEPLUG_DTYPE_INT32: {
      int32_t x;
      std::memcpy(&x, b + 4 * i, 4);
      return x;
    }
    case TEPLUG_DTYPE_INT64: {
      int64_t x;
      std::memcpy(&x, b + 8 * i, 8);
      return static_cast<double>(x);
    }
    case TEPLUG_DTYPE_INT8:
      return static_cast<int8_t>(b[i]);
    default:
      return b[i];
  }
}

// A rank-1 buffer of `n` elements that owns its bytes. Received buffers start
// as a pattern no oracle produces (all bytes 0x5A), so an op that writes
// nothing shows.
struct Buffer {
  Buffer(int32_t dtype, int64_t n)
      : bytes(static_cast<size_t>(n * sdk::DTypeBits(dtype) / 8), 0x5A) {
    view = sdk::Versioned<TeplugTensor>();
    view.dtype = dtype;
    view.rank = 1;
    view.shape[0] = n;
    view.data = bytes.data();
  }
  std::vector<uint8_t> bytes;
  TeplugTensor view;
};

// Per-rank counts of an uneven all_gather / reduce_scatter.
std::vector<int64_t> Counts(const CollectiveCase& c) {
  std::vector<int64_t> counts(static_cast<size_t>(c.world), c.count);
  if (c.uneven)
    for (int r = 0; r < c.world; ++r) counts[r] = std::max<int64_t>(1, c.count - 11 * r);
  return counts;
}

int64_t SendCount(const CollectiveCase& c, int rank) {
  const std::vector<int64_t> counts = Counts(c);
  if (c.op == "reduce_scatter") {
    int64_t total = 0;
    for (int64_t n : counts) total += n;
    return total;
  }
  return c.op == "all_gather" ? counts[rank] : c.count;
}

// Every rank's input: non-zero integers in [-3, 3] ([1, 3] for uint8), so
// sums and products of up to 8 ranks are exact in every dtype. For a
// floating-point avg the last rank's values make each sum divisible by the
// world size, so the average is exact too.
std::vector<std::vector<double>> Inputs(const CollectiveCase& c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const bool unsigned_dtype = c.dtype == TEPLUG_DTYPE_UINT8;
  auto draw = [&] {
    const double v = 1 + static_cast<double>(rng() % 3);
    return unsigned_dtype || (rng() & 1) ? v : -v;
  };
  std::vector<std::vector<double>> in(static_cast<size_t>(c.world));
  for (int r = 0; r < c.world; ++r) {
    in[r].resize(static_cast<size_t>(SendCount(c, r)));
    for (double& v : in[r]) v = draw();
  }
  const bool floating =
      c.dtype == TEPLUG_DTYPE_FP32 || c.dtype == TEPLUG_DTYPE_FP16 || c.dtype == TEPLUG_DTYPE_BF16;
  if (Reducing(c.op) && c.reduce == TEPLUG_REDUCE_AVG && floating) {
    for (size_t i = 0; i < in.back().size(); ++i) {
      double others = 0;
      for (int r = 0; r + 1 < c.world; ++r) others += in[r][i];
      for (double v : {1.0, -1.0, 2.0, -2.0, 3.0, -3.0}) {
        if (std::fmod(others + v, c.world) == 0) {
          in.back()[i] = v;
          break;
        }
      }
    }
  }
  return in;
}

double Reduce(int32_t op, const std::vector<double>& v, bool integer) {
  double acc = v[0];
  for (size_t i = 1; i < v.size(); ++i) {
    switch (op) {
      case TEPLUG_REDUCE_PROD:
        acc *= v[i];
        break;
      case TEPLUG_REDUCE_MIN:
        acc = std::min(acc, v[i]);
        break;
      case TEPLUG_REDUCE_MAX:
        acc = std::max(acc, v[i]);
        break;
      default:  // sum, avg
        acc += v[i];
    }
  }
  if (op == TEPLUG_REDUCE_AVG) {
    acc /= static_cast<double>(v.size());
    if (integer) acc = std::trunc(acc);  // collective.h: integers round toward zero
  }
  return acc;
}

// What each rank must receive, from every rank's input.
std::vector<std::vector<double>> Oracle(const CollectiveCase& c,
                                        const std::vector<std::vector<double>>& in) {
  const bool integer = !(c.dtype == TEPLUG_DTYPE_FP32 || c.dtype == TEPLUG_DTYPE_FP16 ||
                         c.dtype == TEPLUG_DTYPE_BF16);
  const std::vector<int64_t> counts = Counts(c);
  std::vector<std::vector<double>> out(static_cast<size_t>(c.world));
  std::vector<double> reduced;
  if (Reducing(c.op)) {
    reduced.resize(in[0].size());
    for (size_t i = 0; i < reduced.size(); ++i) {
      std::vector<double> column;
      for (const auto& rank : in) column.push_back(rank[i]);
      reduced[i] = Reduce(c.reduce, column, integer);
    }
  }
  for (int r = 0; r < c.world; ++r) {
    if (c.op == "all_reduce") {
      out[r] = reduced;
    } else if (c.op == "reduce_scatter") {
      int64_t begin = 0;
      for (int q = 0; q < r; ++q) begin += counts[q];
      out[r].assign(reduced.begin() + begin, reduced.begin() + begin + counts[r]);
    } else if (c.op == "all_gather") {
      for (const auto& rank : in) out[r].insert(out[r].end(), rank.begin(), rank.end());
    } else if (c.op == "broadcast") {
      out[r] = in[c.world - 1];
    } else if (c.op == "send_recv") {
      out[r] = in[(r + c.world - 1) % c.world];  // from the previous rank
    }
  }
  return out;
}

int32_t CommCreateOp() {
  static const int32_t op = *core::Kernel::OpNumber(sdk::kIidCollectiveV1, "comm_create");
  return op;
}

// A key prefix no other communicator of this process uses.
std::string UniquePrefix() {
  static std::atomic<uint64_t> next{0};
  return absl::StrCat("teplug-conformance/", next++, "/");
}

absl::StatusOr<core::Selection> SelectFor(const core::Kernel& plugin, const std::string& provider,
                                          int rank, int world, const TeplugRendezvous* rv) {
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.rank = rank;
  create.world_size = world;
  create.rendezvous = rv;
  return plugin.Select(sdk::kIidCollectiveV1, CommCreateOp(), &create, provider);
}

// One rank of the case: creates its communicator, runs the op(s), destroys
// it; `received` gets what arrived in its recv buffer.
absl::Status RunRank(TeplugCollectiveV1* coll, const CollectiveCase& c, int rank,
                     const TeplugRendezvous* rv, const std::vector<double>& input,
                     std::atomic<int>* arrived, std::vector<double>* received) {
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.rank = rank;
  create.world_size = c.world;
  create.rendezvous = rv;
  TeplugCommunicator* comm = nullptr;
  if (std::string e = TakeError(coll->vtbl->comm_create(coll, &create, &comm), "comm_create");
      !e.empty())
    return absl::InternalError(e);
  if (comm == nullptr)
    return absl::InternalError("comm_create succeeded but wrote no communicator");
  Buffer send(c.dtype, static_cast<int64_t>(input.size()));
  for (size_t i = 0; i < input.size(); ++i) Store(send.bytes.data(), c.dtype, i, input[i]);
  const std::vector<int64_t> counts = Counts(c);
  int64_t recv_count = c.count;
  if (c.op == "all_gather") {
    recv_count = 0;
    for (int64_t n : counts) recv_count += n;
  } else if (c.op == "reduce_scatter") {
    recv_count = counts[rank];
  }
  Buffer recv(c.dtype, recv_count);
  TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
  a.comm = comm;
  a.send = &send.view;
  a.recv = &recv.view;
  a.reduce_op = c.reduce;
  a.counts = c.uneven ? counts.data() : nullptr;
  a.root = c.world - 1;
  auto run = [&](int32_t op, int32_t peer) {
    TeplugCollectiveArgs args = a;
    args.peer = peer;
    return TakeError(coll->vtbl->run(coll, op, &args), sdk::OpName(op));
  };
  std::string problem;
  if (c.op == "barrier") {
    // Ranks arrive 20 ms apart; after the barrier every rank must see all arrived.
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * rank));
    ++*arrived;
    problem = run(TEPLUG_OP_BARRIER, 0);
    if (problem.empty() && *arrived != c.world)
      problem = absl::StrFormat("barrier returned when %d of %d ranks had reached it",
                                arrived->load(), c.world);
  } else if (c.op == "send_recv" && c.world == 2) {
    // Rank 0 sends then receives; rank 1 receives then sends.
    const int peer = 1 - rank;
    problem = rank == 0 ? run(TEPLUG_OP_SEND, peer) : run(TEPLUG_OP_RECV, peer);
    if (problem.empty())
      problem = rank == 0 ? run(TEPLUG_OP_RECV, peer) : run(TEPLUG_OP_SEND, peer);
  } else if (c.op == "send_recv") {
    // A ring: to the next rank, from the previous, issued together.
    problem = TakeError(coll->vtbl->group_start(coll, comm), "group_start");
    if (problem.empty()) problem = run(TEPLUG_OP_SEND, (rank + 1) % c.world);
    if (problem.empty()) problem = run(TEPLUG_OP_RECV, (rank + c.world - 1) % c.world);
    if (problem.empty()) problem = TakeError(coll->vtbl->group_end(coll, comm), "group_end");
  } else {
    const int32_t op = c.op == "all_reduce"       ? TEPLUG_OP_ALL_REDUCE
                       : c.op == "all_gather"     ? TEPLUG_OP_ALL_GATHER
                       : c.op == "reduce_scatter" ? TEPLUG_OP_REDUCE_SCATTER
                                                  : TEPLUG_OP_BROADCAST;
    problem = run(op, 0);
  }
  const std::string destroyed = TakeError(coll->vtbl->comm_destroy(coll, comm), "comm_destroy");
  if (!problem.empty()) return absl::InternalError(problem);
  if (!destroyed.empty()) return absl::InternalError(destroyed);
  received->resize(static_cast<size_t>(recv_count));
  for (int64_t i = 0; i < recv_count; ++i) (*received)[i] = Load(recv.bytes.data(), c.dtype, i);
  return absl::OkStatus();
}

absl::StatusOr<core::Selection> Select(const core::Kernel& plugin, const std::string& provider,
                                       const std::string& text) {
  absl::StatusOr<CollectiveCase> c = Parse(text);
  if (!c.ok()) return c.status();
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  return SelectFor(plugin, provider, 0, c->world, &rv);
}

// Runs the case on world_size threads through the plugin's collective and
// compares every rank's output with the oracle, exactly.
CaseOutcome Run(const core::Kernel& plugin, const std::string& provider, const core::Kernel&,
                const std::string& text, uint64_t seed) {
  absl::StatusOr<CollectiveCase> c = Parse(text);
  if (!c.ok()) return {false, std::string(c.status().message())};
  RankGroup group(c->world);
  const std::string prefix = UniquePrefix();
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.kv = group.kv_store();
  rv.kv_prefix = prefix.c_str();
  rv.timeout_ms = kTimeoutMs;
  absl::StatusOr<core::Selection> s = SelectFor(plugin, provider, 0, c->world, &rv);
  if (!s.ok())
    return {false, absl::StrCat("the plugin does not serve a case it declares: ",
                                KernelMessageHead(s.status().message()))};
  TeplugCollectiveV1* coll = s->as<TeplugCollectiveV1>();
  const std::vector<std::vector<double>> in = Inputs(*c, seed);
  std::vector<std::vector<double>> got(static_cast<size_t>(c->world));
  std::atomic<int> arrived{0};
  const absl::Status ran = group.Run(
      [&](int rank) { return RunRank(coll, *c, rank, &rv, in[rank], &arrived, &got[rank]); });
  if (!ran.ok()) return {false, absl::StrCat("the plugin failed: ", ran.message())};
  const std::vector<std::vector<double>> want = Oracle(*c, in);
  CaseOutcome o;
  for (int r = 0; r < c->world; ++r) {
    for (size_t i = 0; i < want[r].size(); ++i) {
      if (got[r][i] == want[r][i]) continue;
      o.problem = absl::StrFormat("rank %d recv[%d] is %g, the exact host oracle says %g", r, i,
                                  got[r][i], want[r][i]);
      return o;
    }
  }
  o.passed = true;
  return o;
}

}  // namespace

const InterfaceConformance& CollectiveConformance() {
  static const InterfaceConformance kCollective = {
      "collective", &AllClaims, &Checkable, &Plan, &ParseCase, &Run, &Select, nullptr, nullptr};
  return kCollective;
}

}  // namespace teplug::cli
