#include "plugins/opencl/provider/device_table.h"

#include <cstdio>

#include "plugins/opencl/provider/cl_status.h"

namespace teplug::opencl::provider {
namespace {

constexpr cl_int kPlatformNotFoundKhr = -1001;  // cl_khr_icd: the loader found no platform

std::string DeviceString(cl_device_id d, cl_device_info what, const char* call) {
  size_t size = 0;
  CheckCl(clGetDeviceInfo(d, what, 0, nullptr, &size), call);
  std::string s(size, '\0');
  CheckCl(clGetDeviceInfo(d, what, size, s.data(), nullptr), call);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::vector<ClDeviceEntry> Enumerate() {
  std::vector<ClDeviceEntry> out;
  cl_uint platforms = 0;
  const cl_int e = clGetPlatformIDs(0, nullptr, &platforms);
  if (e == kPlatformNotFoundKhr || (e == CL_SUCCESS && platforms == 0)) return out;
  CheckCl(e, "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(platforms);
  CheckCl(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
  for (cl_platform_id p : ids) {
    cl_uint n = 0;
    const cl_int de = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n);
    if (de == CL_DEVICE_NOT_FOUND) continue;
    CheckCl(de, "clGetDeviceIDs");
    std::vector<cl_device_id> devices(n);
    CheckCl(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr), "clGetDeviceIDs");
    for (cl_device_id d : devices) {
      ClDeviceEntry entry;
      entry.platform = p;
      entry.id = d;
      cl_uint vendor = 0;
      CheckCl(clGetDeviceInfo(d, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, nullptr),
              "clGetDeviceInfo(CL_DEVICE_VENDOR_ID)");
      entry.vendor_id = vendor;
      cl_ulong memory = 0;
      CheckCl(clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof memory, &memory, nullptr),
              "clGetDeviceInfo(CL_DEVICE_GLOBAL_MEM_SIZE)");
      entry.memory_bytes = memory;
      entry.name = DeviceString(d, CL_DEVICE_NAME, "clGetDeviceInfo(CL_DEVICE_NAME)");
      entry.arch = OpenClVersionArch(
          DeviceString(d, CL_DEVICE_VERSION, "clGetDeviceInfo(CL_DEVICE_VERSION)"));
      out.push_back(std::move(entry));
    }
  }
  return out;
}

}  // namespace

int32_t OpenClVersionArch(const std::string& device_version) {
  int major = 0, minor = 0;
  char after = 0;
  if (std::sscanf(device_version.c_str(), "OpenCL %d.%d%c", &major, &minor, &after) < 2) return 0;
  if (major < 1 || minor < 0 || minor > 9) return 0;
  return major * 10 + minor;
}

const std::vector<ClDeviceEntry>& ClDevices() {
  static const std::vector<ClDeviceEntry> devices = Enumerate();
  return devices;
}

}  // namespace teplug::opencl::provider
