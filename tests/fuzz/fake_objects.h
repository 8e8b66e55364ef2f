// Interface objects for registrar_fuzzer: host-made stand-ins for a
// plugin's objects whose function tables are shaped by fuzz bytes (table
// type, struct_size, which functions are NULL, how query_interface answers)
// but whose functions are all well-formed code of ours. They count the
// references the host holds, so the target can check that the host takes
// and releases exactly the references the contract says.
#ifndef TEPLUG_TESTS_FUZZ_FAKE_OBJECTS_H_
#define TEPLUG_TESTS_FUZZ_FAKE_OBJECTS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "teplug/teplug.h"
#include "tests/fuzz/abi_blobs.h"
#include "tests/fuzz/fuzz_input.h"

namespace teplug::fuzz {

// How query_interface answers.
enum class QueryAnswer : uint8_t {
  kItself = 0,       // the object itself (add_ref'd) for any IID
  kNull = 1,         // NULL for every IID
  kOtherObject = 2,  // another object (add_ref'd), or NULL when there is none
  kItsOwnIid = 3,    // itself (add_ref'd) for its table's IID, NULL otherwise
};

struct FakeObject {
  TeplugObject base;  // first: the host sees a TeplugObject*
  TeplugIID table_iid{};  // the IID of the table type it was given
  QueryAnswer answer = QueryAnswer::kItself;
  FakeObject* other = nullptr;
  // References held by the host (add_ref and query_interface results minus
  // releases). The objects themselves are owned by FakeObjects.
  int64_t host_references = 0;
};

class FakeObjects {
 public:
  // Decodes one object reference:
  //   u8 present      0: NULL
  //   u8 table type   (mod 4) gemm, attention, quantizer, collective
  //   u8 null mask    bit 0 query_interface, 1 add_ref, 2 release,
  //                   3 supports, 4.. the interface's functions in order,
  //                   7 the whole vtbl pointer
  //   size code       as DecodeStructSize (the table's struct_size)
  //   u8 answer       (mod 4) QueryAnswer
  // Each object's `other` is the previous object decoded.
  FakeObject* Decode(FuzzInput& in, BlobArena& arena);

  const std::vector<std::unique_ptr<FakeObject>>& objects() const { return objects_; }

 private:
  std::vector<std::unique_ptr<FakeObject>> objects_;
};

}  // namespace teplug::fuzz

#endif  // TEPLUG_TESTS_FUZZ_FAKE_OBJECTS_H_
