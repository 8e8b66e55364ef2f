#include "core/kernel/device_names.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/config/problem_list.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

// Merges one provider's (id, name) list into `names` / `ids`; appends a
// warning for each entry an earlier provider's declaration overrides.
template <class Id, class Declared, class ShowId>
void Merge(const std::vector<std::pair<Id, std::string>>& declared, const std::string& provider,
           const char* what, absl::flat_hash_map<Id, Declared>* names,
           absl::flat_hash_map<std::string, Id>* ids, ShowId show_id,
           std::vector<std::string>* warnings) {
  for (const auto& [id, name] : declared) {
    auto named = names->find(id);
    auto numbered = ids->find(name);
    if (named == names->end() && numbered == ids->end()) {
      names->emplace(id, Declared{name, provider});
      ids->emplace(name, id);
      continue;
    }
    if (named != names->end() && named->second.name == name) continue;  // the same meaning
    const std::string first =
        named != names->end()
            ? absl::StrCat(what, " ", show_id(id), " is already named \"", named->second.name,
                           "\" by provider ", named->second.provider)
            : absl::StrCat("\"", name, "\" already names ", what, " ", show_id(numbered->second),
                           " (provider ", names->at(numbered->second).provider, ")");
    warnings->push_back(absl::StrCat("provider ", provider, " names ", what, " ", show_id(id),
                                     " \"", name, "\", but ", first, "; ", provider,
                                     "'s name is ignored"));
  }
}

std::string KindNumber(int64_t id) { return absl::StrCat(id); }
std::string VendorNumber(int64_t id) { return absl::StrCat("0x", absl::Hex(id, absl::kZeroPad4)); }

template <class Map>
std::string DeclaredList(const Map& names, std::string (*show_id)(int64_t)) {
  std::vector<std::string> out;
  for (const auto& [id, d] : names) out.push_back(absl::StrCat(d.name, " (", show_id(id), ")"));
  std::sort(out.begin(), out.end());
  return out.empty() ? "none" : absl::StrJoin(out, ", ");
}

}  // namespace

std::vector<std::string> DeviceNames::Add(const Provider& provider) {
  std::vector<std::string> warnings;
  Merge(provider.device_kind_names, provider.name, "device kind", &kinds_, &kind_ids_, KindNumber,
        &warnings);
  Merge(provider.vendor_names, provider.name, "vendor", &vendors_, &vendor_ids_, VendorNumber,
        &warnings);
  return warnings;
}

std::string DeviceNames::KindSpelling(int32_t kind) const {
  if (auto it = kinds_.find(kind); it != kinds_.end()) return it->second.name;
  return sdk::DeviceKindName(kind);
}

std::string DeviceNames::VendorSpelling(uint32_t vendor_id) const {
  if (auto it = vendors_.find(vendor_id); it != vendors_.end()) return it->second.name;
  return VendorName(vendor_id);
}

std::optional<int32_t> DeviceNames::ResolveKind(absl::string_view text) const {
  for (int32_t k : {TEPLUG_DEVICE_CPU, TEPLUG_DEVICE_CUDA, TEPLUG_DEVICE_OPENCL}) {
    if (text == sdk::DeviceKindName(k)) return k;
  }
  if (auto it = kind_ids_.find(text); it != kind_ids_.end()) return it->second;
  absl::ConsumePrefix(&text, "vendor");
  int32_t number = 0;
  if (absl::SimpleAtoi(text, &number) && number >= TEPLUG_DEVICE_VENDOR_BASE) return number;
  return std::nullopt;
}

std::optional<uint32_t> DeviceNames::ResolveVendor(absl::string_view text) const {
  const std::string lower = absl::AsciiStrToLower(text);
  for (uint32_t id : {TEPLUG_VENDOR_NVIDIA, TEPLUG_VENDOR_AMD, TEPLUG_VENDOR_INTEL}) {
    if (lower == VendorName(id)) return id;
  }
  if (auto it = vendor_ids_.find(lower); it != vendor_ids_.end()) return it->second;
  uint32_t id = 0;
  absl::string_view digits = lower;
  if (absl::ConsumePrefix(&digits, "0x") && !digits.empty() && absl::SimpleHexAtoi(digits, &id) &&
      id != 0) {
    return id;
  }
  return std::nullopt;
}

std::string DeviceNames::DeclaredKindList() const { return DeclaredList(kinds_, KindNumber); }
std::string DeviceNames::DeclaredVendorList() const { return DeclaredList(vendors_, VendorNumber); }

std::string DeviceNames::Rename(absl::string_view text) const {
  if (empty()) return std::string(text);
  auto word_char = [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (!word_char(text[i])) {
      out.push_back(text[i++]);
      continue;
    }
    size_t end = i;
    while (end < text.size() && word_char(text[end])) ++end;
    const absl::string_view word = text.substr(i, end - i);
    std::string replaced(word);
    for (const auto& [id, d] : kinds_) {
      if (word == sdk::DeviceKindName(id)) replaced = d.name;
    }
    for (const auto& [id, d] : vendors_) {
      if (word == VendorName(id)) replaced = d.name;
    }
    out += replaced;
    i = end;
  }
  return out;
}

config::ValidatedConfig DeviceNames::Canonical(config::ValidatedConfig config) const {
  for (config::Rule& rule : *config.proto.mutable_rules()) {
    config::Match* match = rule.mutable_match();
    for (std::string& kind : *match->mutable_device_kinds()) {
      if (std::optional<int32_t> k = ResolveKind(kind)) kind = KindSpelling(*k);
    }
    for (std::string& vendor : *match->mutable_vendors()) {
      if (std::optional<uint32_t> v = ResolveVendor(vendor)) vendor = VendorSpelling(*v);
    }
  }
  return config;
}

std::vector<std::string> DeviceNames::UnknownNames(const config::ValidatedConfig& config) const {
  config::ProblemList problems(config.source_name);
  for (int i = 0; i < config.proto.rules_size(); ++i) {
    const config::Match& match = config.proto.rules(i).match();
    const std::string path = absl::StrCat("rules[", i, "].match");
    for (int j = 0; j < match.device_kinds_size(); ++j) {
      if (ResolveKind(match.device_kinds(j))) continue;
      const std::string at = absl::StrCat(path, ".device_kinds[", j, "]");
      problems.Add(
          config.locations.FindNearest(at),
          absl::StrCat(at, ": unknown device kind \"", match.device_kinds(j),
                       "\"; expected cpu, cuda, opencl, a vendor kind number (1024 or more, or "
                       "vendor1024) or a name a loaded provider declares (declared: ",
                       DeclaredKindList(), ")"));
    }
    for (int j = 0; j < match.vendors_size(); ++j) {
      if (match.vendors(j).empty() || ResolveVendor(match.vendors(j))) continue;
      const std::string at = absl::StrCat(path, ".vendors[", j, "]");
      problems.Add(
          config.locations.FindNearest(at),
          absl::StrCat(
              at, ": unknown vendor \"", match.vendors(j),
              "\"; expected nvidia, amd, intel, a vendor id like 0x1da3 or a name a loaded "
              "provider declares (declared: ",
              DeclaredVendorList(), ")"));
    }
  }
  const absl::Status st = problems.ToStatus();
  if (st.ok()) return {};
  return absl::StrSplit(std::string(st.message()), '\n', absl::SkipEmpty());
}

}  // namespace teplug::core
