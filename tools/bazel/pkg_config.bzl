"""Reads flags of system libraries from pkg-config inside repository rules."""

def pkg_config(repository_ctx, module, flag):
    """Returns the whitespace-split output of `pkg-config <flag> <module>`.

    Fails with a message naming the module and the fix when pkg-config or the
    module's .pc file is missing, instead of producing a BUILD file that links nothing.
    """
    tool = repository_ctx.which("pkg-config")
    if tool == None:
        fail("pkg-config is not installed (needed for %s); run tools/setup.sh" % module)
    result = repository_ctx.execute([tool, flag, module])
    if result.return_code != 0:
        fail("`pkg-config %s %s` failed: %s\nRun tools/setup.sh to install the system packages." %
             (flag, module, result.stderr.strip()))
    # Bazel 4.2's split() needs a separator; drop the empty strings doubled spaces leave.
    return [word for word in result.stdout.strip().replace("\n", " ").split(" ") if word]
