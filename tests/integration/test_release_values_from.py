"""values_from: values that live in the cluster (ConfigMaps, Secrets), read as Flux's valuesFrom before anything is
written, merged first (then values files, values, set values); the values of Secrets never shown."""
import base64
import json

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.ansible.options import TEMPLATE
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import (
    ModuleFailure, run_release, run_template_task)

from test_release_support import client_for, module_params, write_chart

PASSWORD = "s3cr3t-Pa55word"
TOKEN = "tok-0123456789abc"
TEMPLATES = {"cm.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  host: {{ .Values.database.host | quote }}
  port: {{ .Values.database.port | quote }}
  url: "postgres://app:{{ .Values.database.password }}@{{ .Values.database.host }}/app"
  token: {{ .Values.apiToken | quote }}
  tier: {{ .Values.tier | quote }}
"""}


def _configmap(name, data):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def _secret(name, data):
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}


SOURCES = [{"kind": "ConfigMap", "name": "db-endpoint"},
           {"kind": "Secret", "name": "db-creds", "values_key": "password", "target_path": "database.password"},
           {"kind": "Secret", "name": "api", "values_key": "token.yaml"},
           {"kind": "ConfigMap", "name": "absent", "optional": True}]


@pytest.fixture
def sources(kubeconfig, namespace):
    client = client_for(kubeconfig)
    client.create(_configmap("db-endpoint", {"values.yaml": "database:\n  host: db.prod.svc\n  port: 5432\n"
                                                            "tier: from-configmap\n"}), namespace)
    client.create(_secret("db-creds", {"password": PASSWORD}), namespace)
    client.create(_secret("api", {"token.yaml": "apiToken: %s\ntier: from-secret\n" % TOKEN}), namespace)
    return client


def _records(client, namespace):
    return client.list("v1", "Secret", namespace, "owner=helm")


def test_values_from_a_configmap_and_secrets_are_previewed_and_installed_with_the_secrets_never_shown(
        tmp_path, kubeconfig, namespace, sources):
    chart = write_chart(tmp_path, TEMPLATES, values={"database": {"host": "localhost", "port": 1}, "apiToken": "",
                                                      "tier": "chart"})
    params = module_params(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                           values_from=SOURCES, values={"database": {"port": 6432}})
    preview, _ = run_release(params, check_mode=True, diff=True)
    assert preview["changed"] and _records(sources, namespace) == []  # read, planned, nothing written
    installed, _ = run_release(params, diff=True)
    live = sources.get("v1", "ConfigMap", "app", namespace)["data"]
    # in order: the ConfigMap, the Secret's value at its path, the other Secret over both; values over them all
    assert live == {"host": "db.prod.svc", "port": "6432", "url": "postgres://app:%s@db.prod.svc/app" % PASSWORD,
                    "token": TOKEN, "tier": "from-secret"}
    for result in (preview, installed):
        shown = json.dumps(result)
        assert PASSWORD not in shown and TOKEN not in shown
        assert "db.prod.svc" in shown  # a ConfigMap's values are no secret
    assert "values_from[0] (ConfigMap %s/db-endpoint, key values.yaml)" % namespace in " ".join(installed["progress"])
    again, _ = run_release(params)
    assert not again["changed"]


@pytest.mark.parametrize("source, why", [
    ({"kind": "ConfigMap", "name": "missing"}, "values_from[0] (ConfigMap {ns}/missing, key values.yaml): not found"),
    ({"kind": "Secret", "name": "db-creds", "values_key": "user"},
     "values_from[0] (Secret {ns}/db-creds, key user): no key user (its keys: password)"),
    ({"kind": "ConfigMap", "name": "bad-yaml"},
     "values_from[0] (ConfigMap {ns}/bad-yaml, key values.yaml): the YAML does not parse: "),
    ({"kind": "Secret", "name": "db-creds", "namespace": "kube-system"},
     'values_from[0] (Secret kube-system/db-creds, key values.yaml): cannot be read: secrets "db-creds" is '
     'forbidden: User "system:serviceaccount:{ns}:deployer" cannot get resource "secrets" in API group "" in the '
     'namespace "kube-system"'),
])
def test_a_bad_source_is_a_clear_error_naming_it_and_nothing_is_written(
        tmp_path, kubeconfig, namespace, sources, limited_kubeconfig, source, why):
    limited_kubeconfig(namespace, [{"apiGroups": [""], "resources": ["secrets", "configmaps"],
                                    "verbs": ["get", "list", "create", "update", "patch", "delete"]}], name="deployer")
    sources.create(_configmap("bad-yaml", {"values.yaml": "a: [unclosed\n"}), namespace)
    chart = write_chart(tmp_path, TEMPLATES, values={"database": {"host": "h", "port": 1}, "apiToken": "",
                                                      "tier": "chart"})
    for check_mode in (True, False):
        with pytest.raises(ModuleFailure) as failed:
            run_release(module_params(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                                      service_account="deployer", values_from=[source]), check_mode=check_mode)
        assert str(failed.value).startswith(why.format(ns=namespace)), str(failed.value)
    assert _records(sources, namespace) == [] and sources.get("v1", "ConfigMap", "app", namespace) is None


def test_template_reads_values_from_the_cluster_its_connection_names(tmp_path, kubeconfig, namespace, sources):
    chart = write_chart(tmp_path, TEMPLATES, values={"database": {"host": "h", "port": 1}, "apiToken": "",
                                                      "tier": "chart"})
    params = dict({name: opt.get("default") for name, opt in TEMPLATE.items()}, chart_ref=chart,
                  release_name="web", release_namespace=namespace, kubeconfig=kubeconfig, values_from=SOURCES[:1],
                  set_values=[{"value": "tier=from-set", "value_type": "raw"}])
    rendered, _ = run_template_task(params)
    data = yaml.safe_load(rendered["stdout"].split("---", 2)[-1])["data"]
    assert (data["host"], data["port"], data["tier"]) == ("db.prod.svc", "5432", "from-set")
