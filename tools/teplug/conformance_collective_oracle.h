// One ICollective case of `teplug conformance` and its exact host oracle:
// every rank's input (small non-zero integers in every dtype, so sums,
// products and, made divisible for floating dtypes, averages are exact) and
// what each rank must receive, computed here from all the inputs.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_ORACLE_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_ORACLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "teplug/teplug.h"

namespace teplug::cli {

// One case: `op` is a collective op, or send_recv (a send and a recv on each
// rank: in order on 2 ranks, a ring inside group_start/group_end on more).
struct CollectiveCase {
  std::string op = "all_reduce";
  int32_t dtype = TEPLUG_DTYPE_FP32;
  int32_t reduce = TEPLUG_REDUCE_SUM;
  int world = 2;
  int64_t count = 37;
  bool uneven = false;  // all_gather / reduce_scatter: per-rank counts
};

// all_reduce, reduce_scatter: they take a reduction.
bool Reducing(const std::string& op);
// all_gather, reduce_scatter: they take per-rank counts.
bool Gathering(const std::string& op);

// Per-rank element counts: `count` each, or for an uneven case
// max(1, count - 11 * rank).
std::vector<int64_t> Counts(const CollectiveCase& c);
// Elements rank `rank` sends.
int64_t SendCount(const CollectiveCase& c, int rank);
// Every rank's input, from `seed`.
std::vector<std::vector<double>> Inputs(const CollectiveCase& c, uint64_t seed);
// What each rank must receive, from every rank's input.
std::vector<std::vector<double>> Oracle(const CollectiveCase& c,
                                        const std::vector<std::vector<double>>& in);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_ORACLE_H_
