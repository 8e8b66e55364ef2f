// Instructions per call, for callgrind: the same attention forward as
// kernel_bench (on libteplug_bench_noop.so, whose op does nothing) made
// `calls` times through each path, one path per function, so that
// `valgrind --tool=callgrind --toggle-collect=<function>` counts one path.
// Instruction counts are repeatable where times on this shared machine are
// not. tools/callgrind_dispatch.sh runs it and prints the per-call counts.
//
//   dispatch_instructions PLUGIN CALLS
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/kernel/kernel.h"
#include "core/kernel/testing/fake_calls.h"
#include "interfaces/tests/test_host.hpp"
#include "teplug/sdk/iids.hpp"

namespace teplug::bench {

// The loop each path runs, inlined into each (a counted function must not
// call another counted one: callgrind's toggles would cancel). Returns the
// number of failed calls (0 expected).
__attribute__((always_inline)) inline int CallMany(TeplugAttentionV1* a, const TeplugAttentionFwdArgs* args,
                                                  int calls) {
  int failed = 0;
  for (int i = 0; i < calls; ++i) {
    TeplugError* e = a->vtbl->forward(a, args);
    if (e != nullptr) {
      ++failed;
      e->destroy(e);
    }
  }
  return failed;
}

__attribute__((noinline)) int WarmUp(TeplugAttentionV1* a, const TeplugAttentionFwdArgs* args) {
  return CallMany(a, args, 1);
}
__attribute__((noinline)) int DirectCalls(TeplugAttentionV1* a, const TeplugAttentionFwdArgs* args, int calls) {
  return CallMany(a, args, calls);
}
__attribute__((noinline)) int SelectedCalls(TeplugAttentionV1* a, const TeplugAttentionFwdArgs* args, int calls) {
  return CallMany(a, args, calls);
}
__attribute__((noinline)) int PreparedCalls(TeplugAttentionV1* a, const TeplugAttentionFwdArgs* args, int calls) {
  return CallMany(a, args, calls);
}
__attribute__((noinline)) int DispatchedCalls(TeplugAttentionV1* a, const TeplugAttentionFwdArgs* args, int calls) {
  return CallMany(a, args, calls);
}

}  // namespace teplug::bench

int main(int argc, char** argv) {
  using namespace teplug;
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PLUGIN CALLS\n", argv[0]);
    return 2;
  }
  const std::string plugin = argv[1];
  const int calls = std::atoi(argv[2]);
  const core::testing::AttentionForwardCall call(128, 16, 2, 1);

  testing::TestHost host;
  if (sdk::OwnedError e = host.Load(plugin); e || host.recorded.size() != 1) {
    std::fprintf(stderr, "the toy host could not load %s\n", plugin.c_str());
    return 1;
  }
  auto* direct = reinterpret_cast<TeplugAttentionV1*>(host.recorded[0].object.get());

  core::KernelOptions o;
  o.use_environment = false;
  o.load_builtins = false;
  o.plugin_paths = {plugin};
  o.config_text = "log_level: \"warn\"\n";
  auto kernel = core::Kernel::Create(o);
  if (!kernel.ok()) {
    std::fprintf(stderr, "%s\n", std::string(kernel.status().message()).c_str());
    return 1;
  }
  auto selection = (*kernel)->Select(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, call.args());
  if (!selection.ok()) {
    std::fprintf(stderr, "%s\n", std::string(selection.status().message()).c_str());
    return 1;
  }
  auto dispatching = (*kernel)->Query<TeplugAttentionV1>(sdk::kIidAttentionV1);
  auto prepared =
      (*kernel)->Prepare<TeplugAttentionV1>(sdk::kIidAttentionV1, TEPLUG_OP_ATTENTION_FORWARD, call.args());
  if (!prepared.ok()) {
    std::fprintf(stderr, "%s\n", std::string(prepared.status().message()).c_str());
    return 1;
  }
  // Fill the decision cache before anything is counted.
  int failed = bench::WarmUp(dispatching.get(), call.args());
  failed += bench::DirectCalls(direct, call.args(), calls);
  failed += bench::SelectedCalls(selection->as<TeplugAttentionV1>(), call.args(), calls);
  failed += bench::DispatchedCalls(dispatching.get(), call.args(), calls);
  failed += bench::PreparedCalls(prepared->get(), call.args(), calls);
  if (failed != 0) {
    std::fprintf(stderr, "%d calls failed\n", failed);
    return 1;
  }
  std::printf("%d calls per path\n", calls);
  return 0;
}
