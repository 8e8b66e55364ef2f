// Reading a fuzz input as a stream of little values, and failing a fuzz
// check loudly.
//
// The byte formats of the structured targets (registrar_fuzzer, op_fuzzer)
// are built from these reads: each value consumes the next bytes of the
// input, and once the input is exhausted every read yields zeros, so every
// byte string decodes to something and a truncated input is still a valid
// one. seed_writer.h writes the same values in the same order.
#ifndef TEPLUG_TESTS_FUZZ_FUZZ_INPUT_H_
#define TEPLUG_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

namespace teplug::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size) : data_(data), left_(size) {}

  bool empty() const { return left_ == 0; }

  // The next sizeof(T) bytes as a T (little-endian, as the machine reads
  // them); missing bytes are zero.
  template <class T>
  T Take() {
    static_assert(std::is_trivially_copyable<T>::value, "plain values only");
    T value;
    std::memset(&value, 0, sizeof value);
    TakeBytes(&value, sizeof value);
    return value;
  }

  // Copies the next `n` bytes into `out`, zero-filling what the input lacks.
  void TakeBytes(void* out, size_t n) {
    const size_t have = n < left_ ? n : left_;
    if (have != 0) std::memcpy(out, data_, have);
    if (have < n) std::memset(static_cast<uint8_t*>(out) + have, 0, n - have);
    data_ += have;
    left_ -= have;
  }

 private:
  const uint8_t* data_;
  size_t left_;
};

}  // namespace teplug::fuzz

// Fails the current input: prints what was violated and aborts, which
// libFuzzer reports as a crash (and saves the input) and the replay test
// reports as a failure.
#define TEPLUG_FUZZ_CHECK(condition, message)                                              \
  do {                                                                                     \
    if (!(condition)) {                                                                    \
      std::fprintf(stderr, "%s:%d: fuzz check failed: %s: %s\n", __FILE__, __LINE__,       \
                   #condition, std::string(message).c_str());                              \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

#endif  // TEPLUG_TESTS_FUZZ_FUZZ_INPUT_H_
