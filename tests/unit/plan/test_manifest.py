from ansible_collections.helmless.core.plugins.module_utils.plan.manifest import (
    ManifestError, keeps_resource, ownership_problem, parse_manifest, sort_resources, with_ownership,
    UNINSTALL_ORDER)

import pytest

MANIFEST = """---
# Source: c/templates/svc.yaml
apiVersion: v1
kind: Service
metadata:
  name: s
---
# Source: c/templates/deploy.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  namespace: other
---
# Source: c/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
"""


def test_manifest_documents_keep_their_source_and_identity():
    res = parse_manifest(MANIFEST)
    assert [r.source for r in res] == ["c/templates/svc.yaml", "c/templates/deploy.yaml", "c/templates/cm.yaml"]
    assert res[1].key("ns") == ("apps", "Deployment", "other", "d")
    assert res[0].key("ns") == ("", "Service", "ns", "s")


def test_resources_sort_in_helm_install_and_uninstall_order():
    res = parse_manifest(MANIFEST)
    assert [r.kind for r in sort_resources(res)] == ["ConfigMap", "Service", "Deployment"]
    assert [r.kind for r in sort_resources(res, UNINSTALL_ORDER)] == ["Service", "Deployment", "ConfigMap"]


def test_a_document_without_kind_is_an_error_naming_its_source():
    with pytest.raises(ManifestError, match="c/templates/x.yaml"):
        parse_manifest("---\n# Source: c/templates/x.yaml\nfoo: bar\n")


def test_ownership_markers_are_added_and_checked():
    obj = with_ownership({"kind": "ConfigMap", "metadata": {"name": "c"}}, "rel", "ns")
    assert obj["metadata"]["labels"] == {"app.kubernetes.io/managed-by": "Helm"}
    assert ownership_problem(obj, "rel", "ns") is None
    assert 'current value is "rel"' in ownership_problem(obj, "other", "ns")
    assert 'missing key "app.kubernetes.io/managed-by"' in ownership_problem({"metadata": {}}, "rel", "ns")


def test_resource_policy_keep_is_trimmed_and_case_insensitive():
    assert keeps_resource({"metadata": {"annotations": {"helm.sh/resource-policy": " Keep "}}})
    assert not keeps_resource({"metadata": {"annotations": {"helm.sh/resource-policy": "delete"}}})


def test_dates_stay_strings_as_kubernetes_reads_them():
    res = parse_manifest("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  day: 2026-01-01\n")
    assert res[0].obj["data"]["day"] == "2026-01-01"


def test_documents_are_read_as_go_reads_them_also_crd_files_with_a_plain_equals_sign():
    # kube-prometheus-stack's CRDs list the match type `- =`: PyYAML's SafeLoader refused it (a `value` tag)
    import corpuskit
    from ansible_collections.helmless.core.plugins.module_utils import goyaml
    text = corpuskit.read("kube-prometheus-stack", "charts/crds/crds/crd-alertmanagerconfigs.yaml").decode("utf-8")
    crd = parse_manifest(text)[0].obj
    assert crd == goyaml.load(text)  # the loader the renderer uses (sigs.k8s.io/yaml semantics)
    assert "'='" in repr(crd)  # the plain scalar = is the string "="


def test_whole_numbers_stay_json_integers_as_yaml_to_json_writes_them():
    res = parse_manifest("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 2\n"
                         "  ratio: 0.5\n")
    assert type(res[0].obj["spec"]["replicas"]) is int and res[0].obj["spec"]["ratio"] == 0.5
