// The numerics write exactly the elements they are asked for: outputs are
// placed in buffers with sentinel elements after them, which must come back
// untouched (a loop bound off by one writes one element too many).
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/numerics/per_tensor_scaling.h"

namespace teplug::reference {
namespace {

constexpr float kSentinel = -12345.f;

TEST(OutputExtentTest, DequantizePerTensorWritesExactlyCountElements) {
  for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{32}}) {
    std::vector<uint8_t> codes(count + 4, 0x38);  // 1.0 in e4m3; extra codes past the end
    std::vector<float> out(count + 4, kSentinel);
    ASSERT_TRUE(DequantizePerTensor(codes.data(), count, Fp8Format::kE4M3, 2.f, out.data()).ok());
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(out[i], 2.f) << i;
    for (size_t i = count; i < out.size(); ++i) EXPECT_EQ(out[i], kSentinel) << "element " << i << " of " << count;
  }
}

}  // namespace
}  // namespace teplug::reference
