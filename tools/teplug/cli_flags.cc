#include "tools/teplug/cli_flags.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/config/closest_name.h"

namespace teplug::cli {

int EditDistance(const std::string& a, const std::string& b) { return config::EditDistance(a, b); }

std::string ClosestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  return config::ClosestName(word, candidates);
}

FlagSet::FlagSet(std::string command) : command_(std::move(command)) {}

void FlagSet::AddString(const std::string& name, const std::string& value_name,
                        const std::string& help, const std::string& default_value,
                        std::vector<std::string> allowed) {
  Spec s{Kind::kString, value_name, help, default_value, std::move(allowed)};
  order_.push_back(name);
  specs_[name] = std::move(s);
}

void FlagSet::AddInt(const std::string& name, const std::string& help, int64_t default_value,
                     int64_t min, int64_t max) {
  Spec s{Kind::kInt, "N", help, absl::StrCat(default_value), {}};
  s.int_min = min;
  s.int_max = max;
  order_.push_back(name);
  specs_[name] = std::move(s);
}

void FlagSet::AddDouble(const std::string& name, const std::string& help, double default_value,
                        double min, double max) {
  Spec s{Kind::kDouble, "X", help, absl::StrCat(default_value), {}};
  s.double_min = min;
  s.double_max = max;
  order_.push_back(name);
  specs_[name] = std::move(s);
}

void FlagSet::AddBool(const std::string& name, const std::string& help) {
  order_.push_back(name);
  specs_[name] = Spec{Kind::kBool, "", help, "false", {}};
}

void FlagSet::AddRepeated(const std::string& name, const std::string& value_name,
                          const std::string& help) {
  order_.push_back(name);
  specs_[name] = Spec{Kind::kRepeated, value_name, help, "", {}};
}

void FlagSet::SetDefaultText(const std::string& name, const std::string& text) {
  specs_.at(name).default_text = text;
}

absl::Status FlagSet::UsageError(const std::string& message) const {
  return absl::InvalidArgumentError(absl::StrCat(message, " (see ", command_, " --help)"));
}

std::string FlagSet::Suggest(const std::string& unknown) const {
  std::vector<std::string> names(order_.begin(), order_.end());
  names.push_back("help");
  const std::string best = ClosestMatch(unknown, names);
  return best.empty() ? "" : absl::StrCat("; did you mean --", best, "?");
}

absl::Status FlagSet::SetValue(const std::string& name, const Spec& spec,
                               const std::string& value) {
  const std::string where = absl::StrCat("for --", name, " of `", command_, "`");
  switch (spec.kind) {
    case Kind::kString:
      if (!spec.allowed.empty() &&
          std::find(spec.allowed.begin(), spec.allowed.end(), value) == spec.allowed.end()) {
        const std::string close = ClosestMatch(value, spec.allowed);
        return UsageError(
            absl::StrCat("bad value \"", value, "\" ", where, ": expected one of ",
                         absl::StrJoin(spec.allowed, ", "),
                         close.empty() ? "" : absl::StrCat(" (did you mean ", close, "?)")));
      }
      break;
    case Kind::kInt: {
      int64_t v = 0;
      if (!absl::SimpleAtoi(value, &v) || v < spec.int_min || v > spec.int_max) {
        return UsageError(absl::StrCat("bad value \"", value, "\" ", where,
                                       ": expected an integer from ", spec.int_min, " to ",
                                       spec.int_max));
      }
      break;
    }
    case Kind::kDouble: {
      double v = 0;
      if (!absl::SimpleAtod(value, &v) || !std::isfinite(v) || v < spec.double_min ||
          v > spec.double_max) {
        return UsageError(absl::StrCat("bad value \"", value, "\" ", where,
                                       ": expected a number from ", spec.double_min, " to ",
                                       spec.double_max));
      }
      break;
    }
    case Kind::kBool:
      if (value != "true" && value != "false") {
        return UsageError(
            absl::StrCat("bad value \"", value, "\" ", where, ": expected true or false"));
      }
      break;
    case Kind::kRepeated:
      if (value.empty()) return UsageError(absl::StrCat("empty value ", where));
      values_[name].push_back(value);
      return absl::OkStatus();
  }
  if (values_.count(name) != 0) {
    return UsageError(absl::StrCat("--", name, " given twice for `", command_, "`; give it once"));
  }
  values_[name] = {value};
  return absl::OkStatus();
}

absl::Status FlagSet::Parse(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      help_requested_ = true;
      return absl::OkStatus();
    }
    if (arg == "--") {
      positionals_.insert(positionals_.end(), args.begin() + static_cast<long>(i) + 1, args.end());
      return absl::OkStatus();
    }
    if (!absl::StartsWith(arg, "-") || arg == "-") {
      positionals_.push_back(arg);
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      return UsageError(absl::StrCat("unknown option ", arg, " for `", command_,
                                     "`; flags are spelled --name or --name=value"));
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    auto it = specs_.find(name);
    if (it == specs_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name, " for `", command_,
                                                     "`", Suggest(name), " (see ", command_,
                                                     " --help)"));
    }
    const Spec& spec = it->second;
    if (!has_value) {
      if (spec.kind == Kind::kBool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return UsageError(absl::StrCat("--", name, " of `", command_, "` needs a value (--", name,
                                       " ", spec.value_name, ")"));
      }
    }
    if (absl::Status st = SetValue(name, spec, value); !st.ok()) return st;
  }
  return absl::OkStatus();
}

bool FlagSet::IsSet(const std::string& name) const { return values_.count(name) != 0; }

std::string FlagSet::GetString(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end() && !it->second.empty()) return it->second.back();
  auto spec = specs_.find(name);
  return spec == specs_.end() ? "" : spec->second.default_value;
}

int64_t FlagSet::GetInt(const std::string& name) const {
  int64_t v = 0;
  (void)absl::SimpleAtoi(GetString(name), &v);  // validated by Parse / AddInt
  return v;
}

double FlagSet::GetDouble(const std::string& name) const {
  double v = 0;
  (void)absl::SimpleAtod(GetString(name), &v);  // validated by Parse / AddDouble
  return v;
}

bool FlagSet::GetBool(const std::string& name) const { return GetString(name) == "true"; }

std::vector<std::string> FlagSet::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string FlagSet::FlagsHelp() const {
  std::vector<std::pair<std::string, std::string>> rows;
  size_t width = 0;
  for (const std::string& name : order_) {
    const Spec& s = specs_.at(name);
    std::string left =
        absl::StrCat("--", name, s.value_name.empty() ? "" : absl::StrCat(" ", s.value_name));
    std::string right = s.help;
    if (!s.allowed.empty()) absl::StrAppend(&right, " (", absl::StrJoin(s.allowed, "|"), ")");
    if (!s.default_text.empty()) {
      absl::StrAppend(&right, " [default: ", s.default_text, "]");
    } else if (s.kind == Kind::kInt || s.kind == Kind::kDouble ||
               (s.kind == Kind::kString && !s.default_value.empty())) {
      absl::StrAppend(&right, " [default ", s.default_value, "]");
    }
    if (s.kind == Kind::kRepeated) absl::StrAppend(&right, " (repeatable)");
    width = std::max(width, left.size());
    rows.emplace_back(std::move(left), std::move(right));
  }
  rows.emplace_back("--help", "this help");
  width = std::max<size_t>(width, 6);
  std::string out;
  for (const auto& [left, right] : rows) {
    absl::StrAppend(&out, absl::StrFormat("  %-*s  %s\n", static_cast<int>(width), left, right));
  }
  return out;
}

}  // namespace teplug::cli
