// The key selection decisions are cached under: everything about an op call
// that a capability descriptor, a config rule or a `supports` hook may
// depend on — interface, op, device, dtypes, shapes, scalar parameters,
// contiguity and pointer alignment class — and nothing that changes from call
// to call in a training loop (data addresses beyond their alignment, values).
#ifndef TEPLUG_CORE_SELECT_OP_SIGNATURE_H_
#define TEPLUG_CORE_SELECT_OP_SIGNATURE_H_

#include <cstdint>
#include <cstring>

namespace teplug::core {

class OpSignature {
 public:
  static constexpr int kMaxWords = 96;

  void Add(int64_t w) {
    if (size_ < kMaxWords) {
      words_[size_++] = w;
    } else {
      overflow_ = true;  // never happens for v1 args; such keys are not cached
    }
  }
  int size() const { return size_; }
  bool overflow() const { return overflow_; }
  const int64_t* words() const { return words_; }

  uint64_t Hash() const {
    // 64-bit multiply-xorshift mix over the words; good enough for a table
    // whose keys are compared in full on a hit.
    uint64_t h = 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(size_);
    for (int i = 0; i < size_; ++i) {
      h ^= static_cast<uint64_t>(words_[i]);
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
    }
    return h;
  }
  bool operator==(const OpSignature& o) const {
    return size_ == o.size_ && std::memcmp(words_, o.words_, sizeof(int64_t) * size_) == 0;
  }

 private:
  int64_t words_[kMaxWords];
  int size_ = 0;
  bool overflow_ = false;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_OP_SIGNATURE_H_
