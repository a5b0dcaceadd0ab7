"""``stdout`` is what the real helm v4 CLI prints for the same operation on the same chart.

release: ``helm upgrade --install`` (install, then upgrade) and ``helm uninstall``, each run by helm in one
namespace and by the module in another; the outputs must be equal once the namespace and the deployment time
(the only inputs that differ) are put aside. template: ``helm template`` on corpus charts, byte for byte.
"""
import re

import pytest

import corpuskit
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_release, run_template_task
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import TEMPLATE

from test_release_support import module_params, write_chart

TEMPLATES = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n"
               "  message: {{ .Values.message | quote }}\n",
    "NOTES.txt": "\n  {{ .Release.Name }} in {{ .Release.Namespace }} says {{ .Values.message }}\n\n"
                 "Revision {{ .Release.Revision }}\n\n",
}
_DEPLOYED = re.compile(r"^LAST DEPLOYED: (Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ 123]\d \d\d:\d\d:\d\d \d{4}$",
                       re.M)


def _same(ours, helms, our_namespace, helm_namespace):
    """Both texts with the namespace and the LAST DEPLOYED time neutralised (each checked for its format)."""
    for text in (ours, helms):
        assert len(_DEPLOYED.findall(text)) == 1, text
    ours = _DEPLOYED.sub("LAST DEPLOYED: <time>", ours).replace(our_namespace, "<ns>")
    helms = _DEPLOYED.sub("LAST DEPLOYED: <time>", helms).replace(helm_namespace, "<ns>")
    assert ours == helms


def test_release_stdout_is_helms_for_install_upgrade_and_uninstall(tmp_path, kubeconfig, namespace,
                                                                    reference_namespace, helm4):
    chart = write_chart(tmp_path, TEMPLATES, values={"message": "hello"})
    steps = [({"message": "hello"}, ["--set", "message=hello"]), ({"message": "bye"}, ["--set", "message=bye"])]
    for values, flags in steps:
        ours = run_release(module_params(name="web", namespace=namespace, chart_ref=chart, values=values,
                                         kubeconfig=kubeconfig))[0]
        helms = helm4.run("upgrade", "--install", "web", chart, "-n", reference_namespace, *flags).stdout
        _same(ours["stdout"], helms, namespace, reference_namespace)
        assert ours["command"].startswith("helm upgrade --install web %s --namespace=%s" % (chart, namespace))
    again = run_release(module_params(name="web", namespace=namespace, chart_ref=chart, values={"message": "bye"},
                                      kubeconfig=kubeconfig))[0]
    assert not again["changed"] and again["stdout"] == ""  # helm is not run when nothing changes (kubernetes.core)
    ours = run_release(module_params(name="web", namespace=namespace, state="absent", kubeconfig=kubeconfig))[0]
    assert ours["stdout"] == helm4.run("uninstall", "web", "-n", reference_namespace).stdout
    assert ours["command"] == "helm uninstall web --namespace=%s --kubeconfig=%s" % (namespace, kubeconfig)


def _template_params(**kw):
    params = {name: opt.get("default") for name, opt in TEMPLATE.items()}
    params.update(kw)
    return params


@pytest.mark.parametrize("chart", ["metrics-server", "fluent-bit", "nats", "traefik", "cert-manager", "external-secrets"])
def test_template_stdout_is_helm_templates_output_byte_for_byte(chart, tmp_path, helm4):
    local = corpuskit.unpack(chart, tmp_path)
    ours = run_template_task(_template_params(chart_ref=local, release_name="rel", release_namespace="apps"))[0]
    helms = helm4.run("template", "rel", local, "--namespace", "apps")
    assert ours["stdout"] == helms.stdout
    assert ours["rc"] == 0 and ours["command"] == "helm template rel %s --namespace=apps" % local
