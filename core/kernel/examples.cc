#include "core/kernel/examples.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ops/modules.h"

namespace teplug::core {
namespace {

struct Found {
  const InterfaceModule* module;
  const OpSpec* op;
};

absl::StatusOr<Found> FindOp(absl::string_view interface, absl::string_view op) {
  const InterfaceModule* module = ModuleNamed(interface);
  if (module == nullptr) {
    std::vector<std::string> names;
    for (const InterfaceModule* m : InterfaceModules()) names.emplace_back(m->name());
    return absl::NotFoundError(absl::StrCat("unknown interface \"", interface,
                                            "\"; interfaces: ", absl::StrJoin(names, ", ")));
  }
  const OpSpec* spec = module->FindOp(op);
  if (spec == nullptr) {
    std::vector<std::string> names;
    for (const OpSpec* s : module->ops()) names.emplace_back(s->name);
    return absl::NotFoundError(absl::StrCat("\"", op, "\" is not an op of ", module->name(),
                                            "; its ops: ", absl::StrJoin(names, ", ")));
  }
  return Found{module, spec};
}

}  // namespace

std::vector<ExampleInterface> ExampleInterfaces() {
  std::vector<ExampleInterface> out;
  for (const InterfaceModule* m : InterfaceModules()) {
    ExampleInterface i{m->name(), m->display_name(), {}};
    for (const OpSpec* op : m->ops()) {
      if (m->ExampleParams(*op).ok()) i.ops.emplace_back(op->name);
    }
    out.push_back(std::move(i));
  }
  return out;
}

absl::StatusOr<std::vector<ExampleParam>> ExampleParams(absl::string_view interface,
                                                        absl::string_view op) {
  absl::StatusOr<Found> found = FindOp(interface, op);
  if (!found.ok()) return found.status();
  return found->module->ExampleParams(*found->op);
}

absl::StatusOr<std::unique_ptr<ExampleOp>> BuildExampleOp(absl::string_view interface,
                                                          absl::string_view op,
                                                          const ExampleValueMap& values,
                                                          const TeplugDevice& device) {
  absl::StatusOr<Found> found = FindOp(interface, op);
  if (!found.ok()) return found.status();
  absl::StatusOr<std::vector<ExampleParam>> params = found->module->ExampleParams(*found->op);
  if (!params.ok()) return params.status();
  absl::StatusOr<ExampleValues> checked =
      ExampleValues::Check(*params, values, absl::StrCat(interface, " ", op));
  if (!checked.ok()) return checked.status();
  auto example = std::make_unique<ExampleOp>();
  example->iid = found->module->iid();
  example->op = found->op->op;
  example->device = device;
  found->module->BuildExample(*found->op, *checked, example.get());
  return example;
}

}  // namespace teplug::core
