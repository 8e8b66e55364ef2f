// Example ICollective/1 ops for `teplug explain`: only communicator creation
// is decided (every later call goes to the implementation that created the
// communicator), so comm_create is the one op with examples.
#include <string>
#include <vector>

#include "core/ops/collective.h"
#include "core/ops/example_params.h"

namespace teplug::core {

absl::StatusOr<std::vector<ExampleParam>> CollectiveExampleParams(const InterfaceModule& module,
                                                                  const OpSpec& op) {
  if (std::string(op.name) != "comm_create") {
    return absl::FailedPreconditionError(
        "collectives are decided once per communicator, at comm_create, and every call on it goes "
        "to that "
        "implementation; explain comm_create instead");
  }
  const config::InterfaceVocabulary v = module.Vocabulary();
  return std::vector<ExampleParam>{
      Documented(FactParam(v, "world_size", "2", 1, 1 << 20), "ranks in the communicator"),
      Documented(FactParam(v, "hosts", "1", 0, 1 << 20), "hosts the ranks are on (0: unknown)")};
}

void BuildCollectiveExample(const OpSpec&, const ExampleValues& v, ExampleOp* e) {
  auto* c = e->NewStruct<TeplugCommCreateArgs>();
  c->rank = 0;
  c->world_size = static_cast<int32_t>(v.Integer("world_size"));
  c->num_hosts = static_cast<int32_t>(v.Integer("hosts"));
  c->device = &e->device;
  e->args = c;
}

}  // namespace teplug::core
