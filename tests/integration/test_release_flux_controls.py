"""The controls Flux users rely on, end to end on the local control plane: ignore rules, CEL health checks,
retries and remediation, tests after deploy and the forced reconcile. Every step's records are read back by
the real helm v4 CLI (``helm history``)."""
import base64
import json
import os
import subprocess
import sys
import threading
import time

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_info, run_release
from ansible_collections.helmless.core.plugins.module_utils.kube.client import KubeClient
from ansible_collections.helmless.core.plugins.module_utils.kube.config import load_connection
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import KubeError

from test_release_support import client_for, module_params, write_chart

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WEBHOOK = "admissionregistration.k8s.io/v1"
DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: "{{ .Values.image }}"}]
"""
# a webhook nothing calls: it selects no object, in the test's namespace only, and failure is ignored
HOOK_CONFIG = """apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: {{ .Release.Namespace }}-inject
webhooks:
  - name: inject.helmless.test
    admissionReviewVersions: [v1]
    sideEffects: None
    failurePolicy: Ignore
    timeoutSeconds: 1
    clientConfig:
      service: {name: webhook, namespace: {{ .Release.Namespace }}, path: /mutate}
      caBundle: {{ "placeholder" | b64enc }}
    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: {{ .Release.Namespace }}}}
    objectSelector: {matchLabels: {helmless.test/never: "true"}}
    rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
"""
IGNORE = [{"paths": ["/spec/replicas"], "target": {"group": "apps", "kind": "Deployment"}},
          {"paths": ["/webhooks/0/clientConfig/caBundle"], "target": {"kind": "MutatingWebhookConfiguration"}}]


def _history(helm4, namespace, name="rel"):
    """(revision, status, description) of every revision, as the real helm CLI reads them."""
    proc = helm4.run("history", name, "-n", namespace, "-o", "json")
    return [(h["revision"], h["status"], h["description"]) for h in json.loads(proc.stdout)]


def _run(kubeconfig, namespace, chart, check_mode=False, **kw):
    params = module_params(kubeconfig=kubeconfig, name="rel", namespace=namespace, chart_ref=chart, **kw)
    return run_release(params, check_mode=check_mode)[0]


def _fails(kubeconfig, namespace, chart, **kw):
    with pytest.raises(ModuleFailure) as info:
        _run(kubeconfig, namespace, chart, **kw)
    return info.value


def _manager(kubeconfig, name):
    return KubeClient(load_connection(kubeconfig), field_manager=name)


@pytest.mark.parametrize("strategy, server_side", [
    ("chart-delta", "auto"), ("chart-delta", "false"), ("helm3", "auto"), ("server-side", "auto")])
def test_fields_other_controllers_own_are_neither_drift_nor_changed_nor_reverted(
        tmp_path, kubeconfig, namespace, helm4, strategy, server_side):
    chart = write_chart(tmp_path, {"deploy.yaml": DEPLOY, "hook.yaml": HOOK_CONFIG}, values={"image": "web:1"})
    client = client_for(kubeconfig)
    task = dict(apply_strategy=strategy, server_side=server_side, ignore=IGNORE)
    name = "%s-inject" % namespace
    try:
        _run(kubeconfig, namespace, chart, **task)
        # an HPA scales through the scale subresource; cert-manager's cainjector writes the CA bundle
        hpa = _manager(kubeconfig, "horizontal-pod-autoscaler")
        hpa.request("PATCH", hpa.resource_path("apps/v1", "Deployment", namespace, "web", "scale"),
                    query=[("fieldManager", hpa.field_manager)], body={"spec": {"replicas": 5}},
                    content_type="application/merge-patch+json")
        injected = base64.b64encode(b"injected CA").decode()
        _manager(kubeconfig, "cert-manager-cainjector").patch(WEBHOOK, "MutatingWebhookConfiguration", name, None, [
            {"op": "replace", "path": "/webhooks/0/clientConfig/caBundle", "value": injected}], "json")

        info = {"kubeconfig": kubeconfig, "release_name": "rel", "release_namespace": namespace}
        drifted = run_info(dict(info, ignore=None))[0]["status"]["drift"]
        assert sorted(d["kind"] for d in drifted) == ["Deployment", "MutatingWebhookConfiguration"]  # it is real
        assert run_info(dict(info, ignore=IGNORE))[0]["status"]["drift"] == []

        preview = _run(kubeconfig, namespace, chart, check_mode=True, **task)
        again = _run(kubeconfig, namespace, chart, **task)
        for result in (preview, again):
            assert not result["changed"] and result["drift"] == []
            assert {e["kind"]: e.get("ignored") for e in result["plan"]} == {
                "Deployment": ["/spec/replicas"], "MutatingWebhookConfiguration": ["/webhooks/0/clientConfig/caBundle"]}
        assert again["api_requests"]["writes"] == 0

        upgraded = _run(kubeconfig, namespace, chart, release_values={"image": "web:2"}, **task)
        assert upgraded["changed"] and upgraded["status"]["revision"] == "2"
        live = client.get("apps/v1", "Deployment", "web", namespace)
        assert live["spec"]["replicas"] == 5
        assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "web:2"
        hook = client.get(WEBHOOK, "MutatingWebhookConfiguration", name)
        assert hook["webhooks"][0]["clientConfig"]["caBundle"] == injected
        assert _history(helm4, namespace) == [(1, "superseded", "Install complete"), (2, "deployed", "Upgrade complete")]
    finally:
        client.delete(WEBHOOK, "MutatingWebhookConfiguration", name)


def test_a_new_object_is_created_with_the_chart_values_at_ignored_paths(tmp_path, kubeconfig, namespace):
    chart = write_chart(tmp_path, {"deploy.yaml": DEPLOY}, values={"image": "web:1"})
    _run(kubeconfig, namespace, chart, ignore=[{"paths": ["/spec/replicas"]}])
    assert client_for(kubeconfig).get("apps/v1", "Deployment", "web", namespace)["spec"]["replicas"] == 2


@pytest.mark.parametrize("options, message", [
    ({"ignore": [{"paths": ["/spec/replicas"]}, {"paths": ["spec/replicas"]}]},
     'ignore[1].paths[0]: "spec/replicas" is not a JSON pointer (RFC 6901)'),
    ({"ignore": [{"paths": ["/a"], "target": {"kind": "Deploy(ment"}}]}, "ignore[0].target.kind: error parsing regexp"),
    ({"health_checks": [{"api_version": "example.com/v1", "current": "status.phase =="}]},
     "health_checks[0].current: the expression status.phase == does not compile"),
    ({"atomic": True, "remediation": "none"}, "atomic (rollback_on_failure) means remediation: rollback"),
    ({"retries": -1}, "retries must be 0 or more"),
    ({"test": True, "test_filter": ["name=smoke"]}, 'test_filter: no test of release "rel" is named smoke (its tests: none)'),
])
def test_bad_controls_are_refused_before_anything_is_written(tmp_path, kubeconfig, namespace, helm4, options, message):
    chart = write_chart(tmp_path, {"deploy.yaml": DEPLOY}, values={"image": "web:1"})
    failure = _fails(kubeconfig, namespace, chart, **options)
    assert message in str(failure)
    assert client_for(kubeconfig).get("apps/v1", "Deployment", "web", namespace) is None
    assert client_for(kubeconfig).list("v1", "Secret", namespace, "owner=helm") == []
    assert helm4.run("history", "rel", "-n", namespace, check=False).returncode != 0


CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.{group}
spec:
  group: {group}
  scope: Namespaced
  names: {{plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}}
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {{status: {{}}}}
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
"""
WIDGET = """apiVersion: {{ .Values.group }}/v1
kind: Widget
metadata:
  name: w
spec:
  size: {{ .Values.size }}
"""


def _operator(kubeconfig, namespace, group, generation, status):
    """An operator that writes ``status`` once the Widget has reached ``generation``, as its controller would."""
    client = _manager(kubeconfig, "widget-operator")

    def run():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                live = client.get(group + "/v1", "Widget", "w", namespace)
            except KubeError:  # the kind is not served until the chart's CRD is
                client.discovery.invalidate()
                live = None
            if live is not None and live["metadata"]["generation"] == generation:
                client.request("PATCH", client.resource_path(group + "/v1", "Widget", namespace, "w", "status"),
                               body={"status": dict(status, observedGeneration=generation)},
                               content_type="application/merge-patch+json")
                return
            time.sleep(0.2)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_custom_resource_is_ready_or_failed_by_its_own_status_field(tmp_path, kubeconfig, namespace, helm4):
    group = "%s.helmless.test" % namespace
    chart = write_chart(tmp_path, {"widget.yaml": WIDGET}, values={"group": group, "size": 1},
                        crds={"widget.yaml": CRD.format(group=group)})
    checks = [{"api_version": group + "/v1", "kind": "Widget", "current": "status.phase == 'Ready'",
               "failed": "status.phase == 'Failed'"}]
    task = dict(wait=True, timeout="60s", health_checks=checks)
    try:
        # kstatus would wait for ever: the operator's Ready condition is never True, only its phase says ready
        operator = _operator(kubeconfig, namespace, group, 1, {
            "phase": "Ready", "conditions": [{"type": "Ready", "status": "False", "reason": "NotUsedByThisOperator"}]})
        assert _run(kubeconfig, namespace, chart, **task)["status"]["status"] == "deployed"
        operator.join()
        # kstatus would take this one as ready (no conditions): only its phase says it failed
        operator = _operator(kubeconfig, namespace, group, 2, {"phase": "Failed", "conditions": []})
        failure = _fails(kubeconfig, namespace, chart, release_values={"group": group, "size": 2}, **task)
        operator.join()
        assert "Widget/w" in str(failure) and "health_checks[0].failed status.phase == 'Failed'" in str(failure)
        # an expression that cannot be evaluated on the live object fails the wait at once, naming both
        wrong = [dict(checks[0], current="status.phase", failed=None)]
        failure = _fails(kubeconfig, namespace, chart, release_values={"group": group, "size": 2},
                         **dict(task, health_checks=wrong))
        assert ("Widget/w: health check health_checks[0].current status.phase cannot be evaluated: it evaluated "
                "to 'Failed', not a boolean") in str(failure)
        assert [h[:2] for h in _history(helm4, namespace)] == [(1, "deployed"), (2, "failed"), (3, "failed")]
    finally:
        client_for(kubeconfig).delete("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets." + group)


# a migration Pod (the test cluster runs a hook Pod's command to its exit code; Job pods always succeed there)
MIGRATION = """apiVersion: v1
kind: Pod
metadata:
  name: migrate
  annotations: {"helm.sh/hook": pre-upgrade, "helm.sh/hook-delete-policy": before-hook-creation}
spec:
  restartPolicy: Never
  containers: [{name: m, image: busybox, command: [sh, -c, "exit {{ .Values.migrate.exit }}"]}]
"""
# fails on the revision named in values (each attempt renders as its own revision), as a flaky migration
FLAKY = MIGRATION.replace('"exit {{ .Values.migrate.exit }}"',
                          '"exit {{ if eq (int .Values.migrate.failOn) .Release.Revision }}1{{ else }}0{{ end }}"')
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  v: {{ .Values.v | quote }}\n"


def test_a_failing_migration_hook_is_retried_then_rolled_back_and_a_flaky_one_succeeds_on_retry(
        tmp_path, kubeconfig, namespace, helm4):
    failing = write_chart(tmp_path / "failing", {"cm.yaml": CM, "migrate.yaml": MIGRATION},
                          values={"v": "1", "migrate": {"exit": 0}})
    _run(kubeconfig, namespace, failing)
    task = dict(timeout="60s", retries=1, remediation="rollback")
    preview = _run(kubeconfig, namespace, failing, check_mode=True, release_values={"v": "2", "migrate": {"exit": 1}},
                   **task)
    assert preview["remediation"] == {"retries": 1, "strategy": "rollback", "test": False, "action": "rollback",
                                      "target_revision": 1}
    assert _history(helm4, namespace) == [(1, "deployed", "Install complete")]

    failure = _fails(kubeconfig, namespace, failing, release_values={"v": "2", "migrate": {"exit": 1}}, **task)
    assert "failed after 2 attempts, and has been rolled back to revision 1" in str(failure)
    assert [(a["revision"], a["status"]) for a in failure.result["attempts"]] == [(2, "failed"), (3, "failed")]
    assert failure.result["remediation"]["revision"] == 4
    history = _history(helm4, namespace)
    assert [h[:2] for h in history] == [(1, "superseded"), (2, "failed"), (3, "failed"), (4, "deployed")]
    assert history[1][2].startswith('Upgrade "rel" failed: pre-upgrade hooks failed') and history[3][2] == "Rollback to 1"
    assert client_for(kubeconfig).get("v1", "ConfigMap", "app", namespace)["data"] == {"v": "1"}

    flaky = write_chart(tmp_path / "flaky", {"cm.yaml": CM, "migrate.yaml": FLAKY},
                        values={"v": "1", "migrate": {"failOn": 0}})
    result = _run(kubeconfig, namespace, flaky, release_values={"v": "3", "migrate": {"failOn": 5}}, **task)
    assert [(a["revision"], a["status"]) for a in result["attempts"]] == [(5, "failed"), (6, "deployed")]
    assert [h[:2] for h in _history(helm4, namespace)][4:] == [(5, "failed"), (6, "deployed")]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "app", namespace)["data"] == {"v": "3"}


def test_a_failed_install_is_left_or_uninstalled_keeping_its_history(tmp_path, kubeconfig, namespace, helm4):
    failing = write_chart(tmp_path / "failing", {"cm.yaml": CM, "migrate.yaml": MIGRATION.replace(
        "pre-upgrade", '"pre-install,pre-upgrade"')}, values={"v": "1", "migrate": {"exit": 2}})
    failure = _fails(kubeconfig, namespace, failing, remediation="none", timeout="60s")
    assert str(failure).startswith("release rel failed after 1 attempt: failed pre-install: ")
    assert _history(helm4, namespace)[0][:2] == (1, "failed")
    failure = _fails(kubeconfig, namespace, failing, remediation="uninstall", retries=1, timeout="60s")
    assert "failed after 2 attempts, and has been uninstalled (its history kept)" in str(failure)
    assert [h[:2] for h in _history(helm4, namespace)] == [(1, "failed"), (2, "failed"), (3, "uninstalled")]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "app", namespace) is None
    fixed = write_chart(tmp_path / "fixed", {"cm.yaml": CM}, values={"v": "1"})
    assert _run(kubeconfig, namespace, fixed, remediation="uninstall")["status"]["revision"] == "4"
    assert _history(helm4, namespace)[-1] == (4, "deployed", "Install complete")


TEST_POD = """apiVersion: v1
kind: Pod
metadata:
  name: rel-check
  annotations: {"helm.sh/hook": test}
spec:
  restartPolicy: Never
  containers: [{name: t, image: busybox, command: [sh, -c, "exit {{ .Values.testExit }}"]}]
"""


def test_an_upgrade_whose_test_fails_is_rolled_back(tmp_path, kubeconfig, namespace, helm4):
    chart = write_chart(tmp_path, {"cm.yaml": CM, "test.yaml": TEST_POD}, values={"v": "1", "testExit": 0})
    task = dict(test=True, remediation="rollback", timeout="60s")
    installed = _run(kubeconfig, namespace, chart, **task)
    assert [(t["name"], t["phase"]) for t in installed["tests"]] == [("rel-check", "Succeeded")]

    failure = _fails(kubeconfig, namespace, chart, release_values={"v": "2", "testExit": 3}, **task)
    assert "has been rolled back to revision 1" in str(failure)
    assert [(a["revision"], a["status"]) for a in failure.result["attempts"]] == [(2, "failed")]
    assert [(t["name"], t["phase"]) for t in failure.result["attempts"][0]["tests"]] == [("rel-check", "Failed")]
    history = _history(helm4, namespace)
    assert [h[:2] for h in history] == [(1, "superseded"), (2, "failed"), (3, "deployed")]
    assert history[1][2].startswith('Upgrade "rel" failed: test failed: ')
    assert client_for(kubeconfig).get("v1", "ConfigMap", "app", namespace)["data"] == {"v": "1"}
    assert "TEST SUITE:     rel-check" in helm4.run("status", "rel", "--revision", "2", "-n", namespace).stdout

    ignored = _run(kubeconfig, namespace, chart, release_values={"v": "4", "testExit": 3},
                   ignore_test_failures=True, **task)
    assert ignored["status"]["status"] == "deployed" and ignored["tests"][0]["phase"] == "Failed"
    assert any("ignore_test_failures" in w for w in ignored["stderr"].splitlines())
    assert _history(helm4, namespace)[-1][:2] == (4, "deployed")


ROTATING = """apiVersion: v1
kind: Secret
metadata:
  name: token
stringData:
  token: {{ randAlphaNum 16 | quote }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: reconciled
  annotations: {"helm.sh/hook": pre-upgrade}
data:
  revision: {{ .Release.Revision | quote }}
"""


def test_a_forced_reconcile_writes_a_revision_runs_the_upgrade_hooks_and_rolls_generated_values(
        tmp_path, kubeconfig, namespace, helm4):
    chart = write_chart(tmp_path, {"all.yaml": ROTATING})
    client = client_for(kubeconfig)
    _run(kubeconfig, namespace, chart)
    token = client.get("v1", "Secret", "token", namespace)["data"]["token"]
    assert not _run(kubeconfig, namespace, chart)["changed"]  # the default: nothing changed, nothing written
    preview = _run(kubeconfig, namespace, chart, check_mode=True, force_reconcile=True)
    assert preview["changed"] and preview["status"]["revision"] == "2" and preview["hooks"] == ["reconciled"]
    forced = _run(kubeconfig, namespace, chart, force_reconcile=True)
    assert forced["changed"] and forced["status"]["revision"] == "2"
    assert client.get("v1", "Secret", "token", namespace)["data"]["token"] != token
    assert client.get("v1", "ConfigMap", "reconciled", namespace)["data"] == {"revision": "2"}
    assert _history(helm4, namespace) == [(1, "superseded", "Install complete"), (2, "deployed", "Upgrade complete")]


@pytest.mark.ansible_core
def test_releases_items_and_release_info_take_the_controls_through_ansibles_argument_spec(
        tmp_path, kubeconfig, namespace):
    chart = write_chart(tmp_path, {"deploy.yaml": DEPLOY}, values={"image": "web:1"})
    rule = {"paths": ["/spec/replicas"], "target": {"kind": "Deployment", "labelSelector": "tier!=db"}}
    tasks = [
        {"helmless.core.releases": {"releases": [{
            "name": "rel", "namespace": namespace, "chart": chart, "ignore": [rule], "retries": 1,
            "remediation": "rollback", "wait": True, "timeout": "60s",
            "health_checks": [{"apiVersion": "apps/v1", "kind": "Deployment", "current": "true",
                               "inProgress": "false"}]}]}, "register": "fleet"},
        {"helmless.core.release_info": {"name": "rel", "namespace": namespace, "ignore": [rule]}, "register": "info"},
        {"helmless.core.release": {"name": "rel", "namespace": namespace, "chart_ref": chart,
                                   "ignore": [{"paths": ["spec/replicas"]}]},
         "register": "bad", "ignore_errors": True},
        {"copy": {"content": "{{ {'fleet': fleet, 'info': info, 'bad': bad} | to_json }}",
                  "dest": str(tmp_path / "out.json")}}]
    play = [{"hosts": "localhost", "connection": "local", "gather_facts": False,
             "module_defaults": {"group/helmless.core.helm": {"kubeconfig": kubeconfig}}, "tasks": tasks}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"),
               ANSIBLE_LOCALHOST_WARNING="false")
    proc = subprocess.run(["ansible-playbook", "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable,
                           str(tmp_path / "play.yml")], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    out = json.loads((tmp_path / "out.json").read_text())
    release = out["fleet"]["results"][0]
    assert release["attempts"] == [{"attempt": 1, "operation": "install", "revision": 1, "status": "deployed"}]
    assert out["info"]["status"]["drift"] == []
    assert out["bad"]["failed"] and out["bad"]["msg"].startswith('ignore[0].paths[0]: "spec/replicas"')
