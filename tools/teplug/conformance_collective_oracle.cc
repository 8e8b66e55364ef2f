#include "tools/teplug/conformance_collective_oracle.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace teplug::cli {
namespace {

double Reduce(int32_t op, const std::vector<double>& v, bool integer) {
  double acc = v[0];
  for (size_t i = 1; i < v.size(); ++i) {
    switch (op) {
      case TEPLUG_REDUCE_PROD:
        acc *= v[i];
        break;
      case TEPLUG_REDUCE_MIN:
        acc = std::min(acc, v[i]);
        break;
      case TEPLUG_REDUCE_MAX:
        acc = std::max(acc, v[i]);
        break;
      default:  // sum, avg
        acc += v[i];
    }
  }
  if (op == TEPLUG_REDUCE_AVG) {
    acc /= static_cast<double>(v.size());
    if (integer) acc = std::trunc(acc);  // collective.h: integers round toward zero
  }
  return acc;
}

}  // namespace

bool Reducing(const std::string& op) { return op == "all_reduce" || op == "reduce_scatter"; }
bool Gathering(const std::string& op) { return op == "all_gather" || op == "reduce_scatter"; }

std::vector<int64_t> Counts(const CollectiveCase& c) {
  std::vector<int64_t> counts(static_cast<size_t>(c.world), c.count);
  if (c.uneven)
    for (int r = 0; r < c.world; ++r) counts[r] = std::max<int64_t>(1, c.count - 11 * r);
  return counts;
}

int64_t SendCount(const CollectiveCase& c, int rank) {
  const std::vector<int64_t> counts = Counts(c);
  if (c.op == "reduce_scatter") {
    int64_t total = 0;
    for (int64_t n : counts) total += n;
    return total;
  }
  return c.op == "all_gather" ? counts[rank] : c.count;
}

// Every rank's input: non-zero integers in [-3, 3] ([1, 3] for uint8), so
// sums and products of up to 8 ranks are exact in every dtype. For a
// floating-point avg the last rank's values make each sum divisible by the
// world size, so the average is exact too.
std::vector<std::vector<double>> Inputs(const CollectiveCase& c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const bool unsigned_dtype = c.dtype == TEPLUG_DTYPE_UINT8;
  auto draw = [&] {
    const double v = 1 + static_cast<double>(rng() % 3);
    return unsigned_dtype || (rng() & 1) ? v : -v;
  };
  std::vector<std::vector<double>> in(static_cast<size_t>(c.world));
  for (int r = 0; r < c.world; ++r) {
    in[r].resize(static_cast<size_t>(SendCount(c, r)));
    for (double& v : in[r]) v = draw();
  }
  const bool floating =
      c.dtype == TEPLUG_DTYPE_FP32 || c.dtype == TEPLUG_DTYPE_FP16 || c.dtype == TEPLUG_DTYPE_BF16;
  if (Reducing(c.op) && c.reduce == TEPLUG_REDUCE_AVG && floating) {
    for (size_t i = 0; i < in.back().size(); ++i) {
      double others = 0;
      for (int r = 0; r + 1 < c.world; ++r) others += in[r][i];
      for (double v : {1.0, -1.0, 2.0, -2.0, 3.0, -3.0}) {
        if (std::fmod(others + v, c.world) == 0) {
          in.back()[i] = v;
          break;
        }
      }
    }
  }
  return in;
}

// What each rank must receive, from every rank's input.
std::vector<std::vector<double>> Oracle(const CollectiveCase& c,
                                        const std::vector<std::vector<double>>& in) {
  const bool integer = !(c.dtype == TEPLUG_DTYPE_FP32 || c.dtype == TEPLUG_DTYPE_FP16 ||
                         c.dtype == TEPLUG_DTYPE_BF16);
  const std::vector<int64_t> counts = Counts(c);
  std::vector<std::vector<double>> out(static_cast<size_t>(c.world));
  std::vector<double> reduced;
  if (Reducing(c.op)) {
    reduced.resize(in[0].size());
    for (size_t i = 0; i < reduced.size(); ++i) {
      std::vector<double> column;
      for (const auto& rank : in) column.push_back(rank[i]);
      reduced[i] = Reduce(c.reduce, column, integer);
    }
  }
  for (int r = 0; r < c.world; ++r) {
    if (c.op == "all_reduce") {
      out[r] = reduced;
    } else if (c.op == "reduce_scatter") {
      int64_t begin = 0;
      for (int q = 0; q < r; ++q) begin += counts[q];
      out[r].assign(reduced.begin() + begin, reduced.begin() + begin + counts[r]);
    } else if (c.op == "all_gather") {
      for (const auto& rank : in) out[r].insert(out[r].end(), rank.begin(), rank.end());
    } else if (c.op == "broadcast") {
      out[r] = in[c.world - 1];
    } else if (c.op == "send_recv") {
      out[r] = in[(r + c.world - 1) % c.world];  // from the previous rank
    }
  }
  return out;
}

}  // namespace teplug::cli
