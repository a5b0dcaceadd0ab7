"""Hook execution as Helm's execHook: order, delete policies, Job/Pod waiting, ``last_run`` recorded."""
import time

from ..kube.errors import ApiError, KubeError
from ..kube.readiness import job_state, wait_deleted
from ..plan.manifest import INSTALL_ORDER, load_yaml
from ..release.model import now
from .progress import quiet
from ..errors import HelmlessError


class HookError(HelmlessError):
    """A hook failed to be created or did not succeed."""


def _kind_index(kind):
    return INSTALL_ORDER.index(kind) if kind in INSTALL_ORDER else len(INSTALL_ORDER)


def hooks_for(release, event):
    """The release's hooks for ``event`` in execution order: weight, name, then install-order kind."""
    hooks = [h for h in release.get("hooks") or [] if event in (h.get("events") or [])]
    hooks.sort(key=lambda h: (_kind_index(h.get("kind", "")), h.get("kind", "")))
    hooks.sort(key=lambda h: (int(h.get("weight") or 0), h.get("name", "")))
    return hooks


def _hook_status(kind, name, live):
    """(kstatus status, message) of a Job or Pod hook, as Helm's custom Job and Pod status readers say."""
    if live is None:
        return "NotFound", "Resource not found"
    if kind == "Pod":
        phase = (live.get("status") or {}).get("phase")
        if phase == "Succeeded":
            return "Current", "pod %s succeeded" % name
        if phase == "Failed":
            return "Failed", "pod %s failed" % name
        return "InProgress", "Pod in progress"
    state = job_state(live)
    if state == "complete":
        return "Current", ""
    if state:
        spec, status = live.get("spec") or {}, live.get("status") or {}
        completions = spec.get("completions") or spec.get("parallelism") or 1
        return "Failed", "Job Failed. failed: %d/%d" % (status.get("failed") or 0, completions)
    return "InProgress", "Job in progress"


def _ref(hook, namespace):
    obj = load_yaml(hook["manifest"]) or {}
    meta = obj.setdefault("metadata", {})
    return obj, (obj.get("apiVersion"), obj.get("kind"), meta.get("name"), meta.get("namespace") or namespace)


def hook_logs(client, namespace, hook):
    """The logs of a Job or Pod hook's pods as Helm 4's outputLogsByPolicy reads them: each pod (a Job's by
    its ``job-name`` label, a Pod by name) and each of its containers in order, ``[(pod, container, text)]``;
    a read that fails ends the list with ``(pod, container, None)`` (Helm stops there too)."""
    _obj, (_api, kind, name, ns) = _ref(hook, namespace)
    if kind == "Job":
        pods = client.list("v1", "Pod", ns, "job-name=" + name)
    elif kind == "Pod":
        pods = [pod for pod in [client.get("v1", "Pod", name, ns)] if pod is not None]
    else:
        return []
    out = []
    for pod in pods:
        pod_name = pod["metadata"]["name"]
        for container in (pod.get("spec") or {}).get("containers") or []:
            try:
                text = client.request("GET", client.resource_path("v1", "Pod", ns, pod_name, "log"),
                                      query=[("container", container["name"])], accept="*/*", raw=True, retries=0)
            except (ApiError, KubeError):
                return out + [(pod_name, container["name"], None)]
            out.append((pod_name, container["name"], text))
    return out


class HookRunner:
    def __init__(self, client, namespace, record, timeout, progress=quiet, wait_deletes=False, server_side=False,
                 logs=None):
        """``record(release)`` persists the release (so ``last_run`` and status survive a crash).

        ``wait_deletes``: wait until hooks removed by ``hook-succeeded``/``hook-failed`` are gone (Helm 4 does
        with the watcher strategy, which ``helm test`` always uses; its hookOnly strategy does not wait).
        ``server_side``: create each hook by server-side apply, as Helm 4 does when the operation applies
        server-side (uninstall hooks always), instead of a create.
        ``logs``: a list that receives the logs of the hooks whose ``helm.sh/hook-output-log-policy`` asks
        for them (``hook-succeeded``, ``hook-failed``), when and in the order Helm 4 prints them: a failed
        hook's at once, the succeeded ones once every hook of the event succeeded, last first.
        """
        self.logs = logs
        self.wait_deletes = wait_deletes
        self.server_side = server_side
        self.client = client
        self.namespace = namespace
        self.record = record
        self.timeout = timeout
        self.progress = progress

    def _namespace_for(self, api_version, kind, ns):
        try:
            return ns if self.client.is_namespaced(api_version, kind) else None
        except KubeError:
            return ns

    def _delete(self, hook, wait=True):
        obj, (api_version, kind, name, ns) = _ref(hook, self.namespace)
        if kind == "CustomResourceDefinition":
            return
        ns = self._namespace_for(api_version, kind, ns)
        if self.client.delete(api_version, kind, name, ns) and wait:
            wait_deleted(self.client, [(api_version, kind, name, ns)], self.timeout, interval=0.5)

    def _missed(self, ref, version):
        """What became of a hook found gone, from the watch events since ``version`` (the last one read), as
        Helm 4's watcher sees them: the first end it saw (a Job with ``ttlSecondsAfterFinished: 0`` completes,
        then goes), else NotFound."""
        api_version, kind, name, ns = ref
        for event in self.client.events(api_version, kind, name, ns, version) if version else ():
            if event["type"] == "DELETED":
                break
            state, message = _hook_status(kind, name, event.get("object"))
            if state in ("Current", "Failed"):
                return state, message
        return _hook_status(kind, name, None)

    def _wait(self, created, ref, deadline):
        """Until a Job or Pod hook ends, as Helm 4's hook status readers judge it; their texts on failure. A
        hook that is gone without having ended is waited for until the timeout, as Helm 4 does."""
        api_version, kind, name, ns = ref
        if kind not in ("Job", "Pod"):
            return
        version = ((created or {}).get("metadata") or {}).get("resourceVersion")
        while True:
            live = self.client.get(api_version, kind, name, ns)
            if live is None:
                state, message = self._missed(ref, version)
                version = None  # asked once: later reads only look for a hook created again
            else:
                version = (live.get("metadata") or {}).get("resourceVersion")
                state, message = _hook_status(kind, name, live)
            if state == "Current":
                return
            if state == "Failed" or time.monotonic() >= deadline:
                raise HookError("resource %s/%s/%s not ready. status: %s, message: %s%s" % (
                    kind, ns or "", name, state, message,
                    "" if state == "Failed" else "\ncontext deadline exceeded"))
            time.sleep(0.5)

    def _create(self, obj, ref, ns):
        if self.server_side:
            return self.client.patch(ref[0], ref[1], ref[2], ns, obj, "apply")
        return self.client.create(obj, ns)

    def _failed(self, release, hook, what, exc):
        """Mark the run failed; the caller stores the release, or not (Helm's uninstall and rollback do not:
        their record keeps the hook ``Running``)."""
        self.progress("hook", "%s failed: %s" % (what, exc))
        hook["last_run"] = dict(hook["last_run"], completed_at=now(), phase="Failed")

    def _output_logs(self, hook, policy):
        """Helm's outputLogsByPolicy: the hook's pods' logs into ``logs`` as
        ``{"hook", "pod", "container", "log"}``, or ``{"hook", "error"}`` where a read failed (Helm logs
        that and goes on)."""
        if self.logs is None or policy not in (hook.get("output_log_policies") or ()):
            return
        try:
            found = hook_logs(self.client, self.namespace, hook)
        except (ApiError, KubeError) as exc:
            self.logs.append({"hook": hook["name"], "error": "failed to get pod list: %s" % exc})
            return
        for pod, container, text in found:
            if text is None:
                self.logs.append({"hook": hook["name"], "error": "failed to stream pod logs for pod: %s, container: "
                                                                 "%s" % (pod, container)})
            else:
                self.logs.append({"hook": hook["name"], "pod": pod, "container": container, "log": text})
                self.progress("hook", "logs of %s %s, pod %s, container %s (%s)" % (
                    hook.get("kind"), hook["name"], pod, container, policy))

    def run(self, release, event, before_cleanup=None):
        """Run every hook of ``event``; raise HookError (after Helm's cleanup) when one fails.

        ``before_cleanup(hooks)`` is called with the hooks that ran, after the last one ended and before any
        delete policy applies (``helm test --logs`` reads the test pods' logs there).
        """
        hooks = hooks_for(release, event)
        done = []
        for hook in hooks:
            if not hook.get("delete_policies"):
                hook["delete_policies"] = ["before-hook-creation"]
            if "before-hook-creation" in hook["delete_policies"]:
                self._delete(hook)
            hook["last_run"] = {"started_at": now(), "phase": "Running"}
            self.record(release)
            obj, ref = _ref(hook, self.namespace)
            ns = self._namespace_for(ref[0], ref[1], ref[3])
            if ns:
                obj["metadata"]["namespace"] = ns
            what = "%s %s/%s (weight %s)" % (event, ref[1], ref[2], hook.get("weight") or 0)
            started = time.monotonic()
            try:
                created = self._create(obj, ref, ns)
                self.progress("hook", "%s created" % what)
            except (ApiError, KubeError) as exc:
                # as Helm: a hook that could not be created deletes nothing, neither itself nor earlier hooks
                self._failed(release, hook, what, exc)
                why = getattr(exc, "message", "") or exc
                raise HookError("warning: Hook %s %s failed: %s" % (event, hook.get("path", ""), why)) from exc
            try:
                self._wait(created, (ref[0], ref[1], ref[2], ns), started + self.timeout)
            except (ApiError, KubeError, HookError) as exc:
                self._failed(release, hook, what, exc)
                self._output_logs(hook, "hook-failed")
                if before_cleanup is not None:
                    before_cleanup(done + [hook])
                if "hook-failed" in hook["delete_policies"]:
                    self._delete(hook, wait=self.wait_deletes)
                for prev in done:
                    if "hook-succeeded" in prev["delete_policies"]:
                        self._delete(prev, wait=self.wait_deletes)
                raise HookError(str(exc)) from exc
            hook["last_run"] = dict(hook["last_run"], completed_at=now(), phase="Succeeded")
            self.progress("hook", "%s succeeded after %.1fs" % (what, time.monotonic() - started))
            done.append(hook)
        if before_cleanup is not None:
            before_cleanup(done)
        for hook in reversed(done):
            self._output_logs(hook, "hook-succeeded")
            if "hook-succeeded" in hook["delete_policies"]:
                self._delete(hook, wait=self.wait_deletes)
        return [h["name"] for h in hooks]
