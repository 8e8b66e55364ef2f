#include "tools/teplug/conformance_collective.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "teplug/teplug.h"
#include "tools/teplug/conformance_collective_oracle.h"
#include "tools/teplug/conformance_collective_ranks.h"
#include "tools/teplug/conformance_contract.h"

namespace teplug::cli {
namespace {

// The case's `op` values.
constexpr const char* kOps[] = {"all_reduce", "all_gather", "reduce_scatter",
                                "broadcast",  "send_recv",  "barrier"};
constexpr int32_t kDTypes[] = {TEPLUG_DTYPE_FP32,  TEPLUG_DTYPE_BF16,  TEPLUG_DTYPE_FP16,
                               TEPLUG_DTYPE_INT32, TEPLUG_DTYPE_INT64, TEPLUG_DTYPE_INT8,
                               TEPLUG_DTYPE_UINT8};

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

int32_t CommCreateOp() {
  static const int32_t op = *core::Kernel::OpNumber(sdk::kIidCollectiveV1, "comm_create");
  return op;
}

// The implementation comm_create of `world` ranks selects, for buffers on
// `where`'s device (host memory when null).
absl::StatusOr<core::Selection> SelectFor(const core::Kernel& plugin, const std::string& provider,
                                          int rank, int world, const TeplugRendezvous* rv,
                                          const CaseDevice* where) {
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.rank = rank;
  create.world_size = world;
  create.rendezvous = rv;
  create.device = where == nullptr ? nullptr : &where->device;
  return plugin.Select(sdk::kIidCollectiveV1, CommCreateOp(), &create, provider);
}

absl::StatusOr<core::Selection> Select(const core::Kernel& plugin, const std::string& provider,
                                       const std::string& text, const CaseDevice* where) {
  absl::StatusOr<CollectiveCase> c = Parse(text);
  if (!c.ok()) return c.status();
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  return SelectFor(plugin, provider, 0, c->world, &rv, where);
}

// Runs the case on world_size threads through the plugin's collective (on
// `where`'s device when given) and compares every rank's output with the
// oracle, exactly.
CaseOutcome Run(const core::Kernel& plugin, const std::string& provider, const core::Kernel&,
                const std::string& text, uint64_t seed, const CaseDevice* where) {
  absl::StatusOr<CollectiveCase> c = Parse(text);
  if (!c.ok()) return {false, std::string(c.status().message())};
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  absl::StatusOr<core::Selection> s = SelectFor(plugin, provider, 0, c->world, &rv, where);
  if (!s.ok())
    return {false, absl::StrCat("the plugin does not serve a case it declares: ",
                                KernelMessageHead(s.status().message()))};
  const std::vector<std::vector<double>> in = Inputs(*c, seed);
  absl::StatusOr<std::vector<std::vector<double>>> got =
      RunOnRanks(s->as<TeplugCollectiveV1>(), *c, in, where);
  if (!got.ok()) return {false, absl::StrCat("the plugin failed: ", got.status().message())};
  const std::vector<std::vector<double>> want = Oracle(*c, in);
  CaseOutcome o;
  for (int r = 0; r < c->world; ++r) {
    for (size_t i = 0; i < want[r].size(); ++i) {
      if ((*got)[r][i] == want[r][i]) continue;
      o.problem = absl::StrFormat("rank %d recv[%d] is %g, the exact host oracle says %g", r, i,
                                  (*got)[r][i], want[r][i]);
      return o;
    }
  }
  o.passed = true;
  return o;
}

const std::vector<LimitRule>& Limits() {
  static const std::vector<LimitRule> kRules = {
      {"max_world_size", LimitKind::kMax, {"world"}, 8}};
  return kRules;
}

// The case on every rank, on `impl` directly: a world past max_world_size
// must be refused by comm_create, an undeclared dtype by the op; every rank
// is asked, so none waits for a rank that never comes.
RefusalReport Refuses(TeplugObject* impl, const std::string& text, uint64_t seed,
                      const CaseDevice* where) {
  absl::StatusOr<CollectiveCase> c = Parse(text);
  if (!c.ok()) return {std::string(c.status().message())};
  auto* coll = reinterpret_cast<TeplugCollectiveV1*>(impl);
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.world_size = c->world;
  create.rendezvous = &rv;
  create.device = where == nullptr ? nullptr : &where->device;
  const std::string what = absl::StrCat(c->op, " on ", c->world, " ranks");
  RefusalReport r;
  r.supports_reason = CheckSupportsReason(coll->vtbl->supports, impl, CommCreateOp(), &create,
                                          absl::StrCat("comm_create of ", c->world, " ranks"));
  absl::StatusOr<std::vector<std::vector<double>>> got =
      RunOnRanks(coll, *c, Inputs(*c, seed), where);
  if (got.ok()) {
    r.refused_op = CheckRefused(nullptr, what);
    return r;
  }
  // A rank's error, as TakeError wrote it: "<call> returned <code>: ...".
  const std::string message(got.status().message());
  for (int32_t code : {TEPLUG_UNSUPPORTED, TEPLUG_INVALID_ARGUMENT})
    if (absl::StrContains(message, absl::StrCat(" returned ", teplug_code_name(code), ":")))
      return r;
  r.refused_op =
      absl::StrCat(what, ": ", message, "; expected unsupported or invalid_argument");
  return r;
}

}  // namespace

const InterfaceConformance& CollectiveConformance() {
  static const InterfaceConformance kCollective = [] {
    InterfaceConformance c = {"collective",
                              &AllClaims,
                              &Checkable,
                              &Plan,
                              &ParseCase,
                              &RunOnHost<&Run>,
                              &SelectOnHost<&Select>,
                              nullptr,
                              nullptr};
    c.run_on_device = &RunOnDevice<&Run>;
    c.select_on_device = &SelectOnDevice<&Select>;
    c.limit_rules = &Limits;
    c.refuses = &Refuses;
    return c;
  }();
  return kCollective;
}

}  // namespace teplug::cli
