#include "tests/bench/bench_ratios.h"

#include "absl/strings/str_format.h"

namespace teplug::bench {
namespace {

// "met", or by how much the value exceeds the limit. `met` is decided by the
// caller with the target's own comparison (<= for "within", < for "under"),
// so the printed verdict and RatioLine::met never disagree.
std::string Verdict(bool met, double value, double limit, const char* unit) {
  if (met) return "met";
  return absl::StrFormat("MISSED by %.3g%s (%.0f%% over)", value - limit, unit,
                         100.0 * (value / limit - 1.0));
}

// A call through a dispatching object against the direct call.
RatioLine DispatchLine(const char* name, double call, double direct) {
  const double ratio = call / direct;
  const bool met = ratio <= kMaxDispatchOverDirect;
  return {absl::StrFormat("%s/direct = %.3fx (%.2f ns vs %.2f ns, %.1f ns more; target <= %.2fx): %s", name, ratio,
                          call * 1e9, direct * 1e9, (call - direct) * 1e9, kMaxDispatchOverDirect,
                          Verdict(met, ratio, kMaxDispatchOverDirect, "x")),
          met};
}

}  // namespace

std::vector<RatioLine> ComputeRatios(const BenchTimes& t) {
  std::vector<RatioLine> out;

  const double selected_ratio = t.selected_call / t.direct_call;
  const bool selected_met = selected_ratio <= kMaxSelectedOverDirect;
  out.push_back({absl::StrFormat("selected/direct = %.3fx (%.2f ns vs %.2f ns; target <= %.2fx): %s",
                                 selected_ratio, t.selected_call * 1e9, t.direct_call * 1e9,
                                 kMaxSelectedOverDirect,
                                 Verdict(selected_met, selected_ratio, kMaxSelectedOverDirect, "x")),
                 selected_met});

  out.push_back(DispatchLine("dispatch", t.dispatch_call, t.direct_call));

  const double select_us = t.cold_select_64 * 1e6;
  const bool select_met = select_us < kMaxColdSelect64Us;
  out.push_back(
      {absl::StrFormat("cold selection among 64 = %.2f us (target < %.0f us): %s", select_us,
                       kMaxColdSelect64Us, Verdict(select_met, select_us, kMaxColdSelect64Us, " us")),
       select_met});

  const double load_ms = (t.create_50 - t.create_empty) * 1e3;
  const bool load_met = load_ms < kMaxLoad50Ms;
  out.push_back(
      {absl::StrFormat(
           "load 50 plugins = %.1f ms (Create with 50: %.2f ms - Create with none: %.3f ms; "
           "target < %.0f ms): %s",
           load_ms, t.create_50 * 1e3, t.create_empty * 1e3, kMaxLoad50Ms,
           Verdict(load_met, load_ms, kMaxLoad50Ms, " ms")),
       load_met});
  out.push_back(DispatchLine("prepared", t.prepared_call, t.direct_call));
  return out;
}

}  // namespace teplug::bench
