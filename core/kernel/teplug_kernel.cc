// The C API over teplug::core::Kernel. Exceptions never cross it: every entry
// point runs under sdk::Guard, and absl errors become TeplugError* with their
// message.
#include "core/kernel/teplug_kernel.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "core/boundary/plugin_object.h"
#include "core/kernel/kernel.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

struct TeplugKernel {
  std::unique_ptr<teplug::core::Kernel> kernel;
};

namespace {

using teplug::core::Kernel;
using teplug::sdk::Exception;

TeplugCode CodeOf(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kOk: return TEPLUG_OK;
    case absl::StatusCode::kInvalidArgument: return TEPLUG_INVALID_ARGUMENT;
    case absl::StatusCode::kNotFound: return TEPLUG_NOT_FOUND;
    case absl::StatusCode::kUnimplemented: return TEPLUG_UNSUPPORTED;
    case absl::StatusCode::kUnavailable: return TEPLUG_UNAVAILABLE;
    case absl::StatusCode::kResourceExhausted: return TEPLUG_OUT_OF_MEMORY;
    case absl::StatusCode::kDeadlineExceeded: return TEPLUG_DEADLINE_EXCEEDED;
    case absl::StatusCode::kFailedPrecondition: return TEPLUG_FAILED_PRECONDITION;
    default: return TEPLUG_INTERNAL;
  }
}

void ThrowIfError(const absl::Status& s) {
  if (!s.ok()) throw Exception(CodeOf(s), std::string(s.message()));
}

Kernel& Get(TeplugKernel* k) {
  if (k == nullptr || k->kernel == nullptr) throw teplug::sdk::InvalidArgument("kernel is NULL");
  return *k->kernel;
}

void WriteText(const std::string& text, char* buffer, size_t capacity, size_t* length) {
  if (length != nullptr) *length = text.size();
  if (buffer != nullptr && capacity > 0) {
    size_t n = std::min(text.size(), capacity - 1);
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
}

}  // namespace

extern "C" {

TeplugError* teplug_kernel_create(const TeplugKernelOptions* options, TeplugKernel** out) {
  return teplug::sdk::Guard([&] {
    if (out == nullptr) throw teplug::sdk::InvalidArgument("teplug_kernel_create: out is NULL");
    *out = nullptr;
    TeplugKernelOptions o = teplug::sdk::Versioned<TeplugKernelOptions>();
    if (options != nullptr && !teplug::sdk::ReadVersioned(options, &o)) {
      throw Exception(TEPLUG_ABI_MISMATCH, "TeplugKernelOptions.struct_size too small");
    }
    teplug::core::KernelOptions k;
    if (o.config_text != nullptr) k.config_text = o.config_text;
    if (o.config_path != nullptr) k.config_path = o.config_path;
    for (size_t i = 0; i < o.num_plugin_paths; ++i) {
      if (o.plugin_paths == nullptr || o.plugin_paths[i] == nullptr) {
        throw teplug::sdk::InvalidArgument("TeplugKernelOptions.plugin_paths has a NULL entry");
      }
      k.plugin_paths.emplace_back(o.plugin_paths[i]);
    }
    if (o.log_level_plus_one > 0) {
      if (o.log_level_plus_one > TEPLUG_LOG_DEBUG + 1) {
        throw teplug::sdk::InvalidArgument("TeplugKernelOptions.log_level_plus_one out of range");
      }
      k.log_level = static_cast<teplug::core::LogLevel>(o.log_level_plus_one - 1);
    }
    k.use_environment = !o.ignore_environment;
    k.load_builtins = !o.no_builtins;
    k.strict = o.strict != 0;
    k.allow_insecure_plugin_permissions = o.allow_insecure_plugin_permissions != 0;
    auto kernel = Kernel::Create(std::move(k));
    ThrowIfError(kernel.status());
    *out = new TeplugKernel{*std::move(kernel)};
  });
}

void teplug_kernel_destroy(TeplugKernel* kernel) { delete kernel; }

TeplugObject* teplug_kernel_query_interface(TeplugKernel* kernel, const TeplugIID* iid) {
  if (kernel == nullptr || iid == nullptr) return nullptr;
  return kernel->kernel->QueryInterface(*iid).release();
}

TeplugError* teplug_kernel_select(TeplugKernel* kernel, const TeplugIID* iid, int32_t op, const void* args,
                                  const char* provider, TeplugObject** out) {
  return teplug::sdk::Guard([&] {
    if (out == nullptr || iid == nullptr) throw teplug::sdk::InvalidArgument("teplug_kernel_select: NULL out or iid");
    *out = nullptr;
    auto s = Get(kernel).Select(*iid, op, args, provider != nullptr ? provider : "");
    ThrowIfError(s.status());
    // The caller's reference; add_ref is plugin code (see plugin_object.h).
    TeplugObject* object = s->implementation->object.get();
    std::string failure;
    if (!teplug::core::AddPluginReference(object, s->implementation->QualifiedName(), &failure)) {
      throw teplug::sdk::Internal(failure);
    }
    *out = object;
  });
}

TeplugError* teplug_kernel_prepare(TeplugKernel* kernel, const TeplugIID* iid, int32_t op, const void* args,
                                   TeplugObject** out) {
  return teplug::sdk::Guard([&] {
    if (out == nullptr || iid == nullptr) throw teplug::sdk::InvalidArgument("teplug_kernel_prepare: NULL out or iid");
    *out = nullptr;
    auto prepared = Get(kernel).PrepareObject(*iid, op, args);
    ThrowIfError(prepared.status());
    *out = prepared->release();
  });
}

TeplugError* teplug_kernel_explain(TeplugKernel* kernel, const TeplugIID* iid, int32_t op, const void* args,
                                   const char* provider, char* buffer, size_t capacity, size_t* length) {
  return teplug::sdk::Guard([&] {
    if (iid == nullptr) throw teplug::sdk::InvalidArgument("teplug_kernel_explain: iid is NULL");
    auto record = Get(kernel).Explain(*iid, op, args, provider != nullptr ? provider : "");
    ThrowIfError(record.status());
    WriteText(record->Format(), buffer, capacity, length);
  });
}

TeplugError* teplug_kernel_load_report(TeplugKernel* kernel, char* buffer, size_t capacity, size_t* length) {
  return teplug::sdk::Guard(
      [&] { WriteText(teplug::core::FormatLoadReport(Get(kernel).LoadReport()), buffer, capacity, length); });
}

TeplugError* teplug_kernel_reload_config(TeplugKernel* kernel, const char* config_text, const char* source_name) {
  return teplug::sdk::Guard([&] {
    if (config_text == nullptr) throw teplug::sdk::InvalidArgument("teplug_kernel_reload_config: text is NULL");
    ThrowIfError(Get(kernel).ReloadConfigText(config_text, source_name != nullptr ? source_name : "<api config>"));
  });
}

}  // extern "C"
