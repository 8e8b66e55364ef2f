#include "plugins/cpu/collective/ring_allreduce_cache.h"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "gloo/allreduce_ring.h"
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

template <class T>
std::unique_ptr<gloo::Algorithm> MakeRing(const std::shared_ptr<gloo::Context>& context, WireOp op,
                                          void* data, size_t count, bool order_fixed) {
  const std::vector<T*> buffers{static_cast<T*>(data)};
  if (order_fixed) {
    return std::make_unique<gloo::AllreduceHalvingDoubling<T>>(
        context, buffers, static_cast<int>(count), ReductionFor<T>(op));
  }
  return std::make_unique<gloo::AllreduceRing<T>>(context, buffers, static_cast<int>(count),
                                                  ReductionFor<T>(op));
}

std::unique_ptr<gloo::Algorithm> MakeRingFor(const std::shared_ptr<gloo::Context>& context,
                                             WireType wire, WireOp op, void* data, size_t count,
                                             bool order_fixed) {
  switch (wire) {
    case WireType::kFloat:
      return MakeRing<float>(context, op, data, count, order_fixed);
    case WireType::kInt8:
      return MakeRing<int8_t>(context, op, data, count, order_fixed);
    case WireType::kUint8:
      return MakeRing<uint8_t>(context, op, data, count, order_fixed);
    case WireType::kInt32:
      return MakeRing<int32_t>(context, op, data, count, order_fixed);
    case WireType::kInt64:
      return MakeRing<int64_t>(context, op, data, count, order_fixed);
    case WireType::kInt128:
      return MakeRing<__int128>(context, op, data, count, order_fixed);
  }
  return nullptr;
}

}  // namespace

RingAllreduceCache::RingAllreduceCache(std::shared_ptr<gloo::Context> context)
    : context_(std::move(context)) {}

RingAllreduceCache::~RingAllreduceCache() = default;

bool RingAllreduceCache::Run(WireType wire, WireOp op, void* data, size_t count) {
  const size_t bytes = count * WireElementBytes(wire);
  if (bytes > kMaxBytes || count == 0) return false;
  const bool order_free =
      wire != WireType::kFloat || op == WireOp::kMin || op == WireOp::kMax || context_->size <= 2;
  const Key key{wire, op, count};
  auto it = rings_.find(key);
  if (it == rings_.end()) {
    if (rings_.size() >= kMaxRings || total_bytes_ + bytes > kMaxTotalBytes) return false;
    Ring ring;
    ring.storage.resize(bytes + 16);
    const auto address = reinterpret_cast<uintptr_t>(ring.storage.data());
    ring.data = ring.storage.data() + ((16 - address % 16) % 16);
    ring.algorithm = MakeRingFor(context_, wire, op, ring.data, count, /*order_fixed=*/!order_free);
    it = rings_.emplace(key, std::move(ring)).first;
    total_bytes_ += bytes;
  }
  Ring& ring = it->second;
  std::memcpy(ring.data, data, bytes);
  ring.algorithm->run();
  std::memcpy(data, ring.data, bytes);
  return true;
}

}  // namespace teplug::cpu::collective
