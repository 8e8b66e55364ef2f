#include "tools/teplug/conformance_interface.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/log/untrusted_text.h"

namespace teplug::cli {

absl::Status ForEachCaseItem(
    const std::string& text,
    const std::function<absl::Status(const std::string& key, const std::string& value)>& set) {
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::vector<std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (absl::Status st = set(kv[0], kv.size() > 1 ? kv[1] : ""); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status BadCaseValue(const std::string& key, const std::string& value,
                          const std::string& want) {
  return absl::InvalidArgumentError(
      absl::StrCat("--case: \"", key, "=", value, "\": the value must be ", want));
}

std::string KernelMessageHead(absl::string_view message) {
  return core::EscapeUntrustedText(message.substr(0, message.find('\n')));
}

void FillNonZero(HostTensor* t, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> u(0.05, 1.0);
  std::vector<double> v(static_cast<size_t>(t->count()));
  for (double& x : v) x = ((*rng)() & 1 ? -1 : 1) * u(*rng);
  t->SetValues(v);
}

std::string Claim(const std::string& field, const std::string& member) {
  return absl::StrCat(field, "=", member);
}

bool HasClaim(const std::vector<std::string>& claims, const std::string& claim) {
  return std::find(claims.begin(), claims.end(), claim) != claims.end();
}

std::vector<std::string> DeclaredClaims(const core::ImplementationListing& listing) {
  std::vector<std::string> claims;
  for (const core::CapabilityField& f : listing.capability_fields) {
    if (!f.is_set || f.name == "devices") continue;
    for (const std::string& m : f.members) claims.push_back(Claim(f.name, m));
  }
  return claims;
}

}  // namespace teplug::cli
