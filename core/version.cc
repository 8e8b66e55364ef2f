#include "core/version.h"

namespace teplug {
namespace {
// One definition shared by the C++ and C accessors so they cannot disagree.
constexpr char kVersion[] = "teplug 0.1.0";
}  // namespace

std::string_view VersionString() { return kVersion; }

}  // namespace teplug

extern "C" const char* teplug_version(void) { return teplug::kVersion; }
