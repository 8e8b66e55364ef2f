#include "tools/teplug/transformer_block.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "core/boundary/plugin_call.h"
#include "core/kernel/host_identity.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/names.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "tools/teplug/checked_op.h"
#include "tools/teplug/host_tensor.h"
#include "tools/teplug/independent_oracles.h"
#include "tools/teplug/op_tensors.h"
#include "tools/teplug/tolerances.h"

namespace teplug::cli {
namespace {

// The collective interface's "comm_create" op, where its implementation is chosen.
int32_t CommCreateOp() {
  static const int32_t op = *core::Kernel::OpNumber(sdk::kIidCollectiveV1, "comm_create");
  return op;
}


// How long a rank waits at the end of its compute ops for the others (which
// may be timing theirs) before the all-reduces; a day: the wait ends early
// with an error when another rank fails.
constexpr int64_t kComputeDoneTimeoutMs = 24ll * 3600 * 1000;

// Uniform values in [-scale, scale], never exactly zero in practice.
std::vector<double> RandomValues(int64_t n, double scale, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-scale, scale);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = dist(rng);
  return v;
}

uint64_t Mix(uint64_t a, uint64_t b) {
  return (a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2))) * 0xff51afd7ed558ccdull;
}

TeplugTensor View2d(const HostTensor& t, int64_t rows, int64_t cols) {
  return t.Reshaped({rows, cols});
}

template <class Args>
std::shared_ptr<Args> Shared(const Args& a) {
  return std::make_shared<Args>(a);
}

// Calls `call` with a copy of the args at `args` given the workspace
// `size_of` asks for, taken from `staging` (device memory when the args are
// staged on a device, host memory else).
template <class Args, class SizeOf, class Call>
TeplugError* WithAskedWorkspace(const void* args, DeviceStaging* staging, SizeOf size_of,
                                Call call) {
  Args a = *static_cast<const Args*>(args);
  size_t bytes = 0;
  if (TeplugError* e = size_of(&a, &bytes)) return e;
  if (std::string e = staging->Workspace(bytes, &a.workspace); !e.empty()) {
    return sdk::Guard([&] { throw sdk::Exception(TEPLUG_OUT_OF_MEMORY, e); });
  }
  a.workspace_size = bytes;
  return call(&a);
}

// Attention op `op` (forward or backward, the vtbl entry `call`) with the
// workspace it asks for.
template <class Args>
StagedRun AttentionRun(int32_t op,
                       TeplugError* (*TeplugAttentionV1Vtbl::*call)(TeplugAttentionV1*,
                                                                     const Args*)) {
  return [op, call](TeplugObject* o, const void* args, DeviceStaging* staging) {
    auto* at = reinterpret_cast<TeplugAttentionV1*>(o);
    return WithAskedWorkspace<Args>(
        args, staging,
        [at, op](const Args* a, size_t* bytes) {
          return at->vtbl->workspace_size(at, op, a, bytes);
        },
        [at, call](const Args* a) { return (at->vtbl->*call)(at, a); });
  };
}

struct LayerState {
  HostTensor w_qkv, w_o;  // [3E, E], [E, E]
  HostTensor x;           // [T, E] input of the layer
  HostTensor qkv;         // [B, S, 3, H, D]
  HostTensor o, lse;      // [B, S, H, D], [B, H, S]
};

class BlockRunner {
 public:
  BlockRunner(const core::Kernel& kernel, const BlockShape& s, const JobOptions& options,
              RankGroup* group, int rank, std::vector<OpResult>* results)
      : kernel_(kernel),
        s_(s),
        compare_(options.compare),
        gate_(options.timing_gate != nullptr ? options.timing_gate : &own_gate_),
        per_rank_(!options.rank_devices.empty()),
        device_(per_rank_ ? options.rank_devices[static_cast<size_t>(rank)] : RankDevice()),
        group_(group),
        rank_(rank),
        results_(results) {
    gemm_ = kernel.Query<TeplugGemmV1>(sdk::kIidGemmV1);
    attention_ = kernel.Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
    quantizer_ = kernel.Query<TeplugQuantizerV1>(sdk::kIidQuantizerV1);
    collective_ = kernel.Query<TeplugCollectiveV1>(sdk::kIidCollectiveV1);
    T_ = s.batch * s.seq;
    E_ = s.heads * s.head_dim;
  }

  absl::Status Run(const ProgressFn& progress);

 private:
  HostTensor NewTensor(const std::string& name, int32_t dtype, std::vector<int64_t> shape) {
    return HostTensor(absl::StrCat(name, ".rank", rank_), dtype, std::move(shape));
  }
  // Whether this rank times the op `label` now: its first call, on every
  // rank for collectives and, for compute ops, on rank 0, or on every rank
  // when the ranks have rows of their own (each on its device, served by its
  // own providers).
  bool TimesNow(const std::string& label, bool collective) {
    return (collective || rank_ == 0 || per_rank_) && timed_labels_.insert(label).second;
  }
  // Records a compute op's checked result (run under the gate, shared) and,
  // when it is this rank's to time, times it holding the gate exclusively.
  absl::Status Finish(TeplugObject* dispatcher, const OpCall& call, absl::StatusOr<OpResult> r,
                      ErrorCheck independent) {
    if (!r.ok()) return r.status();
    r->independent = std::move(independent);
    Place(&*r);
    if (TimesNow(call.label, /*collective=*/false)) {
      absl::MutexLock quiet(gate_);
      absl::StatusOr<OpTiming> timing = TimeOp(kernel_, dispatcher, call, compare_);
      if (!timing.ok()) return timing.status();
      r->timing = *timing;
    }
    results_->push_back(*std::move(r));
    return absl::OkStatus();
  }
  TeplugObject* Obj(void* p) { return reinterpret_cast<TeplugObject*>(p); }
  // The invoker of `call` through `dispatcher` on this rank's device
  // (rank_device.h), `run` calling the op.
  template <class Args>
  OpInvoker Placed(TeplugObject* dispatcher, const OpCall& call, StagedRun run) {
    return OnRankDevice(
        kernel_, device_, dispatcher, call.iid, call.op, call.label,
        [](const void* args) { return StagedTensorsOf(*static_cast<const Args*>(args)); },
        std::move(run), &placements_);
  }
  // With rows per rank: names the rank and its device in `r`, and, for an op
  // dispatched on a device, says why it ran there or was staged to the host.
  void Place(OpResult* r) const;

  absl::StatusOr<HostTensor> Quantize(const std::string& step, const std::string& label,
                                      const HostTensor& input, int64_t rows, int64_t cols,
                                      int32_t mode);
  absl::Status Dequantize(const std::string& step, const std::string& label, const HostTensor& q);
  absl::Status Gemm(const std::string& step, const std::string& label, const HostTensor& a,
                    bool trans_a, const HostTensor& b, bool trans_b, HostTensor* d, int64_t m,
                    int64_t n, int64_t k);
  absl::Status AttentionForward(LayerState* l);
  absl::Status AttentionBackward(const LayerState& l, const HostTensor& d_o, HostTensor* dqkv);
  absl::Status AllReduce(const std::string& label, const HostTensor& grad, const std::string& key);
  // The hosts the ranks are on, counted at the first all-reduce (every rank
  // makes it, in the same order) from each rank's host id as the kernel
  // computes it, and passed to every comm_create: the decision explained for
  // the row is then the one comm_create makes.
  absl::StatusOr<int32_t> Hosts();
  TeplugAttentionParams Params() const;

  int32_t hosts_ = 0;  // Hosts(), once counted
  const core::Kernel& kernel_;
  const BlockShape& s_;
  const Compare compare_;
  absl::Mutex own_gate_;  // the gate when the caller gives none (one rank)
  absl::Mutex* const gate_;
  const bool per_rank_;       // rows per rank (`teplug run --devices`)
  const RankDevice device_;   // where this rank's tensors live
  PlacementLog placements_;   // where each op label's last dispatched call ran
  std::set<std::string> timed_labels_;
  RankGroup* group_;
  const int rank_;
  std::vector<OpResult>* results_;
  sdk::Ref<TeplugGemmV1> gemm_;
  sdk::Ref<TeplugAttentionV1> attention_;
  sdk::Ref<TeplugQuantizerV1> quantizer_;
  sdk::Ref<TeplugCollectiveV1> collective_;
  int64_t T_ = 0, E_ = 0;
};

void BlockRunner::Place(OpResult* r) const {
  if (!per_rank_) return;
  r->device = absl::StrCat("rank ", rank_, " ", device_.spelling);
  const OpPlacement* p = placements_.Find(r->label);
  if (p == nullptr) return;
  if (p->staged) {
    r->why = absl::StrCat(p->why, "; on cpu: ", r->why);
  } else {
    r->why = r->implementation == p->chosen
                 ? p->why
                 : absl::StrCat("fallback: the first choice on ", device_.spelling, ", ", p->chosen,
                                ", failed at call time");
  }
}

absl::StatusOr<HostTensor> BlockRunner::Quantize(const std::string& step, const std::string& label,
                                                 const HostTensor& input, int64_t rows,
                                                 int64_t cols, int32_t mode) {
  HostTensor out = NewTensor(label, TEPLUG_DTYPE_FP8_E4M3, {rows, cols});
  out.AttachQuantization(mode);
  auto in_view = std::make_shared<TeplugTensor>(View2d(input, rows, cols));
  TeplugQuantizeArgs a = sdk::Versioned<TeplugQuantizeArgs>();
  a.input = in_view.get();
  a.output = out.tensor();
  a.recipe = TEPLUG_RECIPE_CURRENT;
  a.rowwise = 1;
  auto ref_args = Shared(a);
  OpCall c = MakeOpCall(
      step, absl::StrCat("quantize ", label, " -> fp8_e4m3 ", sdk::ScalingName(mode)),
      sdk::kIidQuantizerV1, TEPLUG_OP_QUANTIZE, &a, {&out}, kQuantizeVsReferenceTolerance);
  c.invoke = Placed<TeplugQuantizeArgs>(Obj(quantizer_.get()), c,
                                        [](TeplugObject* o, const void* args, DeviceStaging*) {
                                          auto* q = reinterpret_cast<TeplugQuantizerV1*>(o);
                                          return q->vtbl->quantize(
                                              q, static_cast<const TeplugQuantizeArgs*>(args));
                                        });
  c.rebind = [ref_args, in_view](const std::vector<HostTensor*>& outs) -> const void* {
    ref_args->output = outs[0]->tensor();
    return ref_args.get();
  };
  absl::StatusOr<OpResult> r;
  ErrorCheck check;
  {
    absl::ReaderMutexLock work(gate_);
    r = RunCheckedOp(kernel_, Obj(quantizer_.get()), c, compare_);
    check = {"round trip", NormalizedMaxError(out.Values(), input.Values()),
             QuantizeRoundTripTolerance(mode), ""};
  }
  if (absl::Status st = Finish(Obj(quantizer_.get()), c, std::move(r), check); !st.ok()) return st;
  return out;
}

absl::Status BlockRunner::Dequantize(const std::string& step, const std::string& label,
                                     const HostTensor& q) {
  HostTensor out = NewTensor(label + ".dequantized", TEPLUG_DTYPE_FP32, {q.rows(), q.cols()});
  TeplugDequantizeArgs a = sdk::Versioned<TeplugDequantizeArgs>();
  a.input = q.tensor();
  a.output = out.tensor();
  auto ref_args = Shared(a);
  OpCall c = MakeOpCall(step, absl::StrCat("dequantize ", label, " -> fp32"), sdk::kIidQuantizerV1,
                        TEPLUG_OP_DEQUANTIZE, &a, {&out}, kDequantizeTolerance);
  c.invoke = Placed<TeplugDequantizeArgs>(Obj(quantizer_.get()), c,
                                          [](TeplugObject* o, const void* args, DeviceStaging*) {
                                            auto* d = reinterpret_cast<TeplugQuantizerV1*>(o);
                                            return d->vtbl->dequantize(
                                                d, static_cast<const TeplugDequantizeArgs*>(args));
                                          });
  c.rebind = [ref_args](const std::vector<HostTensor*>& outs) -> const void* {
    ref_args->output = outs[0]->tensor();
    return ref_args.get();
  };
  absl::StatusOr<OpResult> r;
  ErrorCheck check;
  {
    absl::ReaderMutexLock work(gate_);
    r = RunCheckedOp(kernel_, Obj(quantizer_.get()), c, compare_);
    // Independent: the tool decodes the codes itself (code * scale_inv in double).
    check = {"decode codes", NormalizedMaxError(out.Values(), q.Values()), kDequantizeTolerance, ""};
  }
  return Finish(Obj(quantizer_.get()), c, std::move(r), check);
}

absl::Status BlockRunner::Gemm(const std::string& step, const std::string& label,
                               const HostTensor& a, bool trans_a, const HostTensor& b, bool trans_b,
                               HostTensor* d, int64_t m, int64_t n, int64_t k) {
  auto a_view = std::make_shared<TeplugTensor>(trans_a ? View2d(a, k, m) : View2d(a, m, k));
  auto b_view = std::make_shared<TeplugTensor>(trans_b ? View2d(b, n, k) : View2d(b, k, n));
  auto d_view = std::make_shared<TeplugTensor>(View2d(*d, m, n));
  TeplugGemmArgs g = sdk::Versioned<TeplugGemmArgs>();
  g.a = a_view.get();
  g.b = b_view.get();
  g.d = d_view.get();
  g.trans_a = trans_a;
  g.trans_b = trans_b;
  g.alpha = 1.0f;
  auto ref_args = Shared(g);
  auto ref_d = std::make_shared<TeplugTensor>();
  OpCall c = MakeOpCall(step, label, sdk::kIidGemmV1, TEPLUG_OP_GEMM, &g, {d},
                        OutputTolerance(ToleranceKind::kGemm, d->dtype()));
  c.invoke = Placed<TeplugGemmArgs>(
      Obj(gemm_.get()), c, [](TeplugObject* o, const void* args, DeviceStaging* staging) {
        auto* gm = reinterpret_cast<TeplugGemmV1*>(o);
        return WithAskedWorkspace<TeplugGemmArgs>(
            args, staging,
            [gm](const TeplugGemmArgs* a, size_t* bytes) {
              return gm->vtbl->workspace_size(gm, a, bytes);
            },
            [gm](const TeplugGemmArgs* a) { return gm->vtbl->gemm(gm, a); });
      });
  c.rebind = [ref_args, ref_d, a_view, b_view, m,
              n](const std::vector<HostTensor*>& outs) -> const void* {
    *ref_d = View2d(*outs[0], m, n);
    ref_args->d = ref_d.get();
    return ref_args.get();
  };
  absl::StatusOr<OpResult> r;
  ErrorCheck check;
  {
    absl::ReaderMutexLock work(gate_);
    r = RunCheckedOp(kernel_, Obj(gemm_.get()), c, compare_);
    if (!r.ok()) return r.status();
    // Independent: a naive double loop on up to 256 spread-out output entries.
    std::vector<int64_t> sample;
    const int64_t total = m * n, stride = std::max<int64_t>(1, total / 256);
    for (int64_t i = (rank_ * 7) % stride; i < total; i += stride) sample.push_back(i);
    const std::vector<double> expected =
        NaiveGemmEntries(a.Values(), b.Values(), m, n, k, trans_a, trans_b, sample);
    const std::vector<double> all = d->Values();
    std::vector<double> got;
    for (int64_t i : sample) got.push_back(all[static_cast<size_t>(i)]);
    check = {absl::StrCat("naive gemm (", sample.size(), " entries)"),
             NormalizedMaxError(got, expected), OutputTolerance(ToleranceKind::kGemm, d->dtype()),
             ""};
  }
  return Finish(Obj(gemm_.get()), c, std::move(r), check);
}

TeplugAttentionParams BlockRunner::Params() const {
  TeplugAttentionParams p = sdk::Versioned<TeplugAttentionParams>();
  p.layout = TEPLUG_LAYOUT_BS3HD;
  p.mask_type = TEPLUG_MASK_CAUSAL;
  p.bias_type = TEPLUG_BIAS_NONE;
  p.is_training = 1;
  p.batch = s_.batch;
  p.num_heads_q = p.num_heads_kv = s_.heads;
  p.head_dim_qk = p.head_dim_v = s_.head_dim;
  p.max_seqlen_q = p.max_seqlen_kv = s_.seq;
  p.window_left = p.window_right = -1;
  p.softmax_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(s_.head_dim)));
  return p;
}

absl::Status BlockRunner::AttentionForward(LayerState* l) {
  auto params = std::make_shared<TeplugAttentionParams>(Params());
  TeplugAttentionFwdArgs a = sdk::Versioned<TeplugAttentionFwdArgs>();
  a.params = params.get();
  a.q = a.k = a.v = l->qkv.tensor();
  a.o = l->o.tensor();
  a.softmax_lse = l->lse.tensor();
  auto ref_args = Shared(a);
  const double tol = OutputTolerance(ToleranceKind::kAttentionForward, s_.dtype);
  OpCall c = MakeOpCall(
      "fwd", absl::StrCat("attention forward (bs3hd causal ", sdk::DTypeName(s_.dtype), ")"),
      sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, &a, {&l->o, &l->lse}, tol);
  c.invoke = Placed<TeplugAttentionFwdArgs>(
      Obj(attention_.get()), c,
      AttentionRun(TEPLUG_OP_ATTENTION_FORWARD, &TeplugAttentionV1Vtbl::forward));
  c.rebind = [ref_args, params](const std::vector<HostTensor*>& outs) -> const void* {
    ref_args->o = outs[0]->tensor();
    ref_args->softmax_lse = outs[1]->tensor();
    return ref_args.get();
  };
  absl::StatusOr<OpResult> r;
  ErrorCheck check{"naive attention", 0, tol, ""};
  {
    absl::ReaderMutexLock work(gate_);
    r = RunCheckedOp(kernel_, Obj(attention_.get()), c, compare_);
    if (!r.ok()) return r.status();
    const NaiveAttentionShape ns{s_.batch, s_.seq, s_.heads, s_.head_dim, params->softmax_scale};
    if (s_.batch * s_.heads * s_.seq * s_.seq * s_.head_dim > s_.naive_attention_limit) {
      check.skipped = "too large for the naive oracle";
    } else {
      std::vector<double> o, lse;
      NaiveAttentionForward(ns, l->qkv.Values(), &o, &lse);
      check.error =
          std::max(NormalizedMaxError(l->o.Values(), o), NormalizedMaxError(l->lse.Values(), lse));
    }
  }
  return Finish(Obj(attention_.get()), c, std::move(r), check);
}

absl::Status BlockRunner::AttentionBackward(const LayerState& l, const HostTensor& d_o,
                                            HostTensor* dqkv) {
  auto params = std::make_shared<TeplugAttentionParams>(Params());
  auto d_o_view =
      std::make_shared<TeplugTensor>(d_o.Reshaped({s_.batch, s_.seq, s_.heads, s_.head_dim}));
  TeplugAttentionBwdArgs a = sdk::Versioned<TeplugAttentionBwdArgs>();
  a.params = params.get();
  a.q = a.k = a.v = l.qkv.tensor();
  a.o = l.o.tensor();
  a.d_o = d_o_view.get();
  a.softmax_lse = l.lse.tensor();
  a.dq = a.dk = a.dv = dqkv->tensor();
  auto ref_args = Shared(a);
  const double tol = OutputTolerance(ToleranceKind::kAttentionBackward, s_.dtype);
  OpCall c = MakeOpCall(
      "bwd", absl::StrCat("attention backward (bs3hd causal ", sdk::DTypeName(s_.dtype), ")"),
      sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_BACKWARD, &a, {dqkv}, tol);
  c.invoke = Placed<TeplugAttentionBwdArgs>(
      Obj(attention_.get()), c,
      AttentionRun(TEPLUG_OP_ATTENTION_BACKWARD, &TeplugAttentionV1Vtbl::backward));
  c.rebind = [ref_args, params, d_o_view](const std::vector<HostTensor*>& outs) -> const void* {
    ref_args->dq = ref_args->dk = ref_args->dv = outs[0]->tensor();
    return ref_args.get();
  };
  absl::StatusOr<OpResult> r;
  ErrorCheck check{"naive attention backward", 0, tol, ""};
  {
    absl::ReaderMutexLock work(gate_);
    r = RunCheckedOp(kernel_, Obj(attention_.get()), c, compare_);
    if (!r.ok()) return r.status();
    if (s_.batch * s_.heads * s_.seq * s_.seq * s_.head_dim > s_.naive_attention_limit) {
      check.skipped = "too large for the naive oracle";
    } else {
      const NaiveAttentionShape ns{s_.batch, s_.seq, s_.heads, s_.head_dim, params->softmax_scale};
      check.error = NormalizedMaxError(
          dqkv->Values(), NaiveAttentionBackward(ns, l.qkv.Values(), l.o.Values(), d_o.Values()));
    }
  }
  return Finish(Obj(attention_.get()), c, std::move(r), check);
}

absl::StatusOr<int32_t> BlockRunner::Hosts() {
  if (hosts_ > 0) return hosts_;
  if (group_->world_size() == 1) return hosts_ = 1;
  // Each id as a double (the exchange's type): 52 bits of its FNV-1a hash.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : core::LocalHostIdFromEnvironment()) hash = (hash ^ c) * 0x100000001b3ull;
  absl::StatusOr<std::vector<std::vector<double>>> all =
      group_->Exchange(rank_, {static_cast<double>(hash >> 12)});
  if (!all.ok()) return all.status();
  std::set<double> distinct;
  for (const auto& v : *all) distinct.insert(v.at(0));
  return hosts_ = static_cast<int32_t>(distinct.size());
}

absl::Status BlockRunner::AllReduce(const std::string& label, const HostTensor& grad,
                                    const std::string& key) {
  absl::StatusOr<int32_t> hosts = Hosts();
  if (!hosts.ok()) return hosts.status();
  // The communicator: created through the dispatching object, which binds it
  // to the selected implementation; the decision is explained the same way.
  TeplugRendezvous rv = sdk::Versioned<TeplugRendezvous>();
  rv.kv = group_->kv_store();
  const std::string prefix = absl::StrCat("teplug-run/", key);  // unique per communicator
  rv.kv_prefix = prefix.c_str();
  rv.timeout_ms = 60000;
  TeplugCommCreateArgs create = sdk::Versioned<TeplugCommCreateArgs>();
  create.rank = rank_;
  create.world_size = group_->world_size();
  create.rendezvous = &rv;
  create.num_hosts = *hosts;
  absl::StatusOr<core::DecisionRecord> record =
      kernel_.Explain(sdk::kIidCollectiveV1, CommCreateOp(), &create);
  if (!record.ok()) return record.status();
  if (!record->served())
    return absl::NotFoundError(absl::StrCat(label, ": no collective provider\n", record->Format()));
  TeplugCommunicator* comm = nullptr;
  if (sdk::OwnedError e(collective_->vtbl->comm_create(collective_.get(), &create, &comm));
      !e.ok()) {
    return absl::InternalError(absl::StrCat(label, ": comm_create failed: ", e.message()));
  }
  HostTensor out = NewTensor(label + ".reduced", grad.dtype(), {grad.count()});
  TeplugTensor send = grad.Reshaped({grad.count()});
  TeplugCollectiveArgs a = sdk::Versioned<TeplugCollectiveArgs>();
  a.comm = comm;
  a.send = &send;
  a.recv = out.tensor();
  a.reduce_op = TEPLUG_REDUCE_SUM;
  OpResult r;
  r.step = "comm";
  r.label = absl::StrCat("all_reduce sum ", label, " (", sdk::DTypeName(grad.dtype()), ", ",
                         group_->world_size(), group_->world_size() == 1 ? " rank)" : " ranks)");
  r.interface_name = record->interface_name;
  // Collectives do not fall back (the ranks must agree on one
  // implementation): the first choice is the communicator's.
  r.why = record->Reason(*record->chosen());
  if (*hosts > 1) absl::StrAppend(&r.why, " (ranks on ", *hosts, " hosts)");
  if (per_rank_) {
    r.device = absl::StrCat("rank ", rank_, " ", device_.spelling);
    if (!device_.on_host()) {
      // Each GEMM copied its outputs back, so the gradient is in host memory.
      r.why = absl::StrCat("staged to cpu: the gradient is in host memory (copied back from ",
                           device_.spelling,
                           " after its GEMM), where the host collective serves every rank: ",
                           r.why);
    }
  }
  core::ServedByRecorder served;
  const auto start = std::chrono::steady_clock::now();
  sdk::OwnedError run_err(collective_->vtbl->run(collective_.get(), TEPLUG_OP_ALL_REDUCE, &a));
  r.millis = MillisSince(start);
  r.implementation = served.last().empty() ? record->chosen()->implementation() : served.last();
  r.served_by_reference = ProviderOf(r.implementation) == kReferenceProvider;
  const bool timed = TimesNow(r.label, /*collective=*/true);
  absl::Status status;
  if (!run_err.ok()) {
    status = absl::InternalError(
        absl::StrCat(r.label, ": ", r.implementation, " failed: ", run_err.message()));
  }

  // The same inputs through the reference provider's own communicator, for
  // the comparison and the timed calls. Direct calls into the reference
  // implementation go through the plugin call boundary like every call into
  // a provider.
  // The reference's collective shares memory, so it serves ranks on one host only.
  const bool use_reference =
      compare_ == Compare::kReference && (!r.served_by_reference || timed) && *hosts == 1;
  if (compare_ == Compare::kReference && *hosts > 1) {
    r.vs_reference = {"max_err", 0, kAllReduceTolerance,
                      absl::StrCat("ranks on ", *hosts, " hosts: the reference's collective serves one host only")};
  }
  std::optional<core::Selection> ref;
  TeplugCommunicator* ref_comm = nullptr;
  TeplugCollectiveV1* ref_impl = nullptr;
  const std::string ref_prefix = prefix + "/reference";
  if (status.ok() && use_reference) {
    absl::StatusOr<core::Selection> selected =
        SelectReference(kernel_, sdk::kIidCollectiveV1, CommCreateOp(), &create, r.label);
    if (selected.ok()) {
      ref = *std::move(selected);
      ref_impl = ref->as<TeplugCollectiveV1>();
      rv.kv_prefix = ref_prefix.c_str();
      sdk::OwnedError e(core::CallPlugin({ref->implementation->QualifiedName(), "comm_create"}, [&] {
        return ref_impl->vtbl->comm_create(ref_impl, &create, &ref_comm);
      }));
      if (!e.ok()) {
        status = absl::InternalError(
            absl::StrCat(r.label, ": reference comm_create failed: ", e.message()));
      }
    } else {
      status = selected.status();
    }
  }
  TeplugCollectiveArgs ref_args = a;
  ref_args.comm = ref_comm;
  auto run_reference = [&](TeplugTensor* recv) {
    ref_args.recv = recv;
    return core::CallPlugin({ref->implementation->QualifiedName(), "run"}, [&] {
      return ref_impl->vtbl->run(ref_impl, TEPLUG_OP_ALL_REDUCE, &ref_args);
    });
  };
  if (status.ok() && ref_comm != nullptr && !r.served_by_reference) {
    HostTensor ref_out = out.Clone(out.name() + ".reference");
    if (sdk::OwnedError e(run_reference(ref_out.tensor())); !e.ok()) {
      status = absl::InternalError(
          absl::StrCat(r.label, ": the reference provider failed: ", e.message()));
    } else {
      r.vs_reference = {"max_err", NormalizedMaxError(out.Values(), ref_out.Values()),
                        kAllReduceTolerance, ""};
    }
  }
  // Timed on every rank together: the ranks are all past their compute ops
  // (the job's barrier before the all-reduces), and each call waits for all.
  if (status.ok() && timed) {
    HostTensor timed_out = out.Clone(out.name() + ".timed");
    TeplugCollectiveArgs timed_args = a;
    timed_args.recv = timed_out.tensor();
    std::vector<double> provider_millis, reference_millis;
    for (int rep = -1; rep < OpTiming::kTimedReps && status.ok(); ++rep) {  // -1: warm-up
      auto t0 = std::chrono::steady_clock::now();
      sdk::OwnedError e(collective_->vtbl->run(collective_.get(), TEPLUG_OP_ALL_REDUCE, &timed_args));
      if (rep >= 0) provider_millis.push_back(MillisSince(t0));
      if (!e.ok()) {
        status = absl::InternalError(
            absl::StrCat(r.label, ": ", TimedCallName(rep), " failed: ", e.message()));
        break;
      }
      if (ref_comm == nullptr) continue;
      t0 = std::chrono::steady_clock::now();
      sdk::OwnedError re(run_reference(timed_out.tensor()));
      if (rep >= 0) reference_millis.push_back(MillisSince(t0));
      if (!re.ok()) {
        status = absl::InternalError(absl::StrCat(r.label, ": ", TimedCallName(rep),
                                                  " of the reference provider failed: ", re.message()));
      }
    }
    r.timing.timed = status.ok();
    r.timing.compared = status.ok() && ref_comm != nullptr;
    r.timing.provider_millis = Median(provider_millis);
    r.timing.reference_millis = Median(reference_millis);
  }
  sdk::OwnedError destroy_err(collective_->vtbl->comm_destroy(collective_.get(), comm));
  if (ref_comm != nullptr) {
    sdk::OwnedError e(core::CallPlugin({ref->implementation->QualifiedName(), "comm_destroy"},
                                       [&] { return ref_impl->vtbl->comm_destroy(ref_impl, ref_comm); }));
    if (status.ok() && !e.ok()) {
      status = absl::InternalError(
          absl::StrCat(r.label, ": reference comm_destroy failed: ", e.message()));
    }
  }
  if (status.ok() && !destroy_err.ok()) {
    status = absl::InternalError(
        absl::StrCat(r.label, ": comm_destroy failed: ", destroy_err.message()));
  }
  if (!status.ok()) return status;
  // Independent: the tool sums every rank's gradient in double.
  absl::StatusOr<std::vector<std::vector<double>>> all = group_->Exchange(rank_, grad.Values());
  if (!all.ok()) return all.status();
  std::vector<double> sum(static_cast<size_t>(grad.count()), 0.0);
  for (const auto& v : *all) {
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += v[i];
  }
  r.independent = {"sum in double", NormalizedMaxError(out.Values(), sum), kAllReduceTolerance, ""};
  results_->push_back(std::move(r));
  return absl::OkStatus();
}

absl::Status BlockRunner::Run(const ProgressFn& progress) {
  if (!gemm_ || !attention_ || !quantizer_ || !collective_) {
    return absl::InternalError(
        "the kernel does not serve IGemm, IAttention, IQuantizer and ICollective v1");
  }
  const int32_t dt = s_.dtype;
  const int64_t B = s_.batch, S = s_.seq, H = s_.heads, D = s_.head_dim, T = T_, E = E_;
  const double w_scale = 1.0 / std::sqrt(static_cast<double>(E));
  std::vector<LayerState> layers;
  HostTensor x = NewTensor("x0", dt, {T, E});
  x.SetValues(RandomValues(T * E, 1.0, Mix(s_.seed, 1000 + rank_)));
  // Forward.
  for (int64_t li = 0; li < s_.layers; ++li) {
    LayerState l;
    l.w_qkv = NewTensor("w_qkv", dt, {3 * E, E});
    l.w_qkv.SetValues(RandomValues(3 * E * E, w_scale * std::sqrt(3.0), Mix(s_.seed, 2 * li)));
    l.w_o = NewTensor("w_o", dt, {E, E});
    l.w_o.SetValues(RandomValues(E * E, w_scale * std::sqrt(3.0), Mix(s_.seed, 2 * li + 1)));
    l.x = std::move(x);
    absl::StatusOr<HostTensor> xq = Quantize("fwd", "x", l.x, T, E, TEPLUG_SCALING_PER_TENSOR);
    if (!xq.ok()) return xq.status();
    absl::StatusOr<HostTensor> wq =
        Quantize("fwd", "w_qkv", l.w_qkv, 3 * E, E, TEPLUG_SCALING_PER_TENSOR);
    if (!wq.ok()) return wq.status();
    if (absl::Status st = Dequantize("fwd", "x", *xq); !st.ok()) return st;
    l.qkv = NewTensor("qkv", dt, {B, S, 3, H, D});
    if (absl::Status st = Gemm("fwd", "gemm qkv_proj (fp8 per_tensor)", *xq, false, *wq, true,
                               &l.qkv, T, 3 * E, E);
        !st.ok()) {
      return st;
    }
    l.o = NewTensor("o", dt, {B, S, H, D});
    l.lse = NewTensor("lse", TEPLUG_DTYPE_FP32, {B, H, S});
    if (absl::Status st = AttentionForward(&l); !st.ok()) return st;
    absl::StatusOr<HostTensor> oq = Quantize("fwd", "o", l.o, T, E, TEPLUG_SCALING_MXFP8_1D32);
    if (!oq.ok()) return oq.status();
    absl::StatusOr<HostTensor> woq = Quantize("fwd", "w_o", l.w_o, E, E, TEPLUG_SCALING_MXFP8_1D32);
    if (!woq.ok()) return woq.status();
    HostTensor y = NewTensor("y", dt, {T, E});
    if (absl::Status st = Gemm("fwd", "gemm out_proj (mxfp8)", *oq, false, *woq, true, &y, T, E, E);
        !st.ok()) {
      return st;
    }
    x = std::move(y);
    layers.push_back(std::move(l));
    if (rank_ == 0 && progress) progress("forward", li);
  }
  // Backward, layers in reverse.
  HostTensor dy = NewTensor("dy", dt, {T, E});
  dy.SetValues(RandomValues(T * E, 1.0, Mix(s_.seed, 3000 + rank_)));
  std::vector<HostTensor> grads;  // dW_o, dW_qkv per layer
  std::vector<std::string> grad_names;
  for (int64_t li = s_.layers - 1; li >= 0; --li) {
    LayerState& l = layers[static_cast<size_t>(li)];
    HostTensor d_o = NewTensor("d_o", dt, {T, E});
    if (absl::Status st =
            Gemm("bwd", "gemm out_proj dgrad", dy, false, l.w_o, false, &d_o, T, E, E);
        !st.ok()) {
      return st;
    }
    HostTensor dw_o = NewTensor("dw_o", TEPLUG_DTYPE_FP32, {E, E});
    if (absl::Status st =
            Gemm("bwd", "gemm out_proj wgrad (fp32 out)", dy, true, l.o, false, &dw_o, E, E, T);
        !st.ok()) {
      return st;
    }
    HostTensor dqkv = NewTensor("dqkv", dt, {B, S, 3, H, D});
    if (absl::Status st = AttentionBackward(l, d_o, &dqkv); !st.ok()) return st;
    HostTensor dx = NewTensor("dx", dt, {T, E});
    if (absl::Status st =
            Gemm("bwd", "gemm qkv_proj dgrad", dqkv, false, l.w_qkv, false, &dx, T, E, 3 * E);
        !st.ok()) {
      return st;
    }
    HostTensor dw_qkv = NewTensor("dw_qkv", TEPLUG_DTYPE_FP32, {3 * E, E});
    if (absl::Status st = Gemm("bwd", "gemm qkv_proj wgrad (fp32 out)", dqkv, true, l.x, false,
                               &dw_qkv, 3 * E, E, T);
        !st.ok()) {
      return st;
    }
    grads.push_back(std::move(dw_o));
    grad_names.push_back("dw_o");
    grads.push_back(std::move(dw_qkv));
    grad_names.push_back("dw_qkv");
    dy = std::move(dx);
    if (rank_ == 0 && progress) progress("backward", li);
  }
  // Data-parallel gradient reduction, once every rank is past its compute
  // ops (rank 0 may still be timing them; without the wait, a rank's
  // comm_create could give up on it).
  if (absl::StatusOr<std::vector<std::vector<double>>> all_here =
          group_->Exchange(rank_, {}, kComputeDoneTimeoutMs);
      !all_here.ok()) {
    return all_here.status();
  }
  for (size_t i = 0; i < grads.size(); ++i) {
    if (absl::Status st = AllReduce(grad_names[i], grads[i], absl::StrCat(grad_names[i], "/", i));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunTransformerBlock(const core::Kernel& kernel, const BlockShape& shape,
                                 const JobOptions& options, RankGroup* group, int rank,
                                 const ProgressFn& progress, std::vector<OpResult>* results) {
  BlockRunner runner(kernel, shape, options, group, rank, results);
  return runner.Run(progress);
}

}  // namespace teplug::cli
