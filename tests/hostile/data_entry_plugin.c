/* A library whose teplug_plugin_entry is a data object (writable bytes, not
 * code). Calling it would jump into a non-executable page; the loader must
 * check the symbol's type and refuse it without calling it. It does not
 * include teplug/plugin.h, which declares the entry as a function. */
__attribute__((visibility("default"))) unsigned char teplug_plugin_entry[64] = {0xde, 0xad, 0xbe, 0xef};
