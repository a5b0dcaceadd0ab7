"""The plain block-style YAML that kubectl, kind and client-go write for kubeconfigs, read without PyYAML.

Importing PyYAML costs a release task ~16 ms (its reader compiles a large Unicode regex), and the kubeconfig
was the only YAML a no-op task still parsed. ``load`` reads block mappings and sequences (indented or not),
``{}`` and ``[]``, comment lines, single- and double-quoted strings without escapes, and plain scalars
typed as PyYAML's SafeLoader types them: strings, the YAML 1.1 booleans and nulls, decimal integers.
Anything else (flow collections, anchors, tags, block or multi-line scalars, escapes, other numbers,
duplicate keys, tabs) returns None and the caller uses PyYAML, so a document is either read exactly as
SafeLoader reads it or not at all (tests/unit/kube/test_blockyaml.py compares the two).
"""
from ..regexcache import regex

_BOOLS = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}
_NULLS = ("", "~", "null", "Null", "NULL")
_KEY = regex(r"([A-Za-z_][A-Za-z0-9_./-]*):(?: (.*))?$")
# A letter or a slash first (or "-" then a letter, or "--" then one: a plugin's flags): only the bool and null
# words are not strings.
_PLAIN = regex(r"(?:[A-Za-z/]|--?[A-Za-z])[^#]*")
_INT = regex(r"0|[1-9][0-9]*")
_CONTROL = regex(r"[\x00-\x09\x0b-\x1f\x7f]")  # tabs, carriage returns, what PyYAML's reader refuses


class _Outside(Exception):
    """Outside the subset: PyYAML decides."""


def load(text):
    """The document ``text`` as SafeLoader would load it, or None when it is outside the subset."""
    if not text.isascii() or _CONTROL.search(text):
        return None
    lines = []
    for raw in text.split("\n"):
        content = raw.lstrip(" ")
        if not content or content.startswith("#"):
            continue
        if content.rstrip() != content:
            return None
        lines.append((len(raw) - len(content), content))
    if not lines:
        return None
    try:
        value, end = _block(lines, 0, lines[0][0])
    except _Outside:
        return None
    return value if end == len(lines) else None


def _block(lines, i, indent):
    if lines[i][0] != indent:
        raise _Outside()
    if _is_item(lines[i][1]):
        return _sequence(lines, i, indent)
    return _mapping(lines, i, indent)


def _is_item(content):
    return content == "-" or content.startswith("- ")


def _sequence(lines, i, indent):
    out = []
    while i < len(lines) and lines[i][0] == indent and _is_item(lines[i][1]):
        rest = lines[i][1][2:]
        if not rest or rest.startswith(" ") or _is_item(rest):
            raise _Outside()
        if _KEY.match(rest):  # "- key: ...": a mapping whose first key sits two columns in
            lines[i] = (indent + 2, rest)
            value, i = _mapping(lines, i, indent + 2)
        else:
            value, i = _scalar(rest), i + 1
        out.append(value)
    return out, i


def _mapping(lines, i, indent):
    out = {}
    while i < len(lines) and lines[i][0] == indent and not _is_item(lines[i][1]):
        match = _KEY.match(lines[i][1])
        key, rest = (match.group(1), (match.group(2) or "").lstrip(" ")) if match else (None, None)
        if key is None or key in out or key.lower() in _BOOLS or key.lower() == "null":  # keys are typed too
            raise _Outside()
        i += 1
        if rest:
            out[key] = _scalar(rest)
        elif i < len(lines) and lines[i][0] > indent:
            out[key], i = _block(lines, i, lines[i][0])
        elif i < len(lines) and lines[i][0] == indent and _is_item(lines[i][1]):
            out[key], i = _sequence(lines, i, indent)  # go-yaml's sequences sit at their key's indent
        else:
            out[key] = None
    if i < len(lines) and lines[i][0] > indent:
        raise _Outside()
    return out, i


def _scalar(text):
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        inner = text[1:-1]
        if text[0] in inner or "\\" in inner:
            raise _Outside()
        return inner
    if " #" in text or ": " in text or text.endswith(":"):
        raise _Outside()
    lower = text.lower()
    if lower in _BOOLS and text in (lower, lower.capitalize(), lower.upper()):
        return _BOOLS[lower]
    if text in _NULLS:
        return None
    if _INT.fullmatch(text):
        return int(text)
    if _PLAIN.fullmatch(text):
        return text
    raise _Outside()
