// Registers the reference provider as the built-in "reference": linked into a
// host (alwayslink), it is loaded through the same transactional protocol as a
// plugin, without dlopen.
#include "core/builtin/builtin_providers.h"
#include "plugins/reference/provider/reference_entry.h"

TEPLUG_REGISTER_BUILTIN_PROVIDER(reference, &teplug_reference_entry);
