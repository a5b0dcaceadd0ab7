"""Masking hides what is known to be secret and touches nothing else: connection strings that merely look
like they hold a password (``${VAR}``, ``$(VAR)``, a literal that is no Secret's value) are previewed as
they go live, in ConfigMaps, env values, container commands and annotations; a Secret's value pasted into
a URL of another object is masked there, in every form the task reports."""
import json
import uuid

from ansible_collections.helmless.core.plugins.module_utils.actions.redaction import MASK
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_release

from test_release_support import client_for, module_params, strip, write_chart

SHELL = "mongodb://${APPSMITH_DATABASE_USER}:${APPSMITH_DATABASE_PASSWORD}@${host}:27017/appsmith"
KUBE = "postgres://app:$(DB_PASSWORD)@db:5432/app"
PLAIN = "mysql://reader:not-a-secret-pw@db/x"
PASTED = "postgres://app:{{ .Values.password }}@db:5432/app"
TEMPLATES = {
    "secret.yaml": """apiVersion: v1
kind: Secret
metadata:
  name: db
stringData:
  password: {{ .Values.password | quote }}
""",
    "cm.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: urls
  annotations:
    example.com/shell: %(shell)r
    example.com/pasted: "%(pasted)s"
data:
  shell: %(shell)r
  kube: %(kube)r
  plain: %(plain)r
  pasted: "%(pasted)s"
""",
    "deploy.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    example.com/kube: %(kube)r
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      initContainers:
      - name: wait-for-db
        image: busybox
        command: ["sh", "-c", 'until nc -z %(shell)s; do sleep 1; done']
      containers:
      - name: app
        image: nginx
        env:
        - {name: DB_PASSWORD, valueFrom: {secretKeyRef: {name: db, key: password}}}
        - {name: DATABASE_URL, value: %(kube)r}
        - {name: PASTED_URL, value: "%(pasted)s"}
        - {name: READER_URL, value: %(plain)r}
""",
}


def _chart(tmp_path):
    forms = {"shell": SHELL, "kube": KUBE, "plain": PLAIN, "pasted": PASTED}
    return write_chart(tmp_path, {name: text % forms for name, text in TEMPLATES.items()})


def _masked_only_at_the_secret(have, want, password, path=""):
    """The JSON pointers where ``want`` (the preview) is not ``have`` (the live object) with exactly
    ``password`` masked: anything else masked or changed is a mismatch."""
    if isinstance(want, dict) and isinstance(have, dict):
        return [p for key in set(want) | set(have)
                for p in _masked_only_at_the_secret(have.get(key), want.get(key), password, path + "/" + key)]
    if isinstance(want, list) and isinstance(have, list) and len(want) == len(have):
        return [p for i, (a, b) in enumerate(zip(have, want))
                for p in _masked_only_at_the_secret(a, b, password, "%s/%d" % (path, i))]
    if isinstance(want, str) and isinstance(have, str) and MASK in want:
        return [] if have.replace(password, MASK) == want and password in have else [path]
    return [] if have == want else [path]


def test_a_preview_masks_a_pasted_secret_value_and_shows_every_other_connection_string_as_it_goes_live(
        tmp_path, kubeconfig, namespace):
    password = "pw-" + uuid.uuid4().hex[:12]
    params = module_params(name="rel", namespace=namespace, chart_ref=_chart(tmp_path), kubeconfig=kubeconfig,
                           release_values={"password": password}, diff_format="json")
    check = run_release(params, check_mode=True, diff=True)[0]
    assert password not in json.dumps(check)
    text = run_release(dict(params, diff_format="yaml"), check_mode=True, diff=True)[0]
    shown = text["diff"]["prepared"]
    assert password not in shown and PASTED.replace("{{ .Values.password }}", MASK) in shown
    for form in (SHELL, KUBE, PLAIN):
        assert form in shown

    run_release(params)
    client = client_for(kubeconfig)
    previews = {e["after"]["kind"]: e["after"] for e in check["diff"] if e["after"]["kind"] != "Secret"}
    assert set(previews) == {"ConfigMap", "Deployment"}
    for kind, name in (("ConfigMap", "urls"), ("Deployment", "web")):
        live = client.get("apps/v1" if kind == "Deployment" else "v1", kind, name, namespace)
        assert _masked_only_at_the_secret(strip(live), strip(previews[kind]), password) == []
    assert previews["ConfigMap"]["data"]["pasted"] == "postgres://app:%s@db:5432/app" % MASK
    assert previews["ConfigMap"]["data"]["shell"] == SHELL


def test_without_a_secret_holding_it_a_literal_password_in_a_url_is_shown(tmp_path, kubeconfig, namespace):
    templates = {"cm.yaml": TEMPLATES["cm.yaml"] % {"shell": SHELL, "kube": KUBE, "plain": PLAIN, "pasted": PASTED}}
    params = module_params(name="rel", namespace=namespace, chart_ref=write_chart(tmp_path, templates),
                           kubeconfig=kubeconfig, release_values={"password": "literal-pw-9"}, diff_format="json")
    check = run_release(params, check_mode=True, diff=True)[0]
    assert check["diff"][0]["after"]["data"]["pasted"] == "postgres://app:literal-pw-9@db:5432/app"
