"""The one planner: previous revision ①, live objects ②, new manifest ③ → a Plan of per-object changes.

Both modes run this same code; the real run only carries the Plan out. Whether an object changes is
decided here, by the server's dry-run answer to the exact request the executor will send (a request is
only made when the client-side patch is not empty), so ``changed`` in check mode cannot differ from the
real run.
"""
import base64

from ..kube.errors import ApiError, KubeError, Unreachable
from .manifest import (Resource, keeps_resource, ownership_problem, sort_resources, with_ownership,
                       RESOURCE_POLICY, UNINSTALL_ORDER)
from ..errors import HelmlessError
from .changes import refusal_fields
from .fields import ASSIGNED, csa_entries, keep_theirs, manager_fields, owned_fields
from .ignore import NONE, differing, pinned, unowned_left_out, whole
from .patch import drift, three_way, two_way
from .standin import dry_run_elsewhere, replaced
from ..regexcache import regex

STRATEGIES = ("chart-delta", "helm3", "server-side")
METHODS = {"helm3": "csa", "server-side": "ssa"}  # chart-delta runs over either
_CONFLICT = regex(r'conflicts? with "([^"]+)"')
_SERVER_META = ("resourceVersion", "generation", "managedFields", "creationTimestamp", "uid", "selfLink")
REFUSALS = (400, 403, 422)  # the server refuses the object itself (bad request, admission denial, invalid)


class PlanError(HelmlessError):
    """The plan cannot be carried out (ownership conflict, server rejection...); ``plan``: the plan, with
    each refused change marked, when the server refused requests of it."""

    plan = None


class Change:
    """What happens to one object. ``action``: create, patch, apply, replace, delete, unchanged, drift, keep, skip."""

    __slots__ = ("action", "resource", "before", "after", "patch", "patch_type", "drift", "namespace", "crd",
                 "body", "force", "upgrade", "reason", "previous", "refused", "ignored")

    def __init__(self, action, resource, namespace, before=None, after=None, patch=None, patch_type=None,
                 drift_paths=None, crd=False):
        self.action = action
        self.body = after  # the request body for create/apply/replace; ``after`` becomes the prediction
        self.force = False  # server-side apply takes the fields over (chart-delta: those the chart changed)
        self.upgrade = False  # first fold our client-side managedFields entry into the Apply one (Helm 4)
        self.resource = resource
        self.namespace = namespace
        self.before = before
        self.after = after
        self.patch = patch
        self.patch_type = patch_type
        self.drift = drift_paths or []
        self.crd = crd
        self.reason = None  # uninstall's keep/skip: why the object stays (uninstall_plan)
        self.previous = None  # the object in the last revision's manifest (field causes: chart or drift)
        self.refused = None  # (message, field paths) of the server's refusal of the planned request
        self.ignored = None  # pointers an ignore rule keeps at another value than the chart's (plan/ignore.py)

    @property
    def changes(self):
        return self.action in ("create", "patch", "apply", "replace", "delete")

    def summary(self):
        res = self.resource
        out = {"action": self.action, "apiVersion": res.api_version, "kind": res.kind, "name": res.name}
        if self.namespace:
            out["namespace"] = self.namespace
        if self.drift:
            out["drift"] = self.drift
        if self.ignored:
            out["ignored"] = self.ignored
        return out


class Plan:
    def __init__(self, strategy):
        self.strategy = strategy
        self.changes = []  # in execution order: creates/updates (install order), then deletes
        self.crds = []
        self.namespace_create = None

    @property
    def changed(self):
        return any(c.changes for c in self.changes + self.crds) or self.namespace_create is not None

    def drift(self):
        return [dict(c.summary(), drift=c.drift or ["(object missing)"]) for c in self.changes
                if c.action == "drift" or c.drift]


def normalized(obj):
    """An object without server bookkeeping, for comparing live and dry-run answers."""
    if obj is None:
        return None
    out = {k: v for k, v in obj.items() if k != "status"}
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _SERVER_META}
    out["metadata"] = meta
    return out


LIST_AT = 5  # objects of one kind in one namespace from which one LIST replaces their GETs
_UNFETCHED = object()


def _unknown_kind(res):
    """Helm's error for an object of a kind the server does not serve."""
    return PlanError('resource mapping not found for name: "%s" namespace: "%s" from "": no matches for kind "%s" in '
                     'version "%s"\nensure CRDs are installed first'
                     % (res.name, res.namespace or "", res.kind, res.api_version))


class Planner:
    """``strategy`` says what is sent, ``method`` how: ``ssa`` (server-side apply, Helm 4's default) or
    ``csa`` (create and patch, Helm 3's way); helm3 is csa only and server-side ssa only."""

    operation = "install"  # Helm's word for the operation in its ownership refusal: install or update
    # fold our client-side managedFields entry into the Apply one before applying (Helm 4 does for an install
    # and a rollback, and for an upgrade whose current revision was applied client-side)
    fold_client_side = True

    def __init__(self, client, openapi, release, namespace, strategy="chart-delta", take_ownership=False,
                 force=False, force_conflicts=False, workers=16, method=None, ignore=None):
        if strategy not in STRATEGIES:
            raise PlanError("apply_strategy must be one of %s" % ", ".join(STRATEGIES))
        self.method = method or METHODS.get(strategy, "csa")
        if METHODS.get(strategy, self.method) != self.method:
            raise PlanError("apply_strategy %s cannot run with server_side %s" % (
                strategy, "true" if self.method == "ssa" else "false"))
        self.client = client
        self.openapi = openapi
        self.release = release
        self.namespace = namespace
        self.strategy = strategy
        self.take_ownership = take_ownership
        self.force = force
        self.force_conflicts = force_conflicts
        self.workers = workers
        self.ignore = ignore or NONE  # ignore rules: fields of existing objects left to others
        self.pending_kinds = {}
        self.new_namespaces = set()

    # ---- helpers ------------------------------------------------------------------------------
    def _ns(self, res, pending_kinds=()):
        if res.namespace:
            return res.namespace
        key = (res.api_version, res.kind)
        if key in pending_kinds:
            return self.namespace if pending_kinds[key] else ""
        return self.namespace if self.client.is_namespaced(res.api_version, res.kind) else ""

    def _fetch(self, items):
        """The live object of every (resource, namespace), None for missing or not-yet-known kinds.

        Objects of one kind in one namespace, from LIST_AT of them on, come from one LIST (a no-op of a
        300-object release spent most of its time in a GET each); the rest are GET in parallel."""
        lives = [_UNFETCHED] * len(items)
        groups = {}
        for i, (res, ns) in enumerate(items):
            if ns:
                groups.setdefault((res.api_version, res.kind, ns), []).append(i)
        for (api_version, kind, ns), indexes in groups.items():
            if len(indexes) >= LIST_AT:
                try:
                    listed = self.client.list_named(api_version, kind, ns, {items[i][0].name for i in indexes})
                except (ApiError, Unreachable):
                    raise
                except KubeError:
                    listed = None  # a kind the cluster does not know yet: its GETs say so
                if listed is not None:
                    for i in indexes:
                        lives[i] = listed.get(items[i][0].name)

        def one(item):
            res, ns = item
            try:
                return self.client.get(res.api_version, res.kind, res.name, ns or None)
            except (ApiError, Unreachable):
                raise
            except KubeError:
                return None  # a kind the cluster does not know yet (its CRD is part of this plan)
        rest = [i for i, live in enumerate(lives) if live is _UNFETCHED]
        if len(rest) <= 1:
            got = [one(items[i]) for i in rest]
        else:
            from concurrent.futures import ThreadPoolExecutor  # lazy: it imports logging; a no-op LISTs instead
            with ThreadPoolExecutor(max_workers=min(self.workers, len(rest))) as pool:
                got = list(pool.map(one, [items[i] for i in rest]))
        for i, live in zip(rest, got):
            lives[i] = live
        return lives

    def _meta(self, res):
        try:
            return self.openapi.patch_meta(res.api_version, res.kind)
        except KubeError:
            return None

    def _dry_run(self, change):
        """Ask the server what the planned request would produce (None: it cannot tell yet)."""
        res, ns = change.resource, change.namespace or None
        body = change.body
        try:
            if change.action == "create":
                return self.client.create(body, ns, dry_run=True)
            if change.action == "replace":
                return self.client.replace(body, ns, dry_run=True)
            if change.action == "apply":
                try:
                    return self.client.patch(res.api_version, res.kind, res.name, ns, body, "apply", dry_run=True,
                                             force=self.force_conflicts or change.force)
                except ApiError as exc:
                    managers = set(_CONFLICT.findall(exc.message or ""))
                    if not (exc.conflict and change.upgrade and managers <= {self.client.field_manager}):
                        raise
                # only our own client-side entry holds the fields, and the real run folds it into the
                # Apply entry first (as Helm 4 does): a forced dry run predicts that outcome
                return self.client.patch(res.api_version, res.kind, res.name, ns, body, "apply", dry_run=True,
                                         force=True)
            return self.client.patch(res.api_version, res.kind, res.name, ns, change.patch, change.patch_type,
                                     dry_run=True)
        except ApiError as exc:
            if change.upgrade and exc.status == 422:
                # the stored object still has our client-side entry, which the real run folds into the Apply
                # entry first (so list items the chart renamed go): a dry run cannot take both steps, and the
                # applied body is what the object will hold
                return dict(body)
            if exc.not_found and change.before is None:
                if (change.namespace or "") in self.new_namespaces:  # the plan itself creates it first
                    try:
                        return dry_run_elsewhere(self.client, change, self.force_conflicts or change.force)
                    except ApiError as invalid:
                        raise PlanError("%s %s: %s" % (res.kind, res.name, invalid.message or invalid)) from invalid
                raise PlanError('%s "%s" in namespace "%s": %s' % (res.kind, res.name, change.namespace,
                                                                   exc.message or exc)) from exc
            if exc.conflict and change.action == "apply":
                raise PlanError("%s: Apply failed with conflicts (set force_conflicts to take the fields "
                                "over): %s" % (res.label(), exc.message)) from exc
            raise PlanError("%s %s: %s" % (res.kind, res.name, exc.message or exc)) from exc
        except KubeError as exc:
            if change.before is None and (res.api_version, res.kind) in self.pending_kinds:
                return None  # a kind whose CRD (crds/) is installed first
            if not self.client.discovery.has(res.api_version, res.kind):
                raise _unknown_kind(res) from exc  # a cached discovery knew it, the server does not serve it
            raise PlanError(str(exc)) from exc

    # ---- planning -------------------------------------------------------------------------------
    def plan(self, previous, target, pending_kinds=None, missing_is_drift=True, check_server=True,
             new_namespaces=()):
        """Plan moving the release from the ``previous`` manifest objects to the ``target`` ones.

        ``missing_is_drift``: under chart-delta an object of ① that is gone and unchanged by the chart
        was deleted by hand (drift); when ① is a failed revision it may simply never have been created.
        ``pending_kinds`` (kinds of ``crds/`` about to be installed) and ``new_namespaces`` (created
        before the objects) are all the plan may take for granted; anything else the server does not
        know fails the plan, in check mode as in the real run.
        """
        pending_kinds = pending_kinds or {}
        self.pending_kinds = pending_kinds
        self.new_namespaces = set(new_namespaces) | {r.name for r in target if r.kind == "Namespace"}
        for res in target:
            if (res.api_version, res.kind) not in pending_kinds and not self.client.discovery.has(res.api_version,
                                                                                                  res.kind):
                raise _unknown_kind(res)
        plan = Plan(self.strategy)
        target = sort_resources(target)
        targets = [(r, self._ns(r, pending_kinds)) for r in target]
        prev_by_key = {}
        for res in previous:
            prev_by_key[res.key(self._ns_or_default(res, pending_kinds))] = res
        target_keys = {r.key(ns) for r, ns in targets}
        removed = [r for k, r in prev_by_key.items() if k not in target_keys]
        removed_items = [(r, self._ns_or_default(r, pending_kinds)) for r in sort_resources(removed, UNINSTALL_ORDER)]
        lives = self._fetch(targets + removed_items)
        for (res, ns), live in zip(targets, lives[:len(targets)]):
            prev = prev_by_key.get(res.key(ns))
            change = self._plan_target(res, ns, prev, live, missing_is_drift)
            if prev is not None:
                change.previous = secret_view(prev.obj) if res.kind == "Secret" else prev.obj
            plan.changes.append(change)
        for (res, ns), live in zip(removed_items, lives[len(targets):]):
            if live is None:
                continue
            # Helm's upgrade reads the live object's policy, exactly "keep" (uninstall reads the manifest's)
            policy = ((live.get("metadata") or {}).get("annotations") or {}).get(RESOURCE_POLICY)
            plan.changes.append(Change("keep" if policy == "keep" else "delete", res, ns, before=live))
        if check_server:
            refused = self._settle(plan.changes)
            if refused:  # every refusal is in the plan, which the error carries; the first one is the message
                refused[0].plan = plan
                raise refused[0]
        return plan

    def _ns_or_default(self, res, pending_kinds):
        try:
            return self._ns(res, pending_kinds)
        except KubeError:
            return res.namespace or self.namespace

    def _plan_target(self, res, ns, prev, live, missing_is_drift):
        raw, raw_prev = res, prev  # a server-side apply sends a Secret's stringData as is, as Helm 4 does
        if res.kind == "Secret":
            res = Resource(secret_view(res.obj), res.source)
            prev = Resource(secret_view(prev.obj), prev.source) if prev is not None else None
        target = with_ownership(res.obj, self.release, self.namespace)
        if ns:
            target["metadata"]["namespace"] = ns
        ignored = self.ignore.for_object(target, ns) if self.ignore else ()
        if live is None:
            if self.strategy == "chart-delta" and missing_is_drift and prev is not None and _same(prev.obj, res.obj):
                if whole(ignored):  # as Flux, an object ignored as a whole is left out, also when missing
                    change = Change("skip", res, ns)
                    change.reason = "ignored"
                    return change
                return Change("drift", res, ns, after=None, drift_paths=["(object missing)"])
            ssa = self.method == "ssa"
            change = Change("apply" if ssa else "create", raw if ssa else res, ns,
                            after=self._owned(raw, ns) if ssa else target)
            change.force = self.force_conflicts
            return change
        if prev is None:
            problem = ownership_problem(live, self.release, self.namespace)
            if problem and not self.take_ownership:
                where = ' in namespace "%s"' % ns if ns else ""
                raise PlanError('unable to continue with %s: %s "%s"%s exists and cannot be imported into '
                                'the current release: invalid ownership metadata; %s'
                                % (self.operation, res.kind, res.name, where, problem))
        if whole(ignored):
            return Change("unchanged", res, ns, before=live, after=live)
        kept = differing(target, live, ignored)
        if ignored:  # every ignored field holds its live value on all sides: never drift, never written
            res, raw = (Resource(pinned(r.obj, live, ignored), r.source) for r in (res, raw))
            prev, raw_prev = (None if r is None else Resource(pinned(r.obj, live, ignored), r.source)
                              for r in (prev, raw_prev))
            target = pinned(target, live, ignored)
        change = self._existing(res, raw, ns, prev, raw_prev, live, target, ignored, missing_is_drift)
        change.ignored = kept or None
        return change

    def _existing(self, res, raw, ns, prev, raw_prev, live, target, ignored, trusted=False):
        """The change of an object that exists (fields an ignore rule keeps already pinned to live).
        ``trusted``: the previous revision was deployed, so each of its objects is what applying it made."""
        meta = self._meta(res)
        paths = drift(prev.obj, live, meta) if prev is not None else []
        if self.force:
            body = dict(target)
            body["metadata"] = dict(target["metadata"], resourceVersion=live["metadata"].get("resourceVersion"))
            return Change("replace", res, ns, before=live, after=body, drift_paths=paths)
        if self.method == "ssa":
            return self._plan_apply(raw, ns, raw_prev, live, self._owned(raw, ns), paths, ignored, trusted)
        if self.strategy == "chart-delta" and prev is not None:
            original = with_ownership(prev.obj, self.release, self.namespace)
            if ns:
                original["metadata"]["namespace"] = ns
            patch = two_way(original, target, meta)
            if ownership_problem(live, self.release, self.namespace):
                patch = _merge(patch, _markers(target))
        else:
            patch = three_way(prev.obj if prev is not None else self._baseline(live), target, live, meta)
        if not patch:
            return Change("unchanged", res, ns, before=live, after=live, drift_paths=paths)
        return Change("patch", res, ns, before=live, patch=patch, patch_type="strategic" if meta else "merge",
                      drift_paths=paths)

    def _baseline(self, live):
        """The original of a client-side patch of an object the previous revision did not have: Helm's
        rollback takes the live object (what the chart does not render is removed); its install and upgrade
        adopt it with the rendered object (nothing is removed); chart-delta keeps what it did not render."""
        return live if self.operation == "rollback" and self.strategy != "chart-delta" else {}

    def _owned(self, res, ns):
        target = with_ownership(res.obj, self.release, self.namespace)
        if ns:
            target["metadata"]["namespace"] = ns
        return target

    def _plan_apply(self, res, ns, prev, live, target, paths, ignored=(), trusted=False):
        """Server-side apply of ③ (server-side: conflicts unless force_conflicts, as Helm 4), or of ③ less
        the fields the chart did not change that someone else has taken over since (chart-delta: those
        stay theirs, the rest is the chart's and forced; with no ① — an object taken over — all of ③)."""
        manager = self.client.field_manager
        mixed = bool(csa_entries(live, manager))  # we also own fields client-side (an Update entry)
        upgrade = self.fold_client_side and mixed
        # the chart did not change it; when mixed and not folded, an apply may still give fields of equal
        # value to our Apply entry (the dry run shows it)
        settled = not mixed and prev is not None and _same(prev.obj, res.obj)
        if settled and (_subset(target, live) or (trusted and _applied_alone(live, manager)
                                                  and _stored_subset(secret_view(target), live))):
            # The usual no-op: all of ③ is live already, so what keep_theirs would leave of it is too. Or
            # it is, as the server stores what the chart wrote (a Secret's stringData folded into data, a
            # []byte field's base64 without the chart's line breaks), and no one but the last apply of this
            # same body wrote the object since: the same apply would leave it as it is.
            return Change("unchanged", res, ns, before=live, after=live, drift_paths=paths)
        body, force = target, self.force_conflicts or self.strategy == "chart-delta"
        if self.strategy == "chart-delta" and prev is not None:
            original = with_ownership(prev.obj, self.release, self.namespace)
            if ns:
                original["metadata"]["namespace"] = ns
            body = keep_theirs(original, target, owned_fields(live, manager))
        if ignored:
            body = unowned_left_out(body, live, ignored, owned_fields(live, manager))
        if settled and body is not target and _subset(body, live):
            return Change("unchanged", res, ns, before=live, after=live, drift_paths=paths)
        change = Change("apply", res, ns, before=live, after=body, drift_paths=paths)
        change.force, change.upgrade = force, upgrade
        return change

    def _answer(self, change):
        """The dry-run answer, or the PlanError of a request the server refuses (invalid, immutable field,
        denied by admission), kept on the change so that every refusal is reported, not only the first."""
        try:
            return self._dry_run(change)
        except PlanError as exc:
            cause = exc.__cause__
            if not (isinstance(cause, ApiError) and cause.status in REFUSALS):
                raise
            change.refused = (str(exc), refusal_fields(cause.body))
            return exc

    def _settle(self, changes):
        """Replace each candidate write by the server's dry-run answer; drop those that change nothing.
        Returns the errors of the requests the server refuses, in plan order."""
        todo = [c for c in changes if c.action in ("create", "patch", "apply", "replace")]
        if not todo:
            return []
        if len(todo) == 1:
            answers = [self._answer(todo[0])]
        else:
            from concurrent.futures import ThreadPoolExecutor  # lazy: see _fetch
            with ThreadPoolExecutor(max_workers=min(self.workers, len(todo))) as pool:
                answers = list(pool.map(self._answer, todo))
        refused = [answer for answer in answers if isinstance(answer, PlanError)]
        for change, answer in zip(todo, answers):
            if isinstance(answer, PlanError):
                continue
            if change.before is None:
                change.after = assigned_marked(answer, change.body) if answer is not None else change.body
            elif (normalized(answer) == normalized(change.before) and not change.upgrade
                  and (change.action != "apply" or manager_fields(answer, self.client.field_manager)
                       == manager_fields(change.before, self.client.field_manager))):
                change.action, change.after = "unchanged", change.before
            else:
                change.after = answer
        return refused


def assigned_marked(answer, body):
    """A dry-run create's answer with what the server assigns at creation (uid, times, versions,
    a Service's cluster IPs and node ports the chart left open, labels carrying the uid) shown as
    ``ASSIGNED``: the dry run invents those values and the real create will assign others."""
    uid = (answer.get("metadata") or {}).get("uid")
    out = replaced(answer, uid, ASSIGNED)  # one copy (a CRD's answer is large): ``answer`` stays as it is
    meta = out.get("metadata") or {}
    for key in ("uid", "creationTimestamp", "resourceVersion", "generation"):
        if key in meta:
            meta[key] = ASSIGNED
    if out.get("kind") == "Service" and isinstance(out.get("spec"), dict):
        spec, wanted = out["spec"], body.get("spec") or {}
        for key in ("clusterIP", "clusterIPs", "healthCheckNodePort"):
            if key in spec and key not in wanted:
                spec[key] = ASSIGNED
        wanted_ports = wanted.get("ports") or []
        for index, port in enumerate(spec.get("ports") or []):
            asked = wanted_ports[index] if index < len(wanted_ports) else {}
            if "nodePort" in port and not (isinstance(asked, dict) and asked.get("nodePort")):
                port["nodePort"] = ASSIGNED
    return out


def secret_view(obj):
    """A Secret as the API stores it: ``stringData`` folded into base64 ``data`` (it is never read back)."""
    if obj.get("kind") != "Secret" or not obj.get("stringData"):
        return obj
    out = dict(obj)
    data = dict(out.get("data") or {})
    for key, value in out.pop("stringData").items():
        data[key] = base64.b64encode(str(value if value is not None else "").encode()).decode()
    out["data"] = data
    return out


def _markers(obj):
    meta = obj["metadata"]
    return {"metadata": {"labels": {k: v for k, v in meta["labels"].items() if k == "app.kubernetes.io/managed-by"},
                         "annotations": {k: v for k, v in meta["annotations"].items() if k.startswith("meta.helm.sh/")}}}


def _merge(a, b):
    out = dict(a)
    for key, value in b.items():
        out[key] = _merge(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
    return out


def _same(a, b):
    return a == b


def _stored_subset(want, have):
    """_subset, with a string that is base64 broken into lines equal to its unbroken form (how the server
    stores a []byte field it decoded)."""
    if isinstance(want, dict):
        return isinstance(have, dict) and all(k in have and (v == have[k] or _stored_subset(v, have[k]))
                                              for k, v in want.items())
    if isinstance(want, list):
        return isinstance(have, list) and len(want) == len(have) and all(
            a == b or _stored_subset(a, b) for a, b in zip(want, have))
    if isinstance(want, str) and isinstance(have, str) and want != have:
        return _unbroken_base64(want) == have
    return _subset(want, have)


def _unbroken_base64(text):
    """``text`` without line breaks when that is canonical base64 (else None)."""
    joined = text.replace("\r", "").replace("\n", "")
    try:
        return joined if base64.b64encode(base64.b64decode(joined, validate=True)).decode() == joined else None
    except ValueError:
        return None


def _applied_alone(live, manager):
    """Whether ``manager``'s server-side apply wrote the object and no one else wrote it since (a status
    written by its controller does not count; a scale, as ``kubectl scale`` writes it, does)."""
    entries = [e for e in (live.get("metadata") or {}).get("managedFields") or [] if e.get("subresource") != "status"]
    return bool(entries) and all(e.get("manager") == manager and e.get("operation") == "Apply" for e in entries)


def _subset(want, have):
    """Every field of ``want`` is present with the same value in ``have`` (lists compared item-wise)."""
    if isinstance(want, dict):
        return isinstance(have, dict) and all(k in have and (v == have[k] or _subset(v, have[k])) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(have, list) and len(want) == len(have) and all(a == b or _subset(a, b) for a, b in zip(want, have))
    return want == have or (str(want) == str(have) and not isinstance(want, bool))


def uninstall_plan(client, release, namespace, previous, workers=8):
    """Objects of the last revision to delete, in uninstall order, as Helm 4.3's uninstall sorts them.

    ``keep``: the manifest says ``helm.sh/resource-policy: keep`` (Helm reads the manifest, not the live
    object; another policy value leaves the object too, unlisted). ``skip``: the live object is not owned by
    this release (another release took it over) or its ownership cannot be read; Helm 4.3 leaves both.
    ``reason`` says why, in the words ``uninstall_info`` prints."""
    planner = Planner(client, None, release, namespace, workers=workers)
    items = [(r, planner._ns_or_default(r, {})) for r in sort_resources(previous, UNINSTALL_ORDER)]
    policies = [RESOURCE_POLICY in (((r.obj.get("metadata") or {}).get("annotations")) or {}) for r, _ns in items]
    try:
        lives = planner._fetch([item for item, policy in zip(items, policies) if not policy])
    except ApiError:
        lives = None  # some GET or LIST refused: each object on its own, so only those are unverifiable
    fetched = iter(lives or ())
    plan = Plan("uninstall")
    for (res, ns), policy in zip(items, policies):
        if policy:
            change = Change("keep", res, ns)
            change.reason = "policy" if keeps_resource(res.obj) else None
            plan.changes.append(change)
            continue
        try:
            live = next(fetched) if lives is not None else planner._fetch([(res, ns)])[0]
        except ApiError as exc:
            change = Change("skip", res, ns)
            change.reason = exc.message or str(exc)
            plan.changes.append(change)
            continue
        if live is None:
            plan.changes.append(Change("unchanged", res, ns))
        elif ownership_problem(live, release, namespace):
            change = Change("skip", res, ns, before=live, after=live)
            change.reason = "not owned"
            plan.changes.append(change)
        else:
            plan.changes.append(Change("delete", res, ns, before=live))
    return plan


def uninstall_info(plan):
    """What ``helm uninstall`` prints before ``release "x" uninstalled``: objects kept, skipped, unverifiable."""
    kept = [c for c in plan.changes if c.action == "keep" and c.reason == "policy"]
    unowned = [c for c in plan.changes if c.action == "skip" and c.reason == "not owned"]
    unverifiable = [c for c in plan.changes if c.action == "skip" and c.reason != "not owned"]
    parts = []
    if kept:
        parts.append("These resources were kept due to the resource policy:\n"
                     + "".join("[%s] %s\n" % (c.resource.kind, c.resource.name) for c in kept))
    if unowned:
        parts.append("%d resource(s) were not deleted because they are not owned by this release:\n" % len(unowned)
                     + "".join("[%s] %s\n" % (c.resource.kind, c.resource.name) for c in unowned))
    if unverifiable:
        parts.append("%d resource(s) were not deleted because their ownership could not be verified:\n"
                     % len(unverifiable)
                     + "".join("[%s] %s: %s\n" % (c.resource.kind, c.resource.name, c.reason) for c in unverifiable))
    return "\n".join(parts)


__all__ = ["Planner", "Plan", "Change", "PlanError", "Resource", "uninstall_plan", "uninstall_info", "normalized",
           "STRATEGIES", "assigned_marked", "ASSIGNED"]
