#include "plugins/cpu/attention/bf16_tile_matmul.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "absl/strings/str_format.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/provider/bounded_lru_cache.h"
#include "teplug/sdk/error.hpp"

namespace teplug::cpu::attention {
namespace {

using dt = dnnl::memory::data_type;

// What a primitive is created for: its bytes are the cache key.
struct Shape {
  int64_t m, n, k, a_row_stride, a_col_stride, b_row_stride, b_col_stride, c_stride;
  int64_t accumulate;
};

struct Plan {
  dnnl::memory::desc a, b, c;
  dnnl::matmul matmul;
  size_t scratchpad_bytes = 0;
};

constexpr size_t kCachedPlans = 64;

const dnnl::engine& Engine() {
  static const dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

// The calling thread's OpenMP thread count is 1 while it lives: a primitive
// created so runs on its caller alone (the attention spreads its work over
// its own threads), and its OpenMP count is restored for the caller's other
// work.
class OneOmpThread {
 public:
  OneOmpThread() : previous_(omp_get_max_threads()) {
    if (previous_ != 1) omp_set_num_threads(1);
  }
  ~OneOmpThread() {
    if (previous_ != 1) omp_set_num_threads(previous_);
  }
  OneOmpThread(const OneOmpThread&) = delete;
  OneOmpThread& operator=(const OneOmpThread&) = delete;

 private:
  const int previous_;
};

std::string Describe(const Shape& s) {
  return absl::StrFormat(
      "bf16 tile matmul [%d x %d] x [%d x %d] (A strides %d, %d; B strides %d, %d; C stride %d%s)",
      s.m, s.k, s.k, s.n, s.a_row_stride, s.a_col_stride, s.b_row_stride, s.b_col_stride,
      s.c_stride, s.accumulate ? ", accumulating" : "");
}

Shape ShapeOf(const Bf16Matrix& a, const Bf16Matrix& b, int64_t c_stride, bool accumulate) {
  return Shape{a.rows,       b.cols,       a.cols,   a.row_stride, a.col_stride,
               b.row_stride, b.col_stride, c_stride, accumulate ? 1 : 0};
}

sdk::Exception Failure(const Shape& s, const dnnl::error& e) {
  return sdk::Internal(absl::StrFormat("oneDNN failed on the %s: %s", Describe(s), e.what()));
}

std::shared_ptr<const Plan> CreatePlan(const Shape& s) {
  auto plan = std::make_shared<Plan>();
  plan->a = dnnl::memory::desc({s.m, s.k}, dt::bf16, {s.a_row_stride, s.a_col_stride});
  plan->b = dnnl::memory::desc({s.k, s.n}, dt::bf16, {s.b_row_stride, s.b_col_stride});
  plan->c = dnnl::memory::desc({s.m, s.n}, dt::f32, {s.c_stride, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (s.accumulate) {
    dnnl::post_ops post;
    post.append_sum(1.0f);
    attr.set_post_ops(post);
  }
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(plan->a, plan->b, plan->c), attr,
                                        Engine());
  plan->matmul = dnnl::matmul(pd);
  plan->scratchpad_bytes = pd.scratchpad_desc().get_size();
  return plan;
}

std::shared_ptr<const Plan> FindOrCreatePlan(const Shape& s) {
  static auto* cache = new provider::BoundedLruCache<Plan>(kCachedPlans);
  const std::string key(reinterpret_cast<const char*>(&s), sizeof s);
  if (std::shared_ptr<const Plan> plan = cache->Find(key)) return plan;
  return cache->Insert(key, CreatePlan(s));
}

// The calling thread's scratchpad: at least `bytes`, 64-byte aligned, kept
// for the thread's next products.
void* Scratchpad(size_t bytes) {
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<void, Free> block;
  thread_local size_t block_bytes = 0;
  if (block_bytes < bytes) {
    const size_t rounded = (bytes + 63) / 64 * 64;
    block.reset(std::aligned_alloc(64, rounded));
    if (block == nullptr) throw std::bad_alloc();
    block_bytes = rounded;
  }
  return block.get();
}

}  // namespace

void Bf16TileMatmul(const Bf16Matrix& a, const Bf16Matrix& b, float* c, int64_t c_stride,
                    bool accumulate) {
  const Shape s = ShapeOf(a, b, c_stride, accumulate);
  OneOmpThread one_thread;
  try {
    const std::shared_ptr<const Plan> plan = FindOrCreatePlan(s);
    const dnnl::engine& engine = Engine();
    thread_local dnnl::stream stream(engine);
    const int64_t pad_bytes = static_cast<int64_t>(std::max<size_t>(plan->scratchpad_bytes, 1));
    plan->matmul.execute(
        stream, {{DNNL_ARG_SRC, dnnl::memory(plan->a, engine, const_cast<uint16_t*>(a.data))},
                 {DNNL_ARG_WEIGHTS, dnnl::memory(plan->b, engine, const_cast<uint16_t*>(b.data))},
                 {DNNL_ARG_DST, dnnl::memory(plan->c, engine, c)},
                 {DNNL_ARG_SCRATCHPAD, dnnl::memory({{pad_bytes}, dt::u8, {1}}, engine,
                                                    Scratchpad(static_cast<size_t>(pad_bytes)))}});
    stream.wait();
  } catch (const dnnl::error& e) {
    throw Failure(s, e);
  }
}

void PrepareBf16TileMatmul(const Bf16Matrix& a, const Bf16Matrix& b, int64_t c_stride,
                           bool accumulate) {
  const Shape s = ShapeOf(a, b, c_stride, accumulate);
  OneOmpThread one_thread;
  try {
    FindOrCreatePlan(s);
  } catch (const dnnl::error& e) {
    throw Failure(s, e);
  }
}

}  // namespace teplug::cpu::attention
