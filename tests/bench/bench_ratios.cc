#include "tests/bench/bench_ratios.h"

#include "absl/strings/str_format.h"

namespace teplug::bench {
namespace {

// "met", or by how much the value exceeds the limit.
std::string Verdict(double value, double limit, const char* unit) {
  if (value <= limit) return "met";
  return absl::StrFormat("MISSED by %.3g%s (%.0f%% over)", value - limit, unit,
                         100.0 * (value / limit - 1.0));
}

}  // namespace

std::vector<RatioLine> ComputeRatios(const BenchTimes& t) {
  std::vector<RatioLine> out;

  const double selected_ratio = t.selected_call / t.direct_call;
  out.push_back({absl::StrFormat(
                     "selected/direct = %.3fx (%.2f ns vs %.2f ns; target <= %.2fx): %s",
                     selected_ratio, t.selected_call * 1e9, t.direct_call * 1e9,
                     kMaxSelectedOverDirect, Verdict(selected_ratio, kMaxSelectedOverDirect, "x")),
                 selected_ratio <= kMaxSelectedOverDirect});

  const double extra_ns = (t.dispatch_call - t.direct_call) * 1e9;
  out.push_back(
      {absl::StrFormat(
           "dispatch - direct = %.1f ns (%.2f ns vs %.2f ns, %.2fx; target < %.0f ns): %s",
           extra_ns, t.dispatch_call * 1e9, t.direct_call * 1e9, t.dispatch_call / t.direct_call,
           kMaxDispatchExtraNs, Verdict(extra_ns, kMaxDispatchExtraNs, " ns")),
       extra_ns < kMaxDispatchExtraNs});

  const double select_us = t.cold_select_64 * 1e6;
  out.push_back(
      {absl::StrFormat("cold selection among 64 = %.2f us (target < %.0f us): %s", select_us,
                       kMaxColdSelect64Us, Verdict(select_us, kMaxColdSelect64Us, " us")),
       select_us < kMaxColdSelect64Us});

  const double load_ms = (t.create_50 - t.create_empty) * 1e3;
  out.push_back(
      {absl::StrFormat(
           "load 50 plugins = %.1f ms (Create with 50: %.2f ms - Create with none: %.3f ms; "
           "target < %.0f ms): %s",
           load_ms, t.create_50 * 1e3, t.create_empty * 1e3, kMaxLoad50Ms,
           Verdict(load_ms, kMaxLoad50Ms, " ms")),
       load_ms < kMaxLoad50Ms});
  return out;
}

}  // namespace teplug::bench
