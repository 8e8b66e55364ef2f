#include "tools/teplug/explain_op.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cli {
namespace {

using core::ExampleParam;

// One parameter as the ops of one interface take it.
struct ParamUse {
  std::string label;  // "attention", or "attention forward" when not every op takes it
  ExampleParam param;
};

// A flag and the parameters it stands for, in the modules' order.
struct ParamFlag {
  std::string flag;  // "head-dim"
  std::vector<ParamUse> uses;
};

std::vector<ParamFlag> CollectParamFlags() {
  std::vector<ParamFlag> flags;
  for (const core::ExampleInterface& i : core::ExampleInterfaces()) {
    // Each parameter of the interface's ops, with the ops that take it.
    std::vector<std::pair<ExampleParam, std::vector<std::string>>> taken;
    for (const std::string& op : i.ops) {
      absl::StatusOr<std::vector<ExampleParam>> params = core::ExampleParams(i.name, op);
      if (!params.ok()) continue;  // not listed: ExampleInterfaces names only ops with examples
      for (const ExampleParam& p : *params) {
        auto it = std::find_if(taken.begin(), taken.end(),
                               [&](const auto& t) { return t.first.name == p.name; });
        if (it == taken.end()) {
          taken.push_back({p, {op}});
        } else {
          it->second.push_back(op);
        }
      }
    }
    for (auto& [param, ops] : taken) {
      const std::string label =
          ops.size() == i.ops.size() ? i.name : absl::StrCat(i.name, " ", absl::StrJoin(ops, "|"));
      const std::string flag = FlagName(param.name);
      auto it = std::find_if(flags.begin(), flags.end(),
                             [&](const ParamFlag& f) { return f.flag == flag; });
      if (it == flags.end()) it = flags.insert(flags.end(), ParamFlag{flag, {}});
      it->uses.push_back({label, std::move(param)});
    }
  }
  return flags;
}

// "--heads", "per_tensor", or "dtype, bf16 for fp8/fp4 A": a parameter's
// default as help shows it.
std::string DefaultText(const ExampleParam& p) {
  if (!p.follows.empty()) {
    return absl::StrCat("--", FlagName(p.follows), p.default_note.empty() ? "" : ", ",
                        p.default_note);
  }
  if (!p.default_note.empty()) return p.default_note;
  return p.default_value;
}

// "a, b: X; c: Y": `text` of every use, the uses that share one joined.
template <class Text>
std::vector<std::pair<std::string, std::vector<std::string>>> GroupBy(
    const std::vector<ParamUse>& uses, Text text) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // text, labels
  for (const ParamUse& u : uses) {
    const std::string t = text(u.param);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == t; });
    if (it == groups.end()) {
      groups.push_back({t, {u.label}});
    } else {
      it->second.push_back(u.label);
    }
  }
  return groups;
}

// "attention, norm: the doc; gemm: another".
std::string HelpText(const ParamFlag& f) {
  std::vector<std::string> parts;
  for (const auto& [doc, labels] : GroupBy(f.uses, [](const ExampleParam& p) { return p.doc; })) {
    parts.push_back(absl::StrCat(absl::StrJoin(labels, ", "), ": ", doc));
  }
  return absl::StrJoin(parts, "; ");
}

// "bf16; quantizer fp8_e4m3": the most common default first, unlabelled.
std::string DefaultHelp(const ParamFlag& f) {
  auto groups = GroupBy(f.uses, DefaultText);
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::vector<std::string> parts;
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& [text, labels] = groups[g];
    if (text.empty()) continue;
    parts.push_back(g == 0 ? text : absl::StrCat(absl::StrJoin(labels, ", "), " ", text));
  }
  return absl::StrJoin(parts, "; ");
}

// One flag for every use of a parameter name: a name means one kind in
// every module (example_ops_test), so the first use's kind is every one's.
void AddParamFlag(const ParamFlag& f, FlagSet* flags) {
  const ExampleParam& first = f.uses[0].param;
  const std::string help = HelpText(f);
  if (first.kind == ExampleParam::Kind::kName) {
    std::vector<std::string> allowed;
    for (const ParamUse& u : f.uses) {
      for (const std::string& v : u.param.values) {
        if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) allowed.push_back(v);
      }
    }
    flags->AddString(f.flag, absl::AsciiStrToUpper(first.name), help, "", std::move(allowed));
  } else if (first.kind == ExampleParam::Kind::kInteger) {
    int64_t min = first.min, max = first.max;
    for (const ParamUse& u : f.uses) {
      min = std::min(min, u.param.min);
      max = std::max(max, u.param.max);
    }
    flags->AddInt(f.flag, help, 0, min, max);
  } else if (first.kind == ExampleParam::Kind::kReal) {
    double min = first.real_min, max = first.real_max;
    for (const ParamUse& u : f.uses) {
      min = std::min(min, u.param.real_min);
      max = std::max(max, u.param.real_max);
    }
    flags->AddDouble(f.flag, help, 0, min, max);
  } else {
    flags->AddBool(f.flag, help);
    return;  // off unless given
  }
  // The stored defaults above are never read: only flags the user gave are
  // passed to the builder, which applies each op's own default.
  flags->SetDefaultText(f.flag, DefaultHelp(f));
}

// "forward or backward".
std::string OrList(const std::vector<std::string>& names) {
  if (names.size() < 2) return absl::StrJoin(names, "");
  return absl::StrCat(absl::StrJoin(names.begin(), names.end() - 1, ", "), " or ", names.back());
}

}  // namespace

std::string FlagName(const std::string& param) { return absl::StrReplaceAll(param, {{"_", "-"}}); }

void AddOpFlags(FlagSet* f) {
  std::vector<std::string> ops;
  for (const core::ExampleInterface& i : core::ExampleInterfaces()) {
    ops.push_back(absl::StrCat(i.name, " ", absl::StrJoin(i.ops, "|")));
  }
  f->AddString("op", "OP", absl::StrCat("the op: ", absl::StrJoin(ops, ", ")));
  f->SetDefaultText("op", "the first");
  f->AddString("device", "KIND[:N]",
               "device the op runs on: cpu, cuda, opencl, a vendor kind number, or a kind name a "
               "loaded provider declares (gaudi:0)",
               "cpu");
  f->AddInt("arch", "device architecture (CUDA: compute capability x10, e.g. 90)", 0, 0, 1 << 20);
  f->AddString("vendor", "NAME",
               "device vendor: nvidia, amd, intel, a PCI id like 0x10de, or a vendor name a loaded "
               "provider declares",
               "any");
  for (const ParamFlag& flag : CollectParamFlags()) AddParamFlag(flag, f);
}

absl::StatusOr<std::unique_ptr<core::ExampleOp>> BuildExplainedOp(
    const std::string& interface, const FlagSet& f, const core::DeviceNames& device_names) {
  const std::vector<core::ExampleInterface> interfaces = core::ExampleInterfaces();
  std::vector<std::string> names;
  const core::ExampleInterface* chosen = nullptr;
  for (const core::ExampleInterface& i : interfaces) {
    if (i.name == interface) chosen = &i;
    names.push_back(i.name);
  }
  if (chosen == nullptr) {
    const std::string close = ClosestMatch(interface, names);
    return f.UsageError(
        absl::StrCat("unknown interface \"", interface, "\"",
                     close.empty() ? "" : absl::StrCat("; did you mean ", close, "?"),
                     " Interfaces: ", absl::StrJoin(names, ", ")));
  }
  const std::string op = f.IsSet("op") || chosen->ops.empty() ? f.GetString("op") : chosen->ops[0];
  absl::StatusOr<std::vector<ExampleParam>> params = core::ExampleParams(interface, op);
  if (!params.ok()) {
    return f.UsageError(absl::IsNotFound(params.status())
                            ? absl::StrCat("--op ", op, " is not an op of ", interface, "; use ",
                                           OrList(chosen->ops))
                            : absl::StrCat("--op ", op, ": ", params.status().message()));
  }
  // The flags given, as the op's parameter values; a parameter flag of
  // another op is an error, not silently ignored.
  core::ExampleValueMap values;
  std::vector<std::string> own;
  for (const ExampleParam& p : *params) {
    own.push_back(FlagName(p.name));
    if (f.IsSet(own.back())) values[p.name] = f.GetString(own.back());
  }
  for (const ParamFlag& flag : CollectParamFlags()) {
    if (f.IsSet(flag.flag) && std::find(own.begin(), own.end(), flag.flag) == own.end()) {
      return f.UsageError(absl::StrCat("--", flag.flag, " is not a parameter of ", interface, " ",
                                       op, "; its parameters: --", absl::StrJoin(own, ", --")));
    }
  }
  absl::StatusOr<TeplugDevice> device = ParseDevice(f.GetString("device"), device_names);
  if (!device.ok()) return f.UsageError(std::string(device.status().message()));
  device->arch = static_cast<int32_t>(f.GetInt("arch"));
  const std::string vendor = f.GetString("vendor");
  if (std::optional<uint32_t> id = device_names.ResolveVendor(vendor)) {
    device->vendor_id = *id;
  } else if (vendor != "any") {
    uint32_t hex = 0;
    if (!absl::SimpleHexAtoi(vendor, &hex) || hex > 0xffff) {
      return f.UsageError(absl::StrCat(
          "bad value \"", vendor,
          "\" for --vendor: expected nvidia, amd, intel, any, a PCI id like 0x10de or a vendor a "
          "loaded provider names (declared: ",
          device_names.DeclaredVendorList(), ")"));
    }
    device->vendor_id = hex;
  }
  absl::StatusOr<std::unique_ptr<core::ExampleOp>> built =
      core::BuildExampleOp(interface, op, values, *device);
  if (!built.ok()) return f.UsageError(std::string(built.status().message()));
  return built;
}

}  // namespace teplug::cli
