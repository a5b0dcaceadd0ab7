"""What the differential harness compares after each step, and how it edits and restores the namespaces.

Everything is read from the control plane as it is: the release records (decoded from their Secrets), the
live objects of the namespace, the tools' printed output. Normalizing only removes what differs between
any two runs of the same tool (times, uids, resource versions, IPs, the namespace's own name, status and
the controllers' field managers).
"""
import base64
import copy
import difflib
import json
import re
import time

from ansible_collections.helmless.core.plugins.module_utils.kube.client import KubeClient
from ansible_collections.helmless.core.plugins.module_utils.kube.config import load_connection
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import ApiError
from ansible_collections.helmless.core.plugins.module_utils.release.codec import decode_release
from ansible_collections.helmless.core.plugins.module_utils.release.storage import Storage

import differential_chart

LIVE_KINDS = (("v1", "ConfigMap"), ("v1", "Secret"), ("v1", "Service"), ("v1", "ServiceAccount"),
              ("apps/v1", "Deployment"), ("batch/v1", "Job"), ("v1", "Pod"))
CONTROLLERS = re.compile(r"^(kube-controller-manager|kube-scheduler|kwok|kubelet)")
SERVER_META = ("uid", "resourceVersion", "creationTimestamp", "generation", "selfLink", "namespace", "managedFields")
HOOK = "helm.sh/hook"
RELEASE_NAME = "rel"
_REVISION = re.compile(r"revision \d+ says")
_API_ACCESS = re.compile(r"kube-api-access-[a-z0-9]{5}")
REFUSED = ("forceConflicts enabled when serverSideApply disabled",
           "cannot use server-side apply and force replace together")
TIMES = re.compile(r"^(LAST DEPLOYED|Last Started|Last Completed):( *).*$", re.M)


def client(kubeconfig, field_manager="helmless-differential"):
    return KubeClient(load_connection(kubeconfig), field_manager=field_manager)


# ---- reading a namespace --------------------------------------------------------------------------

def _managed(entries):
    out = []
    for entry in entries or []:
        if CONTROLLERS.match(entry.get("manager") or "") or entry.get("subresource") == "status":
            continue
        out.append({k: entry.get(k) for k in ("manager", "operation", "apiVersion", "subresource", "fieldsV1")})
    return sorted(out, key=lambda e: json.dumps(e, sort_keys=True))


def normalized_object(obj, namespace):
    out = {k: v for k, v in obj.items() if k != "status"}
    meta = obj.get("metadata") or {}
    out["metadata"] = {k: v for k, v in meta.items() if k not in SERVER_META}
    ann = {k: v for k, v in (meta.get("annotations") or {}).items() if not k.startswith("deployment.kubernetes.io/")}
    out["metadata"]["annotations"] = ann
    out["managedFields"] = _managed(meta.get("managedFields"))
    spec = out.get("spec")
    if obj.get("kind") == "Service" and isinstance(spec, dict):
        out["spec"] = {k: v for k, v in spec.items() if k not in ("clusterIP", "clusterIPs")}
    if obj.get("kind") == "Pod" and isinstance(spec, dict):
        out["spec"] = {k: v for k, v in spec.items() if k != "nodeName"}
    text = json.dumps(out, sort_keys=True)
    if meta.get("uid"):
        text = text.replace(meta["uid"], "<uid>")
    return json.loads(_neutral(text, namespace))


def _neutral(text, namespace):
    return _API_ACCESS.sub("kube-api-access-<random>", text.replace(namespace, "<ns>"))


def _chart_text(chart):
    """A stored chart with its files' base64 decoded (the CRD file names the namespace), without the
    files' modification times (Helm 4 stores them, docs/helm-differences.md)."""
    chart = {k: v for k, v in copy.deepcopy(chart or {}).items() if k not in ("modtime", "schemamodtime")}
    for key in ("templates", "files"):
        for item in chart.get(key) or []:
            item.pop("modtime", None)
            try:
                item["data"] = base64.b64decode(item.get("data") or "").decode()
            except (ValueError, UnicodeDecodeError):
                pass
    return chart


def normalized_record(rec, labels, namespace, helm3=False):
    rec = copy.deepcopy(rec)
    if helm3:  # records as Helm 4 writes them (its fields, manifest layout, omitted empty times), which we
        # write whatever the strategy: compared for what they hold
        rec.pop("apply_method", None)
        info = rec.get("info") or {}
        info.pop("rollback_revision", None)
        for key in [k for k, v in info.items() if v == ""]:
            del info[key]
        if " failed: " in info.get("description", ""):
            info.pop("description")  # it quotes the error, worded by Helm 3 there and Helm 4 here
        rec["manifest"] = [doc.strip() for doc in (rec.get("manifest") or "").split("\n---") if doc.strip()]
        for hook in rec.get("hooks") or []:
            hook["manifest"] = (hook.get("manifest") or "").strip()
            hook["last_run"] = {k: v for k, v in (hook.get("last_run") or {}).items() if v != ""}
    info = rec.get("info") or {}
    for key in ("first_deployed", "last_deployed", "deleted"):
        if info.get(key):
            info[key] = "<time>"
    for hook in rec.get("hooks") or []:
        run = hook.get("last_run") or {}
        for key in ("started_at", "completed_at"):
            if run.get(key):
                run[key] = "<time>"
    rec["chart"] = _chart_text(rec.get("chart"))
    rec["_labels"] = {k: v for k, v in labels.items() if k not in ("createdAt", "modifiedAt")}
    return json.loads(_neutral(json.dumps(rec, sort_keys=True), namespace))


class Snapshot:
    """A namespace as the harness compares it: release records and live objects, normalized, and raw."""

    def __init__(self, kube, namespace, helm3=False):
        self.namespace = namespace
        self.records, self.raw_records, self.objects, self.raw_objects = {}, {}, {}, {}
        for secret in kube.list("v1", "Secret", namespace, "owner=helm"):
            name = secret["metadata"]["name"]
            rec = decode_release(base64.b64decode(secret["data"]["release"]).decode())
            self.records[name] = normalized_record(rec, secret["metadata"].get("labels") or {}, namespace, helm3)
            self.raw_records[name] = secret
        kinds = list(LIVE_KINDS)
        group = differential_chart.crd_group(namespace)
        if kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets." + group):
            kinds.append((group + "/v1", "Widget"))
        for api_version, kind in kinds:
            try:
                items = kube.list(api_version, kind, namespace)
            except Exception:  # pylint: disable=broad-except  # a CRD not served yet
                # this long-lived client discovers once per unknown kind: a CRD served since must be found
                kube.discovery.invalidate()
                items = []
            for obj in items:
                meta = obj["metadata"]
                if (obj.get("type") == "helm.sh/release.v1" or meta.get("deletionTimestamp")
                        or meta.get("ownerReferences") or meta["name"] in ("kube-root-ca.crt", "default")):
                    continue
                key = "%s/%s" % (kind, meta["name"])
                self.objects[key] = normalized_object(dict(obj, kind=kind), namespace)
                if helm3 and HOOK in (meta.get("annotations") or {}):
                    self.objects[key].pop("managedFields")  # we create hooks as Helm 4 does
                self.raw_objects[key] = dict(obj, apiVersion=api_version, kind=kind)
        ns = kube.get("v1", "Namespace", namespace)
        self.namespace_labels = None if ns is None else json.loads(_neutral(json.dumps(
            ns["metadata"].get("labels") or {}, sort_keys=True), namespace))

    def versions(self):
        return sorted(rec["version"] for rec in self.records.values())

    def last(self):
        recs = sorted(self.records.values(), key=lambda r: r["version"])
        return recs[-1] if recs else None


def snapshot(kube, namespace, helm3=False):
    return Snapshot(kube, namespace, helm3)


def _diff(label, ours, helms):
    a = json.dumps(helms, indent=1, sort_keys=True).splitlines()
    b = json.dumps(ours, indent=1, sort_keys=True).splitlines()
    lines = list(difflib.unified_diff(a, b, "helm", "ours", lineterm="", n=2))
    return "%s differs:\n%s" % (label, "\n".join(lines[:80]))


def state_problems(helms, ours):
    problems = []
    if helms.namespace_labels != ours.namespace_labels:
        problems.append(_diff("namespace labels", ours.namespace_labels, helms.namespace_labels))
    for label, a, b in (("release records", helms.records, ours.records), ("live objects", helms.objects, ours.objects)):
        if set(a) != set(b):
            problems.append("%s: only helm has %s; only ours has %s" % (label, sorted(set(a) - set(b)),
                                                                        sorted(set(b) - set(a))))
        for key in sorted(set(a) & set(b)):
            if a[key] != b[key]:
                problems.append(_diff("%s %s" % (label, key), b[key], a[key]))
    return problems


def _unrevised(text):
    return _REVISION.sub("revision <n> says", text or "")


def _masked(snap, versions):
    """``snap`` with the revision the notes of ``versions`` print masked (docs/helm-differences.md)."""
    for rec in snap.records.values():
        if rec["version"] in versions and rec["info"].get("notes"):
            rec["info"]["notes"] = _unrevised(rec["info"]["notes"])
    return snap


def same_state(kube, helm_namespace, our_namespace, stale_notes=(), attempts=30, helm3=False):
    """Both namespaces hold the same records and objects (objects being deleted are given time to go)."""
    problems = []
    for _attempt in range(attempts):
        problems = state_problems(_masked(snapshot(kube, helm_namespace, helm3), stale_notes),
                                  _masked(snapshot(kube, our_namespace, helm3), stale_notes))
        if not problems:
            return
        time.sleep(0.5)
    raise AssertionError("\n".join(problems))


# ---- outcomes -------------------------------------------------------------------------------------

class Verdict:
    """``problems`` (a divergence), or ``documented``: a deliberate difference, after which helm's namespace
    is restored as it was before the step, or (``align``) helm's last record is given ours' status."""

    def __init__(self):
        self.problems = []
        self.documented = None
        self.align = False
        self.stop = False  # the tools' states part for good: the sequence ends at this documented difference


def _content(rec):
    """What a revision deploys: its chart, values, manifest, hooks (a hook without a delete policy gets
    Helm's default once it ran), apply method and custom labels (not its notes, which may print the revision)."""
    out = {k: rec.get(k) for k in ("config", "manifest", "apply_method")}
    # not the chart's default values: helm's --reuse-values stores the values it rendered with as those
    out["chart"] = {k: v for k, v in (rec.get("chart") or {}).items() if k != "values"}
    out["labels"] = {k: v for k, v in rec["_labels"].items() if k not in ("name", "owner", "status", "version")}
    out["hooks"] = [dict({k: v for k, v in h.items() if k != "last_run"},
                         delete_policies=h.get("delete_policies") or ["before-hook-creation"])
                    for h in rec.get("hooks") or []]
    return out


def _deployed(snap):
    recs = sorted(snap.records.values(), key=lambda r: r["version"])
    deployed = [r for r in recs if r["info"]["status"] == "deployed"]
    return deployed[-1] if deployed else (recs[-1] if recs else None)


def _kept_objects(snap):
    return {k: v for k, v in snap.objects.items() if HOOK not in (v["metadata"].get("annotations") or {})}


def _error(text):
    index = text.find("Error: ")
    return text[index:].strip() if index >= 0 else ""


# helm v3 creating a hook still there (an uninstall's post-delete hook errors are counted, not fatal), also in
# the uninstall that rollback_on_failure runs after a failed install
_HOOK_EXISTS = re.compile(r"Error: (an error occurred while uninstalling the release\. original install error: .*: )?"
                          r"(uninstallation completed with \d+ error\(s\): )?warning: Hook .* already exists", re.S)
_REFUSED = re.compile(r"[^:]* is invalid: [^\n]*|[^:]* is forbidden: [^\n]*|Apply failed with \d+ conflicts?")


def _refusal(helms, ours, hook_failed=False):
    """The server's refusal, when ours met one in its dry run and wrote nothing, and helm failed on one too
    (helm names every object it could not apply, joined with " && "; ours names the first its plan met),
    or failed in a pre-hook, before it got to the objects."""
    if helms["rc"] == 0 or not ours.get("failed") or not ours.get("_wrote_nothing"):
        return None
    mine = _REFUSED.search(str(ours.get("msg")))
    return mine.group(0) if mine and (hook_failed or _REFUSED.search(helms["stderr"])) else None


def _failed_pre_hook(op, before, after):
    """helm's new revision ran a pre-hook of ``op`` that failed (a failed rollback hook's run stays
    ``Running``): helm stopped there, before its objects (and before the option pairs its update refuses)."""
    events = {"upgrade": ("pre-install", "pre-upgrade"), "rollback": ("pre-rollback",)}.get(op, ())
    new = after.last() if set(after.versions()) - set(before.versions()) else None
    return new is not None and any(set(events) & set(hook.get("events") or [])
                                   and (hook.get("last_run") or {}).get("phase") in ("Failed", "Running")
                                   for hook in new.get("hooks") or [])


def align_record(kube, helm_namespace, our_namespace):
    """Give helm's last release record the status and description of ours (a documented difference)."""
    theirs, mine = Storage(kube, helm_namespace), Storage(kube, our_namespace)
    last, ours = theirs.history(RELEASE_NAME)[-1], mine.history(RELEASE_NAME)[-1]
    last["info"]["status"] = ours["info"]["status"]
    last["info"]["description"] = ours["info"]["description"].replace(our_namespace, helm_namespace)
    for hook, our_hook in zip(last.get("hooks") or [], ours.get("hooks") or []):  # the failed run, recorded
        hook["last_run"] = our_hook["last_run"]
    theirs.update(last)


def outcome(op, helms, ours, before, after, helm3=False):
    """Compare what each tool did at one step: success, ``changed`` against the revision helm made (against
    helm v3, whose texts differ from the Helm 4 ones we print, without comparing error texts)."""
    verdict = Verdict()
    helm_ok, our_ok = helms["rc"] == 0, not ours.get("failed")
    revised = after.versions() != before.versions() and (after.versions() or [0])[-1] > (before.versions() or [0])[-1]
    if op in ("upgrade", "rollback") and our_ok and not ours.get("changed"):
        # Deliberate (docs/helm-differences.md "A run that changes nothing"): we write no revision and run
        # no hooks when nothing would change; helm always does. Its revision must then change nothing.
        new = after.last() if revised else None
        if new is None:
            verdict.problems.append("ours changed nothing; helm %s without a new revision: %s" % (
                "succeeded" if helm_ok else "failed", _error(helms["stderr"]) or helms["stdout"][:500]))
            return verdict
        old = _deployed(before)
        if old is None or _content(new) != _content(old):
            verdict.problems.append(_diff("ours changed nothing, but helm's revision %d" % new["version"],
                                          _content(old) if old else None, _content(new)))
        elif _kept_objects(before) != _kept_objects(after):
            verdict.problems.append(_diff("ours changed nothing, but helm changed the live objects",
                                          _kept_objects(before), _kept_objects(after)))
        elif not helm_ok and "hook" not in helms["stderr"].lower():
            verdict.problems.append("ours changed nothing, helm failed: %s" % _error(helms["stderr"]))
        else:
            verdict.documented = "no-op %s: helm made revision %d%s" % (
                op, new["version"], "" if helm_ok else " and its hooks failed: " + _error(helms["stderr"])[:200])
        return verdict
    for text in REFUSED:
        if not our_ok and text in str(ours.get("msg")):
            # Deliberate (docs/helm-differences.md "Option pairs Helm refuses late"): refused before anything
            # is written; helm fails too, after its pending revision and pre-hooks
            if helm_ok or (text not in helms["stderr"] and not _failed_pre_hook(op, before, after)):
                verdict.problems.append("ours refused (%s); helm %s" % (text, "succeeded" if helm_ok else
                                                                       _error(helms["stderr"])))
            else:
                verdict.documented = "refused up front: %s" % text
            return verdict
    refusal = _refusal(helms, ours, _failed_pre_hook(op, before, after))
    if refusal:
        # Deliberate (docs/helm-differences.md "A change the server refuses"): our plan's dry run met the
        # server's refusal and nothing was written; helm met it while applying, after its pending revision
        verdict.documented = "refused by the server before anything was written: %s" % refusal[:200]
        return verdict
    if (op in ("rollback", "upgrade") and not helm_ok and not our_ok and after.last()
            and after.last()["info"]["status"] == "pending-rollback"):
        # Deliberate (docs/helm-differences.md "A rollback whose hook fails is marked failed"), also the
        # rollback of a failed upgrade's rollback_on_failure; same error
        helm_error = _neutral(_error(helms["stderr"]), after.namespace)
        our_error = _neutral("Error: %s" % ours.get("msg"), ours["_namespace"])
        if helm_error != our_error and not helm3:
            verdict.problems.append("rollback hook failure:\nhelm: %s\nours: %s" % (helm_error, our_error))
        else:
            verdict.documented, verdict.align = "a failed rollback hook leaves helm's revision pending-rollback", True
        return verdict
    if op == "test" and not our_ok and "matches the filter" in str(ours.get("msg")) and helm_ok:
        # Deliberate (docs/helm-differences.md "A test filter naming no test is an error")
        verdict.documented = "a test filter naming no test of the release: %s" % ours.get("msg")
        return verdict
    if helm3 and not helm_ok and re.search(r"Error: .*no \w+ with the name \S+ found", helms["stderr"], re.S):
        # Deliberate (docs/helm-differences.md "apply_strategy helm3 against helm v3"), also in the rollback of a
        # failed upgrade's rollback_on_failure (helm v3 fails it, ours is done): the sequence ends here
        verdict.documented, verdict.stop = "helm v3 cannot update an object the last revision did not have", True
        return verdict
    if (helm3 and not helm_ok and _HOOK_EXISTS.search(helms["stderr"])
            and (our_ok or "has been uninstalled due to rollback-on-failure" in str(ours.get("msg")))):
        # Deliberate (same section): our uninstall hooks are applied server-side, as Helm 4's, over one left there
        # (after a failed install with rollback_on_failure ours then reports the install's error alone)
        verdict.documented, verdict.stop = "helm v3 cannot create a hook that is still there", True
        return verdict
    if op == "uninstall" and our_ok and not ours.get("changed"):
        if helm_ok or not re.search(r"not found|already deleted", helms["stderr"]):
            verdict.problems.append("ours: nothing to uninstall; helm: rc %d %s" % (helms["rc"], _error(helms["stderr"])))
        else:
            verdict.documented = "uninstall of no release: %s" % _error(helms["stderr"])
        return verdict
    if helm_ok != our_ok:
        verdict.problems.append("helm %s, ours %s" % (
            "succeeded" if helm_ok else "failed: " + _error(helms["stderr"]),
            "succeeded" if our_ok else "failed: " + str(ours.get("msg"))))
    elif op in ("upgrade", "rollback") and helm_ok and not revised:
        verdict.problems.append("helm succeeded without a new revision (ours changed=%s)" % ours.get("changed"))
    return verdict


def _stdout(text, namespace):
    return TIMES.sub(lambda m: "%s:%s<time>" % (m.group(1), m.group(2)), _neutral(text, namespace))


def same_output(op, helms, ours, helm_namespace, our_namespace, stale_notes=()):
    """Printed output: stdout on success, the ``Error:`` text on failure, namespace and times normalized."""
    if helms["rc"] == 0:
        a, b = _stdout(helms["stdout"], helm_namespace), _stdout(ours.get("stdout") or "", our_namespace)
        if re.search(r"^REVISION: (%s)$" % "|".join(str(v) for v in stale_notes), b, re.M) and stale_notes:
            a, b = _unrevised(a), _unrevised(b)
        if a != b:
            raise AssertionError("%s stdout differs:\n--- helm\n%s--- ours\n%s" % (op, a, b))
        return
    a = _neutral(_error(helms["stderr"]), helm_namespace)
    b = _neutral("Error: %s" % ours.get("msg"), our_namespace)
    if a != b:
        raise AssertionError("%s error differs:\nhelm: %s\nours: %s" % (op, a, b))


def warnings(result):
    """A module result's warnings as texts (ansible-core 2.19 returns each as a structured event)."""
    out = []
    for item in result.get("warnings") or []:
        while isinstance(item, dict):
            item = item.get("event", item.get("msg"))
        out.append(str(item))
    return out


def check_prediction(check, real, op):
    """Check mode wrote nothing, failed only where the real run failed, and predicted its ``changed``
    (a real run may still fail on what no dry run shows: hooks, readiness)."""
    if (check.get("api_requests") or {}).get("writes"):
        raise AssertionError("check mode %s wrote %s" % (op, check["api_requests"]))
    if check.get("failed") and not real.get("failed"):
        raise AssertionError("check mode %s failed (%s); the real run did not" % (op, check.get("msg")))
    if check.get("failed") or real.get("failed"):
        return
    if check.get("changed") != real.get("changed"):
        raise AssertionError("check mode %s predicted changed=%s, the real run %s" % (op, check.get("changed"),
                                                                                    real.get("changed")))
    skipped = sorted(w[w.index("kind="):] for w in warnings(check) if "would skip" in w and "kind=" in w)
    done = sorted(w[w.index("kind="):] for w in warnings(real) if w.startswith("skipping delete") and "kind=" in w)
    if skipped != done:
        raise AssertionError("check mode %s would skip %s; the real run skipped %s" % (op, skipped, done))


# ---- changing a namespace -------------------------------------------------------------------------

def _strip(obj, keep=("namespace",)):
    out = copy.deepcopy(obj)
    out["metadata"] = {k: v for k, v in out["metadata"].items() if k not in SERVER_META or k in keep}
    out.pop("status", None)
    return out


def restore(kube, namespace, before):
    """Put helm's namespace back as ``before`` (records and hook objects) after a documented difference."""
    now = snapshot(kube, namespace)
    for name in set(now.raw_records) - set(before.raw_records):
        kube.delete("v1", "Secret", name, namespace)
    for name, secret in before.raw_records.items():
        live = kube.get("v1", "Secret", name, namespace)
        body = dict(_strip(secret), apiVersion="v1", kind="Secret")
        if live is None:
            kube.create(body, namespace)
        elif live.get("data") != secret.get("data") or live["metadata"].get("labels") != secret["metadata"].get("labels"):
            body["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"]
            kube.replace(body, namespace)
    for key in set(now.raw_objects) - set(before.raw_objects):
        obj = now.raw_objects[key]
        kube.delete(obj["apiVersion"], obj["kind"], obj["metadata"]["name"], namespace)
    _wait_gone(kube, namespace, before)
    for key, obj in before.raw_objects.items():  # content and field managers as they were (both honored as sent)
        if key not in now.raw_objects and obj["kind"] != "Job":
            kube.create(_strip(obj, ("namespace", "managedFields")), namespace)
        elif key not in now.raw_objects or (now.objects[key] != before.objects[key] and obj["kind"] in ("Pod", "Job")):
            # a pod's spec cannot change, nor a job's template (its selector names the job's uid)
            if key in now.raw_objects:
                kube.delete(obj["apiVersion"], obj["kind"], obj["metadata"]["name"], namespace)
                _gone(kube, obj["apiVersion"], obj["kind"], obj["metadata"]["name"], namespace)
            kube.create(_unselected(_strip(obj)), namespace)
            for _time in range(2):  # then its field managers, as below
                _replace(kube, namespace, obj)
        elif now.objects[key] != before.objects[key]:
            # twice: the first update gives the fields it changes to its own manager, the second (changing
            # nothing) sets the field managers exactly as sent
            for _time in range(2):
                _replace(kube, namespace, obj)


def _unselected(obj):
    """A Job to create again: the server generates its selector and template labels from the new uid."""
    if obj["kind"] == "Job":
        obj["spec"].pop("selector", None)
        labels = obj["spec"]["template"].get("metadata", {}).get("labels") or {}
        for name in ("controller-uid", "batch.kubernetes.io/controller-uid"):
            labels.pop(name, None)
    return obj


def has_crd(kube, namespace):
    """The chart's CRD of ``namespace`` is there (each namespace's charts define their own group)."""
    return kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition",
                    "widgets." + differential_chart.crd_group(namespace)) is not None


def drop_crd(kube, namespace):
    name = "widgets." + differential_chart.crd_group(namespace)
    kube.delete("apiextensions.k8s.io/v1", "CustomResourceDefinition", name)
    _gone(kube, "apiextensions.k8s.io/v1", "CustomResourceDefinition", name, None)


def _gone(kube, api_version, kind, name, namespace, attempts=100):
    for _attempt in range(attempts):
        if kube.get(api_version, kind, name, namespace) is None:
            return
        time.sleep(0.2)


def _replace(kube, namespace, obj, attempts=20):
    """PUT ``obj`` as it was over the live one (a controller may update it meanwhile: read again and retry)."""
    for attempt in range(attempts):
        body = _strip(obj, ("namespace", "managedFields"))
        live = kube.get(obj["apiVersion"], obj["kind"], obj["metadata"]["name"], namespace)
        body["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"]
        if obj["metadata"]["uid"] != live["metadata"]["uid"]:  # created again: a job's labels name its new uid
            body = json.loads(json.dumps(body).replace(obj["metadata"]["uid"], live["metadata"]["uid"]))
        try:
            kube.replace(body, namespace)
            return
        except ApiError as exc:
            if not exc.conflict or attempt == attempts - 1:
                raise
            time.sleep(0.2)


def _wait_gone(kube, namespace, before, attempts=40):
    for _attempt in range(attempts):
        if not set(snapshot(kube, namespace).objects) - set(before.objects):
            return
        time.sleep(0.25)


def apply_edit(kube, namespace, edit):
    """One hand edit (differential_gen.EDITS) of ``kind/name``; an object that is not there is left alone."""
    kind, name, word = edit["kind"], edit["name"], edit["word"]
    api_version = "apps/v1" if kind == "Deployment" else "v1"
    what = edit["edit"]
    patch = None
    if what == "precreate":
        body = differential_chart.body(kind, name)
        body["metadata"]["labels"] = {"made-by": "hand"}
        if kind == "Secret":
            body["data"] = {"password": base64.b64encode(body.pop("stringData")["password"].encode()).decode()}
        try:
            kube.create(body, namespace)
        except ApiError as exc:
            if not exc.already_exists:
                raise
        return
    if what == "delete":
        kube.delete(api_version, kind, name, namespace)
        return
    if what == "patch":
        if kind == "ConfigMap":
            patch = {"data": {"variant": word}}
        elif kind == "Secret":
            patch = {"data": {"password": base64.b64encode(word.encode()).decode()}}
        else:
            patch = {"metadata": {"labels": {"variant": word}}}
    elif what == "scale":
        patch = {"spec": {"replicas": 3}} if kind == "Deployment" else {"metadata": {"labels": {"scaled": "no"}}}
    elif what == "disown":
        patch = {"metadata": {"annotations": {"meta.helm.sh/release-name": "other"}}}
    elif what == "unlabel":
        patch = {"metadata": {"labels": {"app.kubernetes.io/managed-by": None}}}
    elif what == "keep":
        patch = {"metadata": {"annotations": {"helm.sh/resource-policy": "keep"}}}
    else:
        patch = {"metadata": {"annotations": {"edited-by": word}}}
    try:
        kube.patch(api_version, kind, name, namespace, patch, "merge")
    except ApiError as exc:
        if not exc.not_found:
            raise


def cleanup(kube, namespaces):
    for namespace in namespaces:
        try:
            kube.delete("apiextensions.k8s.io/v1", "CustomResourceDefinition",
                        "widgets." + differential_chart.crd_group(namespace))
            kube.delete("v1", "Namespace", namespace)
        except ApiError:
            pass
