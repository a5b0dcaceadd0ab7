"""Whether a new render changes a release: decided on content, never on formatting or on chart randomness.

Content is what a revision means, read the way Kubernetes and Helm read it: every manifest document parsed
(keyed by its ``# Source:`` and position there), the hooks (name, kind, path, events, weight, delete
policies with none read as Helm's default, parsed document), the notes, the user-supplied values and the
chart metadata. Whitespace, comments, quoting and the manifest layout (Helm 3 trims each document, Helm 4.3
keeps a blank line after each, ours follows the emulated Helm) never count, nor does the order of documents.

A chart that calls random or clock functions (``randAlphaNum``, ``genCA``, ``uuidv4``, ``now``...) renders
other output on every run, or on its first run only (a password generated unless ``lookup`` finds the one
stored in the cluster, as grafana's). A render of such a chart is the same as the deployed revision when

- the inputs are the same: the chart as stored in the release (metadata, templates, default values, files,
  schema, resolved dependencies) and the user-supplied values; and
- its output differs from the revision only where a second render with other randomness, a clock moved by
  over a year and ``lookup`` answering as an empty cluster differs too. So what the Kubernetes version,
  API versions, release name, namespace or revision decide still counts as a change.

Live drift is not part of this decision: the planner compares the cluster with the deployed revision
either way (see docs/check-mode-and-diff.md).
"""
import difflib
import json

from ..plan.manifest import ManifestError, documents_with_text, load_document
from ..release.model import notes

_HOOK_FIELDS = ("name", "kind", "path", "events", "weight", "delete_policies")
_CHART_INPUTS = ("metadata", "values", "schema")
_cache = {}


def differs(current, inp, probe=None):
    """Whether ReleaseInput ``inp`` would store other content than release record ``current`` holds.

    ``probe()`` renders the same inputs again with ``vary`` (see above) and returns that ReleaseInput, or
    None when it cannot; it is called only when the content differs and the inputs are the same.
    """
    wanted = record_of(inp)
    if same_content(current, wanted):
        return False
    if probe is None or not same_inputs(current, wanted):
        return True
    other = probe()
    if other is None or not (inp.nondeterministic or other.nondeterministic):
        return True  # deterministic output: any difference is a real one
    try:
        have, want, again = content(current), content(wanted), content(record_of(other))
    except ManifestError:
        return True
    # a document of one text in all three renders neither varies nor differs: left out unwalked
    texts = [_texts(r.get("manifest") or "") for r in (current, wanted, record_of(other))]
    alike = {key for key, text in texts[1].items() if texts[0].get(key) == text == texts[2].get(key)}
    for rel in (have, want, again):
        rel["manifest"] = {key: obj for key, obj in rel["manifest"].items() if key not in alike}
    varying = set()
    _varying(want, again, (), varying)
    return not _equal(have, want, varying, ())


def same_content(a, b):
    """Whether release records ``a`` and ``b`` mean the same (False when a manifest is unreadable: planning
    that manifest reports the error). Equal manifest texts mean the same without parsing them: a no-op
    renders the deployed manifest byte for byte."""
    try:
        text_a, text_b = a.get("manifest") or "", b.get("manifest") or ""
        if text_a != text_b and not _same_documents(text_a, text_b):
            return False
        return _dump(_besides_manifest(a)) == _dump(_besides_manifest(b))
    except ManifestError:
        return False


def same_values(current, config):
    """Whether ``config`` is the user-supplied values of release record ``current``, compared as same_content
    compares them: when it is not, no render of any chart means the same as ``current``."""
    return _dump(current.get("config") or {}) == _dump(config or {})


def record_of(inp):
    """The fields of a release record that a ReleaseInput fills."""
    return {"manifest": inp.manifest, "hooks": inp.hooks, "info": {"notes": inp.notes}, "config": inp.config,
            "chart": inp.chart}


def content(rel):
    """What a revision means (see the module doc), as plain JSON-like data."""
    return dict(_besides_manifest(rel), manifest=_documents(rel.get("manifest") or ""))


def _besides_manifest(rel):
    hooks, seen = {}, {}
    for hook in rel.get("hooks") or []:
        path = hook.get("path") or ""
        seen[path] = seen.get(path, -1) + 1
        item = {k: hook.get(k) for k in _HOOK_FIELDS}
        item["weight"] = item["weight"] or 0
        # none is Helm's default, which the revision that ran the hook stores (hooks.py, as Helm's execHook)
        item["delete_policies"] = item["delete_policies"] or ["before-hook-creation"]
        item["manifest"] = load_document(hook.get("manifest") or "")
        hooks["%s#%d" % (path, seen[path])] = item
    chart = rel.get("chart") or {}
    return {"hooks": hooks, "notes": notes(rel), "config": rel.get("config") or {},
            "chart": chart.get("metadata") or {}}


def same_inputs(current, wanted):
    """Same chart (as stored: metadata, templates, values, files, schema, lock) and same user values."""
    return _dump(_inputs(current)) == _dump(_inputs(wanted))


def _inputs(rel):
    chart = rel.get("chart") or {}
    out = {key: chart.get(key) for key in _CHART_INPUTS}
    for key in ("templates", "files"):
        out[key] = {f.get("name"): f.get("data") for f in chart.get(key) or []}
    # the resolved dependencies; ``generated`` is a time each Helm writes in its own format
    out["lock"] = {k: v for k, v in (chart.get("lock") or {}).items() if k != "generated"}
    out["config"] = rel.get("config") or {}
    return out


def _documents(text):
    return _parsed(text)[0]


def _texts(text):
    """{document key: its text}: documents of equal text mean the same without comparing their parses."""
    return _parsed(text)[1]


def _parsed(text):
    cached = _cache.get(text)
    if cached is None:
        objs, texts, seen = {}, {}, {}
        for source, chunk, obj in documents_with_text(text):
            if obj is None:
                continue
            seen[source] = seen.get(source, -1) + 1
            key = "%s#%d" % (source, seen[source])
            objs[key], texts[key] = obj, chunk
        if len(_cache) > 8:
            _cache.clear()
        cached = _cache[text] = (objs, texts)
    return cached


def _same_documents(text_a, text_b):
    """Whether two manifests hold the same documents (under the same keys); only documents whose texts
    differ are compared parsed."""
    (objs_a, texts_a), (objs_b, texts_b) = _parsed(text_a), _parsed(text_b)
    if objs_a.keys() != objs_b.keys():
        return False
    return all(texts_a[key] == texts_b[key] or _dump(objs_a[key]) == _dump(objs_b[key]) for key in objs_a)


def _dump(value):
    """JSON with sorted keys and whole floats as integers: equal exactly when Go's JSON is equal."""
    return json.dumps(_numbers(value), sort_keys=True, separators=(",", ":"))


def _numbers(value):
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 1e21 else value
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return value


def _varying(a, b, path, out):
    """Add to ``out`` the paths where ``a`` and ``b`` differ (a string's one differing line as ``("line", i)``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            if key in a and key in b:
                _varying(a[key], b[key], path + (key,), out)
            else:
                out.add(path + (key,))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _varying(x, y, path + (i,), out)
    elif isinstance(a, str) and isinstance(b, str):
        if a != b:
            la, lb = a.split("\n"), b.split("\n")
            lines = [i for i, (x, y) in enumerate(zip(la, lb)) if x != y] if len(la) == len(lb) else ()
            # one generated line in a text (a password in a config file) is masked alone; a generated block
            # (a PEM certificate: its length and alignment vary too) masks the whole string
            out.add(path + (("line", lines[0]),) if len(lines) == 1 else path)
    elif _dump(a) != _dump(b):
        out.add(path)


def _equal(a, b, varying, path):
    """``a`` equals ``b`` outside the ``varying`` paths of ``b``."""
    if path in varying:
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            sub = path + (key,)
            if key in a and key in b:
                if not _equal(a[key], b[key], varying, sub):
                    return False
            elif sub not in varying:
                return False
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y, varying, path + (i,)) for i, (x, y) in enumerate(zip(a, b)))
    if isinstance(a, str) and isinstance(b, str):
        if a == b:
            return True
        la, lb = a.split("\n"), b.split("\n")
        for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, la, lb, autojunk=False).get_opcodes():
            if tag != "equal" and not (j2 > j1 and all(path + (("line", j),) in varying for j in range(j1, j2))):
                return False
        return True
    return _dump(a) == _dump(b)
