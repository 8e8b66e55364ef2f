#include "tools/teplug/conformance_interface.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/log/untrusted_text.h"
#include "teplug/sdk/names.hpp"

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

std::string FirstDifference(const std::string& what, const TeplugTensor* mine,
                            const TeplugTensor* ref) {
  if (mine == nullptr || ref == nullptr) return "";
  int64_t n = 1;
  for (int i = 0; i < ref->rank; ++i) n *= ref->shape[i];
  const size_t bytes = static_cast<size_t>(n * sdk::DTypeBits(ref->dtype) / 8);
  const auto* a = static_cast<const uint8_t*>(mine->data);
  const auto* b = static_cast<const uint8_t*>(ref->data);
  for (size_t i = 0; i < bytes; ++i) {
    if (a[i] != b[i])
      return absl::StrFormat("%s byte %d is 0x%02x, the reference's 0x%02x", what, i, a[i], b[i]);
  }
  return "";
}

}  // namespace teplug::cli
