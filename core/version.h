// teplug's version, for humans and for consumers checking what they linked.
#ifndef TEPLUG_CORE_VERSION_H_
#define TEPLUG_CORE_VERSION_H_

#ifdef __cplusplus
#include <string_view>

namespace teplug {

// Returns "teplug <major>.<minor>.<patch>", e.g. "teplug 0.1.0".
std::string_view VersionString();

}  // namespace teplug

extern "C" {
#endif

// C form of teplug::VersionString(): a static NUL-terminated string, never NULL.
const char* teplug_version(void);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TEPLUG_CORE_VERSION_H_
