#include "plugins/reference/kernels/dropout_mask.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_format.h"
#include "plugins/reference/kernels/philox.h"

namespace teplug {
namespace reference {

absl::Status ValidateDropoutGrid(const DropoutGrid& grid) {
  const int64_t extents[] = {grid.batch, grid.heads, grid.max_sq, grid.max_skv};
  const char* names[] = {"batch", "heads", "max_sq", "max_skv"};
  uint64_t total = 1;
  for (int e = 0; e < 4; ++e) {
    if (extents[e] <= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "dropout grid: %s must be positive, got %d", names[e], extents[e]));
    }
    const uint64_t extent = static_cast<uint64_t>(extents[e]);
    if (total > std::numeric_limits<uint64_t>::max() / extent) {
      return absl::InvalidArgumentError(
          "dropout grid: batch*heads*max_sq*max_skv overflows uint64");
    }
    total *= extent;
  }
  return absl::OkStatus();
}

absl::Status ValidateDropoutProbability(double p) {
  if (!(p >= 0.0 && p < 1.0)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "dropout probability must be in [0, 1), got %g", p));
  }
  return absl::OkStatus();
}

uint64_t DropoutLinearIndex(const DropoutGrid& grid, int64_t b, int64_t h,
                            int64_t i, int64_t j) {
  const uint64_t heads = static_cast<uint64_t>(grid.heads);
  const uint64_t sq = static_cast<uint64_t>(grid.max_sq);
  const uint64_t skv = static_cast<uint64_t>(grid.max_skv);
  return ((static_cast<uint64_t>(b) * heads + static_cast<uint64_t>(h)) * sq +
          static_cast<uint64_t>(i)) *
             skv +
         static_cast<uint64_t>(j);
}

double DropoutUniform(const DropoutStream& stream, const DropoutGrid& grid,
                      int64_t b, int64_t h, int64_t i, int64_t j) {
  const uint64_t linear = DropoutLinearIndex(grid, b, h, i, j);
  const uint64_t block = linear / 4;
  // 128-bit sum offset + block: low 64 bits wrap, the carry goes to bit 64.
  const uint64_t low = stream.offset + block;
  const uint32_t carry = low < stream.offset ? 1u : 0u;
  const Philox4x32Block counter{{static_cast<uint32_t>(low),
                                 static_cast<uint32_t>(low >> 32), carry, 0u}};
  const Philox4x32Key key{{static_cast<uint32_t>(stream.seed),
                           static_cast<uint32_t>(stream.seed >> 32)}};
  const uint32_t bits = Philox4x32_10(counter, key).word[linear % 4];
  return std::ldexp(static_cast<double>(bits), -32);
}

bool DropoutKeep(const DropoutStream& stream, const DropoutGrid& grid, double p,
                 int64_t b, int64_t h, int64_t i, int64_t j) {
  return DropoutUniform(stream, grid, b, h, i, j) >= p;
}

double DropoutFactor(const DropoutStream& stream, const DropoutGrid& grid,
                     double p, int64_t b, int64_t h, int64_t i, int64_t j) {
  return DropoutKeep(stream, grid, p, b, h, i, j) ? 1.0 / (1.0 - p) : 0.0;
}

}  // namespace reference
}  // namespace teplug
