"""install_tree: the files of an install tree and where each goes, for install.sh.

    install_tree(
        name = "kit",
        header_libraries = {"//interfaces:abi": "include"},
        files = {":libteplug.so": "lib/libteplug.so.0"},
        symlinks = {"lib/libteplug.so": "libteplug.so.0"},
    )

writes `kit.manifest`, one line per entry (tab-separated):

    file <runfiles path> <destination> <mode>
    link <link target> <destination>

and carries every file it names in its runfiles, so a binary with the rule in its
`data` can copy them. A header library's headers keep their include path
(`teplug/sdk/ref.hpp` under `include/`), so a new header in the library is
installed without touching this package.
"""

def _runfiles_path(ctx, f):
    # The path below the runfiles directory: <workspace>/<path> for this repository,
    # <repository>/<path> for an external one (short_path "../<repository>/...").
    if f.short_path.startswith("../"):
        return f.short_path[len("../"):]
    return ctx.workspace_name + "/" + f.short_path

def _include_path(header):
    # The path a user #includes: below _virtual_includes/<library>/ when the
    # library strips an include prefix, else the path in the repository.
    marker = "/_virtual_includes/"
    path = header.short_path
    if marker in path:
        return path[path.index(marker) + len(marker):].split("/", 1)[1]
    return path

def _mode(destination):
    if destination.startswith("bin/") or destination.endswith(".so") or ".so." in destination:
        return "0755"
    return "0644"

def _install_tree_impl(ctx):
    lines = []
    files = []
    for library, directory in ctx.attr.header_libraries.items():
        headers = library[CcInfo].compilation_context.direct_public_headers
        # A library that strips an include prefix lists each header twice: as its
        # source file and as the _virtual_includes link a user's #include finds.
        virtual = [h for h in headers if "/_virtual_includes/" in h.short_path]
        for header in virtual or headers:
            destination = directory + "/" + _include_path(header)
            lines.append("file\t%s\t%s\t%s" % (_runfiles_path(ctx, header), destination, _mode(destination)))
            files.append(header)
    for target, destination in ctx.attr.files.items():
        target_files = target.files.to_list()
        if len(target_files) != 1:
            fail("%s must be exactly one file to install as %s, not %d" % (target.label, destination, len(target_files)))
        lines.append("file\t%s\t%s\t%s" % (_runfiles_path(ctx, target_files[0]), destination, _mode(destination)))
        files.append(target_files[0])
    for destination, link_target in ctx.attr.symlinks.items():
        lines.append("link\t%s\t%s" % (link_target, destination))

    seen = {}
    for line in lines:
        destination = line.split("\t")[2]
        if destination in seen:
            fail("two entries install %s" % destination)
        seen[destination] = True

    manifest = ctx.actions.declare_file(ctx.label.name + ".manifest")
    ctx.actions.write(manifest, "\n".join(sorted(lines)) + "\n")
    return [DefaultInfo(
        files = depset([manifest]),
        runfiles = ctx.runfiles(files = files + [manifest]),
    )]

install_tree = rule(
    implementation = _install_tree_impl,
    attrs = {
        "header_libraries": attr.label_keyed_string_dict(
            providers = [CcInfo],
            doc = "cc_library -> directory its public headers go below, by include path",
        ),
        "files": attr.label_keyed_string_dict(
            allow_files = True,
            doc = "single-file target -> destination path in the tree",
        ),
        "symlinks": attr.string_dict(doc = "destination path -> what the link points at"),
    },
    doc = "The files of an install tree and their destinations (a manifest for install.sh).",
)
