// Test support: reproducible random buffers of any collective data type,
// never containing a zero element (so a collective that drops or zeroes data
// cannot pass by accident), and exact readers for checking results.
#ifndef TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_RANDOM_ELEMENTS_H_
#define TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_RANDOM_ELEMENTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "plugins/reference/collective/data_type.h"

namespace teplug::reference::collective::testing {

// `count` random non-zero elements of `type` from `seed`. Floating types are
// +-[0.5, 2) (no overflow or underflow in sums/products of a few ranks);
// integers cover their full range except 0; fp8/e8m0/fp4 are random non-zero
// bytes. fp4 counts must be even.
std::vector<unsigned char> RandomElements(DataType type, size_t count, uint64_t seed);

// Element `index` of a floating buffer (fp32, fp64, fp16, bf16) as an exact
// long double.
long double FloatingElement(const unsigned char* buffer, DataType type, size_t index);

// Element `index` of an integer buffer (int8, int32, int64, uint8), exact.
__int128 IntegerElement(const unsigned char* buffer, DataType type, size_t index);

// True for fp32, fp64, fp16, bf16.
bool IsFloating(DataType type);

}  // namespace teplug::reference::collective::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_COLLECTIVE_RANDOM_ELEMENTS_H_
