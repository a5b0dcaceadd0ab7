"""Secret values and credentials are masked in every string a task reports (actions/redaction.py, ansible/secrets.py)."""
import base64

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.redaction import (MASK, Redactor, record_secrets,
                                                                                      secret_strings)
from ansible_collections.helmless.core.plugins.module_utils.actions.report import CHANGED, REDACTED, redact, redact_pair
from ansible_collections.helmless.core.plugins.module_utils.ansible.commands import release_command
from ansible_collections.helmless.core.plugins.module_utils.ansible.secrets import (credentials, note_release,
                                                                                    redacted)
from ansible_collections.helmless.core.plugins.module_utils.errors import HelmlessError

MANIFEST = """---
# Source: demo/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  plain: not-a-secret
---
# Source: demo/templates/secret.yaml
apiVersion: v1
kind: Secret
metadata:
  name: creds
data:
  password: %s
stringData:
  token: tok-Plain-Value
---
# Source: demo/templates/json.yaml
{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "j"}, "stringData": {"k": "json-form-value"}}
""" % base64.b64encode(b"decoded-pass").decode()


def _b64(text):
    return base64.b64encode(text.encode()).decode()


def test_secret_values_are_collected_as_written_base64_and_decoded():
    found = secret_strings(MANIFEST)
    assert {"decoded-pass", _b64("decoded-pass"), "tok-Plain-Value", _b64("tok-Plain-Value"),
            "json-form-value"} <= found
    assert "not-a-secret" not in found


@pytest.mark.parametrize("kind", ["kind: Secret", "kind: 'Secret'", 'kind: "Secret"', "kind: !!str Secret",
                                  "'kind': Secret", "kind:   Secret   # the Secret"])
def test_a_secret_is_read_however_its_kind_is_spelled(kind):
    doc = "---\n# Source: demo/templates/s.yaml\napiVersion: v1\n%s\nmetadata:\n  name: s\nstringData:\n  k: spelled-value\n"
    assert "spelled-value" in secret_strings(doc % kind)


def test_documents_that_only_mention_secrets_are_not_secrets():
    crd = ("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    note: a Secret kind\n"
           "data:\n  secretRef: Secret name\n  other: SecretProviderClass\n")
    assert secret_strings(crd) == set()


def test_hook_secrets_of_a_record_are_collected():
    record = {"manifest": "", "hooks": [{"kind": "Secret", "manifest": MANIFEST.split("---")[2]}]}
    assert "decoded-pass" in record_secrets([record])


def test_a_secret_inside_a_message_is_masked_and_a_whole_value_is_replaced():
    redactor = Redactor()
    redactor.add(secret_strings(MANIFEST))
    message = 'Secret "creds" is invalid: metadata.labels: Invalid value: "decoded-pass": bad'
    assert redactor.text(message) == 'Secret "creds" is invalid: metadata.labels: Invalid value: "%s": bad' % MASK
    assert redactor.text("tok-Plain-Value") == REDACTED
    assert redactor.value({"a": ["x decoded-pass y", {"b": _b64("tok-Plain-Value")}], "n": 3}) == \
        {"a": ["x %s y" % MASK, {"b": REDACTED}], "n": 3}


def test_a_multi_line_value_is_masked_where_a_go_quoted_message_escapes_it():
    redactor = Redactor()
    redactor.add(["line-one\nline-two"])
    assert redactor.text('Invalid value: "line-one\\nline-two"') == 'Invalid value: "%s"' % MASK


def test_short_values_the_release_names_and_statuses_are_not_masked():
    redactor = Redactor(credentials=["t"], keep=("web-app", "apps-prod"))
    redactor.add(["on", "web-app", "apps-prod", "deployed", "unchanged"])
    assert redactor.text("web-app in apps-prod: on at https://x") == "web-app in apps-prod: on at https://x"
    assert redactor.value({"status": "deployed", "plan": [{"action": "unchanged"}]}) == \
        {"status": "deployed", "plan": [{"action": "unchanged"}]}


def test_a_url_password_is_masked_only_when_it_is_a_known_secret_never_for_its_shape():
    redactor = Redactor(credentials=["repo-pw-1"])
    redactor.add(["hunter22"])
    untouched = ("mongodb://${APPSMITH_DATABASE_USER}:${APPSMITH_DATABASE_PASSWORD}@${host}:27017/db",
                 "postgres://app:$(DB_PASSWORD)@db:5432/app", "mysql://root:not-a-secret@db/x",
                 "oci://registry:5000/charts/app@sha256:ab")
    for text in untouched:
        assert redactor.text(text) == text
        assert redactor.value({"diff": [{"after": {"v": text}}]}, ("diff",)) == {"diff": [{"after": {"v": text}}]}
    assert redactor.text("https://deploy:repo-pw-1@charts.example/x") == "https://deploy:%s@charts.example/x" % MASK
    shown = redactor.value({"diff": [{"after": {"url": "postgres://app:hunter22@db/app", "word": "hunter22"}}]},
                           ("diff",))
    assert shown == {"diff": [{"after": {"url": "postgres://app:%s@db/app" % MASK, "word": "hunter22"}}]}


def test_credentials_are_masked_with_their_basic_auth_form():
    params = {"api_key": "t0ken", "repo_username": "deploy", "repo_password": "pw!?"}
    found = credentials(params)
    assert {"t0ken", "pw!?", _b64("deploy:pw!?")} <= found
    assert Redactor(found).text("Bearer t0ken, Basic %s" % _b64("deploy:pw!?")) == "Bearer %s, Basic %s" % (MASK, MASK)
    urls = {"chart_repo_url": "https://u:repo-pw@h/x", "values_files": ["v.yaml", "https://a:values-pw@h/v.yaml"]}
    assert {"repo-pw", "values-pw"} <= credentials(urls)  # also for Ansible's no_log values (the invocation)


def test_credentials_of_an_inline_kubeconfig_are_found_and_it_is_not_in_the_command():
    inline = "apiVersion: v1\nusers:\n- name: u\n  user:\n    token: inline-tok\n"
    assert "inline-tok" in credentials({"kubeconfig": inline})
    command = release_command({"release_name": "r", "release_namespace": "n", "chart_ref": "c", "kubeconfig": inline})
    assert "inline-tok" not in command and "--kubeconfig" not in command
    assert "--kubeconfig=/k/config" in release_command({"release_name": "r", "release_namespace": "n",
                                                       "chart_ref": "c", "kubeconfig": "/k/config"})


class _Failure(HelmlessError):
    def __init__(self, message, result):
        super().__init__(message)
        self.result = result
        self.warnings = ["warned about decoded-pass"]


@redacted
def _runner(params, fail=False):
    note_release([{"manifest": MANIFEST}])
    if fail:
        try:
            raise ValueError("low level: decoded-pass")
        except ValueError as exc:
            raise _Failure("failed: decoded-pass with t0ken-x", {"progress": ["apply: decoded-pass"]}) from exc
    return {"msg": "ok decoded-pass", "command": "helm --api t0ken-x"}, ["warning decoded-pass"]


def test_a_runner_result_and_warnings_are_masked_unless_show_secrets():
    result, warnings = _runner({"api_key": "t0ken-x"})
    assert result == {"msg": "ok %s" % MASK, "command": "helm --api %s" % MASK} and warnings == ["warning %s" % MASK]
    result, _ = _runner({"api_key": "t0ken-x", "show_secrets": True})
    assert result == {"msg": "ok decoded-pass", "command": "helm --api %s" % MASK}  # credentials stay hidden


def test_a_runner_failure_is_masked_with_its_partial_result_warnings_and_cause():
    with pytest.raises(_Failure) as info:
        _runner({"api_key": "t0ken-x"}, fail=True)
    assert str(info.value) == "failed: %s with %s" % (MASK, MASK)
    assert info.value.result == {"progress": ["apply: %s" % MASK]}
    assert info.value.warnings == ["warned about %s" % MASK]
    assert str(info.value.__cause__) == "low level: %s" % MASK


def test_a_secret_value_is_masked_as_a_whole_token_never_inside_a_word_or_identifier():
    redactor = Redactor()
    redactor.add(["admin"])
    untouched = ("key: admin-user", "id: \"${chart-admin-username}\"", "admin_id", "https://admin.example/x",
                 "administrator", "x-admin", "ns.admin")
    for text in untouched:
        assert redactor.text(text) == text
    assert redactor.text("Get your 'admin' user password") == "Get your '%s' user password" % MASK
    assert redactor.text("the password is admin.") == "the password is %s." % MASK
    assert redactor.text('Invalid value: "admin": bad, admin-user kept') == \
        'Invalid value: "%s": bad, admin-user kept' % MASK


def test_credentials_are_masked_even_inside_a_word():
    redactor = Redactor(credentials=["t0ken"])
    assert redactor.text("Bearer xt0kenx") == "Bearer x%sx" % MASK


def test_values_read_from_a_secret_are_masked_in_objects_too_as_whole_tokens():
    redactor = Redactor()
    redactor.add_known(["s3cr3t-from-cluster"])
    result = {"msg": "got s3cr3t-from-cluster", "diff": [{"after": {"cmd": "login --pw=s3cr3t-from-cluster",
                                                                    "env": "s3cr3t-from-cluster", "id": "xs3cr3t-from-cluster"}}]}
    assert redactor.value(result, ("diff",)) == {"msg": "got %s" % MASK, "diff": [{"after": {
        "cmd": "login --pw=%s" % MASK, "env": REDACTED, "id": "xs3cr3t-from-cluster"}}]}


def test_every_no_log_option_is_a_credential():
    found = credentials({"sql_connection_string": "host=db password=pg-Secret-1 dbname=helm",
                         "chart_repo_password": "chart-pw-2"})
    assert {"host=db password=pg-Secret-1 dbname=helm", "chart-pw-2"} <= found


def test_object_keys_of_a_result_mask_only_credentials():
    redactor = Redactor(credentials=["t0ken-x"])
    redactor.add(["admin"])
    result = {"msg": "user admin", "diff": [{"after": {"env": [{"key": "admin", "t": "t0ken-x"}]}}],
              "plan": [{"name": "admin"}]}
    assert redactor.value(result, ("diff", "plan")) == {
        "msg": "user %s" % MASK, "diff": [{"after": {"env": [{"key": "admin", "t": REDACTED}]}}],
        "plan": [{"name": "admin"}]}


def _secret(data, **labels):
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "labels": labels}, "data": data}


def test_a_secret_pair_shows_which_values_change_and_masks_the_rest_of_the_secret_as_text():
    redactor = Redactor()
    redactor.add(["hunter22"])
    before = _secret({"same": "YQ==", "changed": "Yg==", "removed": "Yw=="}, note="hunter22")
    after = _secret({"same": "YQ==", "changed": "ZA==", "added": "ZQ=="}, note="hunter22-x")
    shown_before, shown_after = redact_pair(before, after, mask=redactor.text)
    assert shown_before["data"] == {"same": REDACTED, "changed": REDACTED, "removed": REDACTED}
    assert shown_after["data"] == {"same": REDACTED, "changed": CHANGED, "added": REDACTED}
    assert shown_before["metadata"]["labels"] == {"note": REDACTED}
    assert shown_after["metadata"]["labels"] == {"note": "hunter22-x"}
    assert before["data"]["changed"] == "Yg=="  # the objects themselves are not touched
    assert redact_pair(before, after, show_secrets=True) == (before, after)


def test_objects_that_are_not_secrets_are_returned_as_they_are():
    config = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"password": "hunter22"}}
    assert redact(config, mask=lambda text: MASK) is config
