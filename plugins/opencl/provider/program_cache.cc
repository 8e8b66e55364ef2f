#include "plugins/opencl/provider/program_cache.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/opencl/provider/cl_status.h"
#include "teplug/sdk/error.hpp"

namespace teplug::opencl::provider {
namespace {

std::string DeviceName(cl_device_id device) {
  char name[256] = {};
  if (clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, nullptr) != CL_SUCCESS)
    return "?";
  return name;
}

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
      CL_SUCCESS) {
    return "(no build log)";
  }
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

cl_program BuildProgram(cl_context context, cl_device_id device, const std::string& source,
                        const std::string& options) {
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int e = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &text, &length, &e);
  CheckCl(e, "clCreateProgramWithSource");
  e = clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  if (e != CL_SUCCESS) {
    const std::string log = BuildLog(program, device);
    clReleaseProgram(program);
    throw sdk::Exception(
        TeplugCodeForClError(e),
        ClErrorMessage(e, "clBuildProgram",
                       absl::StrCat("building the opencl provider's kernels for device \"",
                                    DeviceName(device), "\"; compiler log:\n", log)));
  }
  return program;
}

Kernel::Kernel(cl_program program, const char* name) : name_(name) {
  cl_int e = CL_SUCCESS;
  kernel_ = clCreateKernel(program, name, &e);
  CheckCl(e, "clCreateKernel", name_);
}

Kernel::~Kernel() { clReleaseKernel(kernel_); }

void Kernel::SetArg(cl_uint index, size_t size, const void* value) {
  CheckCl(clSetKernelArg(kernel_, index, size, value), "clSetKernelArg",
          absl::StrCat(name_, " argument ", index));
}

void Kernel::Run2D(cl_command_queue queue, size_t rows, size_t cols) {
  if (rows == 0 || cols == 0) return;
  const size_t global[2] = {rows, cols};
  CheckCl(clEnqueueNDRangeKernel(queue, kernel_, 2, nullptr, global, nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel", name_);
}

void Kernel::Run(cl_command_queue queue, cl_uint dims, const size_t* global, const size_t* local) {
  for (cl_uint d = 0; d < dims; ++d)
    if (global[d] == 0) return;
  CheckCl(clEnqueueNDRangeKernel(queue, kernel_, dims, nullptr, global, local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel", name_);
}

ProgramCache::~ProgramCache() {
  for (auto& [key, program] : programs_) clReleaseProgram(program);
}

cl_program ProgramCache::Get(cl_context context, cl_device_id device, const std::string& source,
                             const std::string& options) {
  const auto key = std::make_pair(context, options + '\n' + source);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = programs_.find(key);
    if (it != programs_.end()) return it->second;
  }
  cl_program built = BuildProgram(context, device, source, options);
  std::lock_guard<std::mutex> lock(mu_);
  ++builds_;
  auto [it, inserted] = programs_.emplace(key, built);
  if (!inserted) clReleaseProgram(built);
  return it->second;
}

void ProgramCache::Forget(cl_context context) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = programs_.begin(); it != programs_.end();) {
    if (it->first.first == context) {
      clReleaseProgram(it->second);
      it = programs_.erase(it);
    } else {
      ++it;
    }
  }
}

ProgramCache& SharedProgramCache() {
  static ProgramCache* cache = new ProgramCache;  // never destroyed: contexts may close at exit
  return *cache;
}

size_t ProgramCache::builds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return builds_;
}

}  // namespace teplug::opencl::provider
