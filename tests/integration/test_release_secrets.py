"""A Secret's values and the task's credentials appear nowhere in a task's result or failure, also where the
API server quotes them back: a 422 ``Invalid value`` and a ValidatingAdmissionPolicy's message, in check
mode and real runs, in progress lines, partial results, failed revisions' descriptions and release_info.
``show_secrets`` shows the Secret values (never credentials)."""
import base64
import json
import time
import uuid

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import (ModuleFailure, run_info, run_release,
                                                                                   run_rollback)
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import ApiError

from test_release_support import client_for, module_params, write_chart

SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: creds
  labels:
    example.com/token: {{ .Values.token | quote }}
stringData:
  token: {{ .Values.token | quote }}
"""
HOOK = """apiVersion: v1
kind: Secret
metadata:
  name: hook-creds
  annotations:
    helm.sh/hook: pre-install
stringData:
  password: {{ .Values.password | quote }}
"""
OBJECT = HOOK.replace("hook-creds", "app-creds").replace("  annotations:\n    helm.sh/hook: pre-install\n", "")


def _b64(text):
    return base64.b64encode(text.encode()).decode()


def _failure(params, check_mode=False, diff=True):
    """The whole failed task as Ansible would return it: its message and partial result, serialized."""
    with pytest.raises(ModuleFailure) as info:
        run_release(params, check_mode=check_mode, diff=diff)
    return str(info.value), json.dumps(info.value.result)


@pytest.mark.parametrize("check_mode", [True, False])
def test_a_secret_value_quoted_by_the_api_server_is_masked_unless_show_secrets(tmp_path, kubeconfig, namespace,
                                                                               check_mode):
    token = "tok" + uuid.uuid4().hex * 2  # 67 characters: too long for a label value, which the server quotes
    chart = write_chart(tmp_path, {"secret.yaml": SECRET})
    params = module_params(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                           release_values={"token": token})
    message, result = _failure(params, check_mode)
    assert "metadata.labels: Invalid value: " in message and "must be no more than 63" in message
    assert token not in message + result and _b64(token) not in message + result
    assert message in json.loads(result)["stderr"]  # the partial result carries the (masked) error too
    shown, _ = _failure(dict(params, show_secrets=True), check_mode)
    assert 'Invalid value: "%s"' % token in shown


@pytest.fixture
def deny_passwords(kubeconfig, namespace):
    """``enable()`` makes a ValidatingAdmissionPolicy deny real (not dry-run) writes of Secrets with a
    ``password`` in the test's namespace, with a message quoting the value (as the server stores it: base64)."""
    client = client_for(kubeconfig)
    name = "deny-passwords-" + namespace
    enabled = []

    def enable():
        enabled.append(name)
        client.create({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                       "metadata": {"name": name},
                       "spec": {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [{
                           "apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
                           "resources": ["secrets"]}]},
                           "validations": [{
                               "expression": "request.dryRun == true || !has(object.data) || !('password' in object.data)",
                               "messageExpression": "'password ' + object.data.password + ' is not allowed'"}]}})
        client.create({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                       "metadata": {"name": name},
                       "spec": {"policyName": name, "validationActions": ["Deny"], "matchResources": {
                           "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}}}})
        probe = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "probe"}, "stringData": {"password": "x"}}
        deadline = time.monotonic() + 60
        while True:  # the policy is enforced once the API server has loaded it
            try:
                client.create(probe, namespace)
            except ApiError as exc:
                if "is not allowed" in exc.message:
                    return
                raise
            client.delete("v1", "Secret", "probe", namespace)
            assert time.monotonic() < deadline, "the admission policy was never enforced"
            time.sleep(0.5)
    yield enable
    if enabled:
        client.delete("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", name)
        client.delete("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", name)


@pytest.mark.parametrize("template", [OBJECT, HOOK], ids=["object", "hook"])
def test_a_secret_value_an_admission_policy_quotes_is_masked_in_the_run_its_record_and_release_info(
        tmp_path, kubeconfig, namespace, deny_passwords, template):
    deny_passwords()
    password = "pw-" + uuid.uuid4().hex
    chart = write_chart(tmp_path, {"secret.yaml": template})
    params = module_params(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                           release_values={"password": password})
    preview, _ = run_release(params, check_mode=True, diff=True)  # dry runs pass the policy
    assert password not in json.dumps(preview) and _b64(password) not in json.dumps(preview)
    message, result = _failure(params)
    assert "denied request: password " in message
    assert password not in message + result and _b64(password) not in message + result
    assert json.loads(result)["status"]["status"] == "failed"
    info = {"release_name": "rel", "release_namespace": namespace, "kubeconfig": kubeconfig, "release_state": []}
    described, _ = run_info(info)
    listed, _ = run_info(dict(info, release_name=None))
    assert "denied request: password " in described["status"]["description"]
    for shown in (described, listed):
        assert password not in json.dumps(shown) and _b64(password) not in json.dumps(shown)
    revealed, _ = run_info(dict(info, show_secrets=True))
    assert "password %s is not allowed" % _b64(password) in revealed["status"]["description"]


def test_a_rollback_the_policy_refuses_masks_the_value_of_the_revision_it_returns_to(tmp_path, kubeconfig, namespace,
                                                                                     deny_passwords):
    old, new = "pw-old-" + uuid.uuid4().hex, "pw-new-" + uuid.uuid4().hex
    chart = write_chart(tmp_path, {"secret.yaml": OBJECT})
    base = dict(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig)
    run_release(module_params(release_values={"password": old}, **base))
    run_release(module_params(release_values={"password": new}, **base))
    deny_passwords()
    with pytest.raises(ModuleFailure) as info:
        run_rollback(module_params("rollback", name="rel", namespace=namespace, kubeconfig=kubeconfig, revision=1))
    message, result = str(info.value), json.dumps(info.value.result)
    assert "denied request: password " in message
    for value in (old, new):
        assert value not in message + result and _b64(value) not in message + result


def test_a_kubeconfig_token_in_a_failing_task_is_in_no_result(tmp_path, kubeconfig, controlplane):
    token = "tok-" + uuid.uuid4().hex
    with open(kubeconfig) as handle:
        config = yaml.safe_load(handle)
    for user in config["users"]:
        user["user"] = {"token": token + "\n"}  # a stray newline: the header is refused
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(config))
    chart = write_chart(tmp_path, {"secret.yaml": OBJECT})
    message, result = _failure(module_params(name="rel", namespace="default", chart_ref=chart, kubeconfig=str(path),
                                             release_values={"password": "pw"}))
    assert "Invalid header value for Authorization: it holds a line break" in message
    assert token not in message + result
