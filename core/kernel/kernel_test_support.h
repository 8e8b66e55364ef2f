// Shared helpers for kernel tests: plugin paths, a log capture, and builders
// for GEMM and attention args whose outputs the fake providers stamp.
#ifndef TEPLUG_CORE_KERNEL_KERNEL_TEST_SUPPORT_H_
#define TEPLUG_CORE_KERNEL_KERNEL_TEST_SUPPORT_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/kernel/kernel.h"
#include "teplug/sdk/struct_io.hpp"
#include "tools/cpp/runfiles/runfiles.h"

namespace teplug::core::testing {

inline std::string Runfile(const std::string& path) {
  std::string error;
  std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> r(
      bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
  return r ? r->Rlocation("teplug/" + path) : std::string();
}
inline std::string FakePlugin(const std::string& name) {
  return Runfile("core/kernel/testing/libteplug_fake_" + name + ".so");
}

// Collects log lines; thread-safe.
class LogCapture {
 public:
  Logger::Sink sink() {
    return [this](LogLevel, absl::string_view line) {
      std::lock_guard<std::mutex> l(mu_);
      lines_.emplace_back(line);
    };
  }
  int Count(const std::string& needle) const {
    std::lock_guard<std::mutex> l(mu_);
    int n = 0;
    for (const auto& s : lines_) n += s.find(needle) != std::string::npos;
    return n;
  }
  std::string All() const {
    std::lock_guard<std::mutex> l(mu_);
    std::string out;
    for (const auto& s : lines_) out += s + "\n";
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

inline KernelOptions IsolatedOptions(std::vector<std::string> plugins, std::string config = "") {
  KernelOptions o;
  o.use_environment = false;
  o.load_builtins = false;
  o.plugin_paths = std::move(plugins);
  o.config_text = config.empty() ? "log_level: \"warn\"\n" : std::move(config);
  o.config_source_name = "test.textproto";
  return o;
}

// A rank-2 fp32 tensor over `storage`.
inline TeplugTensor Matrix(std::vector<float>* storage, int64_t rows, int64_t cols) {
  storage->assign(static_cast<size_t>(rows * cols), 0.5f);
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = storage->data();
  t.dtype = TEPLUG_DTYPE_FP32;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  return t;
}

struct GemmCall {
  std::vector<float> a_data, b_data, d_data;
  TeplugTensor a, b, d;
  TeplugGemmArgs args;
  explicit GemmCall(float alpha = 1.f, int64_t m = 4, int64_t n = 4, int64_t k = 4) {
    a = Matrix(&a_data, m, k);
    b = Matrix(&b_data, k, n);
    d = Matrix(&d_data, m, n);
    args = sdk::Versioned<TeplugGemmArgs>();
    args.a = &a;
    args.b = &b;
    args.d = &d;
    args.alpha = alpha;
  }
  float marker() const { return d_data[0]; }
};

struct AttentionCall {
  std::vector<float> q_data, k_data, v_data, o_data;
  TeplugTensor q, k, v, o;
  TeplugAttentionParams params;
  TeplugAttentionFwdArgs args;
  explicit AttentionCall(int64_t head_dim = 64, int64_t seq = 16, int64_t heads = 2) {
    params = sdk::Versioned<TeplugAttentionParams>();
    params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
    params.mask_type = TEPLUG_MASK_CAUSAL;
    params.batch = 1;
    params.num_heads_q = params.num_heads_kv = heads;
    params.head_dim_qk = params.head_dim_v = head_dim;
    params.max_seqlen_q = params.max_seqlen_kv = seq;
    params.window_left = params.window_right = -1;
    params.softmax_scale = 0.125f;
    for (auto [t, s] : {std::pair{&q, &q_data}, {&k, &k_data}, {&v, &v_data}, {&o, &o_data}}) {
      s->assign(static_cast<size_t>(seq * heads * head_dim), 0.25f);
      *t = sdk::Versioned<TeplugTensor>();
      t->data = s->data();
      t->dtype = TEPLUG_DTYPE_FP32;
      t->rank = 4;
      t->shape[0] = 1;
      t->shape[1] = seq;
      t->shape[2] = heads;
      t->shape[3] = head_dim;
    }
    args = sdk::Versioned<TeplugAttentionFwdArgs>();
    args.params = &params;
    args.q = &q;
    args.k = &k;
    args.v = &v;
    args.o = &o;
  }
  float marker() const { return o_data[0]; }
};

}  // namespace teplug::core::testing

#endif  // TEPLUG_CORE_KERNEL_KERNEL_TEST_SUPPORT_H_
