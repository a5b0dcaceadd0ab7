"""release ``verify``/``keyring``: a chart signed by the real helm CLI installs with the signer's keyring; with
a stranger's keyring the task fails with helm's message and nothing reaches the cluster."""
import os
import sys

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release

from test_release_support import module_params, write_chart

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit", "repo"))

from provkit import helm, key_pair  # noqa: E402

TEMPLATES = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n"
                        "  a: b\n"}


def test_release_installs_a_verified_chart_and_refuses_an_unknown_signer(tmp_path, kubeconfig, kube_client,
                                                                          namespace):
    from kubernetes import client
    secring, pubring = key_pair(tmp_path, "Chart Signer", "signer@example.com")
    stranger = key_pair(tmp_path, "Other Person", "other@example.com")[1]
    chart = write_chart(tmp_path / "src", TEMPLATES)
    proc = helm("package", "--sign", "--key", "Chart Signer", "--keyring", secring, "--destination", str(tmp_path),
                chart)
    assert proc.returncode == 0, proc.stderr
    archive = str(tmp_path / ("%s-0.1.0.tgz" % os.path.basename(chart)))
    with pytest.raises(ModuleFailure) as refused:
        run_release(module_params(name="web", namespace=namespace, chart_ref=archive, kubeconfig=kubeconfig,
                                  verify=True, keyring=stranger))
    assert str(refused.value) == "openpgp: signature made by unknown entity"
    assert client.CoreV1Api(kube_client).list_namespaced_secret(namespace, label_selector="owner=helm").items == []
    result = run_release(module_params(name="web", namespace=namespace, chart_ref=archive, kubeconfig=kubeconfig,
                                       verify=True, keyring=pubring))[0]
    assert result["status"]["status"] == "deployed" and "--verify" in result["command"]
