"""Masking of secret strings wherever a task reports text: messages, progress lines, warnings, results.

Secret objects in diffs and returned manifests are redacted field by field (``report.redact``). Free text
can quote a value too: the API server echoes field values in its errors (``Invalid value: "..."``, an
admission policy's message), a failed revision's description keeps that error, a test Pod's log prints
what it read. A ``Redactor`` holds the strings to hide - the values of the release's Secrets (as written,
base64 and decoded) and the task's credentials - and masks each occurrence in every string it is given,
as Ansible masks ``no_log`` values: a string that is a secret becomes ``REDACTED``, a secret inside a
longer string ``********``. The password of a URL's userinfo (``https://user:password@host``) is masked
whatever its source.
"""
import base64
import binascii
import json

from ..errors import HelmlessError
from ..plan.manifest import load_yaml
from ..release.model import STATUSES
from .report import REDACTED
from ..regexcache import regex

MASK = "********"
# Shorter strings are not hidden: "1", "no", "on" (or a one-letter test token) would mask unrelated text everywhere.
MIN_LENGTH = 4
# Words playbooks read back (a revision's status, a plan's actions): a Secret holding one does not mask it.
_VOCABULARY = frozenset(STATUSES + ("create", "apply", "patch", "replace", "delete", "unchanged", "drift", "keep",
                                    "skip"))
_DOCUMENT = regex(r"(?m)^---[ \t]*(?:#.*)?$")
_USERINFO = regex(r"(?i)(\b[a-z][a-z0-9+.-]*://[^/\s:@'\"]*:)([^/\s@'\"]+)@")


def _forms(value):
    """A secret as it may be quoted: itself, without surrounding blanks, and JSON/Go-escaped (``\\n``)."""
    out = {value, value.strip()}
    escaped = json.dumps(value, ensure_ascii=False)[1:-1]
    out.update({escaped, escaped.strip()} if escaped != value else ())
    return out


def url_passwords(text):
    """The passwords of the ``scheme://user:password@`` URLs in ``text``."""
    return set(match.group(2) for match in _USERINFO.finditer(text)) if "@" in text else set()


def secret_strings(*manifests):
    """Every value of the Secrets in these manifests (YAML documents): ``data`` as written and decoded,
    ``stringData`` as written and base64-encoded (the form the API server stores and echoes). A document
    that several manifests share (revisions of one release) is read once."""
    docs = {doc for text in manifests for doc in _DOCUMENT.split(text or "") if "Secret" in doc}
    found = set()
    for doc in docs:
        try:
            obj = load_yaml(doc)
        except HelmlessError:  # the planner reports a document it cannot read
            continue
        if not isinstance(obj, dict) or obj.get("kind") != "Secret":
            continue
        for value in _values(obj, "data"):
            if not isinstance(value, str):
                continue
            found.add(value)
            try:
                found.add(base64.b64decode(value, validate=True).decode("utf-8"))
            except (binascii.Error, ValueError):
                pass
        for value in _values(obj, "stringData"):
            text = "" if value is None else str(value)
            found.update((text, base64.b64encode(text.encode("utf-8")).decode("ascii")))
    return found


def _values(obj, field):
    return list(obj[field].values()) if isinstance(obj.get(field), dict) else []


def record_secrets(records):
    """The Secret values of release records (their manifests and hooks)."""
    return secret_strings(*[text for rel in records for text in
                            [rel.get("manifest")] + [h.get("manifest") for h in rel.get("hooks") or [] if h.get("kind") == "Secret"]])


class Redactor:
    """The strings one task must not show, and the masking of them.

    ``keep``: strings never masked although a Secret holds them (the release's own name and namespace,
    which every result names); nor are the statuses and plan actions a result reports.
    """

    def __init__(self, credentials=(), keep=()):
        self._strings = set()
        self._sources = []
        self._keep = {k for k in keep if k} | _VOCABULARY
        self._ordered_cache = (None, [])
        self.add(credentials)

    def add(self, strings):
        """Hide these strings too (those of at least ``MIN_LENGTH`` characters)."""
        for value in strings:
            if isinstance(value, str):
                self._strings.update(f for f in _forms(value) if len(f) >= MIN_LENGTH)

    def add_source(self, source):
        """``source()`` gives more strings when masking (credentials a connection obtains while it runs)."""
        self._sources.append(source)

    def strings(self):
        out = set(self._strings)
        for source in self._sources:
            out.update(f for s in source() if isinstance(s, str) for f in _forms(s) if len(f) >= MIN_LENGTH)
        return out - self._keep

    def _ordered(self):
        """The strings, longest first (a secret inside a longer one goes with it), computed once per set."""
        strings = frozenset(self.strings())
        if self._ordered_cache[0] != strings:
            self._ordered_cache = (strings, sorted(strings, key=len, reverse=True))
        return self._ordered_cache

    def text(self, text):
        """``text`` with every secret masked."""
        return self._mask(text, *self._ordered())

    @staticmethod
    def _mask(text, strings, ordered):
        if not isinstance(text, str):
            return text
        if text in strings:
            return REDACTED
        for secret in ordered:  # plain substring replacement, as Ansible's no_log: no regex to compile
            if secret in text:
                text = text.replace(secret, MASK)
        return _USERINFO.sub(r"\1%s@" % MASK, text) if "@" in text else text

    def value(self, obj):
        """A copy of a result (dicts, lists, strings) with every string masked; keys are kept."""
        strings, ordered = self._ordered()

        def walk(node):
            if isinstance(node, str):
                return self._mask(node, strings, ordered)
            if isinstance(node, dict):
                return {key: walk(item) for key, item in node.items()}
            if isinstance(node, (list, tuple)):
                return type(node)(walk(item) for item in node)
            return node
        return walk(obj)

    def error(self, exc):
        """Mask an exception's message in place, and those of the errors it was raised from (tracebacks)."""
        seen = set()
        while exc is not None and id(exc) not in seen:
            seen.add(id(exc))
            exc.args = tuple(self.text(a) for a in exc.args)
            exc = exc.__cause__ or exc.__context__
