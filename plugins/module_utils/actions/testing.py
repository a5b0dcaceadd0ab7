"""``helm test``: run a release's ``test`` hooks and record each run in the release, as Helm 4's ReleaseTesting.

The latest revision (any status) is tested; its status never changes. Hooks excluded by the filter are
kept in the record, ahead of the ones that ran (Helm re-assembles ``skipped + executed`` before saving).
"""

from ..kube.errors import ApiError, KubeError
from ..plan.manifest import load_yaml
from ..release.model import status
from .hooks import HookError, HookRunner, hooks_for
from .base import OperationError
from ..regexcache import regex

_EXCLUDE = regex(r"^!\s?name=")


class TestFailed(OperationError):
    """A test did not succeed; ``tests`` holds every test's result up to the failure."""

    def __init__(self, message, tests):
        super().__init__(message)
        self.tests = tests


def parse_filters(filters):
    """Helm's ``--filter`` values → (include names, exclude names); ``a,b`` splits as Helm's string slice."""
    include, exclude = [], []
    for item in filters or ():
        for text in str(item).split(","):
            text = text.strip()
            if text.startswith("name="):
                include.append(text[len("name="):])
            elif _EXCLUDE.match(text):
                exclude.append(_EXCLUDE.sub("", text))
            else:
                raise OperationError('invalid test filter "%s": use name=<test> or !name=<test>' % text)
    return include, exclude


def select(hooks, include, exclude):
    """(skipped, kept) hooks as Helm's filter splits them (by hook name, over all hooks of the release)."""
    skipped, kept = [], list(hooks)
    if exclude:
        skipped = [h for h in kept if h.get("name") in exclude]
        kept = [h for h in kept if h.get("name") not in exclude]
    if include:
        skipped += [h for h in kept if h.get("name") not in include]
        kept = [h for h in kept if h.get("name") in include]
    return skipped, kept


def test_result(hook):
    run = hook.get("last_run") or {}
    return {"name": hook.get("name"), "kind": hook.get("kind"), "path": hook.get("path"),
            "weight": hook.get("weight", 0), "phase": run.get("phase", ""),
            "started_at": run.get("started_at", ""), "completed_at": run.get("completed_at", "")}


def _filter_text(include, exclude):
    return ", ".join(["name=%s" % n for n in include] + ["!name=%s" % n for n in exclude])


def logs_stdout(results):
    """What ``helm test --logs`` prints after the status: each test Pod's containers (init ones first) as
    ``POD LOGS: <pod> (<container>)``, the log, then an empty line."""
    out = ""
    for result in results:
        for container, text in (result.get("logs") or {}).items():
            if container != "error":
                out += "POD LOGS: %s (%s)\n%s\n" % (result["name"], container, text)
    return out


def pod_logs(client, namespace, hook):
    """{container: log text} of a test Pod (init containers first, as Helm), or {"error": why}."""
    obj = load_yaml(hook.get("manifest") or "") or {}
    ns = (obj.get("metadata") or {}).get("namespace") or namespace
    try:
        pod = client.get("v1", "Pod", hook["name"], ns)
    except (ApiError, KubeError) as exc:
        return {"error": "unable to get pod %s: %s" % (hook["name"], exc)}
    if pod is None:
        return {"error": "unable to get pod %s: not found" % hook["name"]}
    spec = pod.get("spec") or {}
    logs, errors = {}, []
    for container in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        try:
            logs[container["name"]] = client.request(
                "GET", client.resource_path("v1", "Pod", ns, hook["name"], "log"),
                query=[("container", container["name"])], accept="*/*", raw=True, retries=0)
        except (ApiError, KubeError) as exc:
            errors.append("unable to get logs for pod %s, container %s: %s"
                          % (hook["name"], container["name"], getattr(exc, "message", "") or exc))
    if errors:
        logs["error"] = "; ".join(errors)
    return logs


def run_tests(engine, filters=(), timeout=300, logs=False, check_mode=False, progress=None, hook_logs=None):
    """Run the tests of release ``engine.name``; return the test results (``TestFailed`` if one fails).
    ``hook_logs`` receives the logs of tests whose ``hook-output-log-policy`` asks for them (HookRunner)."""
    progress = progress or (lambda phase, message: None)
    history = engine.history()
    if not history:
        raise OperationError("release: not found")  # helm test's words
    rel = history[-1]
    include, exclude = parse_filters(filters)
    skipped, kept = select(rel.get("hooks") or [], include, exclude)
    tests = hooks_for({"hooks": kept}, "test")
    available = [h["name"] for h in hooks_for(rel, "test")]
    unknown = [n for n in include + exclude if n not in available]
    if unknown:  # a name no test has is a mistake (Helm runs what is left, maybe nothing, and says nothing)
        raise OperationError('no test of release "%s" matches the filter %s (its tests: %s)' % (
            engine.name, _filter_text(include, exclude), ", ".join(available) or "none"))
    progress("test", "revision %d (%s): %d test(s)%s" % (
        rel["version"], status(rel), len(tests),
        ", %d filtered out" % (len(available) - len(tests)) if len(available) != len(tests) else ""))
    if check_mode or not tests:
        if not check_mode and skipped:  # Helm stores the hooks filtered out first, also when none ran
            engine.storage.update(dict(rel, hooks=skipped + kept))
        return rel, [dict(test_result(h), ran=False) for h in tests]

    def record(release):
        engine.storage.update(dict(release, hooks=skipped + release["hooks"]))

    collected = {}

    def read_logs(ran):
        for hook in ran:
            if hook.get("kind") == "Pod":
                collected[hook["name"]] = pod_logs(engine.client, engine.namespace, hook)

    previous = {id(h): h.get("last_run") for h in tests}
    rel["hooks"] = kept
    runner = HookRunner(engine.client, engine.namespace, record, timeout, progress, wait_deletes=True,
                        server_side=rel.get("apply_method") == "ssa", logs=hook_logs)
    failure = None
    try:
        runner.run(rel, "test", before_cleanup=read_logs if logs else None)
    except HookError as exc:
        failure = exc
    rel["hooks"] = skipped + kept
    engine.storage.update(rel)
    results = [dict(test_result(h), ran=h.get("last_run") is not previous[id(h)]) for h in tests]
    for result in results:
        if result["name"] in collected:
            result["logs"] = collected[result["name"]]
    if failure is not None:
        failed = [r["name"] for r in results if r["phase"] == "Failed"]
        progress("result", "test %s failed" % ", ".join(failed))
        raise TestFailed(str(failure), results)  # helm test's error: the hook's own
    progress("result", "%d test(s) succeeded" % len(results))
    return rel, results
