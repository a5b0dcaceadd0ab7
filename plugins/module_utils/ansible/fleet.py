"""The releases of a ``releases`` task as a graph: who needs whom, which are selected, what to prune.

Everything a task can get wrong about its list (a release twice, a ``needs`` naming nothing or two
releases, a cycle, an install needing an uninstall, a bad selector or fleet) is refused here, before
anything is read or written, naming the releases. ``check_cluster`` then reads (never writes) what the
list alone cannot say: whether the releases a selection needs but does not run are deployed, and which
releases of the fleet are no longer listed.
"""
from ..errors import HelmlessError
from ..regexcache import regex
from .runner import ModuleFailure

FLEET_LABEL = "fleet"
# A Kubernetes label value (release labels are the storage object's labels)
_LABEL_VALUE = regex(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")


class Release:
    """One item: ``key`` (namespace/name), its ``params`` (without ``needs``), the keys it ``needs`` (with
    the names as written), whether it is ``absent`` and ``selected``."""

    def __init__(self, item):
        self.params = dict(item)
        self.written = list(self.params.pop("needs", None) or ())
        self.name, self.namespace = item["release_name"], item["release_namespace"]
        self.key = "%s/%s" % (self.namespace, self.name)
        self.absent = item.get("release_state", "present") == "absent"
        self.needs = []  # [(written, key)]
        self.selected = True

    def labels(self):
        """What ``select`` matches: the item's labels, and its name, namespace and chart as helmfile's."""
        out = {str(k): str(v) for k, v in (self.params.get("labels") or {}).items()}
        out.update(name=self.name, namespace=self.namespace)
        chart = str(self.params.get("chart_ref") or "").rstrip("/").rsplit("/", 1)[-1]
        if chart:
            out["chart"] = chart
        return out


def refuse(message):
    raise ModuleFailure("releases: " + message)


def releases_of(params):
    """The task's items as Releases, needs resolved and checked, selection and fleet applied."""
    releases = [Release(item) for item in params["releases"]]
    by_key, by_name = {}, {}
    for rel in releases:
        if rel.key in by_key:
            refuse("%s is listed twice" % rel.key)
        by_key[rel.key] = rel
        by_name.setdefault(rel.name, []).append(rel.key)
    for rel in releases:
        for written in rel.written:
            keys = [written] if written in by_key else ([] if "/" in written else by_name.get(written, []))
            if not keys:
                refuse("%s needs %s, which is not in releases" % (rel.key, written))
            if len(keys) > 1:
                refuse("%s needs %s, which names %s: write namespace/name" % (rel.key, written, " and ".join(keys)))
            if not rel.absent and by_key[keys[0]].absent:
                refuse("%s needs %s, which this task uninstalls" % (rel.key, keys[0]))
            rel.needs.append((written, keys[0]))
    _refuse_cycles(releases, by_key)
    _label(releases, params)
    _select(releases, params.get("select"))  # over the labels the releases get, the fleet's too
    return releases


def _refuse_cycles(releases, by_key):
    """Depth first along ``needs`` from each release in list order: the first cycle met is refused, named
    release by release."""
    state = {}
    for start in releases:
        if start.key in state:
            continue
        stack = [(start, iter(start.needs))]
        path = [start.key]
        state[start.key] = "open"
        while stack:
            rel, pending = stack[-1]
            step = next(pending, None)
            if step is None:
                state[rel.key] = "done"
                stack.pop()
                path.pop()
                continue
            need = step[1]
            if state.get(need) == "open":
                cycle = path[path.index(need):] + [need]
                refuse("needs cycle: %s" % " -> ".join(cycle))
            if need not in state:
                state[need] = "open"
                path.append(need)
                stack.append((by_key[need], iter(by_key[need].needs)))


def selectors(select):
    """``select`` as a list of selectors (any of them selects), each checked."""
    from ..postrender.resources import PostRenderError, selector_matches

    if select is None:
        return []
    items = select if isinstance(select, list) else [select]
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise ModuleFailure("select: expected a label selector or a list of them, got %r" % (item,))
        try:
            selector_matches(item, {})
        except PostRenderError:
            raise ModuleFailure("select: invalid label selector %r (key=value, key!=value, key in (a,b), "
                                "key notin (a,b), key, !key; comma-separated)" % item) from None
    return items


def matches(chosen, labels):
    from ..postrender.resources import selector_matches
    return not chosen or any(selector_matches(s, labels) for s in chosen)


def _select(releases, select):
    chosen = selectors(select)
    for rel in releases:
        rel.selected = matches(chosen, rel.labels())


def _label(releases, params):
    fleet = params.get("fleet")
    if params.get("prune") and not fleet:
        raise ModuleFailure("prune: needs fleet, the name of the set of releases to prune")
    if fleet is None:
        return
    if len(fleet) > 63 or not _LABEL_VALUE.match(fleet):
        raise ModuleFailure("fleet: %r is not a valid label value (at most 63 characters: letters, digits, '-', "
                            "'_', '.', starting and ending with a letter or digit)" % fleet)
    for rel in releases:
        if rel.absent:
            continue
        labels = dict(rel.params.get("labels") or {})
        if str(labels.get(FLEET_LABEL, fleet)) != fleet:
            refuse("%s: labels.%s is %r, but the task's fleet is %r"
                   % (rel.key, FLEET_LABEL, labels[FLEET_LABEL], fleet))
        labels[FLEET_LABEL] = fleet
        rel.params["labels"] = labels


def check_cluster(params, releases):
    """(the keys of releases needed but not selected that have no deployed revision, the keys of the fleet's
    releases to prune): read from the cluster, nothing written."""
    from ..actions.base import ReleaseContext
    from ..release.storage import Storage
    from .runner import connect

    selected = [rel for rel in releases if rel.selected]
    by_key = {rel.key: rel for rel in releases}
    wanted = sorted({key for rel in selected if not rel.absent for _w, key in rel.needs if not by_key[key].selected})
    if not wanted and not params.get("prune"):
        return set(), []
    client = connect(params)
    driver, sql = params.get("storage_driver") or "secret", params.get("sql_connection_string")

    def context(name, namespace):
        return ReleaseContext(client, name, namespace, driver, sql_connection=sql)

    try:
        undeployed = {key for key in wanted
                      if Storage.deployed(context(by_key[key].name, by_key[key].namespace).history()) is None}
        pruned = []
        if params.get("prune"):
            chosen = selectors(params.get("select"))
            for namespace in sorted({rel.namespace for rel in selected}):
                listed = {rel.name for rel in releases if rel.namespace == namespace}
                pruned.extend("%s/%s" % (namespace, name)
                              for name in _fleet_releases(context("", namespace), params["fleet"], chosen, listed))
    except HelmlessError as exc:
        raise ModuleFailure("releases: reading release records before any change: %s" % exc) from exc
    return undeployed, pruned


def _fleet_releases(engine, fleet, chosen, listed):
    """Names of the releases in ``engine``'s namespace but ``listed`` whose last revision carries the fleet
    label, is not uninstalled (history kept) and matches the selection.

    The API server lists the revisions labelled with the fleet that are not superseded (the last revision
    of a release never is); each release found is judged by its last revision, read again (a later one may
    have dropped the label)."""
    from ..actions.base import custom_labels
    from ..release.model import UNINSTALLED, status

    listing = engine.storage.list_all("owner=helm,%s=%s,status!=superseded" % (FLEET_LABEL, fleet))
    found = {rel["name"] for rel in listing}
    names = []
    for name in sorted(found - set(listed)):
        rel = engine.storage.last(engine.storage.history(name))
        labels = dict(custom_labels(rel), name=name, namespace=engine.namespace)
        chart = ((rel.get("chart") or {}).get("metadata") or {}).get("name")
        if chart:
            labels["chart"] = chart
        if status(rel) != UNINSTALLED and labels.get(FLEET_LABEL) == fleet and matches(chosen, labels):
            names.append(name)
    return names
