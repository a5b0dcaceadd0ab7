"""Masking of secret strings wherever a task reports text: messages, progress lines, warnings, results.

Secret objects in diffs and returned manifests are redacted field by field (``report.redact``), and the
other objects are shown as they are. Free text can quote a value too: the API server echoes field values
in its errors (``Invalid value: "..."``, an admission policy's message), a failed revision's description
keeps that error, a test Pod's log prints what it read. A ``Redactor`` holds the strings known to be
secret and masks them, as Ansible masks ``no_log`` values (a string that is one becomes ``REDACTED``, one
inside a longer string ``********``):

- the task's credentials, wherever they occur, also inside a word and in objects;
- values known to be secret by where they came from (``add_known``: values read from a Secret into the
  release's values), wherever they stand as a whole token, in objects too;
- the values of the release's Secrets (as written, base64 and decoded) where one stands as a whole token of
  free text: ``admin`` is masked in ``user 'admin'`` but not in ``admin-user``, ``${admin_id}`` or
  ``admin.example``, so masking never turns a field name or identifier into something else. In the other
  objects a diff or plan shows, only where one is the password of a URL (``scheme://user:<value>@``).

Nothing is masked for its shape alone: ``postgres://app:${DB_PASSWORD}@db`` in a Deployment is not a
password but the object the real run creates, and a preview shows it as it is.
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
# ``kind: Secret`` in any YAML or JSON spelling, found from each "Secret" (a literal, which a search finds
# fast; a pattern led by ``kind`` took 0.35 s over kong-operator's 7 MB of CRDs, whose schemas say "Secret"
# in many descriptions)
_SECRET = regex(r"Secret\b(?!-)")
_KIND_BEFORE = regex(r"""\bkind['"]?[ \t]*:[ \t]*(?:![^ \t]*[ \t]+)?['"]?$""")


def _of_kind_secret(doc):
    """Whether YAML document ``doc`` may be a Secret (what is, and more that is parsed to find it is not)."""
    return any(_KIND_BEFORE.search(doc, max(0, m.start() - 40), m.start()) for m in _SECRET.finditer(doc))


def _forms(value):
    """A secret as it may be quoted: itself, without surrounding blanks, and JSON/Go-escaped (``\\n``)."""
    out = {value, value.strip()}
    escaped = json.dumps(value, ensure_ascii=False)[1:-1]
    out.update({escaped, escaped.strip()} if escaped != value else ())
    return out


def _long_forms(strings):
    """The forms of these strings that are long enough to hide (``MIN_LENGTH``)."""
    return {f for value in strings if isinstance(value, str) for f in _forms(value) if len(f) >= MIN_LENGTH}


def url_passwords(text):
    """The passwords of the ``scheme://user:password@`` URLs in ``text``."""
    return set(match.group(2) for match in _USERINFO.finditer(text)) if "@" in text else set()


def _mask_url_passwords(text, secrets):
    """``text`` with the URL passwords that are one of ``secrets`` masked (a password pasted into a
    ConfigMap's URL); any other text in that place (``${DB_PASSWORD}``, ``$(PW)``) stays."""
    if "@" not in text or not secrets:
        return text
    return _USERINFO.sub(lambda m: m.group(1) + MASK + "@" if m.group(2) in secrets else m.group(0), text)


def secret_strings(*manifests):
    """Every value of the Secrets in these manifests (YAML documents): ``data`` as written and decoded,
    ``stringData`` as written and base64-encoded (the form the API server stores and echoes). A document
    that several manifests share (revisions of one release) is read once."""
    docs = {doc for text in manifests for doc in _DOCUMENT.split(text or "") if _of_kind_secret(doc)}
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


def _word(char):
    return char.isalnum() or char in "_-"


def _whole(text, start, end):
    """Whether ``text[start:end]`` is a whole token: no letter, digit, ``_`` or ``-`` (nor a ``.`` joined
    to one) right before or after it, where its own first or last character is of a word."""
    if _word(text[start]) and start > 0:
        before = text[start - 1]
        if _word(before) or before == "." and start > 1 and _word(text[start - 2]):
            return False
    if _word(text[end - 1]) and end < len(text):
        after = text[end]
        if _word(after) or after == "." and end + 1 < len(text) and _word(text[end + 1]):
            return False
    return True


def _mask_tokens(text, secret):
    """``text`` with each whole-token occurrence of ``secret`` masked."""
    out, at = [], 0
    found = text.find(secret)
    while found >= 0:
        end = found + len(secret)
        if _whole(text, found, end):
            out.append(text[at:found])
            out.append(MASK)
            at = end
            found = text.find(secret, end)
        else:
            found = text.find(secret, found + 1)
    return "".join(out) + text[at:] if out else text


class Redactor:
    """The strings one task must not show, and the masking of them.

    ``credentials`` (and ``add_source``) are masked wherever they occur; ``add_known`` strings (values
    read from a Secret) wherever they stand as a whole token; the strings ``add`` gives (the release's
    Secret values) as whole tokens of free text, and in objects only as a URL's password. ``keep``:
    strings never masked although a Secret holds them (the release's own name and namespace, which every
    result names); nor are the statuses and plan actions a result reports.
    """

    def __init__(self, credentials=(), keep=()):
        self._strings = set()
        self._known = set()
        self._credentials = _long_forms(credentials)
        self._sources = []
        self._keep = {k for k in keep if k} | _VOCABULARY
        self._ordered_cache = (None, None, None, None)

    def add(self, strings):
        """Hide these Secret values too (those of at least ``MIN_LENGTH`` characters)."""
        self._strings.update(_long_forms(strings))

    def add_known(self, strings):
        """Hide these values everywhere, objects included, wherever one stands as a whole token (values
        the release took from a Secret: they are secret wherever the chart puts them)."""
        self._known.update(_long_forms(strings))

    def add_source(self, source):
        """``source()`` gives more credentials when masking (those a connection obtains while it runs)."""
        self._sources.append(source)

    def _credential_strings(self):
        out = set(self._credentials)
        for source in self._sources:
            out.update(_long_forms(source()))
        return out - self._keep

    def _masks(self):
        """(for free text, for objects): each ``_Masks`` computed once per set of secrets."""
        credentials = frozenset(self._credential_strings())
        values = frozenset((self._strings | self._known) - self._keep)
        known = frozenset(self._known - self._keep)
        if self._ordered_cache[:3] != (credentials, values, known):
            self._ordered_cache = (credentials, values, known,
                                   (_Masks(credentials, values, values), _Masks(credentials, known, values)))
        return self._ordered_cache[3]

    def text(self, text):
        """``text`` with every credential and every secret value standing as a whole token masked."""
        return self._masks()[0].apply(text)

    def value(self, obj, objects=()):
        """A copy of a result (dicts, lists, strings) with every string masked; keys are kept. The values
        of the top-level keys named in ``objects`` describe Kubernetes objects (diffs, plans, manifests,
        whose Secrets are redacted field by field already): there only credentials, values read from a
        Secret and URL passwords that are a Secret's value are masked."""
        text_masks, object_masks = self._masks()

        def walk(node, masks):
            if isinstance(node, str):
                return masks.apply(node)
            if isinstance(node, dict):
                return {key: walk(item, masks) for key, item in node.items()}
            if isinstance(node, (list, tuple)):
                return type(node)(walk(item, masks) for item in node)
            return node
        if isinstance(obj, dict) and objects:
            return {key: walk(item, object_masks if key in objects else text_masks) for key, item in obj.items()}
        return walk(obj, text_masks)

    def error(self, exc):
        """Mask an exception's message in place, and those of the errors it was raised from (tracebacks)."""
        seen = set()
        while exc is not None and id(exc) not in seen:
            seen.add(id(exc))
            exc.args = tuple(self.text(a) for a in exc.args)
            exc = exc.__cause__ or exc.__context__


class _Masks:
    """One way of masking a string: ``credentials`` anywhere, ``tokens`` as whole tokens, and URL
    passwords that are one of ``urls`` (or a credential)."""

    def __init__(self, credentials, tokens, urls):
        self.whole = credentials | tokens
        self.credentials = sorted(credentials, key=len, reverse=True)  # a secret inside a longer one goes with it
        self.tokens = sorted(tokens, key=len, reverse=True)
        self.urls = urls | credentials

    def apply(self, text):
        if not isinstance(text, str):
            return text
        if text in self.whole:
            return REDACTED
        for secret in self.credentials:  # plain substring replacement, as Ansible's no_log: no regex to compile
            if secret in text:
                text = text.replace(secret, MASK)
        for secret in self.tokens:
            if secret in text:
                text = _mask_tokens(text, secret)
        return _mask_url_passwords(text, self.urls)
