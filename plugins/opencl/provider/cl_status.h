// OpenCL return codes as teplug errors: every failing OpenCL call becomes an
// sdk::Exception whose message names the call and the CL error ("clCreateBuffer
// failed: CL_INVALID_BUFFER_SIZE (-61)"), so a user sees which call failed and
// why without an OpenCL reference at hand.
#ifndef TEPLUG_PLUGINS_OPENCL_PROVIDER_CL_STATUS_H_
#define TEPLUG_PLUGINS_OPENCL_PROVIDER_CL_STATUS_H_

#include <CL/cl.h>

#include <string>

#include "teplug/status.h"

namespace teplug::opencl::provider {

// The symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or
// "unknown OpenCL error" for a code the headers do not define.
const char* ClErrorName(cl_int code);

// The teplug code a CL error maps to: TEPLUG_OUT_OF_MEMORY for the
// out-of-memory family, TEPLUG_UNAVAILABLE for a device or compiler that is
// not available, TEPLUG_INTERNAL otherwise.
TeplugCode TeplugCodeForClError(cl_int code);

// "<call> failed: <name> (<code>)" plus ": <detail>" when detail is not empty.
std::string ClErrorMessage(cl_int code, const char* call, const std::string& detail = "");

// Throws sdk::Exception unless code is CL_SUCCESS.
void CheckCl(cl_int code, const char* call, const std::string& detail = "");

}  // namespace teplug::opencl::provider

#endif  // TEPLUG_PLUGINS_OPENCL_PROVIDER_CL_STATUS_H_
