"""Spells a Label so that it means the same target from any repository."""

def absolute_label(label):
    """Returns "@repo//pkg:name", with "@//" for the main workspace.

    str(Label) drops the repository for the main workspace ("//pkg:name"), which would
    point into the wrong repository when written into a generated BUILD file or used
    as a select() key in another repository.
    """
    return "@%s//%s:%s" % (label.workspace_name, label.package, label.name)
