#include "plugins/cpu/collective/ring_allreduce_cache.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "gloo/allreduce_halving_doubling.h"

namespace teplug::cpu::collective {
namespace {

template <class T>
constexpr WireType WireTypeOf() {
  if constexpr (std::is_same_v<T, float>) return WireType::kFloat;
  if constexpr (std::is_same_v<T, int8_t>) return WireType::kInt8;
  if constexpr (std::is_same_v<T, uint8_t>) return WireType::kUint8;
  if constexpr (std::is_same_v<T, int32_t>) return WireType::kInt32;
  if constexpr (std::is_same_v<T, int64_t>) return WireType::kInt64;
  return WireType::kInt128;
}

// x[i] = x[i] op y[i], in the signature gloo::ReductionFunction wants.
template <class T, WireOp kOp>
void InPlace(T* x, const T* y, size_t n) {
  static const ReduceFunction fn = ReduceFunctionFor(WireTypeOf<T>(), kOp);
  fn(x, x, y, n);
}

template <class T, WireOp kOp>
const gloo::ReductionFunction<T>* ReductionOf() {
  static const gloo::ReductionFunction<T> fn(gloo::CUSTOM, &InPlace<T, kOp>);
  return &fn;
}

template <class T>
const gloo::ReductionFunction<T>* ReductionFor(WireOp op) {
  switch (op) {
    case WireOp::kSum:
      return ReductionOf<T, WireOp::kSum>();
    case WireOp::kProd:
      return ReductionOf<T, WireOp::kProd>();
    case WireOp::kMin:
      return ReductionOf<T, WireOp::kMin>();
    case WireOp::kMax:
      return ReductionOf<T, WireOp::kMax>();
  }
  return nullptr;
}

// gloo::AllreduceHalvingDoubling, which is bound to the buffer it was built
// with: messages are copied into that buffer and back.
template <class T>
class HalvingDoubling : public ShapedAllreduce {
 public:
  HalvingDoubling(const std::shared_ptr<gloo::Context>& context, WireOp op, size_t count)
      : bytes_(count * sizeof(T)),
        buffer_(count),
        algorithm_(std::make_unique<gloo::AllreduceHalvingDoubling<T>>(
            context, std::vector<T*>{buffer_.data()}, static_cast<int>(count), ReductionFor<T>(op))) {}

  void Run(void* data) override {
    std::memcpy(buffer_.data(), data, bytes_);
    algorithm_->run();
    std::memcpy(data, buffer_.data(), bytes_);
  }

 private:
  const size_t bytes_;
  std::vector<T> buffer_;
  // Held by pointer: Gloo's algorithms declare throwing destructors.
  std::unique_ptr<gloo::Algorithm> algorithm_;
};

std::unique_ptr<ShapedAllreduce> MakeHalvingDoubling(const std::shared_ptr<gloo::Context>& context,
                                                     WireType wire, WireOp op, size_t count) {
  switch (wire) {
    case WireType::kFloat:
      return std::make_unique<HalvingDoubling<float>>(context, op, count);
    case WireType::kInt8:
      return std::make_unique<HalvingDoubling<int8_t>>(context, op, count);
    case WireType::kUint8:
      return std::make_unique<HalvingDoubling<uint8_t>>(context, op, count);
    case WireType::kInt32:
      return std::make_unique<HalvingDoubling<int32_t>>(context, op, count);
    case WireType::kInt64:
      return std::make_unique<HalvingDoubling<int64_t>>(context, op, count);
    case WireType::kInt128:
      return std::make_unique<HalvingDoubling<__int128>>(context, op, count);
  }
  return nullptr;
}

}  // namespace

RingAllreduceCache::RingAllreduceCache(std::shared_ptr<gloo::Context> context)
    : context_(std::move(context)) {}

RingAllreduceCache::~RingAllreduceCache() = default;

bool RingAllreduceCache::GathersAndFolds(int world, size_t bytes) {
  return world <= kMaxGatherWorld && bytes <= kMaxGatherBytes;
}

bool RingAllreduceCache::Run(WireType wire, WireOp op, void* data, size_t count) {
  const size_t element = WireElementBytes(wire);
  const size_t bytes = count * element;
  if (bytes > kMaxBytes || count == 0) return false;
  if (context_->size == 1) return true;  // one rank's message is its all-reduce
  const bool order_free =
      wire != WireType::kFloat || op == WireOp::kMin || op == WireOp::kMax || context_->size <= 2;
  const bool gathers = !order_free && GathersAndFolds(context_->size, bytes);
  const Key key{wire, op, count};
  auto it = rings_.find(key);
  if (it == rings_.end()) {
    // Two gathered copies; or the outbox and an inbox, two inboxes for two
    // ranks; or halving-doubling's buffer and scratch.
    const size_t held =
        gathers ? 2 * bytes * context_->size : (context_->size == 2 ? 3 : 2) * bytes;
    if (rings_.size() >= kMaxRings || total_bytes_ + held > kMaxTotalBytes) return false;
    std::unique_ptr<ShapedAllreduce> ring =
        order_free ? MakeReducingRing(context_, element, ReduceFunctionFor(wire, op), count)
        : gathers  ? MakeGatherThenFold(context_, element, ReduceFunctionFor(wire, op), count)
                   : MakeHalvingDoubling(context_, wire, op, count);
    it = rings_.emplace(key, std::move(ring)).first;
    total_bytes_ += held;
  }
  if (reinterpret_cast<uintptr_t>(data) % element == 0) {
    it->second->Run(data);
    return true;
  }
  // The reductions read whole elements: a message at an address the element
  // type does not align runs on an aligned copy.
  AlignedBytes aligned(bytes);
  std::memcpy(aligned.data(), data, bytes);
  it->second->Run(aligned.data());
  std::memcpy(data, aligned.data(), bytes);
  return true;
}

}  // namespace teplug::cpu::collective
