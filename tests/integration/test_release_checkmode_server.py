"""Check mode asks the server: it fails where the real run fails (and where the real ``helm install`` fails:
Helm 4.3's ``--dry-run=server`` only catches unknown kinds), shows CRDs with the server's defaults and
marks what only the real create assigns."""
import time

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import ApiError
from ansible_collections.helmless.core.plugins.module_utils.plan.planner import ASSIGNED
from ansible_collections.helmless.core.plugins.module_utils.release.lease import Lease

from test_release_errors import _state
from test_release_support import (client_for, configmap, engine_for, job, literal_input, opts, prediction_matches,
                                  to_yaml, write_chart)

_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.helmless.io"},
    "spec": {"group": "example.helmless.io", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def _service(name, **spec):
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": dict({"selector": {"app": name}, "ports": [{"name": "http", "port": 80}]}, **spec)}


def _in(namespace, doc):
    doc["metadata"]["namespace"] = namespace
    return doc


def _fails_alike(kubeconfig, namespace, docs, helm4, tmp_path, crds=()):
    """Check mode and the real run fail with one message and change nothing; the real helm install fails too."""
    client = client_for(kubeconfig)
    before = _state(client, namespace)
    inp = literal_input(docs)
    inp.crds = list(crds)
    messages = []
    for check_mode in (True, False):
        eng = engine_for(kubeconfig, namespace)
        with pytest.raises(OperationError) as err:
            eng.present(inp, opts(check_mode=check_mode))
        messages.append(str(err.value))
        assert eng.client.count(writes_only=True, include_dry_run=False) == 0
    assert messages[0] == messages[1]
    assert _state(client, namespace) == before and engine_for(kubeconfig, namespace).history() == []
    chart = write_chart(tmp_path, {"%s.yaml" % d["metadata"]["name"]: to_yaml(d) for d in docs})
    proc = helm4.run("install", "rel", chart, "-n", namespace, check=False)
    assert proc.returncode != 0, proc.stdout
    return messages[0], proc.stderr


def test_an_object_in_a_namespace_that_does_not_exist_fails_check_mode_and_run_alike(
        kubeconfig, namespace, helm4, tmp_path):
    missing = namespace + "-gone"
    ours, helms = _fails_alike(kubeconfig, namespace, [configmap("a", {"k": "v"}), _in(missing, configmap("b", {}))],
                               helm4, tmp_path)
    assert 'namespaces "%s" not found' % missing in ours and 'namespaces "%s" not found' % missing in helms


def test_a_kind_the_cluster_does_not_know_fails_check_mode_and_run_alike(kubeconfig, namespace, helm4, tmp_path):
    issuer = {"apiVersion": "cert-manager.io/v1", "kind": "Issuer", "metadata": {"name": "selfsigned"},
              "spec": {"selfSigned": {}}}
    ours, helms = _fails_alike(kubeconfig, namespace, [configmap("a", {"k": "v"}), issuer], helm4, tmp_path)
    assert 'no matches for kind "Issuer" in version "cert-manager.io/v1"' in ours
    assert 'no matches for kind "Issuer" in version "cert-manager.io/v1"' in helms


def test_a_field_the_schema_does_not_declare_fails_check_mode_and_run_alike(kubeconfig, namespace, helm4, tmp_path):
    bad = configmap("b", {"k": "v"})
    bad["dta"] = {"typo": "yes"}
    ours, helms = _fails_alike(kubeconfig, namespace, [configmap("a", {"k": "v"}), bad], helm4, tmp_path)
    assert '.dta: field not declared in schema' in ours and '.dta: field not declared in schema' in helms


def test_a_kind_from_crds_is_planned_and_its_crd_predicted_with_server_defaults(kubeconfig, namespace):
    widget = {"apiVersion": "example.helmless.io/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"x": 1}}
    inp = literal_input([widget])
    inp.crds = [("demo/crds/widgets.yaml", to_yaml(_CRD))]
    try:
        check = engine_for(kubeconfig, namespace).present(inp, opts(check_mode=True))
        (crd,) = check.crds
        assert crd.after["spec"]["conversion"] == {"strategy": "None"}  # the server's default, not in the file
        assert crd.after["metadata"]["uid"] == ASSIGNED
        engine_for(kubeconfig, namespace).present(inp, opts())
        live = client_for(kubeconfig).get(_CRD["apiVersion"], _CRD["kind"], _CRD["metadata"]["name"])
        assert prediction_matches(live, crd.after)
    finally:
        client_for(kubeconfig).delete("apiextensions.k8s.io/v1", "CustomResourceDefinition", _CRD["metadata"]["name"])


def test_what_the_server_assigns_at_creation_is_marked_and_the_rest_predicted(kubeconfig, namespace):
    docs = [_service("np", type="NodePort"), _service("headless", clusterIP="None"),
            _service("fixed", type="NodePort", ports=[{"name": "http", "port": 80, "nodePort": 30111}]),
            job("once", [])]
    del docs[-1]["metadata"]["annotations"]
    inp = literal_input(docs)
    check = engine_for(kubeconfig, namespace).present(inp, opts(check_mode=True))
    after = {c.resource.name: c.after for c in check.changes}
    assert after["np"]["spec"]["clusterIP"] == ASSIGNED and after["np"]["spec"]["clusterIPs"] == ASSIGNED
    assert after["np"]["spec"]["ports"][0]["nodePort"] == ASSIGNED
    assert after["headless"]["spec"]["clusterIP"] == "None"
    assert after["fixed"]["spec"]["ports"][0]["nodePort"] == 30111
    assert after["once"]["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"] == ASSIGNED
    diff = {d["after_header"]: d["after"] for d in check.diff()}
    assert diff["Service/%s/np" % namespace]["metadata"]["uid"] == ASSIGNED
    engine_for(kubeconfig, namespace).present(inp, opts())
    client = client_for(kubeconfig)
    for change in check.changes:
        res = change.resource
        live = client.get(res.api_version, res.kind, res.name, namespace)
        assert prediction_matches(live, change.after), res.label()


def test_a_release_held_by_another_operation_fails_check_mode_and_run_alike(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v"})]), opts())
    with Lease(client_for(kubeconfig), namespace, "rel"):
        holder = engine_for(kubeconfig, namespace)
        last = holder.history()[-1]
        last["info"]["status"] = "pending-upgrade"
        holder.storage.update(last)
        client = client_for(kubeconfig)
        before = _state(client, namespace)
        messages, busy = [], r"another operation \(install/upgrade/rollback\) is in progress"
        for check_mode in (True, False):
            eng = engine_for(kubeconfig, namespace)
            with pytest.raises(OperationError, match=busy) as err:
                eng.present(literal_input([configmap("a", {"k": "v2"})]), opts(check_mode=check_mode))
            messages.append(str(err.value))
            assert eng.client.count(writes_only=True, include_dry_run=True) == 0
        assert messages[0] == messages[1] and _state(client, namespace) == before
        assert [r["info"]["status"] for r in engine_for(kubeconfig, namespace).history()] == ["pending-upgrade"]


def test_a_release_namespace_that_does_not_exist_fails_check_mode_and_run_alike(kubeconfig, namespace):
    missing = namespace + "-none"
    messages = []
    for check_mode in (True, False):
        eng = engine_for(kubeconfig, missing)
        with pytest.raises(OperationError) as err:
            eng.present(literal_input([configmap("a", {"k": "v"})]), opts(check_mode=check_mode))
        messages.append(str(err.value))
        assert eng.client.count(writes_only=True, include_dry_run=True) == 0
    assert messages[0] == messages[1] and 'namespaces "%s" not found' % missing in messages[0]
    assert client_for(kubeconfig).get("v1", "Namespace", missing) is None


def test_an_object_admission_denies_fails_check_mode_and_run_alike(kubeconfig, namespace, helm4, tmp_path):
    """A ValidatingAdmissionPolicy (also applied to dry runs) that denies one ConfigMap by name."""
    client = client_for(kubeconfig)
    denied = "denied-" + namespace
    policy = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
              "metadata": {"name": denied},
              "spec": {"failurePolicy": "Fail",
                       "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                               "operations": ["CREATE", "UPDATE"],
                                                               "resources": ["configmaps"]}]},
                       "validations": [{"expression": "object.metadata.name != '%s'" % denied,
                                        "message": "this name is not allowed here"}]}}
    binding = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
               "metadata": {"name": denied}, "spec": {"policyName": denied, "validationActions": ["Deny"]}}
    client.create(policy)
    client.create(binding)
    try:
        probe = dict(configmap(denied, {}), metadata={"name": denied, "namespace": namespace})
        for _ in range(100):  # the policy takes effect once the API server's informer has it
            try:
                client.create(probe, dry_run=True)
            except ApiError:
                break
            time.sleep(0.1)
        ours, helms = _fails_alike(kubeconfig, namespace, [configmap("a", {"k": "v"}), configmap(denied, {})],
                                   helm4, tmp_path)
        assert "this name is not allowed here" in ours and "this name is not allowed here" in helms
    finally:
        client.delete(binding["apiVersion"], binding["kind"], denied)
        client.delete(policy["apiVersion"], policy["kind"], denied)


def _new_namespace_docs(name):
    """Objects whose creation adds defaults (Service, Deployment, NetworkPolicy), admission results (a PVC's
    finalizer), a strategy's annotation (DaemonSet) and name-derived labels (Job), plus a custom resource
    whose CRD is installed already."""
    pod = {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
    workload = {"selector": {"matchLabels": {"app": name}}, "template": pod}
    return [
        _service("svc", type="LoadBalancer"),
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": dict(workload, minReadySeconds=0)},
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"}, "spec": workload},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
        {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "np"},
         "spec": {"podSelector": {}, "ingress": [{"ports": [{"port": 80}]}]}},
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name + "-job"},
         "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name + "-cm"}, "data": {"k": "v"}},
        {"apiVersion": name + ".helmless.io/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {}},
    ]


def _defaulted_crd(group):
    """A namespaced kind whose schema defaults ``spec.size`` (a group of its own: a CRD deleted by an earlier
    test may still be terminating)."""
    return dict(_CRD, metadata={"name": "gadgets." + group}, spec=dict(
        _CRD["spec"], group=group,
        names={"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
        versions=[{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
            "type": "object", "properties": {"spec": {"type": "object", "properties": {
                "size": {"type": "integer", "default": 3}}}}}}}]))


@pytest.mark.parametrize("method", ["csa", "ssa"])
def test_an_install_into_a_namespace_that_does_not_exist_yet_is_previewed_with_what_the_server_adds(
        kubeconfig, namespace, method):
    client = client_for(kubeconfig)
    new = namespace + "-new"
    name = "w" + namespace[2:]  # unique, and also the name of objects the stand-in namespace already holds
    docs = _new_namespace_docs(name)
    taken = [d for d in docs if d["kind"] in ("Job", "ConfigMap")]
    crd = _defaulted_crd(name + ".helmless.io")
    client.create(crd)
    try:
        for doc in taken:  # the dry run cannot use these names in the stand-in namespace
            client.create(dict(doc, metadata=dict(doc["metadata"], namespace="default")))
        _wait_served(client, name + ".helmless.io/v1", "Gadget")
        strategy = {"csa": {}, "ssa": {"strategy": "server-side"}}[method]
        inp = literal_input(docs)
        check = engine_for(kubeconfig, new).present(inp, opts(check_mode=True, create_namespace=True, **strategy))
        assert client.get("v1", "Namespace", new) is None
        after = {c.resource.name: c.after for c in check.changes}
        assert after["svc"]["spec"]["internalTrafficPolicy"] == "Cluster"
        assert after["svc"]["spec"]["allocateLoadBalancerNodePorts"] is True
        assert after[name]["spec"]["progressDeadlineSeconds"] == 600 and "minReadySeconds" not in after[name]["spec"]
        assert "kubernetes.io/pvc-protection" in after["data"]["metadata"]["finalizers"]
        assert after["ds"]["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "1"
        assert after["np"]["spec"]["ingress"][0]["ports"][0]["protocol"] == "TCP"
        assert after["g"]["spec"]["size"] == 3
        assert after[name + "-job"]["spec"]["template"]["metadata"]["labels"]["job-name"] == name + "-job"
        assert {c.after["metadata"]["namespace"] for c in check.changes} == {new}
        (namespace_diff,) = [d for d in check.diff() if d["after"].get("kind") == "Namespace"]
        assert namespace_diff["after"]["metadata"]["labels"]["kubernetes.io/metadata.name"] == new

        engine_for(kubeconfig, new).present(inp, opts(create_namespace=True, **strategy))
        for change in check.changes:
            res = change.resource
            live = client.get(res.api_version, res.kind, res.name, new)
            assert prediction_matches(live, change.after), res.label()
        assert prediction_matches(client.get("v1", "Namespace", new), namespace_diff["after"])
    finally:
        for doc in taken:
            client.delete(doc["apiVersion"], doc["kind"], doc["metadata"]["name"], "default")
        if client.get("v1", "Namespace", new) is not None:
            client.delete("v1", "Namespace", new)
        client.delete(crd["apiVersion"], crd["kind"], crd["metadata"]["name"])


def _wait_served(client, api_version, kind, seconds=30):
    deadline = time.monotonic() + seconds
    while True:
        client.discovery.invalidate()
        if client.discovery.has(api_version, kind):
            return
        assert time.monotonic() < deadline, "%s %s not served" % (api_version, kind)
        time.sleep(0.5)
