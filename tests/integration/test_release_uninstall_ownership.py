"""Uninstall leaves what the release no longer owns, as helm v4.3's uninstall does, side by side with it.

Each test runs the same steps with the real helm v4 CLI in one namespace and with the release module in
another, then compares what is left in the cluster and what was printed. Check mode must name the objects a
real run would leave, and write nothing.
"""
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_release

from test_release_support import client_for, module_params, write_chart

TEMPLATES = {
    "cm.yaml": "".join(
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n%sdata:\n  k: v\n" % (name, extra)
        for name, extra in (
            ("shared-cm", ""), ("unlabelled", ""), ("mine", ""),
            ("kept", "  annotations:\n    helm.sh/resource-policy: keep\n"),
            ("other-policy", "  annotations:\n    helm.sh/resource-policy: retain\n"),
        )),
    "svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\nspec:\n  ports:\n  - port: 80\n",
}


def _take_over(kubeconfig, namespace):
    """Another release takes ``shared-cm`` over; ``unlabelled`` loses the managed-by label."""
    client = client_for(kubeconfig)
    client.patch("v1", "ConfigMap", "shared-cm", namespace,
                 {"metadata": {"annotations": {"meta.helm.sh/release-name": "b"}}}, "merge")
    client.patch("v1", "ConfigMap", "unlabelled", namespace,
                 {"metadata": {"labels": {"app.kubernetes.io/managed-by": None}}}, "merge")


def _left(kubeconfig, namespace):
    client = client_for(kubeconfig)
    return sorted("%s/%s" % (kind, o["metadata"]["name"]) for kind in ("ConfigMap", "Service")
                  for o in client.list("v1", kind, namespace) if o["metadata"]["name"] != "kube-root-ca.crt")


def _ours(kubeconfig, namespace, **kw):
    return run_release(module_params(name="a", namespace=namespace, kubeconfig=kubeconfig, **kw))


def test_uninstall_leaves_objects_of_another_release_as_helm_does(tmp_path, kubeconfig, namespace,
                                                                   reference_namespace, helm4):
    chart = write_chart(tmp_path, TEMPLATES)
    helm4.run("install", "a", chart, "-n", reference_namespace)
    _ours(kubeconfig, namespace, chart_ref=chart)
    for ns in (namespace, reference_namespace):
        _take_over(kubeconfig, ns)

    before = _left(kubeconfig, namespace)
    check, warnings = run_release(module_params(name="a", namespace=namespace, kubeconfig=kubeconfig,
                                                state="absent"), True, True)
    assert check["changed"] and check["api_requests"]["writes"] == 0
    actions = {p["name"]: p["action"] for p in check["plan"]}
    assert actions == {"shared-cm": "skip", "unlabelled": "skip", "mine": "delete", "kept": "keep",
                       "other-policy": "keep", "svc": "delete"}
    assert ("dry-run: would skip resource not owned by this release: kind=ConfigMap name=shared-cm namespace=%s "
            "release=a" % namespace) in warnings
    assert len([w for w in warnings if "would skip" in w]) == 2
    assert _left(kubeconfig, namespace) == before

    helms = helm4.run("uninstall", "a", "-n", reference_namespace)
    ours, warnings = _ours(kubeconfig, namespace, state="absent")
    assert ours["stdout"] == helms.stdout
    assert "2 resource(s) were not deleted because they are not owned by this release:\n[ConfigMap] " in ours["stdout"]
    assert ("skipping delete of resource not owned by this release: kind=ConfigMap name=shared-cm namespace=%s "
            "release=a" % namespace) in warnings
    assert _left(kubeconfig, namespace) == _left(kubeconfig, reference_namespace)
    assert _left(kubeconfig, namespace) == ["ConfigMap/kept", "ConfigMap/other-policy", "ConfigMap/shared-cm",
                                            "ConfigMap/unlabelled"]


def test_uninstall_leaves_objects_whose_ownership_cannot_be_read_as_helm_does(tmp_path, kubeconfig, namespace,
                                                                              reference_namespace, helm4,
                                                                              limited_kubeconfig):
    """A user who may not read Services: both leave the Service and name the server's refusal."""
    chart = write_chart(tmp_path, {"cm.yaml": TEMPLATES["cm.yaml"].split("---\n")[3], "svc.yaml": TEMPLATES["svc.yaml"]})
    helm4.run("install", "a", chart, "-n", reference_namespace)
    _ours(kubeconfig, namespace, chart_ref=chart)
    rules = [{"apiGroups": [""], "resources": ["secrets", "configmaps"],
              "verbs": ["get", "list", "create", "update", "patch", "delete"]},
             {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
              "verbs": ["get", "list", "create", "update", "patch", "delete"]},
             {"apiGroups": [""], "resources": ["services"], "verbs": ["delete"]}]
    limited = limited_kubeconfig(namespace, rules, name="no-svc-get")
    limited_reference = limited_kubeconfig(reference_namespace, rules, name="no-svc-get")

    helms = helm4.run("uninstall", "a", "-n", reference_namespace, "--kubeconfig", limited_reference)
    ours, warnings = _ours(limited, namespace, state="absent")
    assert ours["stdout"].replace(namespace, "<ns>") == helms.stdout.replace(reference_namespace, "<ns>")
    assert "1 resource(s) were not deleted because their ownership could not be verified:\n[Service] svc: " \
        in ours["stdout"]
    assert any(w.startswith("skipping delete of resource because ownership could not be verified: kind=Service")
               for w in warnings)
    assert _left(kubeconfig, namespace) == _left(kubeconfig, reference_namespace) == ["Service/svc"]
