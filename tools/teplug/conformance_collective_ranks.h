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

namespace teplug::cli {

// What each rank received from `inputs` (one per rank), or the first
// rank's failure ("rank N: ..."; plugin text escaped).
absl::StatusOr<std::vector<std::vector<double>>> RunOnRanks(
    TeplugCollectiveV1* collective, const CollectiveCase& c,
    const std::vector<std::vector<double>>& inputs);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_CONFORMANCE_COLLECTIVE_RANKS_H_
