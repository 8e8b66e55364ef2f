// Tests of ActiveConfig: reloads install new generations atomically while
// holders of older snapshots keep seeing exactly what they took.
#include "core/config/active_config.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/config/config_loader.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

// A config whose content encodes `n`: one rule named "gen<n>" and a
// priority override equal to n, so a reader can check a snapshot is whole.
ValidatedConfig ConfigNumber(int n) {
  auto loaded = ParseConfigText(
      absl::StrCat("rules { name: \"gen", n, "\" deny: \"x\" }\n",
                   "priorities { provider: \"p\" priority: ", n, " }\n"),
      absl::StrCat("config", n));
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return *std::move(loaded);
}

TEST(ActiveConfigTest, InstallSwapsAndOldHoldersKeepTheirSnapshot) {
  ActiveConfig active(ConfigNumber(1));
  std::shared_ptr<const ConfigSnapshot> in_flight = active.Current();
  ASSERT_NE(in_flight, nullptr);
  EXPECT_EQ(in_flight->generation(), 1u);

  std::shared_ptr<const ConfigSnapshot> installed = active.Install(ConfigNumber(2));
  EXPECT_EQ(installed->generation(), 2u);
  EXPECT_EQ(active.Current(), installed);

  // The call that started on generation 1 still sees generation 1.
  EXPECT_EQ(in_flight->generation(), 1u);
  EXPECT_EQ(in_flight->rules().at(0).name, "gen1");
  EXPECT_EQ(in_flight->PriorityOverride("p", "gemm"), 1);
  EXPECT_EQ(in_flight->source_name(), "config1");
  EXPECT_EQ(active.Current()->rules().at(0).name, "gen2");
}

TEST(ActiveConfigTest, ConcurrentReadersAlwaysSeeWholeSnapshotsInOrder) {
  ActiveConfig active(ConfigNumber(1));
  constexpr int kInstalls = 200;
  std::atomic<bool> done{false};
  std::atomic<int> inconsistent{0};
  std::atomic<int> went_backwards{0};
  std::atomic<long> reads{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      uint64_t last = 0;
      while (!done.load()) {
        auto snapshot = active.Current();
        const int n = static_cast<int>(*snapshot->PriorityOverride("p", ""));
        if (snapshot->rules().at(0).name != absl::StrCat("gen", n) ||
            snapshot->generation() != static_cast<uint64_t>(n)) {
          ++inconsistent;
        }
        if (snapshot->generation() < last) ++went_backwards;
        last = snapshot->generation();
        ++reads;
      }
    });
  }
  for (int n = 2; n <= kInstalls; ++n) {
    ASSERT_EQ(active.Install(ConfigNumber(n))->generation(),
              static_cast<uint64_t>(n));
  }
  done = true;
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(inconsistent.load(), 0);
  EXPECT_EQ(went_backwards.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(active.Current()->generation(), static_cast<uint64_t>(kInstalls));
}

}  // namespace
}  // namespace teplug::config
