#include "plugins/opencl/attention/attention_launch.h"

#include <cmath>
#include <memory>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/opencl/attention/attention_kernels.h"
#include "plugins/opencl/provider/cl_status.h"
#include "plugins/opencl/provider/opencl_device.h"
#include "plugins/opencl/provider/program_cache.h"
#include "teplug/sdk/error.hpp"

namespace teplug::opencl::attention {
namespace {

using provider::CheckCl;
using provider::Kernel;
using provider::OpenClContextHandles;

// A scratch cl_mem of the call, released when it goes out of scope (OpenCL
// keeps it alive for the commands already enqueued on it).
class Scratch {
 public:
  // `bytes` of device memory, initialised from `init` when given.
  Scratch(cl_context context, size_t bytes, const void* init, const char* what) {
    cl_int e = CL_SUCCESS;
    const cl_mem_flags flags = CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0);
    mem_ = clCreateBuffer(context, flags, bytes, const_cast<void*>(init), &e);
    CheckCl(e, "clCreateBuffer", absl::StrCat(bytes, " bytes of attention ", what));
  }
  ~Scratch() { clReleaseMemObject(mem_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  cl_mem get() const { return mem_; }

 private:
  cl_mem mem_ = nullptr;
};

// Sets consecutive kernel arguments.
class Args {
 public:
  explicit Args(Kernel* k) : k_(k) {}
  template <class T>
  Args& Add(const T& v) {
    k_->Arg(next_++, v);
    return *this;
  }
  Args& Int(int64_t v) { return Add(static_cast<cl_int>(v)); }
  Args& Long(int64_t v) { return Add(static_cast<cl_long>(v)); }
  Args& Heads(const HeadTensor& h) {
    return Add(h.buffer).Long(h.off).Long(h.sb).Long(h.ss).Long(h.sh);
  }
  Args& Local(size_t floats) {
    k_->LocalArg(next_++, floats * sizeof(float));
    return *this;
  }

 private:
  Kernel* k_;
  cl_uint next_ = 0;
};

// What every launch of one call shares: queue, program, per-batch lengths,
// slopes.
class Launch {
 public:
  Launch(const AttentionShape& s, TeplugStream stream) : s_(s), stream_(stream) {
    h_ = provider::HandlesOfOwner(s.owner);
    queue_ = QueueFor(stream);
    const char* options = s.dtype == TEPLUG_DTYPE_FP16   ? "-DTEPLUG_HALF"
                          : s.dtype == TEPLUG_DTYPE_BF16 ? "-DTEPLUG_BF16"
                                                         : "";
    program_ =
        provider::SharedProgramCache().Get(h_.context, h_.device, kAttentionKernelSource, options);
    ReadLengths();
    seqs_ = std::make_unique<Scratch>(h_.context, seqs_host_.size() * sizeof(cl_int),
                                      seqs_host_.data(), "sequence lengths");
    if (s.bias_type == TEPLUG_BIAS_ALIBI) MakeSlopes();
  }

  cl_command_queue queue() const { return queue_; }
  cl_context context() const { return h_.context; }
  cl_program program() const { return program_; }
  cl_mem seqs() const { return seqs_->get(); }

  // hq .. slopes of attention_kernels.h's PROBLEM_ARGS.
  void ProblemArgs(Args& a) const {
    const int32_t kind = s_.bias_type == TEPLUG_BIAS_PRE_SCALE    ? 1
                         : s_.bias_type == TEPLUG_BIAS_POST_SCALE ? 2
                         : s_.bias_type == TEPLUG_BIAS_ALIBI      ? 3
                                                                  : 0;
    const int64_t plane = s_.max_sq * s_.max_skv;
    a.Int(s_.hq).Int(s_.hq / s_.hkv).Int(s_.max_sq).Int(s_.max_skv).Int(s_.dqk).Int(s_.dv);
    a.Add(static_cast<cl_float>(s_.scale)).Int(s_.window_left).Int(s_.window_right);
    a.Int(s_.bottom_right ? 1 : 0).Add(s_.bias).Int(kind).Long(s_.bias_off);
    a.Long(s_.bias_batches == 1 ? 0 : s_.bias_heads * plane).Long(s_.bias_heads == 1 ? 0 : plane);
    a.Add(slopes_ ? slopes_->get() : static_cast<cl_mem>(nullptr));
  }

  // Refuses a launch whose __local arrays exceed the device's local memory.
  void RequireLocal(size_t floats, const char* kernel) const {
    cl_ulong have = 0;
    CheckCl(clGetDeviceInfo(h_.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof have, &have, nullptr),
            "clGetDeviceInfo", "CL_DEVICE_LOCAL_MEM_SIZE");
    if (floats * sizeof(float) > have) {
      throw sdk::Unsupported(absl::StrCat(kernel, " needs ", floats * sizeof(float),
                                          " bytes of local memory for head dims ", s_.dqk, "/",
                                          s_.dv, "; the device has ", have));
    }
  }

  // Refuses a THD tensor `name` (on side 0 q, 1 kv) holding fewer tokens
  // than that side's cu_seqlens address.
  void RequireTokens(const HeadTensor& t, int side, const char* name) const {
    if (s_.format != SequenceFormat::kThd || tokens_[side][1] <= t.rows) return;
    throw sdk::InvalidArgument(absl::StrCat(name, " holds ", t.rows, " tokens but cu_seqlens_",
                                            side == 0 ? "q" : "kv", " addresses ",
                                            tokens_[side][1]));
  }

  // Zeros the rows of `t` (on side 0 q, 1 kv) that no sequence owns.
  void ZeroAbsent(const HeadTensor& t, int side) const {
    if (!s_.reads_lengths) return;
    Kernel k(program_, "zero_absent");
    const bool thd = s_.format == SequenceFormat::kThd;
    const int64_t seq = side == 0 ? s_.max_sq : s_.max_skv;
    Args a(&k);
    a.Heads(t).Int(thd ? 0 : 1).Int(seq).Int(side).Long(tokens_[side][0]).Long(tokens_[side][1]);
    a.Int(t.heads).Int(t.dim);
    a.Add(seqs());
    const size_t global[2] = {static_cast<size_t>(thd ? t.rows : s_.batch * seq),
                              static_cast<size_t>(t.heads * t.dim)};
    k.Run(queue_, 2, global, nullptr);
  }

  void Finish() const {
    if (stream_ == nullptr) CheckCl(clFinish(queue_), "clFinish");
  }

 private:
  cl_command_queue QueueFor(TeplugStream stream) const {
    if (stream == nullptr) return h_.default_queue;
    auto q = static_cast<cl_command_queue>(stream);
    cl_context queue_context = nullptr;
    CheckCl(
        clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context, nullptr),
        "clGetCommandQueueInfo", "the attention's stream");
    if (queue_context != h_.context) {
      throw sdk::InvalidArgument(
          "the attention's stream is a cl_command_queue of another context than the tensors'");
    }
    return q;
  }

  std::vector<cl_int> ReadCu(const FlatTensor& f, const char* side, int64_t max_len) const {
    std::vector<cl_int> cu(static_cast<size_t>(s_.batch + 1));
    CheckCl(clEnqueueReadBuffer(queue_, f.buffer, CL_TRUE, static_cast<size_t>(f.off) * 4,
                                cu.size() * 4, cu.data(), 0, nullptr, nullptr),
            "clEnqueueReadBuffer", absl::StrCat("cu_seqlens_", side));
    if (cu[0] < 0) {
      throw sdk::InvalidArgument(
          absl::StrCat("params.cu_seqlens_", side, "[0] is ", cu[0], "; it must be >= 0"));
    }
    for (int64_t b = 0; b < s_.batch; ++b) {
      const int64_t len = int64_t{cu[b + 1]} - cu[b];
      if (len < 0 || len > max_len) {
        throw sdk::InvalidArgument(absl::StrCat("params.cu_seqlens_", side, ": sequence ", b,
                                                " has length ", len, ", outside [0, ", max_len,
                                                "]"));
      }
    }
    return cu;
  }

  // seqs_host_[4b..4b+3] = {len_q, len_kv, tok0_q, tok0_kv}.
  void ReadLengths() {
    const bool thd = s_.format == SequenceFormat::kThd;
    seqs_host_.assign(static_cast<size_t>(4 * s_.batch), 0);
    const FlatTensor* cu[2] = {&s_.cu_q, &s_.cu_kv};
    const int64_t max_len[2] = {s_.max_sq, s_.max_skv};
    for (int side = 0; side < 2; ++side) {
      std::vector<cl_int> c;
      if (s_.reads_lengths && cu[side]->buffer != nullptr)
        c = ReadCu(*cu[side], side == 0 ? "q" : "kv", max_len[side]);
      for (int64_t b = 0; b < s_.batch; ++b) {
        const size_t at = static_cast<size_t>(4 * b);
        seqs_host_[at + side] = c.empty() ? static_cast<cl_int>(max_len[side]) : c[b + 1] - c[b];
        seqs_host_[at + 2 + side] = thd ? c[b] : 0;
      }
      tokens_[side][0] = c.empty() ? 0 : c[0];
      tokens_[side][1] = c.empty() ? 0 : c[s_.batch];
    }
    if (thd && PackedQkv() && seqs_host_ != SwappedSides())
      throw sdk::InvalidArgument(
          absl::StrCat("layout packs Q, K and V per token, so "
                       "cu_seqlens_q must equal cu_seqlens_kv"));
  }
  bool PackedQkv() const { return s_.layout % 5 == 0 || s_.layout % 5 == 1; }
  std::vector<cl_int> SwappedSides() const {
    std::vector<cl_int> w = seqs_host_;
    for (size_t i = 0; i < w.size(); i += 2) std::swap(w[i], w[i + 1]);
    return w;
  }

  void MakeSlopes() {
    const size_t bytes = static_cast<size_t>(s_.hq) * sizeof(float);
    if (s_.slopes.buffer != nullptr) {
      slopes_ = std::make_unique<Scratch>(h_.context, bytes, nullptr, "ALiBi slopes");
      CheckCl(clEnqueueCopyBuffer(queue_, s_.slopes.buffer, slopes_->get(),
                                  static_cast<size_t>(s_.slopes.off) * sizeof(float), 0, bytes, 0,
                                  nullptr, nullptr),
              "clEnqueueCopyBuffer", "alibi_slopes");
      return;
    }
    // attention.h's defaults: n the largest power of two <= Hq.
    int64_t n = 1;
    while (n * 2 <= s_.hq) n *= 2;
    std::vector<float> slopes(static_cast<size_t>(s_.hq));
    for (int64_t h = 0; h < s_.hq; ++h) {
      const double e = h < n ? -8.0 * static_cast<double>(h + 1) / static_cast<double>(n)
                             : -4.0 * static_cast<double>(2 * (h - n) + 1) / static_cast<double>(n);
      slopes[static_cast<size_t>(h)] = static_cast<float>(std::exp2(e));
    }
    slopes_ = std::make_unique<Scratch>(h_.context, bytes, slopes.data(), "ALiBi slopes");
  }

  const AttentionShape& s_;
  TeplugStream stream_;
  OpenClContextHandles h_{};
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::vector<cl_int> seqs_host_;
  int64_t tokens_[2][2] = {{0, 0}, {0, 0}};  // per side: cu_seqlens[0], cu_seqlens[B]
  std::unique_ptr<Scratch> seqs_, slopes_;
};

size_t RoundUp(int64_t n) {
  return static_cast<size_t>((n + kAttentionTile - 1) / kAttentionTile * kAttentionTile);
}

}  // namespace

void RunForward(const ForwardCall& c, TeplugStream stream) {
  const AttentionShape& s = c.shape;
  Launch launch(s, stream);
  const size_t t = kAttentionTile;
  const size_t dqk = static_cast<size_t>(s.dqk), dv = static_cast<size_t>(s.dv);
  launch.RequireLocal(t * (2 * dqk + 2 * dv), "attn_forward");
  for (const auto& [x, side, name] : {std::tuple<const HeadTensor*, int, const char*>{&c.q, 0, "q"},
                                      {&c.k, 1, "k"},
                                      {&c.v, 1, "v"},
                                      {&c.o, 0, "o"}})
    launch.RequireTokens(*x, side, name);
  launch.ZeroAbsent(c.o, 0);
  Kernel k(launch.program(), "attn_forward");
  Args a(&k);
  a.Heads(c.q).Heads(c.k).Heads(c.v).Heads(c.o);
  a.Add(c.lse.buffer).Long(c.lse.off).Int(c.lse.buffer != nullptr ? 1 : 0).Add(launch.seqs());
  launch.ProblemArgs(a);
  a.Local(t * dqk).Local(t * dqk).Local(t * dv).Local(t * dv);
  const size_t global[2] = {RoundUp(s.max_sq), static_cast<size_t>(s.batch * s.hq)};
  const size_t local[2] = {t, 1};
  k.Run(launch.queue(), 2, global, local);
  launch.Finish();
}

void RunBackward(const BackwardCall& c, TeplugStream stream) {
  const AttentionShape& s = c.shape;
  Launch launch(s, stream);
  const size_t t = kAttentionTile;
  const size_t dqk = static_cast<size_t>(s.dqk), dv = static_cast<size_t>(s.dv);
  launch.RequireLocal(t * (3 * dqk + 2 * dv), "attn_dq");
  launch.RequireLocal(t * (3 * dqk + 3 * dv + 2), "attn_dkv");
  for (const auto& [x, side, name] : {std::tuple<const HeadTensor*, int, const char*>{&c.q, 0, "q"},
                                      {&c.k, 1, "k"},
                                      {&c.v, 1, "v"},
                                      {&c.o, 0, "o"},
                                      {&c.d_o, 0, "d_o"},
                                      {&c.dq, 0, "dq"},
                                      {&c.dk, 1, "dk"},
                                      {&c.dv, 1, "dv"}})
    launch.RequireTokens(*x, side, name);
  const size_t rows = static_cast<size_t>(s.batch * s.hq * s.max_sq);
  // The forward's LSE at offset 0 of a scratch buffer, and rowsum(dO * O).
  Scratch lse(launch.context(), rows * sizeof(float), nullptr, "LSE copy");
  Scratch row_dot(launch.context(), rows * sizeof(float), nullptr, "rowsum(dO * O)");
  CheckCl(clEnqueueCopyBuffer(launch.queue(), c.lse.buffer, lse.get(),
                              static_cast<size_t>(c.lse.off) * sizeof(float), 0,
                              rows * sizeof(float), 0, nullptr, nullptr),
          "clEnqueueCopyBuffer", "softmax_lse");
  {
    Kernel k(launch.program(), "attn_row_dot");
    Args a(&k);
    a.Heads(c.o).Heads(c.d_o).Add(launch.seqs()).Int(s.hq).Int(s.max_sq).Int(s.dv);
    a.Add(row_dot.get());
    const size_t global[2] = {static_cast<size_t>(s.max_sq), static_cast<size_t>(s.batch * s.hq)};
    k.Run(launch.queue(), 2, global, nullptr);
  }
  launch.ZeroAbsent(c.dq, 0);
  launch.ZeroAbsent(c.dk, 1);
  launch.ZeroAbsent(c.dv, 1);
  const size_t local[2] = {t, 1};
  {
    Kernel k(launch.program(), "attn_dq");
    Args a(&k);
    a.Heads(c.q).Heads(c.k).Heads(c.v).Heads(c.d_o).Heads(c.dq);
    a.Add(lse.get()).Add(row_dot.get()).Add(launch.seqs());
    launch.ProblemArgs(a);
    a.Local(t * dqk).Local(t * dv).Local(t * dqk).Local(t * dv).Local(t * dqk);
    const size_t global[2] = {RoundUp(s.max_sq), static_cast<size_t>(s.batch * s.hq)};
    k.Run(launch.queue(), 2, global, local);
  }
  {
    Kernel k(launch.program(), "attn_dkv");
    Args a(&k);
    a.Heads(c.q).Heads(c.k).Heads(c.v).Heads(c.d_o).Heads(c.dk).Heads(c.dv);
    a.Add(lse.get()).Add(row_dot.get()).Add(launch.seqs());
    launch.ProblemArgs(a);
    a.Local(t * dqk).Local(t * dv).Local(t * dqk).Local(t * dv);
    a.Local(t * dqk).Local(t * dv).Local(t).Local(t);
    const size_t global[2] = {RoundUp(s.max_skv), static_cast<size_t>(s.batch * s.hkv)};
    k.Run(launch.queue(), 2, global, local);
  }
  if (c.dbias != nullptr) {
    Kernel k(launch.program(), "attn_dbias");
    Args a(&k);
    a.Heads(c.q).Heads(c.k).Heads(c.v).Heads(c.d_o);
    a.Add(c.dbias).Long(c.dbias_off).Int(s.bias_batches).Int(s.bias_heads).Int(s.batch);
    a.Add(lse.get()).Add(row_dot.get()).Add(launch.seqs());
    launch.ProblemArgs(a);
    const size_t global[3] = {static_cast<size_t>(s.max_skv), static_cast<size_t>(s.max_sq),
                              static_cast<size_t>(s.bias_batches * s.bias_heads)};
    k.Run(launch.queue(), 3, global, nullptr);
  }
  launch.Finish();
}

}  // namespace teplug::opencl::attention
