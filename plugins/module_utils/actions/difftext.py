"""The diff as Kubernetes users read it: per object a helm-diff style header (namespace, name, kind and
group) over a unified diff of the object's YAML (``kubectl get -o yaml`` form), its lines marked as
helm-diff marks them (``+ ``, ``- ``, two spaces), then the plan summary.

Ansible's callbacks print a diff's ``prepared`` text as it is, so the header, the context lines and the
summary are ours, not the controller's; ``diff.prepared`` is also where kubernetes.core.helm puts
helm-diff's text, so a playbook reading it keeps working.
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
    """One object's text: ``title`` and what happens to it, then the unified diff of its YAML with
    ``context`` lines around each change (all of the object when negative). Each hunk header names the
    place of its first change (``@@ -13,3 +13,3 @@ spec.template.spec.containers[name=app]``), as git
    names a hunk's function: three lines of context rarely show which container or port they are in."""
    old, new = _text(before).splitlines(), _text(after).splitlines()
    verb = "has been added" if not old else "has been removed" if not new else "has changed"
    span = context if context >= 0 else max(len(old), len(new))
    lines = list(difflib.unified_diff(old, new, n=span, lineterm=""))[2:]  # the ---/+++ file names
    if not lines:
        return "%s is unchanged\n" % title
    if old and new:
        lines = _located(lines, old, new)
    return "%s %s:\n%s\n" % (title, verb, "\n".join(line if line.startswith("@@") else line[:1] + " " + line[1:]
                                                    for line in lines))


def _located(lines, old, new):
    """The diff's hunk headers followed by the YAML path of each hunk's first changed line."""
    out = []
    for index, line in enumerate(lines):
        if line.startswith("@@"):
            starts = [int(part.split(",")[0][1:]) - 1 for part in line.split()[1:3]]  # -a,b +c,d: 0-based a, c
            position, sides = {"-": starts[0], "+": starts[1]}, {"-": old, "+": new}
            for later in lines[index + 1:]:
                if later.startswith("@@"):
                    break
                if later[:1] in "-+":
                    where = yaml_path(sides[later[0]], position[later[0]])
                    line = "%s %s" % (line, where) if where else line
                    break
                position["-"] += 1
                position["+"] += 1
        out.append(line)
    return out


def _shape(line):
    """(indentation, is a list item, key when the line opens a mapping, a list or a block scalar)."""
    body = line.lstrip(" ")
    spaces = len(line) - len(body)
    item = body.startswith("- ")
    body = body[2:] if item else body
    if body.endswith(":") and ": " not in body:
        return spaces, item, body[:-1].strip('"')
    head, style = body.rpartition(": ")[::2]
    block = style[:1] in ("|", ">") and len(style) <= 3  # a block scalar's header: its text follows
    return spaces, item, head.strip('"') if block and head else None


def _item(lines, j, spaces):
    """``[name=x]`` for a list item with a ``name``, else ``[index]``."""
    for k in range(j, len(lines)):
        other = len(lines[k]) - len(lines[k].lstrip(" "))
        if k > j and other <= spaces:
            break
        body = lines[k].lstrip(" ")[2:] if k == j else lines[k].lstrip(" ")
        if (k == j or other == spaces + 2) and body.startswith("name: "):
            return "[name=%s]" % body[6:].strip()
    index = 0
    for k in range(j - 1, -1, -1):
        other, item = _shape(lines[k])[:2]
        if other < spaces or other == spaces and not item:
            break
        index += other == spaces
    return "[%d]" % index


def yaml_path(lines, index):
    """The dotted path (list items as ``[name=x]`` or ``[n]``) of the mapping or list holding line
    ``index`` of a block YAML text as ``to_yaml`` writes it (a list at its key's indentation)."""
    spaces, item = _shape(lines[index])[:2]
    column, wanted, parts = spaces, spaces if item else None, []  # an item line: held by its list
    for j in range(index - 1, -1, -1):
        spaces, item, key = _shape(lines[j])
        content = spaces + 2 if item else spaces
        if wanted is not None:  # the key of the list whose items start at column ``wanted``
            if content < wanted:
                break
            if content == wanted and key is not None:
                parts.append(key)
                column, wanted = content, None
                if item:  # ``- key:``: the list is the first field of an item of an outer list
                    parts.append(_item(lines, j, spaces))
                    wanted = spaces
        elif item and spaces < column:
            parts.append(_item(lines, j, spaces))
            wanted = spaces
        elif not item and spaces < column and key is not None:
            parts.append(key)
            column = spaces
        if column == 0 and wanted is None:
            break
    out = ""
    for part in reversed(parts):
        out += part if part.startswith("[") else ("." if out else "") + part
    return out


def summary(counts):
    """``Plan: 2 to add, 3 to change, 1 to destroy, 4 unchanged`` (Terraform's words, with what stays)."""
    return "Plan: %d to add, %d to change, %d to destroy, %d unchanged" % (
        counts["add"], counts["change"], counts["destroy"], counts["unchanged"])
