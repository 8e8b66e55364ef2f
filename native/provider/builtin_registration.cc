// Registers the native CUDA provider as the built-in "native": linked into a
// host (alwayslink) on CUDA builds, it is loaded through the same
// transactional protocol as a plugin, without dlopen.
#include "core/builtin/builtin_providers.h"
#include "native/provider/native_entry.h"

TEPLUG_REGISTER_BUILTIN_PROVIDER(native, &teplug_native_entry);
