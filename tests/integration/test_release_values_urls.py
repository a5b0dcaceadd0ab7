"""release: a values file URL is fetched before anything touches the cluster; a bad one fails naming the URL
and the HTTP status, with no release record written."""
import os
import sys

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release

from test_release_support import module_params, write_chart

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit", "repo"))

from repokit import Server  # noqa: E402

TEMPLATES = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n"
                        "  size: {{ .Values.size | quote }}\n"}


def test_release_values_from_a_url_and_a_404_that_writes_nothing(tmp_path, kubeconfig, kube_client, namespace):
    from kubernetes import client
    served = tmp_path / "served"
    served.mkdir()
    (served / "prod.yaml").write_text("size: large\n")
    chart = write_chart(tmp_path, TEMPLATES, values={"size": "small"})
    server = Server(served)
    try:
        with pytest.raises(ModuleFailure) as failure:
            run_release(module_params(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                                      values_files=[server.url + "/missing.yaml"]))
        core = client.CoreV1Api(kube_client)
        assert core.list_namespaced_secret(namespace, label_selector="owner=helm").items == []
        assert core.list_namespaced_config_map(namespace).items == [] or all(
            cm.metadata.name == "kube-root-ca.crt" for cm in core.list_namespaced_config_map(namespace).items)
        result = run_release(module_params(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                                           values_files=[server.url + "/prod.yaml"]))[0]
    finally:
        server.close()
    assert server.url + "/missing.yaml" in str(failure.value) and "404" in str(failure.value)
    assert failure.value.result["stderr"].startswith("Error: ")
    assert result["status"]["values"] == {"size": "large"}
    assert core.read_namespaced_config_map("web-cm", namespace).data == {"size": "large"}
