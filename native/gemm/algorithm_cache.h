// The bounded cache the cuBLASLt IGemm keeps of the heuristic's algorithm per
// op signature: asking cublasLtMatmulAlgoGetHeuristic costs tens of
// microseconds, a lookup here well under one. The key is everything the
// heuristic's answer depends on: the plan (types, transposes, sizes, leading
// dimensions, epilogue, scale modes, fast accumulation), the GPU, the
// alignment class of each pointer (cuBLASLt picks kernels by the alignment it
// is promised) and the workspace the caller may give. Least recently used
// entries are evicted beyond the capacity. Thread-safe.
#ifndef TEPLUG_NATIVE_GEMM_ALGORITHM_CACHE_H_
#define TEPLUG_NATIVE_GEMM_ALGORITHM_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "native/gemm/cublaslt_gemm_plan.h"

namespace teplug::native {

// The largest alignment class a key distinguishes: cuBLASLt's fastest kernels
// want 16 bytes, and the decision cache of the core stops at 256.
inline constexpr uint32_t kMaxAlignmentClass = 256;

// The alignment class of an address: its largest power-of-two divisor, capped
// at kMaxAlignmentClass (NULL counts as fully aligned).
uint32_t AlignmentClass(const void* p);

// What the heuristic's answer depends on, as a flat list of integers.
struct AlgorithmKey {
  std::vector<int64_t> words;
  bool operator==(const AlgorithmKey& o) const { return words == o.words; }
};

struct AlgorithmKeyHash {
  size_t operator()(const AlgorithmKey& k) const;
};

// The pointers whose alignment classes a key holds: cuBLASLt's A, B, C and D
// (promised to the heuristic as MIN_ALIGNMENT preferences), then the bias and
// the GELU aux output, which the heuristic reads from the description to
// learn their alignment (cublasLt.h, BIAS_POINTER and EPILOGUE_AUX_POINTER).
inline constexpr int kKeyedPointers = 6;

// `alignments`: the alignment classes of those pointers, in that order.
AlgorithmKey MakeAlgorithmKey(const CublasLtGemmPlan& plan, int device_ordinal,
                              const uint32_t alignments[kKeyedPointers], size_t workspace_limit);

// A bounded LRU map from AlgorithmKey to a value (the cuBLASLt algorithm and
// its workspace size in the implementation).
template <typename Value>
class AlgorithmCache {
 public:
  explicit AlgorithmCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  std::optional<Value> Find(const AlgorithmKey& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++misses_;
      return std::nullopt;
    }
    ++hits_;
    order_.splice(order_.begin(), order_, it->second);  // most recently used first
    return it->second->second;
  }

  // Inserts or replaces; evicts the least recently used entry beyond capacity.
  void Insert(const AlgorithmKey& key, Value value) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it != index_.end()) {
      it->second->second = std::move(value);
      order_.splice(order_.begin(), order_, it->second);
      return;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return order_.size();
  }
  size_t capacity() const { return capacity_; }
  uint64_t hits() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hits_;
  }
  uint64_t misses() const {
    std::lock_guard<std::mutex> lock(mu_);
    return misses_;
  }

 private:
  using Entry = std::pair<AlgorithmKey, Value>;
  const size_t capacity_;
  mutable std::mutex mu_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<AlgorithmKey, typename std::list<Entry>::iterator, AlgorithmKeyHash> index_;
  uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace teplug::native

#endif  // TEPLUG_NATIVE_GEMM_ALGORITHM_CACHE_H_
