#include "tools/teplug/op_report.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/log/untrusted_text.h"

namespace teplug::cli {
namespace {

void MergeCheck(const ErrorCheck& from, ErrorCheck* into) {
  if (into->oracle.empty()) {
    *into = from;
    return;
  }
  if (from.skipped.empty() && (from.error > into->error || !into->skipped.empty())) {
    into->error = from.error;
    into->skipped.clear();
  }
}

std::string CheckText(const ErrorCheck& c) {
  if (c.oracle.empty()) return "-";
  if (!c.skipped.empty()) return absl::StrCat(c.oracle, ": skipped (", c.skipped, ")");
  return absl::StrCat(c.oracle, " ", FormatError(c.error), " (tol ", FormatError(c.tolerance), ")");
}

}  // namespace

std::string FormatError(double e) { return e == 0 ? "0" : absl::StrFormat("%.1e", e); }

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  if (values.size() % 2 == 1) return values[mid];
  const double upper = values[mid];
  return (*std::max_element(values.begin(), values.begin() + mid) + upper) / 2;
}

std::vector<OpSummary> Summarize(const std::vector<OpResult>& results) {
  std::vector<OpSummary> out;
  std::map<std::string, size_t> index;
  for (const OpResult& r : results) {
    auto [it, inserted] = index.emplace(absl::StrCat(r.device, "\n", r.label), out.size());
    if (inserted) {
      OpSummary s;
      s.worst = r;
      s.first_millis = r.millis;
      out.push_back(std::move(s));
    }
    OpSummary& s = out[it->second];
    if (!inserted) {
      MergeCheck(r.vs_reference, &s.worst.vs_reference);
      MergeCheck(r.independent, &s.worst.independent);
      s.worst.served_by_reference = s.worst.served_by_reference && r.served_by_reference;
      if (!s.worst.timing.timed) s.worst.timing = r.timing;
    }
    ++s.calls;
    s.total_millis += r.millis;
    s.ok = s.ok && r.ok();
    if (std::find(s.implementations.begin(), s.implementations.end(), r.implementation) ==
        s.implementations.end()) {
      s.implementations.push_back(r.implementation);
    }
  }
  return out;
}

// Cells hold text a plugin chose (the selection's reason, a failure message):
// each is escaped before the widths are measured.
std::string FormatOpTable(const std::vector<OpSummary>& ops) {
  bool per_rank = false;
  for (const OpSummary& s : ops) per_rank = per_rank || !s.worst.device.empty();
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"step", "op", "interface", "provider", "why", "time", "first call", "speedup",
                  "vs reference", "independent check", ""});
  if (per_rank) rows.back().insert(rows.back().begin() + 1, "rank");
  for (const OpSummary& s : ops) {
    const OpResult& r = s.worst;
    const std::string vs_ref = r.served_by_reference ? "served by reference, error 0 by construction"
                                                     : CheckText(r.vs_reference);
    const double millis = r.timing.timed ? r.timing.provider_millis : s.total_millis / s.calls;
    rows.push_back({r.step, r.label, r.interface_name, absl::StrJoin(s.implementations, "+"),
                    absl::StrCat("\"", r.why, "\""), absl::StrFormat("%.3f ms", millis),
                    absl::StrFormat("%.3f ms", s.first_millis),
                    r.timing.compared ? absl::StrFormat("%.2fx", r.timing.Speedup()) : "-", vs_ref,
                    CheckText(r.independent), s.ok ? "OK" : "FAIL"});
    if (per_rank) rows.back().insert(rows.back().begin() + 1, r.device);
    for (std::string& cell : rows.back()) cell = core::EscapeUntrustedText(cell);
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool last = c + 1 == row.size();
      absl::StrAppend(
          &line, last ? row[c] : absl::StrFormat("%-*s  ", static_cast<int>(width[c]), row[c]));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

}  // namespace teplug::cli
