#include "plugins/opencl/bench/paired_rounds.h"

#include <algorithm>
#include <cstdio>

namespace teplug::opencl::bench {

bool ParseBenchFlags(int argc, char** argv, const char* program, BenchFlags* out) {
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--smoke") {
      out->smoke = true;
    } else if (arg.rfind("--plugin=", 0) == 0) {
      out->plugin = arg.substr(9);
    } else {
      out->rest.push_back(argv[i]);
    }
  }
  if (out->plugin.empty()) {
    std::fprintf(stderr, "%s: --plugin=PATH/libteplug_opencl.so is required\n", program);
    return false;
  }
  return true;
}

core::Kernel* BenchKernel(const std::string& plugin, bool builtins, const char* program) {
  static core::Kernel* kernel = [&] {
    core::KernelOptions options;
    options.use_environment = false;
    options.load_builtins = builtins;
    options.plugin_paths = {plugin};
    options.config_text = "log_level: \"warn\"\n";
    options.config_source_name = std::string(program) + ".textproto";
    auto k = core::Kernel::Create(std::move(options));
    if (!k.ok()) {
      std::fprintf(stderr, "%s: no kernel: %s\n", program,
                   std::string(k.status().message()).c_str());
      return static_cast<core::Kernel*>(nullptr);
    }
    return k->release();
  }();
  return kernel;
}

namespace {

// The message of `e` (destroyed), or "" when it is NULL.
std::string Message(TeplugError* e) {
  if (e == nullptr) return "";
  std::string m = e->message != nullptr ? e->message : "failed";
  e->destroy(e);
  return m.empty() ? "failed" : m;
}

}  // namespace

void TimeCalls(benchmark::State& state, double flops, const std::string& label,
               const std::function<TeplugError*()>& call) {
  if (std::string m = Message(call()); !m.empty()) return state.SkipWithError(m.c_str());
  for (auto _ : state) {
    if (std::string m = Message(call()); !m.empty()) {
      state.SkipWithError(m.c_str());
      break;
    }
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.SetLabel(label);
}

void RegisterPair(int round, const std::string& case_name, double min_time, const Variant& a,
                  const Variant& b) {
  for (const Variant* v :
       round % 2 == 0 ? std::vector<const Variant*>{&a, &b} : std::vector<const Variant*>{&b, &a}) {
    benchmark::RegisterBenchmark(
        (v->name + "/" + case_name + "/round" + std::to_string(round)).c_str(), v->run)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(min_time);
  }
}

}  // namespace teplug::opencl::bench
