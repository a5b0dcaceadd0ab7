"""Impersonation: a task acts as another user or a ServiceAccount, with exactly that identity's rights (real
RBAC on the local control plane), from the options or from the kubeconfig's ``as`` family, as kubectl does."""
import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.ansible.batch import run_releases
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, connect, run_release

from test_release_support import client_for, module_params, write_chart

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  v: {{ .Values.v | quote }}\n"
SERVICE = ("{{- if .Values.service }}\napiVersion: v1\nkind: Service\nmetadata:\n  name: app\nspec:\n"
           "  ports: [{port: 80}]\n{{- end }}\n")
# what a release of ConfigMaps needs in its namespace: its records (Secrets) and its objects
DEPLOYER = [{"apiGroups": [""], "resources": ["secrets", "configmaps"],
             "verbs": ["get", "list", "create", "update", "patch", "delete"]}]


def _whoami(params):
    """The user the API server sees for these connection options (a SelfSubjectReview)."""
    client = connect(params)
    review = client.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                            body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    return review["status"]["userInfo"]


def _records(kubeconfig, namespace):
    return sorted(s["metadata"]["name"] for s in client_for(kubeconfig).list("v1", "Secret", namespace, "owner=helm"))


def test_the_kubeconfig_as_family_and_the_options_are_who_the_api_server_sees(tmp_path, kubeconfig):
    with open(kubeconfig) as handle:
        config = yaml.safe_load(handle)
    config["users"][0]["user"].update({"as": "jane", "as-groups": ["devs", "ops"], "as-uid": "1234",
                                       "as-user-extra": {"example.com/team": ["blue"]}})
    path = tmp_path / "as.kubeconfig"
    path.write_text(yaml.safe_dump(config))
    base = module_params(name="x", namespace="default", kubeconfig=str(path))
    user = _whoami(base)
    assert (user["username"], user["uid"], user["extra"]) == ("jane", "1234", {"example.com/team": ["blue"]})
    assert set(user["groups"]) == {"devs", "ops", "system:authenticated"}
    # an option replaces its kubeconfig field, the others stay (kubectl --as over a kubeconfig's as-groups)
    user = _whoami(dict(base, impersonate_user="joe", impersonate_extra={"reason": "audit me"}))
    assert (user["username"], user["extra"]) == ("joe", {"reason": ["audit me"]})
    assert set(user["groups"]) == {"devs", "ops", "system:authenticated"}
    user = _whoami(module_params(name="x", namespace="apps", kubeconfig=kubeconfig, service_account="deployer"))
    assert user["username"] == "system:serviceaccount:apps:deployer"  # the API server adds its groups
    assert {"system:serviceaccounts", "system:serviceaccounts:apps"} <= set(user["groups"])


def test_a_release_as_a_namespaced_service_account_has_exactly_its_rights(
        tmp_path, kubeconfig, namespace, reference_namespace, limited_kubeconfig):
    limited_kubeconfig(namespace, DEPLOYER, name="deployer")
    chart = write_chart(tmp_path, {"cm.yaml": CONFIGMAP, "svc.yaml": SERVICE}, values={"v": "1", "service": False})
    params = module_params(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                           service_account="deployer")
    result, _ = run_release(params)
    assert result["changed"] and result["status"]["status"] == "deployed"
    assert "--kube-as-user=system:serviceaccount:%s:deployer" % namespace in result["command"]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "app", namespace)["data"] == {"v": "1"}

    # a Service is beyond its Role: refused before anything is written (reading what is live comes first),
    # naming verb, resource and identity
    with pytest.raises(ModuleFailure) as refused:
        run_release(dict(params, release_values={"v": "2", "service": True}))
    assert ('services "app" is forbidden: User "system:serviceaccount:%s:deployer" cannot get resource '
            '"services" in API group "" in the namespace "%s"' % (namespace, namespace)) in str(refused.value)
    assert _records(kubeconfig, namespace) == ["sh.helm.release.v1.web.v1"]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "app", namespace)["data"] == {"v": "1"}

    # another namespace: its release history cannot even be read; nothing is written there
    elsewhere = dict(params, release_namespace=reference_namespace, service_account="%s/deployer" % namespace)
    with pytest.raises(ModuleFailure) as denied:
        run_release(elsewhere)
    assert ('User "system:serviceaccount:%s:deployer" cannot list resource "secrets" in API group "" in the '
            'namespace "%s"' % (namespace, reference_namespace)) in str(denied.value)
    assert _records(kubeconfig, reference_namespace) == []
    assert client_for(kubeconfig).get("v1", "ConfigMap", "app", reference_namespace) is None

    # a fleet: each release as the ServiceAccount named in its own namespace (Flux's serviceAccountName)
    fleet = {k: v for k, v in params.items() if k in ("kubeconfig", "service_account")}
    item = {k: v for k, v in params.items() if k not in fleet}
    with pytest.raises(ModuleFailure) as partly:
        run_releases(dict(fleet, releases=[dict(item, release_values={"v": "3", "service": False}),
                                           dict(item, release_namespace=reference_namespace)]))
    ok, failed = partly.value.result["results"]
    assert ok["changed"] and not ok.get("failed") and failed["failed"]
    assert 'User "system:serviceaccount:%s:deployer" cannot list' % reference_namespace in failed["msg"]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "app", namespace)["data"] == {"v": "3"}


def test_an_identity_that_may_not_impersonate_is_refused_naming_both(tmp_path, namespace, limited_kubeconfig):
    own = limited_kubeconfig(namespace, DEPLOYER, name="plain")
    chart = write_chart(tmp_path, {"cm.yaml": CONFIGMAP}, values={"v": "1", "service": False})
    with pytest.raises(ModuleFailure) as refused:
        run_release(module_params(name="web", namespace=namespace, chart_ref=chart, kubeconfig=own,
                                  impersonate_user="admin", impersonate_groups=["system:masters"]))
    assert ('User "system:serviceaccount:%s:plain" cannot impersonate resource "users" in API group "" at the '
            'cluster scope' % namespace) in str(refused.value)
    with pytest.raises(ModuleFailure, match="service_account and impersonate_user are mutually exclusive"):
        run_release(module_params(name="web", namespace=namespace, chart_ref=chart, kubeconfig=own,
                                  impersonate_user="a", service_account="b"))
