// Selection, queries and calls are safe from many
// threads while plugins load and the config reloads.
//
// Eight worker threads call gemm and attention forward through dispatching
// objects (and gemm through one prepared at start-up, Kernel::Prepare, which
// must follow every reload), call Select (with and without a provider name) and Explain, while
// one thread loads plugins (new ones, and already loaded ones that must be
// refused) and another reloads the config, alternating between a rule that
// denies "fast" and one that prefers "twin", with invalid configs mixed in.
// Every result is checked against what the config in force may produce: a
// call's stamped marker must be a provider that config lets win. Run it under
// --config=tsan and --config=asan as well as plain.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/kernel/kernel.h"
#include "core/kernel/kernel_test_support.h"
#include "gtest/gtest.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/iids.hpp"
#include "core/kernel/testing/fake_calls.h"

namespace teplug::stress {

using core::testing::GemmCall;
using core::testing::AttentionForwardCall;
using core::testing::kUnstamped;
namespace {

using core::Kernel;
using core::KernelOptions;
using core::Selection;

constexpr int kWorkers = 8;
constexpr int kReloads = 120;              // config installs (invalid attempts come on top)
constexpr int kMinCallsAfterReloads = 25;  // per worker, on the final config
constexpr int kBenchPlugins = 50;
const auto kDeadline = std::chrono::seconds(120);  // a hang guard, not a timing assertion

using core::testing::FakePlugin;
using core::testing::kFast;
using core::testing::kTwin;
using core::testing::kWide;

std::string BenchPlugin(int i) {
  char name[64];
  std::snprintf(name, sizeof name, "tests/bench/libteplug_bench_plugin_%02d.so", i);
  return core::testing::Runfile(name);
}

// The configs the reloader installs. Config index 0 is the start-up config;
// reload k (1-based) installs index k: odd = deny fast, even = prefer twin.
const char kStartConfig[] = "log_level: \"warn\"\n";
const char kDenyFast[] = "log_level: \"warn\"\nrules { name: \"deny-fast\" deny: \"fast\" }\n";
const char kPreferTwin[] =
    "log_level: \"warn\"\nrules { name: \"prefer-twin\" prefer: \"twin\" }\n";
const char kInvalid[] =
    "log_level: \"warn\"\nrules { name: \"bad\" match { dtypes: \"fp9\" } deny: \"fast\" }\n";

enum class ConfigKind { kStart, kDenyFast, kPreferTwin };
ConfigKind KindOfIndex(int index) {
  if (index == 0) return ConfigKind::kStart;
  return index % 2 == 1 ? ConfigKind::kDenyFast : ConfigKind::kPreferTwin;
}

// Which providers may serve a call that "fast" accepts (gemm, attention with
// head_dim 64) under a config. "twin" is listed wherever it would win once
// loaded; it is loaded during the run. Ties (wide/twin, both priority 100)
// break by name, so twin beats wide once loaded.
std::set<float> LegalForFastCall(ConfigKind k) {
  switch (k) {
    case ConfigKind::kStart:
      return {kFast};
    case ConfigKind::kDenyFast:
      return {kWide, kTwin};
    case ConfigKind::kPreferTwin:
      return {kFast, kTwin};
  }
  return {};
}
// ...and for calls fast cannot serve: attention with head_dim 96, which its
// supports() refuses, and gemm with alpha 13, for which fast returns
// UNAVAILABLE and the kernel falls back to the next provider.
std::set<float> LegalWithoutFast(ConfigKind) { return {kWide, kTwin}; }

float MarkerOfProvider(const std::string& name) {
  if (name == "fast") return kFast;
  if (name == "wide") return kWide;
  if (name == "twin") return kTwin;
  return kUnstamped;
}

std::string MarkerNames(const std::set<float>& markers) {
  std::string out;
  for (float m : markers)
    absl::StrAppend(&out, out.empty() ? "" : "/",
                    m == kFast   ? "fast"
                    : m == kWide ? "wide"
                    : m == kTwin ? "twin"
                                 : "?");
  return out;
}

// The reloader publishes which config indexes may be in force: `installed`
// is the last index whose reload returned, `started` the last one begun. A
// call that reads installed = lo before it starts and started = hi after it
// returns ran on one of the configs lo..hi.
struct ConfigWindow {
  std::atomic<int> started{0};
  std::atomic<int> installed{0};
};

// Collects problems from all threads; keeps the first few in full.
class Problems {
 public:
  void Add(std::string what) {
    std::lock_guard<std::mutex> l(mu_);
    ++count_;
    if (first_.size() < 20) first_.push_back(std::move(what));
  }
  int count() const {
    std::lock_guard<std::mutex> l(mu_);
    return count_;
  }
  std::string Summary() const {
    std::lock_guard<std::mutex> l(mu_);
    std::string out = absl::StrCat(count_, " problem(s); first ones:\n");
    for (const auto& s : first_) absl::StrAppend(&out, "  ", s, "\n");
    return out;
  }

 private:
  mutable std::mutex mu_;
  int count_ = 0;
  std::vector<std::string> first_;
};

std::string ErrorText(TeplugError* e) {
  if (e == nullptr) return "OK";
  std::string s = absl::StrCat(teplug_code_name(static_cast<TeplugCode>(e->code)), ": ",
                               e->message != nullptr ? e->message : "");
  e->destroy(e);
  return s;
}

// What one worker does; the op mix rotates with the iteration number.
class Worker {
 public:
  Worker(int id, const Kernel* kernel, const ConfigWindow* window,
         const std::atomic<bool>* twin_loaded, Problems* problems)
      : id_(id),
        kernel_(kernel),
        window_(window),
        twin_loaded_(twin_loaded),
        problems_(problems),
        gemm_(1.f, 4, 5, 3, 100 + id),
        gemm_fallback_(13.f, 4, 5, 3, 200 + id),
        gemm_invalid_(14.f, 4, 5, 3, 300 + id),
        attention_(64, 8, 2, 400 + id),
        attention_96_(96, 8, 2, 500 + id) {
    gemm_object_ = kernel_->Query<TeplugGemmV1>(sdk::kIidGemmV1);
    attention_object_ = kernel_->Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
    absl::StatusOr<sdk::Ref<TeplugGemmV1>> prepared =
        kernel_->Prepare<TeplugGemmV1>(sdk::kIidGemmV1, TEPLUG_OP_GEMM, gemm_.args());
    if (prepared.ok()) {
      gemm_prepared_ = *std::move(prepared);
    } else {
      problems_->Add(absl::StrCat("worker ", id_, ": Prepare(gemm) failed: ", prepared.status().ToString()));
    }
  }

  // One operation of the mix.
  void Step(int64_t iteration) {
    switch ((iteration + id_) % 10) {
      case 0:
        DispatchGemm(gemm_, LegalForFastCall, "gemm");
        break;
      case 1:
        DispatchAttention(attention_, LegalForFastCall, "attention hd64");
        break;
      case 2:
        DispatchAttention(attention_96_, LegalWithoutFast, "attention hd96");
        break;
      case 3:
        DispatchGemm(gemm_fallback_, LegalWithoutFast, "gemm alpha 13");
        break;
      case 4:
        DispatchGemmExpectingInvalid();
        break;
      case 5:
        SelectAny();
        break;
      case 6:
        SelectNamed(iteration);
        break;
      case 7:
        ExplainAttention();
        break;
      case 8:
        QueryFresh();
        break;
      case 9:
        if (gemm_prepared_) {
          Dispatch(
              gemm_,
              [&](const TeplugGemmArgs* a) { return gemm_prepared_->vtbl->gemm(gemm_prepared_.get(), a); },
              LegalForFastCall, "gemm through the prepared object");
        }
        break;
    }
  }

  int64_t calls_served() const { return served_; }

 private:
  // The configs a call that starts now may see: call before, Close() after.
  struct Window {
    int lo, hi;
  };
  Window Open() const { return {window_->installed.load(std::memory_order_acquire), 0}; }
  void Close(Window* w) const { w->hi = window_->started.load(std::memory_order_acquire); }

  template <class LegalFn>
  std::set<float> LegalIn(const Window& w, LegalFn legal) const {
    std::set<float> all;
    for (int i = w.lo; i <= w.hi; ++i) {
      for (float m : legal(KindOfIndex(i))) all.insert(m);
    }
    return all;
  }

  void CheckMarker(float got, const std::set<float>& legal, const std::string& what,
                   const Window& w) {
    if (legal.count(got) == 0) {
      problems_->Add(absl::StrCat("worker ", id_, ": ", what, " stamped ", got,
                                  ", legal under configs ", w.lo, "..", w.hi, ": ",
                                  MarkerNames(legal)));
    }
  }

  // Calls `call` through a dispatching object (`invoke`) and checks that it
  // was served by a provider some config in force during the call lets win.
  template <class Call, class Invoke, class LegalFn>
  void Dispatch(Call& call, Invoke invoke, LegalFn legal, const std::string& what) {
    call.ClearOutput();
    Window w = Open();
    std::string err = ErrorText(invoke(call.args()));
    Close(&w);
    if (err != "OK") {
      return problems_->Add(absl::StrCat("worker ", id_, ": ", what, " failed: ", err));
    }
    ++served_;
    CheckMarker(call.OutputMarker(), LegalIn(w, legal), what, w);
  }
  template <class LegalFn>
  void DispatchGemm(GemmCall& call, LegalFn legal, const std::string& what) {
    Dispatch(
        call,
        [&](const TeplugGemmArgs* a) { return gemm_object_->vtbl->gemm(gemm_object_.get(), a); },
        legal, what);
  }
  template <class LegalFn>
  void DispatchAttention(AttentionForwardCall& call, LegalFn legal, const std::string& what) {
    Dispatch(
        call,
        [&](const TeplugAttentionFwdArgs* a) {
          return attention_object_->vtbl->forward(attention_object_.get(), a);
        },
        legal, what);
  }

  // Every fake fails gemm with alpha 14 with INVALID_ARGUMENT, which must
  // reach the caller unchanged (no fallback) with D untouched.
  void DispatchGemmExpectingInvalid() {
    gemm_invalid_.ClearOutput();
    TeplugError* e = gemm_object_->vtbl->gemm(gemm_object_.get(), gemm_invalid_.args());
    const bool right = e != nullptr && e->code == TEPLUG_INVALID_ARGUMENT &&
                       e->message != nullptr &&
                       absl::StrContains(e->message, "alpha 14 is invalid");
    std::string text = ErrorText(e);
    if (!right) {
      problems_->Add(
          absl::StrCat("worker ", id_,
                       ": gemm alpha 14: expected INVALID_ARGUMENT naming alpha 14, got ", text));
    }
    if (gemm_invalid_.OutputMarker() != kUnstamped) {
      problems_->Add(
          absl::StrCat("worker ", id_, ": failed gemm wrote D: ", gemm_invalid_.OutputMarker()));
    }
  }

  // Select without a provider: the chosen one must be legal for exactly the
  // config generation its record names, and calling it must stamp its marker.
  void SelectAny() {
    absl::StatusOr<Selection> s = kernel_->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, gemm_.args());
    if (!s.ok())
      return problems_->Add(
          absl::StrCat("worker ", id_, ": Select(gemm) failed: ", s.status().ToString()));
    const int index = static_cast<int>(s->decision->config_generation()) - 1;
    const std::string& provider = s->implementation->provider->name;
    if (LegalForFastCall(KindOfIndex(index)).count(MarkerOfProvider(provider)) == 0) {
      problems_->Add(
          absl::StrCat("worker ", id_, ": Select(gemm) chose ", provider, " under config ", index));
    }
    CallSelection(*s, provider);
  }

  void CallSelection(const Selection& s, const std::string& provider) {
    gemm_.ClearOutput();
    TeplugGemmV1* g = s.as<TeplugGemmV1>();
    std::string err = ErrorText(g->vtbl->gemm(g, gemm_.args()));
    if (err != "OK")
      return problems_->Add(
          absl::StrCat("worker ", id_, ": selected ", provider, " failed: ", err));
    ++served_;
    if (gemm_.OutputMarker() != MarkerOfProvider(provider)) {
      problems_->Add(
          absl::StrCat("worker ", id_, ": selected ", provider, " stamped ", gemm_.OutputMarker()));
    }
  }

  // Select naming a provider. wide: always served. fast: served unless a
  // deny-fast config may be in force. twin: served once loaded. nobody:
  // never. A refusal is NOT_FOUND and names the provider.
  void SelectNamed(int64_t iteration) {
    static const char* const kNames[] = {"wide", "fast", "twin", "nobody"};
    const std::string name = kNames[(iteration / 9) % 4];
    const bool twin_was_loaded = twin_loaded_->load(std::memory_order_acquire);
    Window w = Open();
    absl::StatusOr<Selection> s =
        kernel_->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, gemm_.args(), name);
    Close(&w);
    bool deny_fast_possible = false, fast_allowed_possible = false;
    for (int i = w.lo; i <= w.hi; ++i) {
      (KindOfIndex(i) == ConfigKind::kDenyFast ? deny_fast_possible : fast_allowed_possible) = true;
    }
    const bool may_refuse = name == "nobody" || (name == "twin" && !twin_was_loaded) ||
                            (name == "fast" && deny_fast_possible);
    const bool may_serve = name != "nobody" && (name != "fast" || fast_allowed_possible);
    if (s.ok()) {
      const bool denied_in_its_generation =
          name == "fast" &&
          KindOfIndex(static_cast<int>(s->decision->config_generation()) - 1) == ConfigKind::kDenyFast;
      if (!may_serve || denied_in_its_generation || s->implementation->provider->name != name) {
        return problems_->Add(absl::StrCat("worker ", id_, ": Select(gemm, \"", name, "\") gave ",
                                           s->implementation->provider->name, " under configs ",
                                           w.lo, "..", w.hi));
      }
      return CallSelection(*s, name);
    }
    const bool expected =
        may_refuse && s.status().code() == absl::StatusCode::kNotFound &&
        absl::StrContains(s.status().message(), absl::StrCat("named \"", name, "\""));
    if (!expected) {
      problems_->Add(absl::StrCat("worker ", id_, ": Select(gemm, \"", name, "\") under configs ",
                                  w.lo, "..", w.hi, ": ", s.status().ToString()));
    }
  }

  // Explain's record names its config generation: the chosen provider must
  // be legal for exactly that one.
  void ExplainAttention() {
    absl::StatusOr<core::DecisionRecord> r =
        kernel_->Explain(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, attention_.args());
    if (!r.ok())
      return problems_->Add(
          absl::StrCat("worker ", id_, ": Explain failed: ", r.status().ToString()));
    const int index = static_cast<int>(r->config_generation) - 1;
    if (!r->served() ||
        LegalForFastCall(KindOfIndex(index)).count(MarkerOfProvider(r->chosen()->provider())) == 0) {
      problems_->Add(
          absl::StrCat("worker ", id_, ": Explain under config ", index, ":\n", r->Format()));
    }
  }

  // A dispatching object queried mid-run works like the long-lived ones.
  void QueryFresh() {
    sdk::Ref<TeplugGemmV1> fresh = kernel_->Query<TeplugGemmV1>(sdk::kIidGemmV1);
    if (!fresh)
      return problems_->Add(
          absl::StrCat("worker ", id_, ": QueryInterface(gemm) returned nothing"));
    std::swap(fresh, gemm_object_);
    DispatchGemm(gemm_, LegalForFastCall, "gemm through a fresh object");
  }

  const int id_;
  const Kernel* kernel_;
  const ConfigWindow* window_;
  const std::atomic<bool>* twin_loaded_;
  Problems* problems_;
  GemmCall gemm_, gemm_fallback_, gemm_invalid_;
  AttentionForwardCall attention_, attention_96_;
  sdk::Ref<TeplugGemmV1> gemm_object_;
  sdk::Ref<TeplugAttentionV1> attention_object_;
  sdk::Ref<TeplugGemmV1> gemm_prepared_;  // prepared for gemm_'s facts
  int64_t served_ = 0;
};

KernelOptions StressOptions(std::vector<std::string> plugins) {
  KernelOptions o;
  o.use_environment = false;
  o.load_builtins = false;
  o.plugin_paths = std::move(plugins);
  o.config_text = kStartConfig;
  o.config_source_name = "stress.textproto";
  // Warnings (fallbacks, unknown provider names in rules) are expected here;
  // the checks below look at results, not at log lines.
  o.log_level = core::LogLevel::kError;
  return o;
}

TEST(KernelStress, EightThreadsCallSelectAndExplainWhilePluginsLoadAndConfigReloads) {
  absl::StatusOr<std::unique_ptr<Kernel>> created =
      Kernel::Create(StressOptions({FakePlugin("fast"), FakePlugin("wide")}));
  ASSERT_TRUE(created.ok()) << created.status();
  std::unique_ptr<Kernel> kernel = *std::move(created);

  // Taken before any reload: must keep working after fast is denied.
  GemmCall early_call(1.f, 3, 3, 3, 7);
  absl::StatusOr<Selection> early =
      kernel->Select(sdk::kIidGemmV1, TEPLUG_OP_GEMM, early_call.args(), "fast");
  ASSERT_TRUE(early.ok()) << early.status();

  ConfigWindow window;
  std::atomic<bool> twin_loaded{false};
  std::atomic<bool> reloads_done{false};
  std::atomic<bool> stop{false};
  Problems problems;
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;

  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < kWorkers; ++i) {
    workers.push_back(std::make_unique<Worker>(i, kernel.get(), &window, &twin_loaded, &problems));
  }
  std::vector<std::atomic<int64_t>> after_reloads(kWorkers);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWorkers; ++i) {
    threads.emplace_back([&, i] {
      for (int64_t it = 0; !stop.load(std::memory_order_acquire); ++it) {
        workers[i]->Step(it);
        if (reloads_done.load(std::memory_order_acquire)) after_reloads[i].fetch_add(1);
      }
    });
  }

  // Loader: twin, then 50 small plugins, trying to load an already loaded
  // library again after every 10th (each such attempt must be refused).
  int refused_reloads = 0;
  std::thread loader([&] {
    absl::Status twin = kernel->LoadPlugin(FakePlugin("twin"));
    if (!twin.ok()) problems.Add(absl::StrCat("loading twin: ", twin.ToString()));
    twin_loaded.store(true, std::memory_order_release);
    for (int i = 0; i < kBenchPlugins; ++i) {
      absl::Status st = kernel->LoadPlugin(BenchPlugin(i));
      if (!st.ok()) problems.Add(absl::StrCat("loading bench plugin ", i, ": ", st.ToString()));
      if (i % 10 != 9) continue;
      const std::string again = i % 20 == 9 ? FakePlugin("fast") : BenchPlugin(i);
      absl::Status dup = kernel->LoadPlugin(again);
      ++refused_reloads;
      if (dup.code() != absl::StatusCode::kAlreadyExists ||
          !absl::StrContains(dup.message(), "already")) {
        problems.Add(
            absl::StrCat("re-loading ", again, ": expected ALREADY_EXISTS, got ", dup.ToString()));
      }
    }
  });

  // Reloader: deny-fast and prefer-twin alternately, an invalid config (which
  // must be refused and change nothing) after every 8th.
  std::thread reloader([&] {
    for (int k = 1; k <= kReloads; ++k) {
      window.started.store(k, std::memory_order_release);
      const bool deny = KindOfIndex(k) == ConfigKind::kDenyFast;
      absl::Status st =
          kernel->ReloadConfigText(deny ? kDenyFast : kPreferTwin, absl::StrCat("reload-", k));
      if (!st.ok()) problems.Add(absl::StrCat("reload ", k, ": ", st.ToString()));
      window.installed.store(k, std::memory_order_release);
      if (k % 8 != 0) continue;
      absl::Status bad = kernel->ReloadConfigText(kInvalid, "invalid.textproto");
      if (bad.code() != absl::StatusCode::kInvalidArgument ||
          !absl::StrContains(bad.message(), "fp9")) {
        problems.Add(absl::StrCat("invalid reload: expected INVALID_ARGUMENT naming fp9, got ",
                                  bad.ToString()));
      }
    }
  });

  loader.join();
  reloader.join();
  reloads_done.store(true, std::memory_order_release);
  auto each_worker_ran_on_final_config = [&] {
    return std::all_of(after_reloads.begin(), after_reloads.end(),
                       [](const auto& n) { return n.load() >= kMinCallsAfterReloads; });
  };
  while (!each_worker_ran_on_final_config() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  stop.store(true, std::memory_order_release);
  for (auto& t : threads) t.join();

  EXPECT_TRUE(each_worker_ran_on_final_config())
      << "workers did not get through the final config in time";
  EXPECT_EQ(problems.count(), 0) << problems.Summary();
  int64_t served = 0;
  for (int i = 0; i < kWorkers; ++i) {
    EXPECT_GT(workers[i]->calls_served(), 0) << "worker " << i << " had no call served";
    served += workers[i]->calls_served();
  }
  std::printf(
      "%lld calls served and checked on %d threads during %d config reloads and %d plugin loads\n",
      static_cast<long long>(served), kWorkers, kReloads, 1 + kBenchPlugins + refused_reloads);

  // The final config (reload kReloads, even: prefer twin) with twin loaded:
  // twin serves gemm, attention head_dim 64 and 96.
  ASSERT_EQ(KindOfIndex(kReloads), ConfigKind::kPreferTwin);
  GemmCall final_call(1.f, 2, 2, 2, 11);
  sdk::Ref<TeplugGemmV1> gemm = kernel->Query<TeplugGemmV1>(sdk::kIidGemmV1);
  EXPECT_EQ(ErrorText(gemm->vtbl->gemm(gemm.get(), final_call.args())), "OK");
  EXPECT_EQ(final_call.OutputMarker(), kTwin);

  // Reloads never touched fast's selection taken at the start.
  early_call.ClearOutput();
  TeplugGemmV1* fast = early->as<TeplugGemmV1>();
  EXPECT_EQ(ErrorText(fast->vtbl->gemm(fast, early_call.args())), "OK");
  EXPECT_EQ(early_call.OutputMarker(), kFast);

  // Load report: fast and wide from start-up, twin and the 50 bench plugins
  // loaded at run time, and one refusal per duplicate attempt.
  std::vector<core::LoadReportEntry> report = kernel->LoadReport();
  std::set<std::string> loaded;
  int refused = 0;
  for (const core::LoadReportEntry& e : report) {
    if (e.loaded) {
      EXPECT_TRUE(loaded.insert(e.provider).second)
          << "provider " << e.provider << " reported loaded twice";
    } else {
      ++refused;
      EXPECT_TRUE(absl::StrContains(e.reason, "already")) << e.path << ": " << e.reason;
    }
  }
  EXPECT_EQ(loaded.size(), 3u + kBenchPlugins);
  EXPECT_EQ(loaded.count("fast") + loaded.count("wide") + loaded.count("twin"), 3u);
  EXPECT_EQ(loaded.count("bench_plugin_00") + loaded.count("bench_plugin_49"), 2u);
  EXPECT_EQ(refused, refused_reloads);
  EXPECT_EQ(refused, kBenchPlugins / 10);
  EXPECT_EQ(report.size(), 3u + kBenchPlugins + refused_reloads);
}

}  // namespace
}  // namespace teplug::stress
