"""Keeps the corpus integration tests independent of their order and of how pytest-xdist spreads them.

One control plane serves a whole test run (conftest.py). What a chart puts outside the test's namespace
(cluster-scoped objects, CRDs, objects in other namespaces) can outlive the release: Helm never deletes
``crds/``, nor hooks, nor what carries ``helm.sh/resource-policy: keep`` (argo-cd's and kong-operator's
CRDs). A later install of the same chart, in the other corpus file or under another worker, then fails
with "exists and cannot be imported", and a chart that asks ``.Capabilities.APIVersions.Has`` renders
differently while another chart's CRDs are there. So ``Claims.claim`` (the ``corpus_claims`` fixture):

- takes, across the run's processes, an exclusive lock on each such object whose name does not depend on
  the release (found by rendering under another name and namespace) and on the API group of each CRD the
  chart installs, and a shared lock on each group the chart's templates ask about;
- after the test, deletes what is left of these objects and waits until they are gone, then unlocks.
"""
import fcntl
import os
import re
import time

import corpuskit
from ansible_collections.helmless.core.plugins.module_utils.chart.loader import load_chart
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import ApiError, KubeError
from ansible_collections.helmless.core.plugins.module_utils.plan.manifest import parse_manifest
from ansible_collections.helmless.core.plugins.module_utils.render import RenderError, render_release

from test_release_support import client_for

_ASKED = re.compile(rb'APIVersions\.Has\s+"([^"/]+)/')
GONE_WITHIN = 180  # seconds for leftovers (CRDs and the custom resources they cascade to) to be deleted


def _rendered(chart, name, namespace, values):
    """Every object an install of ``chart`` creates: CRDs of crds/ (all of them when the render fails),
    the manifest's objects and the hooks'."""
    try:
        result = render_release(corpuskit.archive(chart), name=name, namespace=namespace, values=values)
    except RenderError:
        return [r for _n, _p, data in load_chart(corpuskit.archive(chart)).crd_objects()
                for r in parse_manifest(data.decode("utf-8"))]
    texts = [data.decode("utf-8") if isinstance(data, bytes) else data for _p, data in result.crds]
    texts += [result.manifest] + [hook.manifest for hook in result.hooks]
    return [r for text in texts for r in parse_manifest(text)]


def _outside(client, resources, namespace):
    """``{(apiVersion, kind, namespace or "", name)}`` of the objects that do not live in ``namespace``."""
    scopes = {((r.obj.get("spec") or {}).get("group"), ((r.obj.get("spec") or {}).get("names") or {}).get("kind")):
              (r.obj.get("spec") or {}).get("scope") == "Namespaced"
              for r in resources if r.kind == "CustomResourceDefinition"}
    out = set()
    for res in resources:
        if res.namespace:
            namespaced = True
        elif (res.group, res.kind) in scopes:
            namespaced = scopes[(res.group, res.kind)]
        else:
            try:
                namespaced = client.is_namespaced(res.api_version, res.kind)
            except KubeError:
                namespaced = True  # a kind nobody serves or defines: it cannot be created at all
        ns = (res.namespace or namespace) if namespaced else ""
        if ns != namespace:
            out.add((res.api_version, res.kind, ns, res.name))
    return out


def _key(obj):
    return "%s/%s/%s" % (obj[1], obj[2], obj[3])


class Claims:
    """Locks and leftovers of the corpus charts one test installs (see the module docstring)."""

    def __init__(self, controlplane, kubeconfig, namespace):
        self.lockdir = os.path.join(controlplane.dir, "corpus-locks")
        self.client = client_for(kubeconfig)
        self.namespace = namespace
        self.leftovers = set()
        self.handles = []

    def claim(self, chart, name, values_list=(None,)):
        """Lock what installing ``chart`` as release ``name`` with each of ``values_list`` shares with
        other tests, before anything is installed; the leftovers are removed at teardown."""
        probe_ns = self.namespace + "-probe"
        fixed = None
        for values in values_list:
            mine = _outside(self.client, _rendered(chart, name, self.namespace, values), self.namespace)
            other = _outside(self.client, _rendered(chart, "probe-" + name, probe_ns, values), probe_ns)
            self.leftovers |= mine
            fixed = (fixed or set()) | {_key(o) for o in mine} & {_key(o) for o in other}
        modes = {"object:" + key: fcntl.LOCK_EX for key in fixed}
        for data in corpuskit.files(chart).values():
            for group in _ASKED.findall(data):
                modes["group:" + group.decode()] = fcntl.LOCK_SH
        for obj in self.leftovers:
            if obj[1] == "CustomResourceDefinition":
                modes["group:" + obj[3].split(".", 1)[-1]] = fcntl.LOCK_EX
        os.makedirs(self.lockdir, exist_ok=True)
        for lock in sorted(modes):  # one order for every process: no deadlock
            handle = open(os.path.join(self.lockdir, re.sub(r"[^A-Za-z0-9._-]", "_", lock)), "a")
            fcntl.flock(handle, modes[lock])
            self.handles.append(handle)

    def release(self):
        """Delete the claimed objects still there, wait until they are gone, then unlock."""
        try:
            for obj in sorted(self.leftovers, key=lambda o: o[1] == "CustomResourceDefinition"):
                self._delete(obj)
            deadline = time.monotonic() + GONE_WITHIN
            left = [o for o in self.leftovers if self._there(o)]
            while left and time.monotonic() < deadline:
                time.sleep(1)
                left = [o for o in left if self._there(o)]
                for obj in left:
                    self._nudge(obj)
            assert not left, "still there %ds after deletion: %s" % (GONE_WITHIN, [self._why(o) for o in sorted(left)])
        finally:
            for handle in self.handles:
                handle.close()

    def _delete(self, obj):
        try:
            self.client.delete(obj[0], obj[1], obj[3], obj[2] or None)
        except ApiError:
            raise
        except KubeError:
            pass  # a kind nobody serves (any more): nothing of it is there

    def _nudge(self, obj):
        """A CRD deleted just after it was served often fails its cleanup with "could not list instances:
        storage is (re)initializing", and the API server retries it with an exponential backoff (minutes
        after a few failures). Any change to the CRD but its Terminating condition queues it again at once."""
        if obj[1] != "CustomResourceDefinition":
            return
        live = self.client.get(obj[0], obj[1], obj[3]) or {}
        if any(c.get("type") == "Terminating" and c.get("reason") == "InstanceDeletionFailed"
               for c in (live.get("status") or {}).get("conditions") or ()):
            try:
                self.client.patch(obj[0], obj[1], obj[3], None, {"metadata": {"annotations": {
                    "helmless.io/cleanup-retry": str(time.time())}}}, "merge")
            except ApiError as exc:
                if not exc.not_found:  # gone meanwhile
                    raise

    def _why(self, obj):
        """The object's identity, finalizers and status conditions (what keeps it)."""
        live = self.client.get(obj[0], obj[1], obj[3], obj[2] or None) or {}
        return (obj, (live.get("metadata") or {}).get("finalizers"),
                [(c.get("type"), c.get("status"), c.get("message")) for c in (live.get("status") or {}).get("conditions") or ()])

    def _there(self, obj):
        try:
            return self.client.get(obj[0], obj[1], obj[3], obj[2] or None) is not None
        except ApiError:
            raise
        except KubeError:
            return False
