"""The on-disk discovery cache (kept 6 hours per server address and version) must not make a release fail
or err when the server no longer serves a kind the cache still maps: a CRD deleted or changed since, or
another control plane now at the same address (a parallel test run). The client then discovers again
once and resends, so the result is the one a fresh discovery gives.

Each test caches discovery in its own directory (``HELMLESS_CACHE_DIR``) while a CRD of its own group is
served, changes the CRD, then runs the release module in that process as a user would.
"""
import json
import time
import uuid

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import ApiError

from test_release_support import client_for, engine_for, module_params, write_chart

CRDS = "apiextensions.k8s.io/v1"


def _crd(group, scope="Namespaced"):
    return {"apiVersion": CRDS, "kind": "CustomResourceDefinition", "metadata": {"name": "widgets." + group},
            "spec": {"group": group, "scope": scope,
                     "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
                         "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def _until(what, done, timeout=60):
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "%s did not happen within %ds" % (what, timeout)
        time.sleep(0.2)


def _served(client, group, namespaced):
    path = "/apis/%s/v1/%swidgets" % (group, "namespaces/default/" if namespaced else "")
    try:
        client.request("GET", path, retries=0)
        return True
    except ApiError:  # 404 or 503 while the CRD's handler starts
        return False


@pytest.fixture
def cached_widget_kind(kubeconfig, tmp_path, monkeypatch):
    """A fresh group whose namespaced Widget kind is in this process's discovery cache; the CRD is left
    to the test to change. Yields (group, client); the CRD is deleted afterwards."""
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(tmp_path / "cache"))
    group = "d%s.example.helmless.io" % uuid.uuid4().hex[:8]
    client = client_for(kubeconfig)
    client.create(_crd(group))
    _until("the CRD is served", lambda: _served(client, group, True))
    client.discovery.invalidate()  # discovers and stores it on disk
    assert client_for(kubeconfig).discovery.resource(group + "/v1", "Widget")["namespaced"]  # read from the cache
    yield group, client
    client.delete(CRDS, "CustomResourceDefinition", "widgets." + group)


def _delete_crd(client, group):
    client.delete(CRDS, "CustomResourceDefinition", "widgets." + group)
    _until("the CRD is gone", lambda: client.get(CRDS, "CustomResourceDefinition", "widgets." + group) is None)


def _widget_chart(tmp_path, group):
    return write_chart(tmp_path / "chart", {"widget.yaml": "apiVersion: %s/v1\nkind: Widget\nmetadata:\n  name: w\n"
                                                           "spec:\n  size: 1\n" % group})


def test_a_kind_the_cache_knows_but_the_server_no_longer_serves_fails_as_helm_fails_in_check_mode_and_run(
        cached_widget_kind, kubeconfig, namespace, tmp_path, helm4):
    group, client = cached_widget_kind
    _delete_crd(client, group)
    chart = _widget_chart(tmp_path, group)
    params = module_params(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig)
    messages = []
    for check_mode in (True, False):
        with pytest.raises(ModuleFailure) as failed:
            run_release(params, check_mode=check_mode)
        messages.append(str(failed.value))
    assert engine_for(kubeconfig, namespace).history() == []
    helm = helm4.run("install", "rel", chart, "-n", namespace, check=False)
    assert helm.returncode != 0 and messages[0] == messages[1], (messages, helm.stderr)
    assert messages[0] in helm.stderr, (messages[0], helm.stderr)


def test_a_custom_resource_installs_after_its_crd_was_recreated_cluster_scoped_since_discovery_was_cached(
        cached_widget_kind, kubeconfig, namespace, tmp_path):
    group, client = cached_widget_kind
    _delete_crd(client, group)
    client.create(_crd(group, scope="Cluster"))
    _until("the cluster-scoped CRD is served", lambda: _served(client, group, False))
    params = module_params(name="rel", namespace=namespace, chart_ref=_widget_chart(tmp_path, group),
                           kubeconfig=kubeconfig)
    try:
        check, _ = run_release(params, check_mode=True)
        assert check["changed"] and check["api_requests"]["writes"] == 0
        real, _ = run_release(params)
        assert real["status"]["status"] == "deployed"
        client.discovery.invalidate()
        assert client.get(group + "/v1", "Widget", "w")["spec"] == {"size": 1}
    finally:
        run_release(dict(params, release_state="absent"))


def test_a_chart_installs_its_crd_and_custom_resource_after_the_crd_was_deleted_since_discovery_was_cached(
        cached_widget_kind, kubeconfig, namespace, tmp_path):
    group, client = cached_widget_kind
    crd = _crd(group)
    _delete_crd(client, group)
    chart = write_chart(tmp_path / "chart", {"widget.yaml": "apiVersion: %s/v1\nkind: Widget\nmetadata:\n  name: w\n"
                                                            "spec:\n  size: 1\n" % group},
                        crds={"widgets.yaml": json.dumps(crd)})
    params = module_params(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig)
    try:
        check, _ = run_release(params, check_mode=True)
        assert check["changed"] and check["api_requests"]["writes"] == 0
        run_release(params)
        assert client.get(group + "/v1", "Widget", "w", namespace)["spec"] == {"size": 1}
    finally:
        run_release(dict(params, release_state="absent"))


def test_capabilities_come_from_the_server_as_it_is_now_not_from_the_cache(
        kubeconfig, namespace, reference_namespace, tmp_path, monkeypatch, helm4):
    """A CRD created after discovery was cached (prometheus-operator's, then a chart whose ServiceMonitor
    asks ``.Capabilities.APIVersions.Has``): the render sees it, as Helm's, which discovers anew each run."""
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(tmp_path / "cache"))
    group = "d%s.example.helmless.io" % uuid.uuid4().hex[:8]
    client = client_for(kubeconfig)
    client.discovery.invalidate()  # discovers (without the group) and stores it on disk
    client.create(_crd(group))
    try:
        _until("the CRD is served", lambda: _served(client, group, True))
        chart = write_chart(tmp_path / "chart", {"cm.yaml": '{{- if .Capabilities.APIVersions.Has "%s/v1" }}\n'
                                                           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                                                           "  name: asked\n{{- end }}\n" % group})
        helm4.run("install", "rel", chart, "-n", reference_namespace)
        assert client.get("v1", "ConfigMap", "asked", reference_namespace) is not None
        params = module_params(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig)
        check, _ = run_release(params, check_mode=True)
        assert [c["name"] for c in check["plan"]] == ["asked"]
        run_release(params)
        assert client.get("v1", "ConfigMap", "asked", namespace) is not None
    finally:
        client.delete(CRDS, "CustomResourceDefinition", "widgets." + group)


def test_an_install_renders_with_the_api_versions_of_the_crds_it_installs_first(
        kubeconfig, namespace, reference_namespace, tmp_path, helm4):
    """Helm's install creates the chart's ``crds/`` before it reads the Capabilities, so a template asking
    for its own CRD's group sees it on the first install already."""
    group = "d%s.example.helmless.io" % uuid.uuid4().hex[:8]
    asks = ('{{- if .Capabilities.APIVersions.Has "%s/v1/Widget" }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n'
            "  name: asked\n{{- end }}\n" % group)
    chart = write_chart(tmp_path / "chart", {"cm.yaml": asks}, crds={"widgets.yaml": json.dumps(_crd(group))})
    client = client_for(kubeconfig)
    try:
        params = module_params(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig)
        check, _ = run_release(params, check_mode=True)
        helm4.run("install", "rel", chart, "-n", reference_namespace)
        assert client.get("v1", "ConfigMap", "asked", reference_namespace) is not None
        assert [c["name"] for c in check["plan"]] == ["widgets." + group, "asked"]
        run_release(params)
        assert client.get("v1", "ConfigMap", "asked", namespace) is not None
    finally:
        client.delete(CRDS, "CustomResourceDefinition", "widgets." + group)
