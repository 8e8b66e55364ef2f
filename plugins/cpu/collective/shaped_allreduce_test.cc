// The shaped all-reduces with ranks as threads on loopback Gloo, run many
// times back to back with new inputs while one rank reduces slowly. The
// two-rank ring and the gather send no handshake between runs and rely on
// alternating copies (shaped_allreduce.h): a fast neighbour that finished a
// run writes its next message while the slow rank is still reducing this
// one, and must not write into what the slow rank reads. Inputs are small
// integers in fp32, so every order of summing is exact and each run's
// expected sum is known.
#include "plugins/cpu/collective/shaped_allreduce.h"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gloo/barrier.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/transport/tcp/device.h"
#include "gtest/gtest.h"

namespace teplug::cpu::collective {
namespace {

// Set on the slow rank's thread: its every reduction first sleeps.
thread_local bool slow_rank = false;

void SumFloats(void* c, const void* a, const void* b, size_t n) {
  if (slow_rank) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (size_t i = 0; i < n; ++i) {
    static_cast<float*>(c)[i] = static_cast<const float*>(a)[i] + static_cast<const float*>(b)[i];
  }
}

float Input(int run, int rank, size_t e) {
  return static_cast<float>((run * 7 + rank * 131 + e * 3) % 1000);
}

using Factory = std::unique_ptr<ShapedAllreduce> (*)(const std::shared_ptr<gloo::Context>&, size_t,
                                                     ReduceFunction, size_t);

struct Case {
  const char* name;
  Factory make;
  int world;
};

class ShapedAllreduceTest : public ::testing::TestWithParam<Case> {};

TEST_P(ShapedAllreduceTest, BackToBackRunsWithASlowRankKeepTheirOwnInputs) {
  const Case& c = GetParam();
  constexpr size_t kCount = 256;
  constexpr int kRuns = 12;
  constexpr int kSlow = 1;
  const char* tmp = getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/shaped-XXXXXX");
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  gloo::transport::tcp::attr attr;
  attr.iface = "lo";
  std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
  // results[rank][run]: that rank's output of that run.
  std::vector<std::vector<std::vector<float>>> results(c.world);
  std::vector<std::string> failures(c.world);
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < c.world; ++rank) {
    ranks.emplace_back([&, rank] {
      try {
        gloo::rendezvous::FileStore store(dir);
        auto context = std::make_shared<gloo::rendezvous::Context>(rank, c.world);
        context->setTimeout(std::chrono::seconds(30));
        context->connectFullMesh(store, device);
        std::unique_ptr<ShapedAllreduce> algorithm =
            c.make(context, sizeof(float), &SumFloats, kCount);
        slow_rank = rank == kSlow;
        for (int run = 0; run < kRuns; ++run) {
          std::vector<float> data(kCount);
          for (size_t e = 0; e < kCount; ++e) data[e] = Input(run, rank, e);
          algorithm->Run(data.data());
          results[rank].push_back(std::move(data));
        }
        // No rank closes its connections while another still reads (as
        // comm_destroy waits for every rank).
        gloo::BarrierOptions done(context);
        gloo::barrier(done);
      } catch (const std::exception& e) {
        failures[rank] = e.what();
      }
    });
  }
  for (auto& t : ranks) t.join();
  for (int rank = 0; rank < c.world; ++rank) {
    ASSERT_EQ(failures[rank], "") << "rank " << rank;
    ASSERT_EQ(results[rank].size(), static_cast<size_t>(kRuns)) << "rank " << rank;
    for (int run = 0; run < kRuns; ++run) {
      int wrong = 0;
      size_t first = 0;
      for (size_t e = 0; e < kCount; ++e) {
        float expected = 0;
        for (int r = 0; r < c.world; ++r) expected += Input(run, r, e);
        if (results[rank][run][e] != expected && wrong++ == 0) first = e;
      }
      EXPECT_EQ(wrong, 0) << "rank " << rank << ", run " << run << ": " << wrong
                          << " elements hold another run's sum, first at " << first;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, ShapedAllreduceTest,
                         ::testing::Values(Case{"ring_2_ranks", &MakeReducingRing, 2},
                                           Case{"ring_3_ranks", &MakeReducingRing, 3},
                                           Case{"gather_3_ranks", &MakeGatherThenFold, 3},
                                           Case{"gather_4_ranks", &MakeGatherThenFold, 4}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace teplug::cpu::collective
