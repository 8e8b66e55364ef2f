// Running one ICollective case of `teplug conformance` on world_size
// ranks: threads of this process (RankGroup) meeting through its in-process
// key-value store, each creating its communicator on the plugin's
// collective, running the case's op(s) and destroying it.
#ifndef TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_RANKS_H_
#define TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_RANKS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "teplug/teplug.h"
#include "tools/teplug/conformance_collective_oracle.h"
#include "tools/teplug/conformance_staging.h"

namespace teplug::cli {

// What each rank received from `inputs` (one per rank), or the first
// rank's failure ("rank N: ..."; plugin text escaped). With `where`, every
// rank's communicator is created for that device and its buffers live
// there (staged through IDevice, each rank on a stream of its own).
absl::StatusOr<std::vector<std::vector<double>>> RunOnRanks(
    TeplugCollectiveV1* collective, const CollectiveCase& c,
    const std::vector<std::vector<double>>& inputs, const CaseDevice* where = nullptr);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_RANKS_H_
