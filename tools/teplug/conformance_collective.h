// `teplug conformance` for ICollective/1: every declared op (all_reduce,
// all_gather, reduce_scatter, broadcast, send/recv, barrier), dtype and
// reduction, run by the plugin's collective on 2 and 3 ranks (threads of
// this process meeting through an in-process key-value store, the portable
// rendezvous), uneven counts on 3, each rank's output compared exactly with
// a host oracle computed from every rank's input. Inputs are small non-zero
// integers (in every dtype), so every sum, product and average (whose sums
// the inputs make divisible by the world size for floating dtypes) is exact.
// Spelled for --case as
// "op=all_reduce,dtype=fp32,reduce=sum,world=2,count=37,uneven=0".
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_H_

#include "tools/teplug/conformance_interface.h"

namespace teplug::cli {

const InterfaceConformance& CollectiveConformance();

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_H_
