"""teplug_plugin: builds a provider plugin as a shared library.

    teplug_plugin(name = "foo", srcs = [...], deps = [...])

produces `libteplug_foo.so` (and a filegroup `foo` pointing at it, for `data`). The
library is linked with -fvisibility=hidden and a version script, so the only dynamic
symbol it exports is `teplug_plugin_entry`; everything it links statically (Abseil
wrappers, its own helpers) stays private and cannot clash with the host or other plugins.
"""

_EXPORTS = Label("//tools/bazel:plugin_exports.lds")

def teplug_plugin(name, srcs = [], deps = [], copts = [], linkopts = [], visibility = None, **kwargs):
    """Defines libteplug_<name>.so exporting only teplug_plugin_entry.

    Args:
      name: plugin name; the library is libteplug_<name>.so.
      srcs: sources; one of them defines extern "C" teplug_plugin_entry.
      deps: cc_library dependencies, linked statically into the plugin.
      copts: extra compiler options.
      linkopts: extra linker options.
      visibility: visibility of both targets.
      **kwargs: passed to cc_binary (e.g. target_compatible_with, data).
    """
    library = "libteplug_%s.so" % name
    native.cc_binary(
        name = library,
        srcs = srcs,
        deps = deps,
        copts = ["-fvisibility=hidden"] + copts,
        linkopts = ["-Wl,--version-script=$(location %s)" % _EXPORTS] + linkopts,
        additional_linker_inputs = [_EXPORTS],
        linkshared = True,
        visibility = visibility,
        **kwargs
    )
    native.filegroup(
        name = name,
        srcs = [":" + library],
        visibility = visibility,
        # A test-only plugin's filegroup must be test-only too (Bazel 4.2 filegroups
        # take no target_compatible_with).
        testonly = kwargs.get("testonly", False),
    )
