// The key selection decisions are cached under: everything about an op call
// that a capability descriptor, a config rule or a `supports` hook may
// depend on — interface, op, the op's device, dtypes, scalar parameters,
// shapes where they are not implied by the parameters, explicit strides,
// pointer alignment class — and nothing that changes from call to call in a
// training loop (data addresses beyond their alignment, values, RNG seeds,
// THD token counts). What is keyed is the contract's promise to `supports`
// implementers (interfaces/README.md, "What the dispatcher caches").
//
// It is built on every dispatched call, so building it is the dispatcher's
// largest cost and is written for speed: words are appended through a cursor
// held in a register (no per-word bounds check: every op's worst case is a
// compile-time budget under kMaxWords) and hashed as they are written, each
// with one multiply by an immediate; checks that only malformed args fail
// branch to a cold path.
#ifndef TEPLUG_CORE_SELECT_OP_SIGNATURE_H_
#define TEPLUG_CORE_SELECT_OP_SIGNATURE_H_

#include <cstdint>
#include <cstring>

#include "core/registry/interface_kind.h"

namespace teplug::core {

class OpSignature {
 public:
  // The largest signature of any v1 op (attention backward with every
  // tensor strided and both biases of rank 8: 144 words); BuildSignature
  // checks each op's budget against it at compile time.
  static constexpr int kMaxWords = 144;

  int size() const { return size_; }
  const int64_t* words() const { return words_; }
  // The words' hash, computed by BuildSignature as it writes them (see
  // op_signature.cc): equal signatures have equal hashes. The decision cache
  // compares keys in full on a hit, so the hash only spreads keys over slots.
  uint64_t hash() const { return hash_; }

  bool operator==(const OpSignature& o) const {
    return size_ == o.size_ && std::memcmp(words_, o.words_, sizeof(int64_t) * size_) == 0;
  }

 private:
  friend bool BuildSignature(InterfaceKind kind, int32_t op, const void* args, OpSignature* sig);

  int64_t words_[kMaxWords];
  int size_ = 0;
  uint64_t hash_ = 0;
};

// Builds the cache key of an op call into *sig: no allocation, no strings.
// Returns false when the args cannot be keyed — NULL or short structs, a
// tensor rank outside [0, TEPLUG_MAX_RANK], collectives (bound to their
// communicator, never cached) — and the caller then decides uncached, which
// is where DescribeOp reports what is wrong.
bool BuildSignature(InterfaceKind kind, int32_t op, const void* args, OpSignature* sig);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_OP_SIGNATURE_H_
