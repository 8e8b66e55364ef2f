// ABI version ranges as the loader compares and prints them ("[1.0, 1.0]").
#ifndef TEPLUG_CORE_LOADER_ABI_RANGE_H_
#define TEPLUG_CORE_LOADER_ABI_RANGE_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "teplug/abi_base.h"

namespace teplug::core {

// "[1.0, 2.3]" for TEPLUG_ABI_VERSION(1,0) .. TEPLUG_ABI_VERSION(2,3).
inline std::string AbiRangeString(uint32_t min, uint32_t max) {
  return absl::StrCat("[", TEPLUG_ABI_MAJOR(min), ".", TEPLUG_ABI_MINOR(min), ", ",
                      TEPLUG_ABI_MAJOR(max), ".", TEPLUG_ABI_MINOR(max), "]");
}

// True when [a_min, a_max] and [b_min, b_max] are non-empty and share a version.
inline bool AbiRangesOverlap(uint32_t a_min, uint32_t a_max, uint32_t b_min, uint32_t b_max) {
  return a_min <= a_max && b_min <= b_max && a_min <= b_max && b_min <= a_max;
}

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_ABI_RANGE_H_
