// For selector and decision record tests: a GEMM implementation built by
// hand, without a plugin behind it.
#ifndef TEPLUG_CORE_SELECT_TESTING_GEMM_IMPLEMENTATION_H_
#define TEPLUG_CORE_SELECT_TESTING_GEMM_IMPLEMENTATION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/ops/gemm.h"
#include "core/registry/implementation.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::core {

// `provider`/gemm: a GEMM with A, B and D in `dtypes` on `devices`, asking
// `supports` (may be null) and ranked by `priority`.
inline std::shared_ptr<Implementation> TestGemmImplementation(const std::string& provider,
                                                              std::vector<TeplugDeviceSupport> devices,
                                                              uint64_t dtypes, TeplugSupportsFn supports,
                                                              int32_t priority) {
  auto p = std::make_shared<Provider>();
  p->name = provider;
  auto impl = std::make_shared<Implementation>();
  impl->provider = p;
  impl->module = &GemmModule();
  impl->name = "gemm";
  impl->qualified_name = provider + "/gemm";
  impl->default_priority = priority;
  impl->supports = supports;
  Capability cap;
  cap.module = &GemmModule();
  cap.devices = std::move(devices);
  TeplugGemmCaps c = sdk::Versioned<TeplugGemmCaps>();
  c.a_dtypes = c.b_dtypes = c.d_dtypes = dtypes;
  cap.Set(c);
  impl->capability = cap;
  return impl;
}

}  // namespace teplug::core

#endif  // TEPLUG_CORE_SELECT_TESTING_GEMM_IMPLEMENTATION_H_
