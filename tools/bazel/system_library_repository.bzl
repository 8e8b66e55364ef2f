"""Repository rule turning a BUILD template into a repository of system libraries.

Libraries whose headers sit in /usr/include need nothing but linkopts. Headers outside
the default include path (e.g. OpenMPI's) must be inside the repository to be declared
as hdrs, so `include_dirs` symlinks a pkg-config module's includedir into it, and
`linkopts` substitutes `%{NAME}` in the template with that module's `--libs`.
"""

load(":pkg_config.bzl", "pkg_config")

def _system_library_repository_impl(repository_ctx):
    for directory, module in repository_ctx.attr.include_dirs.items():
        include_dir = pkg_config(repository_ctx, module, "--variable=includedir")
        if len(include_dir) != 1 or not repository_ctx.path(include_dir[0]).exists:
            fail("pkg-config module %s has no usable includedir: %s" % (module, include_dir))
        repository_ctx.symlink(include_dir[0], directory)
    substitutions = {}
    for placeholder, module in repository_ctx.attr.linkopts.items():
        substitutions["%{" + placeholder + "}"] = repr(pkg_config(repository_ctx, module, "--libs"))
    repository_ctx.template("BUILD", repository_ctx.attr.build_file, substitutions, executable = False)
    repository_ctx.file("WORKSPACE", "workspace(name = %r)\n" % repository_ctx.name)

system_library_repository = repository_rule(
    implementation = _system_library_repository_impl,
    local = True,
    attrs = {
        "build_file": attr.label(mandatory = True, allow_single_file = True, doc = "BUILD template."),
        "include_dirs": attr.string_dict(doc = "Repository folder -> pkg-config module whose includedir it mirrors."),
        "linkopts": attr.string_dict(doc = "Template placeholder -> pkg-config module whose --libs replace it."),
    },
    doc = "A repository of system libraries described by a BUILD template.",
)
