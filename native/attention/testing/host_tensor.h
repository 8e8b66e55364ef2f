// A contiguous TeplugTensor over test memory, for the attention tests that
// run against the fake backend (the data is never read on a GPU).
#ifndef TEPLUG_NATIVE_ATTENTION_TESTING_HOST_TENSOR_H_
#define TEPLUG_NATIVE_ATTENTION_TESTING_HOST_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "teplug/types.h"

namespace teplug::native::attention::testing {

// Makes `t` a contiguous `dtype` tensor of `shape` at `data` on `device`.
inline void InitTensor(TeplugTensor* t, void* data, const std::vector<int64_t>& shape,
                       int32_t dtype, const TeplugDevice* device) {
  t->struct_size = sizeof(*t);
  t->data = data;
  t->dtype = dtype;
  t->rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t->shape[i] = shape[i];
  t->device = device;
}

}  // namespace teplug::native::attention::testing

#endif  // TEPLUG_NATIVE_ATTENTION_TESTING_HOST_TENSOR_H_
