// Registers the cpu provider as the built-in "cpu": linked into a host
// (alwayslink), it is loaded through the same transactional protocol as a
// plugin, without dlopen.
#include "core/builtin/builtin_providers.h"
#include "plugins/cpu/provider/cpu_entry.h"

TEPLUG_REGISTER_BUILTIN_PROVIDER(cpu, &teplug_cpu_entry);
