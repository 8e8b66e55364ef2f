// The key selection decisions are cached under: everything about an op call
// that a capability descriptor, a config rule or a `supports` hook may
// depend on — interface, op, the op's device, dtypes, scalar parameters,
// shapes where they are not implied by the parameters, explicit strides,
// pointer alignment class — and nothing that changes from call to call in a
// training loop (data addresses beyond their alignment, values, THD token
// counts). It is built on every dispatched call, so it is kept small: a
// typical attention call is about 20 words.
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
    // Four independent multiply-xorshift lanes (words i, i+4, ...), so the
    // multiplies overlap in the pipeline instead of forming one serial chain,
    // folded at the end. Good enough for a table whose keys are compared in
    // full on a hit.
    uint64_t a = 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(size_), b = 0x632BE59BD9B4E019ull,
             c = 0x85EBCA77C2B2AE63ull, d = 0xC2B2AE3D27D4EB4Full;
    int i = 0;
    for (; i + 4 <= size_; i += 4) {
      a = Mix(a, static_cast<uint64_t>(words_[i]));
      b = Mix(b, static_cast<uint64_t>(words_[i + 1]));
      c = Mix(c, static_cast<uint64_t>(words_[i + 2]));
      d = Mix(d, static_cast<uint64_t>(words_[i + 3]));
    }
    for (; i < size_; ++i) a = Mix(a, static_cast<uint64_t>(words_[i]));
    return Mix(Mix(Mix(a, b), c), d);
  }
  bool operator==(const OpSignature& o) const {
    return size_ == o.size_ && std::memcmp(words_, o.words_, sizeof(int64_t) * size_) == 0;
  }

 private:
  static uint64_t Mix(uint64_t h, uint64_t w) {
    h ^= w;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
  }

  int64_t words_[kMaxWords];
  int size_ = 0;
  bool overflow_ = false;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_OP_SIGNATURE_H_
