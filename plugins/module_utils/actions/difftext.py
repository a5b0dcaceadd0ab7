"""The diff as Kubernetes users read it: per object a helm-diff style header (namespace, name, kind and
group) over a unified diff of the object's YAML (``kubectl get -o yaml`` form), then the plan summary.

Ansible's callbacks print a diff entry's ``prepared`` text as it is, so the header, the context lines and
the summary are ours, not the controller's.
"""
import difflib

from ..goyaml import to_yaml

FORMATS = ("yaml", "json")


def header(api_version, kind, name, namespace):
    """``namespace, name, Kind (group)`` as helm-diff names an object (the core group shows as ``v1``)."""
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else api_version
    return "%s%s, %s (%s)" % (namespace + ", " if namespace else "", name, kind, group)


def _text(obj):
    return to_yaml(obj) if obj else ""


def object_diff(title, before, after, context=3):
    """One object's entry: ``title`` and what happens to it, then the unified diff of its YAML with
    ``context`` lines around each change (all of the object when negative)."""
    old, new = _text(before).splitlines(), _text(after).splitlines()
    verb = "has been added" if not old else "has been removed" if not new else "has changed"
    span = context if context >= 0 else max(len(old), len(new))
    lines = list(difflib.unified_diff(old, new, n=span, lineterm=""))[2:]  # the ---/+++ file names
    return "%s %s:\n%s\n" % (title, verb, "\n".join(lines)) if lines else "%s is unchanged\n" % title


def summary(counts):
    """``Plan: 2 to add, 3 to change, 1 to destroy, 4 unchanged`` (Terraform's words, with what stays)."""
    return "Plan: %d to add, %d to change, %d to destroy, %d unchanged" % (
        counts["add"], counts["change"], counts["destroy"], counts["unchanged"])
