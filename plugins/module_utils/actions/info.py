"""release_info: one release (status, values, manifest objects, hooks, notes, history, drift) or a list."""
import copy

from ..plan.ignore import NONE, pinned, whole
from ..plan.manifest import ManifestError, load_yaml, parse_manifest, with_ownership
from ..plan.patch import drift
from ..plan.planner import Planner, secret_view
from ..release.model import DEPLOYED, FAILED, description, status
from .redaction import Redactor, record_secrets
from .report import redact, release_status


def _coalesce(defaults, config):
    out = copy.deepcopy(defaults or {})
    for key, value in (config or {}).items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _coalesce(out[key], value)
        else:
            out[key] = value
    return out


def _drift(engine, resources, ignore=NONE):
    """Per object of the release: missing, or the fields where live differs from the stored manifest, less
    the fields (or objects) ``ignore`` rules leave to others."""
    planner = Planner(engine.client, engine.openapi, engine.name, engine.namespace)
    items = [(r, planner._ns_or_default(r, {})) for r in resources]
    ignored = [ignore.for_object(with_ownership(r.obj, engine.name, engine.namespace), ns) if ignore else ()
               for r, ns in items]
    items = [item for item, paths in zip(items, ignored) if not whole(paths)]
    ignored = [paths for paths in ignored if not whole(paths)]
    lives = planner._fetch(items)
    openapi = engine.openapi
    out = []
    for (res, ns), live, paths in zip(items, lives, ignored):
        entry = {"apiVersion": res.api_version, "kind": res.kind, "name": res.name}
        if ns:
            entry["namespace"] = ns
        if live is None:
            out.append(dict(entry, drift=["(object missing)"]))
            continue
        try:
            meta = openapi.patch_meta(res.api_version, res.kind)
        except Exception:  # drift is advisory; a schema we cannot read only loses merge keys
            meta = None
        fields = drift(pinned(secret_view(res.obj), live, paths), live, meta)
        if fields:
            out.append(dict(entry, drift=fields))
    return out


def describe(engine, revision=None, all_values=False, show_secrets=False, states=(), ignore=NONE):
    """The release as helm_info describes it, or None when ``helm list`` with ``states`` (default: deployed
    and failed) would not show its latest revision: missing, uninstalled with kept history, pending...
    ``ignore``: rules whose fields drift leaves out (plan/ignore.py)."""
    history = engine.history()
    if not history or not listed(history[-1], states):
        return None
    rel = next((r for r in history if r["version"] == revision), None) if revision else history[-1]
    if rel is None:
        return None
    redactor = None if show_secrets else _redactor(engine.name, engine.namespace, history)
    mask = redactor.text if redactor is not None else None
    result = release_status(rel)
    config = rel.get("config") or {}
    if all_values:
        config = _coalesce((rel.get("chart") or {}).get("values"), config)
    result["values"] = result["release_values"] = config
    try:
        resources = parse_manifest(rel.get("manifest") or "")
    except ManifestError:
        resources = []
    result["manifest"] = [redact(r.obj, show_secrets, mask) for r in resources]
    result["hooks"] = [redact(load_yaml(h.get("manifest") or "") or {}, show_secrets, mask)
                       for h in rel.get("hooks") or []]
    result["hook_runs"] = [{"name": h.get("name"), "kind": h.get("kind"), "events": h.get("events"),
                            "weight": h.get("weight", 0), "last_run": h.get("last_run") or {}}
                           for h in rel.get("hooks") or []]
    result["history"] = [{"revision": r["version"], "updated": release_status(r)["updated"],
                          "status": status(r), "chart": release_status(r)["chart"],
                          "app_version": release_status(r)["app_version"],
                          "description": description(r)} for r in history]
    result["drift"] = _drift(engine, resources, ignore) if status(rel) == DEPLOYED else []
    return result if redactor is None else redactor.value(result, ("manifest", "hooks", "hook_runs", "drift"))


def _redactor(name, namespace, records):
    """Hides the Secret values of ``records`` (a failed revision's description may quote one, as the
    API server's error did) in what release_info returns; its objects are redacted field by field."""
    redactor = Redactor(keep=(name, namespace))
    redactor.add(record_secrets(records))
    return redactor


_DEFAULT_STATES = (DEPLOYED, FAILED)


def listed(release, states):
    """Whether ``helm list`` with these state flags shows this (latest) revision."""
    wanted = set(states or _DEFAULT_STATES)
    state = status(release)
    return "all" in wanted or ("pending" if state.startswith("pending-") else state) in wanted


def list_releases(engine, states, selector=None, show_secrets=False):
    """Latest revision of every release in the namespace, filtered by state (and labels) as ``helm list``.

    ``selector`` applies to each release's latest revision, as ``helm list --selector``: the API server
    matches it against the storage objects' labels (the release's labels plus Helm's own, Helm's set too).
    """
    matching = None
    if selector:
        matching = {(r["name"], r["version"]) for r in engine.storage.list_all("owner=helm," + selector)}
    latest = {}
    for rel in engine.storage.list_all():
        if rel["name"] not in latest or rel["version"] > latest[rel["name"]]["version"]:
            latest[rel["name"]] = rel
    out = []
    for name in sorted(latest):
        if matching is not None and (name, latest[name]["version"]) not in matching:
            continue
        if listed(latest[name], states):
            entry = release_status(latest[name])
            out.append(entry if show_secrets else _redactor(name, engine.namespace, [latest[name]]).value(entry))
    return out
