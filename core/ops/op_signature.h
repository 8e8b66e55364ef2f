// The key selection decisions are cached under: everything about an op call
// that a capability descriptor, a config rule or a `supports` hook may
// depend on — interface, op, the op's device, dtypes, scalar parameters,
// shapes where they are not implied by the parameters, explicit strides,
// pointer alignment class — and nothing that changes from call to call in a
// training loop (data addresses beyond their alignment, values, RNG seeds,
// THD token counts). What is keyed is the contract's promise to `supports`
// implementers (interfaces/README.md, "What the dispatcher caches").
//
// Each op's key is built from its field table by table_key.h, on every
// dispatched call, so it is written for speed (see there).
#ifndef TEPLUG_CORE_OPS_OP_SIGNATURE_H_
#define TEPLUG_CORE_OPS_OP_SIGNATURE_H_

#include <cstdint>
#include <cstring>


namespace teplug::core {

class OpSignature {
 public:
  // Room for the largest signature of any op (attention backward with every
  // tensor strided and both biases of rank 8); each op's worst case is
  // checked against it at compile time (table_key.h).
  static constexpr int kMaxWords = 192;

  int size() const { return size_; }
  const int64_t* words() const { return words_; }
  // The words' hash, computed by the key builder as it writes them (see
  // table_key.h): equal signatures have equal hashes. The decision cache
  // compares keys in full on a hit, so the hash only spreads keys over slots.
  uint64_t hash() const { return hash_; }

  bool operator==(const OpSignature& o) const {
    return size_ == o.size_ && std::memcmp(words_, o.words_, sizeof(int64_t) * size_) == 0;
  }

 private:
  friend struct SignatureWriter;

  int64_t words_[kMaxWords];
  int size_ = 0;
  uint64_t hash_ = 0;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_OP_SIGNATURE_H_
