#include "plugins/cpu/provider/thread_budget.h"

#include <omp.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace teplug::cpu::provider {

absl::StatusOr<int> ParseCpuThreads(const char* value) {
  if (value == nullptr || value[0] == '\0') return 0;
  int threads = 0;
  if (!absl::SimpleAtoi(value, &threads) || threads < 1 || threads > 4096) {
    return absl::InvalidArgumentError(absl::StrCat(
        kCpuThreadsVariable, "=\"", value,
        "\" is not a thread count: give an integer from 1 to 4096, or unset it to use every core"));
  }
  return threads;
}

absl::StatusOr<int> CpuThreadBudget(const char* variable, const std::optional<std::string>& option) {
  if (variable != nullptr && variable[0] != '\0') return ParseCpuThreads(variable);
  if (!option.has_value()) return 0;
  absl::StatusOr<int> threads = ParseCpuThreads(option->c_str());
  if (threads.ok() && *threads > 0) return threads;
  return absl::InvalidArgumentError(absl::StrCat(
      "config option ", kCpuThreadsOption, "=\"", *option,
      "\" of provider cpu is not a thread count: give an integer from 1 to 4096, or remove the option to use "
      "every core"));
}

ScopedOmpThreads::ScopedOmpThreads(int threads) {
  if (threads <= 0) return;
  previous_ = omp_get_max_threads();
  omp_set_num_threads(threads);
}

ScopedOmpThreads::~ScopedOmpThreads() {
  if (previous_ > 0) omp_set_num_threads(previous_);
}

}  // namespace teplug::cpu::provider
