"""Repository rule serving the offline stand-ins under tools/bazel/offline/.

Bazel 4.2 wants to download rules_cc, rules_java and remote_coverage_tools; with no
network those fetches fail. This rule mirrors tools/bazel/offline/<stub>
into the external repository, so it works both in this workspace and in a consumer
that loads @teplug//tools/bazel:deps.bzl (a plain local_repository path could not,
because the consumer's workspace root differs from ours).
"""

def _offline_stub_repository_impl(repository_ctx):
    anchor = repository_ctx.path(repository_ctx.attr._anchor)
    source_dir = anchor.dirname.get_child("offline").get_child(repository_ctx.attr.stub)
    if not source_dir.exists:
        fail("offline stub '%s' not found at %s" % (repository_ctx.attr.stub, source_dir))
    # Top-level entries are enough: Bazel follows symlinked folders inside a repository.
    for entry in source_dir.readdir():
        repository_ctx.symlink(entry, entry.basename)

offline_stub_repository = repository_rule(
    implementation = _offline_stub_repository_impl,
    attrs = {
        "stub": attr.string(mandatory = True, doc = "Folder name under tools/bazel/offline/."),
        "_anchor": attr.label(default = Label("//tools/bazel:offline_stub_repository.bzl")),
    },
    doc = "Serves one offline stand-in repository from tools/bazel/offline/<stub>.",
)
