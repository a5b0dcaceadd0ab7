"""No-op after whoever wrote the last revision: the real helm v4 and v3 CLIs, plain and random charts."""
import base64
import json

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_release

from test_release_support import client_for, engine_for, literal_input, module_params, opts, write_chart

PLAIN = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n"
               "  note: {{ .Values.note | quote }}\n  replicas: {{ .Values.replicas | quote }}\n",
    "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n"
                   "  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: {app: web}\n  template:\n"
                   "    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n"
                   "      - name: web\n        image: nginx:1\n",
    "NOTES.txt": "Release {{ .Release.Name }} notes {{ .Values.note }}\n",
}
# What charts in the corpus do: passwords, certificates and test-hook names generated on every render.
RANDOM = dict(PLAIN, **{
    "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-s\ndata:\n"
                   "  password: {{ randAlphaNum 20 | b64enc | quote }}\n"
                   "{{- $ca := genCA \"ca\" 365 }}\n"
                   "  ca.crt: {{ $ca.Cert | b64enc | quote }}\n",
    "test.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test-{{ randAlphaNum 5 | lower }}\n"
                 "  annotations:\n    helm.sh/hook: test\nspec:\n  restartPolicy: Never\n"
                 "  containers:\n  - name: t\n    image: busybox\n",
})

# A hook without a delete policy (flux2-sync's RBAC for its pre-install Job): the revision that ran it stores
# Helm's default, before-hook-creation, which the chart itself does not write.
HOOKED = dict(PLAIN, **{
    "hook.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-hook\n"
                 "  annotations:\n    helm.sh/hook: pre-install,pre-upgrade\n"
                 "data:\n  note: {{ .Values.note | quote }}\n",
})


def _versions(kubeconfig, namespace):
    return [r["version"] for r in engine_for(kubeconfig, namespace).history()]


def _ours(kubeconfig, namespace, chart, note, **kw):
    result, _ = run_release(module_params(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                                          values={"note": note}, **kw))
    return result


def _no_op(result):
    return not result["changed"] and result["api_requests"]["writes"] == 0


@pytest.mark.parametrize("templates", [PLAIN, RANDOM], ids=["plain", "random"])
@pytest.mark.parametrize("which", ["helm4", "helm3"])
def test_our_run_after_helm_wrote_the_same_chart_and_values_writes_nothing(
        request, tmp_path, kubeconfig, namespace, which, templates):
    helm = request.getfixturevalue(which)
    chart = write_chart(tmp_path, templates, values={"note": "zero", "replicas": 1})
    helm.run("install", "rel", chart, "-n", namespace, "--set", "note=one")
    result = _ours(kubeconfig, namespace, chart, "one")
    assert _no_op(result), result["progress"]
    assert _versions(kubeconfig, namespace) == [1]

    # the sequence of issue 11: ours upgrades, helm upgrades, ours with helm's values is a no-op
    assert _ours(kubeconfig, namespace, chart, "two")["changed"]
    helm.run("upgrade", "rel", chart, "-n", namespace, "--set", "note=three")
    secret_before = client_for(kubeconfig).get("v1", "Secret", "rel-s", namespace)
    for _ in range(2):
        result = _ours(kubeconfig, namespace, chart, "three")
        assert _no_op(result), result["progress"]
    assert _versions(kubeconfig, namespace) == [1, 2, 3]
    if templates is RANDOM:  # helm's generated password and certificate stay as helm wrote them
        assert client_for(kubeconfig).get("v1", "Secret", "rel-s", namespace)["data"] == secret_before["data"]
    history = json.loads(helm.run("history", "rel", "-n", namespace, "-o", "json").stdout)
    assert [(h["revision"], h["status"]) for h in history] == [(1, "superseded"), (2, "superseded"),
                                                              (3, "deployed")]

    # a real change of values still upgrades, and helm keeps working on the result
    result = _ours(kubeconfig, namespace, chart, "four")
    assert result["changed"] and _versions(kubeconfig, namespace) == [1, 2, 3, 4]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "rel-cm", namespace)["data"]["note"] == "four"
    helm.run("upgrade", "rel", chart, "-n", namespace, "--reuse-values")


def _hand_edit(kubeconfig, namespace):
    editor = client_for(kubeconfig)
    editor.field_manager = "kubectl-edit"  # a hand edit: another manager takes the field over
    editor.patch("v1", "ConfigMap", "rel-cm", namespace, {"data": {"note": "edited"}})


def test_a_random_chart_reruns_as_a_no_op_yet_drift_is_still_repaired(tmp_path, kubeconfig, namespace,
                                                                      reference_namespace, helm3):
    chart = write_chart(tmp_path, RANDOM, values={"note": "zero", "replicas": 1})
    assert _ours(kubeconfig, namespace, chart, "one")["changed"]
    client = client_for(kubeconfig)
    password = client.get("v1", "Secret", "rel-s", namespace)["data"]["password"]
    result = _ours(kubeconfig, namespace, chart, "one")
    assert _no_op(result), result["progress"]
    assert "only what genCA, randAlphaNum generate differs" in " ".join(result["progress"])

    _hand_edit(kubeconfig, namespace)
    result = _ours(kubeconfig, namespace, chart, "one")  # chart-delta: reported, kept
    assert _no_op(result) and [d["kind"] for d in result["drift"]] == ["ConfigMap"]
    assert client.get("v1", "ConfigMap", "rel-cm", namespace)["data"]["note"] == "edited"
    result = _ours(kubeconfig, namespace, chart, "one", apply_strategy="helm3")  # helm3: reverted
    assert result["changed"] and _versions(kubeconfig, namespace) == [1, 2]
    assert client.get("v1", "ConfigMap", "rel-cm", namespace)["data"]["note"] == "one"
    assert client.get("v1", "Secret", "rel-s", namespace)["data"]["password"] == password  # nothing re-rolled
    helm3.run("install", "rel", chart, "-n", reference_namespace, "--set", "note=one")  # the helm v3 CLI reverts too
    _hand_edit(kubeconfig, reference_namespace)
    helm3.run("upgrade", "rel", chart, "-n", reference_namespace, "--set", "note=one")
    assert client.get("v1", "ConfigMap", "rel-cm", reference_namespace)["data"]["note"] == "one"


def test_a_revision_whose_hooks_ran_without_a_delete_policy_reruns_as_a_no_op(
        tmp_path, kubeconfig, namespace, reference_namespace, helm4):
    chart = write_chart(tmp_path, HOOKED, values={"note": "zero", "replicas": 1})
    helm4.run("install", "rel", chart, "-n", reference_namespace, "--set", "note=one")
    result = _ours(kubeconfig, reference_namespace, chart, "one")
    assert _no_op(result), result["progress"]
    assert _ours(kubeconfig, namespace, chart, "one")["changed"]
    stored = engine_for(kubeconfig, namespace).history()[-1]["hooks"]
    assert [h["delete_policies"] for h in stored] == [["before-hook-creation"]]  # as helm stores it
    result = _ours(kubeconfig, namespace, chart, "one")
    assert _no_op(result), result["progress"]
    assert _ours(kubeconfig, namespace, chart, "two")["changed"]  # other values still upgrade


def test_an_upgrade_with_other_values_renders_once_and_a_rerun_renders_as_deployed_then_probes(
        tmp_path, kubeconfig, namespace, monkeypatch):
    from ansible_collections.helmless.core.plugins.module_utils.actions import prepare
    renders = []
    render = prepare.render_release
    monkeypatch.setattr(prepare, "render_release", lambda *a, **kw: renders.append(kw["revision"]) or render(*a, **kw))
    chart = write_chart(tmp_path, RANDOM, values={"note": "zero", "replicas": 1})
    assert _ours(kubeconfig, namespace, chart, "one")["changed"] and renders == [1]
    del renders[:]
    assert _no_op(_ours(kubeconfig, namespace, chart, "one"))
    assert renders == [1, 1]  # as the deployed revision, then again with other randomness (sameness.differs)
    del renders[:]
    result = _ours(kubeconfig, namespace, chart, "two")  # other values: a change whatever the render
    assert result["changed"] and renders == [2] and _versions(kubeconfig, namespace) == [1, 2]


def _normalized_by_the_server(namespace, ca="ca-one"):
    """A Secret written with ``stringData`` and a webhook whose ``caBundle`` (a []byte field) ends in a line
    break: the server stores both in another form (data; base64 without the break) than the chart wrote."""
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "cert"}, "stringData": {"tls.crt": ca}}
    webhook = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
               "metadata": {"name": "%s-checks" % namespace},
               "webhooks": [{"name": "checks.example.com", "admissionReviewVersions": ["v1"], "sideEffects": "None",
                             "failurePolicy": "Ignore",
                             "namespaceSelector": {"matchLabels": {"never-matches": namespace}},
                             "clientConfig": {"caBundle": base64.b64encode(ca.encode()).decode() + "\n",
                                              "service": {"name": "checks", "namespace": namespace}},
                             "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                        "resources": ["configmaps"]}]}]}
    return [secret, webhook]


def test_a_rerun_over_what_the_server_normalized_asks_it_nothing_and_drift_by_others_is_still_repaired(
        kubeconfig, namespace):
    docs = _normalized_by_the_server(namespace)
    try:
        assert engine_for(kubeconfig, namespace).present(literal_input(docs), opts()).changed
        rerun = engine_for(kubeconfig, namespace)
        assert not rerun.present(literal_input(docs), opts()).changed
        assert rerun.client.count(writes_only=True) == 0, rerun.client.requests  # no dry run either

        # another manager's write is drift, found and repaired by the strategy that repairs it
        other = client_for(kubeconfig)
        other.field_manager = "kubectl-edit"
        other.patch("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "%s-checks" % namespace,
                    None, {"webhooks": [{"name": "checks.example.com", "clientConfig": {
                        "caBundle": base64.b64encode(b"hand-edit").decode()}}]})
        out = engine_for(kubeconfig, namespace).present(literal_input(docs), opts(strategy="server-side",
                                                                                 force_conflicts=True))
        live = client_for(kubeconfig).get("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration",
                                          "%s-checks" % namespace)
        assert out.changed
        assert base64.b64decode(live["webhooks"][0]["clientConfig"]["caBundle"]) == b"ca-one"
    finally:
        client_for(kubeconfig).delete("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration",
                                      "%s-checks" % namespace, None)
