#!/usr/bin/env python3
"""Held-out judgement: public charts the project has never seen, each release step compared with helm v4.

    python3 tests/integration/heldout.py [--kubeconfig K] [--values-dir D] CHART.tgz ...

Without ``--kubeconfig`` a control plane of its own is started (``scripts/controlplane build`` first) and
stopped at the end. ``D/<chart name>.yaml`` are a chart's install values (none: its defaults);
``D/<chart name>.upgrade.yaml`` the values its upgrade adds, else the first of UPGRADES that changes some of
its objects and none of its set of objects; ``D/<chart name>.requires`` the path (from D) of a chart helm
installs first, for all runs (one whose CRDs the chart's custom resources need). Each chart runs three times
from a cluster without it, under one release name and one namespace name (deleted after each run, so what
hashes it is alike):

1. helm v4.3.2 into a new namespace (``--create-namespace``): install, our run on helm's release (a no-op:
   nothing written), upgrade with the changed value, the same upgrade again, uninstall.
2. ours into a namespace that does not exist yet: check mode with ``create_namespace`` (``diff_format: json``,
   ``show_secrets`` off), then the install.
3. ours into a namespace that exists: check mode, install, check mode and upgrade, check mode and the same
   upgrade again (a no-op: ``changed`` false, no write), check mode and uninstall.

Every preview must come true (test_corpus_checkmode's rule): each predicted object but Secrets equals the live
one on every field, except what the server assigns, what the chart draws at random and an aggregated
ClusterRole's rules; a masked place holds a Secret value of the release; nothing written; ``changed`` as the
real run. After each real step our release records, live objects (namespaced and cluster-scoped, those left
after uninstall too), ``changed``, success and printed output equal helm's at the same step, normalized as the
differential harness normalizes them (differential_compare.py), with the random fields left out; helm's
second upgrade makes a revision that changes nothing, ours writes none (docs/helm-differences.md).

Prints a verdict per chart and the N/N of existing-namespace previews, new-namespace previews and the
step-by-step comparison with helm. The charts are not committed (see the issue's held-out judgement).
"""
import argparse
import base64
import copy
import difflib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
import uuid
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COLLECTIONS = os.path.join(ROOT, ".build", "collections")
sys.path[:0] = [HERE, os.path.join(ROOT, "tests", "unit"), COLLECTIONS, os.path.join(ROOT, "scripts", "controlplane.d")]
_LINK = os.path.join(COLLECTIONS, "ansible_collections", "helmless", "core")
if not os.path.islink(_LINK):  # what tests/conftest.py makes, for a run outside pytest
    os.makedirs(os.path.dirname(_LINK), exist_ok=True)
    try:
        os.symlink(ROOT, _LINK)
    except FileExistsError:
        pass

# pylint: disable=wrong-import-position
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import KubeError  # noqa: E402
from ansible_collections.helmless.core.plugins.module_utils.plan.changes import field_changes  # noqa: E402
from ansible_collections.helmless.core.plugins.module_utils.plan.manifest import (  # noqa: E402
    parse_manifest, split_manifest)
from ansible_collections.helmless.core.plugins.module_utils.release.codec import decode_release  # noqa: E402
from ansible_collections.helmless.core.plugins.module_utils.render import RenderError, render_release  # noqa: E402

import differential_compare as compare  # noqa: E402
from corpus_cluster import Claims, _outside  # noqa: E402
from differential import module_env  # noqa: E402
from test_corpus_checkmode import _mismatches  # noqa: E402

TIMEOUT = "300s"
MARK = {"helmless.io/upgrade": "1"}
# values that change some objects of most charts, tried in order for a chart without an upgrade file
UPGRADES = ({"commonLabels": MARK}, {"podAnnotations": MARK}, {"global": {"podAnnotations": MARK}},
            {"podLabels": MARK}, {"additionalLabels": MARK}, {"customLabels": MARK}, {"labels": MARK},
            {"controller": {"podAnnotations": MARK}}, {"annotations": MARK})
# kinds listed in a namespace besides the chart's own: what controllers, hooks and tests leave there
LISTED = (("v1", "ConfigMap"), ("v1", "Secret"), ("v1", "Service"), ("v1", "ServiceAccount"), ("v1", "Pod"),
          ("v1", "PersistentVolumeClaim"), ("batch/v1", "Job"))
SETTLE = 60  # seconds for objects being deleted to go before a snapshot


# ---- the chart ------------------------------------------------------------------------------------

class Chart:
    """A packaged chart, its values files and what a render of it says (objects, random fields)."""

    def __init__(self, path, values_dir, workdir):
        self.path = path
        with tarfile.open(path) as tar:
            member = next(m for m in tar.getmembers() if m.name.count("/") == 1 and m.name.endswith("/Chart.yaml"))
            meta = yaml.safe_load(tar.extractfile(member).read())
        self.name, self.version = meta["name"], meta["version"]
        self.values_dir, self.workdir = values_dir or "", workdir
        own = os.path.join(self.values_dir, self.name + ".yaml")
        self.install_files = [own] if os.path.exists(own) else []
        needs = os.path.join(self.values_dir, self.name + ".requires")
        self.requires = None
        if os.path.exists(needs):
            with open(needs) as handle:
                self.requires = Chart(os.path.join(self.values_dir, handle.read().strip()), None, workdir)

    @property
    def upgrade_files(self):
        up = os.path.join(self.values_dir, self.name + ".upgrade.yaml")
        if not os.path.exists(up):
            up = os.path.join(self.workdir, self.name + ".upgrade.yaml")
            if not os.path.exists(up):
                with open(up, "w") as handle:
                    json.dump(self._pick_upgrade(), handle)
        return self.install_files + [up]

    def render(self, name, namespace, files):
        return render_release(self.path, name=name, namespace=namespace, values_files=files)

    def objects(self, name, namespace, files):
        """``{(kind, name): object}`` of the manifest, hooks and ``crds/`` (a list's items: parse_manifest)."""
        result = self.render(name, namespace, files)
        texts = [data.decode("utf-8") if isinstance(data, bytes) else data for _p, data in result.crds]
        texts += [result.manifest] + [hook.manifest for hook in result.hooks]
        return {(r.kind, r.name): r.obj for text in texts for r in parse_manifest(text)}

    def random(self, name, namespace, files):
        """``{(kind, name): [JSON pointers]}`` the chart draws anew at each render with these values."""
        first, second = self.objects(name, namespace, files), self.objects(name, namespace, files)
        return {key: [f["path"] for f in field_changes(obj, second.get(key))]
                for key, obj in first.items() if obj != second.get(key)}

    def _pick_upgrade(self):
        base = self.objects("probe", "probe", self.install_files)
        random = self.random("probe", "probe", self.install_files)
        for delta in UPGRADES:
            path = os.path.join(self.workdir, "probe-%s.json" % uuid.uuid4().hex[:8])
            with open(path, "w") as handle:
                json.dump(delta, handle)
            try:
                changed = self.objects("probe", "probe", self.install_files + [path])
            except RenderError:
                continue
            finally:
                os.unlink(path)
            if set(changed) == set(base) and any(
                    _derandomized(obj, random.get(key, ())) != _derandomized(base[key], random.get(key, ()))
                    for key, obj in changed.items() if key[0] != "Secret"):
                return delta
        raise RuntimeError("%s: no value of UPGRADES changes its objects; give %s.upgrade.yaml"
                           % (self.name, self.name))


def _pointer_set(obj, pointer, value):
    keys = [k.replace("~1", "/").replace("~0", "~") for k in pointer.split("/")[1:]]
    node = obj
    for key in keys[:-1]:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return
    last = keys[-1] if keys else None
    if isinstance(node, dict) and last in node:
        node[last] = value
    elif isinstance(node, list) and last is not None and last.isdigit() and int(last) < len(node):
        node[int(last)] = value


def _derandomized(obj, pointers):
    """``obj`` with each drawn field ``<random>`` (a Secret's ``stringData`` field in its ``data`` too)."""
    out = copy.deepcopy(obj)
    for pointer in pointers:
        _pointer_set(out, pointer, "<random>")
        if pointer.startswith("/stringData/"):
            _pointer_set(out, "/data/" + pointer[len("/stringData/"):], "<random>")
    return out


# ---- what a namespace and the cluster hold --------------------------------------------------------

class State:
    """Release records and live objects after a step, normalized (differential_compare) and derandomized."""

    def __init__(self, kube, namespace, universe, random):
        self.namespace = namespace
        self.records, self.objects = {}, {}
        for secret in kube.list("v1", "Secret", namespace, "owner=helm"):
            rec = decode_release(base64.b64decode(secret["data"]["release"]).decode())
            norm = compare.normalized_record(rec, secret["metadata"].get("labels") or {}, namespace)
            norm["manifest"] = _documents(rec.get("manifest"), random, namespace)
            for hook in norm.get("hooks") or []:
                hook["manifest"] = _documents(hook.get("manifest"), random, namespace)
            self.records[secret["metadata"]["name"]] = norm
        live = {}
        kinds = set(LISTED) | {(api, kind) for api, kind, ns, _n in universe if ns == namespace}
        for api_version, kind in sorted(kinds):
            try:
                items = kube.list(api_version, kind, namespace)
            except KubeError:  # a kind nobody serves (any more)
                kube.discovery.invalidate()
                continue
            for obj in items:
                meta = obj["metadata"]
                if (obj.get("type") == "helm.sh/release.v1" or meta.get("ownerReferences")
                        or meta["name"] in ("kube-root-ca.crt", "default")):
                    continue
                live[(kind, namespace, meta["name"])] = dict(obj, apiVersion=api_version, kind=kind)
        for api_version, kind, ns, name in universe:
            if ns != namespace and (kind, ns, name) not in live:
                try:
                    obj = kube.get(api_version, kind, name, ns or None)
                except KubeError:
                    kube.discovery.invalidate()
                    obj = None
                if obj is not None:
                    live[(kind, ns, name)] = dict(obj, apiVersion=api_version, kind=kind)
        for (kind, ns, name), obj in live.items():
            key = "%s/%s/%s" % (kind, "<ns>" if ns == namespace else ns, name)
            self.objects[key] = _normal(obj, namespace, random.get((kind, name), ()))
        ns_obj = kube.get("v1", "Namespace", namespace)
        self.namespace_labels = None if ns_obj is None else json.loads(compare._neutral(json.dumps(
            ns_obj["metadata"].get("labels") or {}, sort_keys=True), namespace))

    # what differential_compare.outcome reads
    def versions(self):
        return sorted(rec["version"] for rec in self.records.values())

    def last(self):
        recs = sorted(self.records.values(), key=lambda r: r["version"])
        return recs[-1] if recs else None


def _universe(kube, chart, name, namespace, values):
    """(apiVersion, kind, namespace or "", name) of every object ``chart`` makes with each of ``values``."""
    out = set()
    for files in values:
        result = chart.render(name, namespace, files)
        texts = [d.decode("utf-8") if isinstance(d, bytes) else d for _p, d in result.crds]
        texts += [result.manifest] + [hook.manifest for hook in result.hooks]
        resources = [r for text in texts for r in parse_manifest(text)]
        outside = _outside(kube, resources, namespace)
        elsewhere = {(api, kind, name) for api, kind, _ns, name in outside}
        out |= outside | {(r.api_version, r.kind, namespace, r.name) for r in resources
                          if (r.api_version, r.kind, r.name) not in elsewhere}
    return out


def _documents(text, random, namespace):
    """A stored manifest as its documents, namespace neutral: each as stored (byte for byte), or parsed with
    its drawn fields ``<random>`` when it has some."""
    out = []
    for chunk, source in split_manifest(text or ""):
        obj = yaml.safe_load(chunk)
        meta = (obj.get("metadata") or {}) if isinstance(obj, dict) else {}
        drawn = random.get((obj.get("kind"), meta.get("name"))) if meta else None
        if drawn:
            chunk = json.dumps(_derandomized(obj, drawn), sort_keys=True)
        out.append([source, compare._neutral(chunk, namespace)])
    return out


def _normal(obj, namespace, pointers):
    out = _derandomized(obj, pointers)
    if obj.get("type") == "kubernetes.io/service-account-token":
        out.pop("data", None)  # the token controller's
    norm = compare.normalized_object(out, namespace)
    spec = norm.get("spec")
    if obj["kind"] == "Service" and isinstance(spec, dict):  # assigned by the server
        spec.pop("healthCheckNodePort", None)
        for port in spec.get("ports") or []:
            port.pop("nodePort", None)
    return norm


def _settled(kube, namespace, universe):
    """Wait until no object of ``namespace`` or of ``universe`` is being deleted."""
    deadline = time.monotonic() + SETTLE
    while time.monotonic() < deadline:
        busy = False
        for api_version, kind in LISTED:
            busy |= any(o["metadata"].get("deletionTimestamp") for o in kube.list(api_version, kind, namespace))
        for api_version, kind, ns, name in universe:
            try:
                obj = kube.get(api_version, kind, name, ns or None)
            except KubeError:
                continue
            busy |= bool(obj and obj["metadata"].get("deletionTimestamp"))
        if not busy:
            return
        time.sleep(1)


def state_problems(label, helms, ours, labels=True):
    """Where our state differs from helm's at the same step."""
    problems = []
    if labels and helms.namespace_labels != ours.namespace_labels:
        problems.append(compare._diff("%s: namespace labels" % label, ours.namespace_labels, helms.namespace_labels))
    for what, a, b in (("release records", helms.records, ours.records), ("live objects", helms.objects, ours.objects)):
        if set(a) != set(b):
            problems.append("%s: %s: only helm has %s; only ours has %s" % (
                label, what, sorted(set(a) - set(b)), sorted(set(b) - set(a))))
        for key in sorted(set(a) & set(b)):
            if a[key] != b[key]:
                problems.append(compare._diff("%s: %s %s" % (label, what, key), b[key], a[key]))
    return problems


# ---- one chart ------------------------------------------------------------------------------------

class Judge:
    """The three runs of one chart (module docstring); ``verdict`` holds the problems of each figure."""

    def __init__(self, chart, kubeconfig, helm, workdir):
        self.chart = chart
        self.kubeconfig = kubeconfig
        self.helm = helm
        self.workdir = workdir
        self.kube = compare.client(kubeconfig)
        self.name = "h" + uuid.uuid4().hex[:5]
        # one namespace, deleted after each run and made anew: what hashes the namespace (a checksum of a
        # ConfigMap naming it) is then the same for helm and ours
        self.namespace = "ho-" + uuid.uuid4().hex[:6]
        self.verdict = {"existing": [], "new": [], "helm": []}
        self.log = []
        self.random, self._universe = {}, None
        for files in (chart.install_files, chart.upgrade_files):
            for key, pointers in chart.random(self.name, self.namespace, files).items():
                self.random[key] = sorted(set(self.random.get(key, [])) | set(pointers))

    # ---- tools --------------------------------------------------------------------------------
    def run_helm(self, *args):
        proc = subprocess.run([self.helm[0]] + list(args), env=self.helm[1], capture_output=True, text=True,
                              timeout=900)
        self.log.append(("helm " + " ".join(args), proc.returncode, (proc.stdout + proc.stderr)[-2000:]))
        return {"rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}

    def helm_args(self, op, namespace, files=()):
        """helm's command for ``op`` (install, upgrade, uninstall)."""
        if op == "uninstall":
            return ["uninstall", self.name, "-n", namespace, "--timeout", TIMEOUT]
        # the module is `helm upgrade --install` (its printed command says so), for an install too
        args = ["upgrade", "--install", self.name, self.chart.path, "-n", namespace, "--timeout", TIMEOUT]
        for path in files:
            args += ["-f", path]
        return args

    def run_ours(self, namespace, files=(), check=False, absent=False, create_namespace=False):
        params = {"release_name": self.name, "release_namespace": namespace, "timeout": TIMEOUT,
                  "kubeconfig": self.kubeconfig}
        if absent:
            params["release_state"] = "absent"
        else:
            params.update(chart_ref=self.chart.path, values_files=list(files))
            if create_namespace:
                params["create_namespace"] = True
        if check:
            params["diff_format"] = "json"
        path = os.path.join(self.workdir, "args-%s.json" % uuid.uuid4().hex[:8])
        with open(path, "w") as handle:
            json.dump({"ANSIBLE_MODULE_ARGS": dict(params, _ansible_check_mode=check, _ansible_diff=check)}, handle)
        proc = subprocess.run([sys.executable, "-m", "ansible_collections.helmless.core.plugins.modules.release",
                               path], env=module_env(), capture_output=True, text=True, timeout=900)
        try:
            result = json.loads(proc.stdout[proc.stdout.index("{"):])
        except ValueError:
            result = {"failed": True, "msg": "no JSON result (rc %d): %s%s" % (proc.returncode, proc.stdout[-2000:],
                                                                           proc.stderr[-2000:])}
        self.log.append(("ours %s%s %s" % ("check " if check else "", "absent" if absent else "present", namespace),
                         result.get("changed"), str(result.get("msg") or result.get("progress"))[-2000:]))
        return result

    # ---- what is compared -----------------------------------------------------------------------
    def universe(self, namespace):
        """(apiVersion, kind, namespace or "", name) of every object an install or the upgrade makes."""
        if self._universe is None:
            self._universe = _universe(self.kube, self.chart, self.name, namespace,
                                       (self.chart.install_files, self.chart.upgrade_files))
        return self._universe

    def state(self, namespace):
        universe = self.universe(namespace)
        _settled(self.kube, namespace, universe)
        return State(self.kube, namespace, universe, self.random)

    def came_true(self, label, check, real, namespace):
        """test_corpus_checkmode's rule: the preview wrote nothing, predicted ``changed``, and each predicted
        object but Secrets is live as predicted (a deleted one gone)."""
        out = []
        if (check.get("api_requests") or {}).get("writes"):
            out.append("%s: check mode wrote %s" % (label, check["api_requests"]))
        if bool(check.get("failed")) != bool(real.get("failed")):
            out.append("%s: check mode %s, the real run %s" % (label, check.get("msg") or "succeeded",
                                                               real.get("msg") or "succeeded"))
            return out
        if check.get("failed"):
            if check.get("msg") != real.get("msg"):
                out.append("%s: check mode failed with %r, the real run with %r"
                           % (label, check.get("msg"), real.get("msg")))
            return out
        if check.get("changed") != real.get("changed"):
            out.append("%s: check mode predicted changed=%s, the real run %s" % (label, check.get("changed"),
                                                                                real.get("changed")))
        if check.get("hooks") != real.get("hooks"):
            out.append("%s: check mode would run hooks %s, the real run ran %s" % (label, check.get("hooks"),
                                                                                  real.get("hooks")))
        predicted, made = ({k: v for k, v in (r.get("status") or {}).items() if k != "updated"} for r in (check, real))
        if predicted != made:
            lines = difflib.unified_diff(json.dumps(predicted, indent=1, sort_keys=True).splitlines(),
                                         json.dumps(made, indent=1, sort_keys=True).splitlines(), "predicted", "made",
                                         lineterm="", n=1)
            out.append("%s: the release differs from its preview:\n%s" % (label, "\n".join(list(lines)[:40])))
        secrets = set()
        for secret in self.kube.list("v1", "Secret", namespace):
            for value in (secret.get("data") or {}).values():
                secrets.update((value, base64.b64decode(value).decode("utf-8", "replace")))
        entries = [e for e in check.get("diff") or []
                   if (e.get("after") or e.get("before") or {}).get("kind") != "Secret"]

        def one(entry):
            obj = entry["after"] or entry["before"]
            meta = obj["metadata"]
            live = self.kube.get(obj["apiVersion"], obj["kind"], meta["name"], meta.get("namespace"))
            if not entry["after"]:
                return [] if live is None or live["metadata"].get("deletionTimestamp") else ["(not deleted)"]
            if live is None:
                return ["(not there)"]
            ignored = list(self.random.get((obj["kind"], meta["name"]), ()))
            if obj["kind"] == "ClusterRole" and obj.get("aggregationRule"):
                ignored.append("/rules")
            return ["%s: live %s, predicted %s" % (p, json.dumps(_at(live, p))[:300],
                                                   json.dumps(_at(entry["after"], p))[:300])
                    for p in _mismatches(live, entry["after"], ignored, secrets)]
        with ThreadPoolExecutor(max_workers=8) as pool:
            for entry, wrong in zip(entries, pool.map(one, entries)):
                if wrong:
                    out.append("%s: %s differs from its preview: %s" % (label, entry["after_header"], "; ".join(wrong)))
        return out

    def compared(self, label, op, helms, ours, helm_ns, our_ns):
        """Success, ``changed`` and printed output (or error), and warnings as helm's."""
        helm_ok, our_ok = helms["rc"] == 0, not ours.get("failed")
        if helm_ok != our_ok:
            return ["%s: helm %s, ours %s" % (label, "succeeded" if helm_ok else "failed: " + helms["stderr"][-500:],
                                              "succeeded" if our_ok else "failed: %s" % ours.get("msg"))]
        if our_ok and not ours.get("changed"):
            return ["%s: ours changed nothing" % label]
        try:
            compare.same_output(op, helms, ours, helm_ns, our_ns)
        except AssertionError as exc:
            return ["%s: %s" % (label, exc)]
        if helm_ok and helms["stderr"] != (ours.get("stderr") or ""):  # warnings
            return ["%s: helm warned %r, ours %r" % (label, helms["stderr"], ours.get("stderr"))]
        return []

    def cleanup(self, namespace, universe=None):
        """Delete the namespace and what the chart put outside it (CRDs, cluster-scoped objects), and wait
        until those are gone: the next run starts from a cluster without the chart."""
        universe = self.universe(namespace) if universe is None else universe
        held = Claims(SimpleNamespace(dir=self.workdir), self.kubeconfig, namespace)
        held.leftovers = {o for o in universe if o[2] != namespace} | {("v1", "Namespace", "", namespace)}
        held.release()

    # ---- the three runs -------------------------------------------------------------------------
    def run(self):
        """The three runs, with the chart's prerequisite (``<chart>.requires``: a chart whose CRDs it uses)
        installed by helm for all of them."""
        need = self.chart.requires
        if need is not None:
            where = self.namespace + "-needs"
            made = self.run_helm("install", "needs-" + self.name, need.path, "-n", where, "--create-namespace",
                                 "--wait", "--timeout", TIMEOUT)
            if made["rc"]:
                raise RuntimeError("the prerequisite %s did not install: %s" % (need.name, made["stderr"]))
        try:
            self.helm_run()
            self.new_namespace_run()
            self.existing_namespace_run()
        finally:
            if need is not None:
                self.run_helm("uninstall", "needs-" + self.name, "-n", where, "--wait", "--timeout", TIMEOUT)
                self.cleanup(where, _universe(self.kube, need, "needs-" + self.name, where, ([],)))
        return self.verdict

    def helm_run(self):
        ns, c = self.namespace, self.chart
        try:
            self.h_install = self.run_helm(*self.helm_args("install", ns, c.install_files) + ["--create-namespace"])
            self.s_install = self.state(ns)
            if self.h_install["rc"] == 0:  # ours on helm's release, same chart and values: a no-op
                for check in (True, False):
                    res = self.run_ours(ns, c.install_files, check=check)
                    if res.get("failed") or res.get("changed") or (res.get("api_requests") or {}).get("writes"):
                        self.verdict["helm"].append("ours %son helm's release: changed=%s writes=%s %s" % (
                            "in check mode " if check else "", res.get("changed"),
                            (res.get("api_requests") or {}).get("writes"), res.get("msg") or ""))
            self.h_upgrade = self.run_helm(*self.helm_args("upgrade", ns, c.upgrade_files))
            self.s_upgrade = self.state(ns)
            self.h_rerun = self.run_helm(*self.helm_args("upgrade", ns, c.upgrade_files))
            self.s_rerun = self.state(ns)
            self.h_uninstall = self.run_helm(*self.helm_args("uninstall", ns))
            self.s_uninstall = self.state(ns)
        finally:
            self.cleanup(ns)

    def new_namespace_run(self):
        ns, c, out = self.namespace, self.chart, self.verdict
        try:
            check = self.run_ours(ns, c.install_files, check=True, create_namespace=True)
            if self.kube.get("v1", "Namespace", ns) is not None:
                out["new"].append("check mode created the namespace")
            real = self.run_ours(ns, c.install_files, create_namespace=True)
            out["new"] += self.came_true("new-namespace install", check, real, ns)
            out["helm"] += self.compared("install (new namespace)", "install", self.h_install, real,
                                         ns, ns)
            out["helm"] += state_problems("install (new namespace)", self.s_install, self.state(ns))
            self.run_ours(ns, absent=True)
        finally:
            self.cleanup(ns)

    def existing_namespace_run(self):
        ns, c, out = self.namespace, self.chart, self.verdict
        self.kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        try:
            steps = (("install", c.install_files, self.h_install, self.s_install, None),
                     ("upgrade", c.upgrade_files, self.h_upgrade, self.s_upgrade, None),
                     ("rerun", c.upgrade_files, self.h_rerun, self.s_upgrade, self.s_rerun),
                     ("uninstall", None, self.h_uninstall, self.s_uninstall, None))
            before = self.s_install
            for op, files, helms, helm_state, helm_after in steps:
                absent = op == "uninstall"
                check = self.run_ours(ns, files or (), check=True, absent=absent)
                real = self.run_ours(ns, files or (), absent=absent)
                if op == "rerun":
                    if real.get("changed") or (real.get("api_requests") or {}).get("writes") or real.get("failed"):
                        out["existing"].append("rerun: changed=%s writes=%s %s" % (
                            real.get("changed"), (real.get("api_requests") or {}).get("writes"), real.get("msg") or ""))
                    out["existing"] += self.came_true("rerun", check, real, ns)
                    verdict = compare.outcome("upgrade", helms, real, before, helm_after)
                    out["helm"] += ["rerun: %s" % p for p in verdict.problems]
                    if not verdict.problems and not verdict.documented:
                        out["helm"].append("rerun: ours wrote no revision, helm's made none either")
                else:
                    out["existing"] += self.came_true(op, check, real, ns)
                    out["helm"] += self.compared(op, "uninstall" if absent else op, helms, real, ns, ns)
                out["helm"] += state_problems(op, helm_state, self.state(ns), labels=False)
                before = helm_state
        finally:
            self.cleanup(ns)


def _at(obj, pointer):
    node = obj
    for key in pointer.split("/")[1:]:
        key = key.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node.get(key)
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node


# ---- the run --------------------------------------------------------------------------------------

def _helm(kubeconfig, home):
    import cp_build  # pylint: disable=import-outside-toplevel
    env = dict(os.environ, KUBECONFIG=kubeconfig, HELM_CONFIG_HOME=os.path.join(home, "config"),
               HELM_CACHE_HOME=os.path.join(home, "cache"), HELM_DATA_HOME=os.path.join(home, "data"))
    env.pop("HELM_NAMESPACE", None)
    return cp_build.binaries()["helm4"], env


def judge_all(charts, kubeconfig, values_dir, workdir, verbose=False):
    helm = _helm(kubeconfig, os.path.join(workdir, "helm"))
    rows = []
    for path in map(os.path.abspath, charts):
        chart, judge = SimpleNamespace(name=os.path.basename(path), version=""), None
        try:
            chart = Chart(path, values_dir, workdir)
            judge = Judge(chart, kubeconfig, helm, workdir)
            verdict = judge.run()
        except Exception:  # pylint: disable=broad-except  # a harness error fails its chart, not the run
            error = "harness: " + traceback.format_exc()  # judged on none of the three
            verdict = {"existing": [error], "new": [error], "helm": [error]}
        rows.append((chart, verdict))
        words = " ".join("%s:%s" % (k, "ok" if not v else "DIFFERS") for k, v in verdict.items())
        print("%s %s: %s" % (chart.name, chart.version, words), flush=True)
        for key, problems in verdict.items():
            for problem in problems if key == "helm" or not problems or not problems[0].startswith("harness:") else ():
                print("  [%s] %s" % (key, problem), flush=True)
        if verbose and judge is not None and any(verdict.values()):
            for entry in judge.log:
                print("    log: %s -> %s %s" % entry, flush=True)
    total = len(rows)
    for key, label in (("existing", "previews into an existing namespace"),
                       ("new", "previews into a new namespace"),
                       ("helm", "step by step as helm v4")):
        print("%d/%d %s" % (sum(1 for _c, v in rows if not v[key]), total, label))
    return all(not any(v.values()) for _c, v in rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("charts", nargs="+", help="packaged charts (.tgz)")
    parser.add_argument("--kubeconfig", help="a running control plane's (else one is started and stopped)")
    parser.add_argument("--values-dir", help="<chart>.yaml install values, <chart>.upgrade.yaml upgrade values")
    parser.add_argument("--verbose", action="store_true", help="print each step's result for a chart that differs")
    args = parser.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="helmless-heldout-")
    try:
        if args.kubeconfig:
            return 0 if judge_all(args.charts, args.kubeconfig, args.values_dir, workdir, args.verbose) else 1
        import cp_run  # pylint: disable=import-outside-toplevel
        state = cp_run.start(os.path.join(workdir, "cp"))
        try:
            return 0 if judge_all(args.charts, state["kubeconfig"], args.values_dir, workdir, args.verbose) else 1
        finally:
            cp_run.stop(os.path.join(workdir, "cp"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
