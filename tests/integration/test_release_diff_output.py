"""What ``ansible-playbook --check --diff`` prints for a release, read from the callback's own output: one
helm-diff header per object over a YAML diff whose lines are the live objects' own lines before and after
the real run, context lines as asked, the ``Plan:`` summary (also at ``-v``), and Secret values masked per
key. The expected lines come from the cluster (the objects before and after the real run), not from us."""
import difflib
import json
import os
import subprocess
import sys
import uuid

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.actions.report import clean
from ansible_collections.helmless.core.plugins.module_utils.goyaml import to_yaml

from test_release_support import client_for, prediction_matches, write_chart

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATES = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n"
               "  a: one\n  b: two\n  c: three\n  message: {{ .Values.message | quote }}\n  w: five\n  x: four\n"
               "  z: six\n",
    "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-s\n"
                   "stringData:\n  password: {{ .Values.password | quote }}\n  user: {{ .Values.user | quote }}\n",
    "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-web\nspec:\n"
                   "  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: {app: web}\n  template:\n"
                   "    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n"
                   "      - name: app\n        image: nginx:1\n        env:\n"
                   "        - name: USER_KEY\n          value: {{ .Values.user }}-user\n",
    "extra.yaml": "{{ if .Values.extra }}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\n"
                  "data:\n  k: v\n{{ end }}",
}
VALUES = {"message": "hello", "password": "pw-" + uuid.uuid4().hex, "user": "admin", "replicas": 1, "extra": True}


def _playbook(tmp_path, kubeconfig, namespace, values, *flags, **options):
    task = {"helmless.core.release": dict({"name": "web", "namespace": namespace, "kubeconfig": kubeconfig,
                                           "chart_ref": str(tmp_path / "demo"), "values": values}, **options),
            "register": "out"}
    play = [{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": [
        task, {"copy": {"content": "{{ out | to_json }}", "dest": str(tmp_path / "out.json")}, "check_mode": False,
               "diff": False}]}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"),
               ANSIBLE_LOCALHOST_WARNING="false", ANSIBLE_NOCOLOR="1", ANSIBLE_STDOUT_CALLBACK="default")
    proc = subprocess.run(["ansible-playbook", "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable,
                           str(tmp_path / "play.yml")] + list(flags), env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    return proc.stdout, json.loads((tmp_path / "out.json").read_text())


def _objects(client, namespace):
    """The release's objects as the cluster holds them, by helm-diff header."""
    out = {}
    for api_version, kind, group in (("v1", "ConfigMap", "v1"), ("v1", "Secret", "v1"), ("apps/v1", "Deployment", "apps")):
        for obj in client.list(api_version, kind, namespace):
            if obj["metadata"]["name"].startswith("web-"):  # a list's items do not name their kind
                out["%s, %s, %s (%s)" % (namespace, obj["metadata"]["name"], kind, group)] = dict(
                    obj, apiVersion=api_version, kind=kind)
    return out


def _sections(stdout):
    """The callback's diff output: {object header: (what happens, diff lines)} and the Plan line."""
    sections, current, plan = {}, None, None
    for line in stdout.splitlines():
        if line.startswith("Plan: "):
            plan, current = line, None
        elif line.endswith(":") and " has " in line and line[:1] not in "+- @":
            title, verb = line[:-1].rsplit(" has ", 1)
            current = sections.setdefault(title, (verb, []))[1]
        elif current is not None and line[:1] in "+- @":
            current.append(line)
        else:
            current = None
    return sections, plan


def _yaml_diff(before, after, context):
    """The unified diff of two live objects' YAML (without the bookkeeping the server changes on every write),
    its lines marked as helm-diff marks them (``+ ``, ``- ``, two spaces)."""
    old, new = (to_yaml(clean(obj)).splitlines() for obj in (before, after))
    return [line if line.startswith("@@") else line[:1] + " " + line[1:]
            for line in list(difflib.unified_diff(old, new, n=context, lineterm=""))[2:]]


def test_check_diff_prints_a_yaml_diff_per_object_that_the_real_run_makes_true(tmp_path, kubeconfig, namespace):
    write_chart(tmp_path, TEMPLATES, values={})
    _playbook(tmp_path, kubeconfig, namespace, VALUES)
    client = client_for(kubeconfig)
    before = _objects(client, namespace)
    new = dict(VALUES, message="bye", password="pw-" + uuid.uuid4().hex, replicas=2, extra=False)
    stdout, preview = _playbook(tmp_path, kubeconfig, namespace, new, "--check", "--diff", "-v", diff_context=1)
    sections, plan = _sections(stdout)
    _playbook(tmp_path, kubeconfig, namespace, new)
    after = _objects(client, namespace)

    changed = {h for h in after if h in before and after[h]["metadata"]["resourceVersion"]
               != before[h]["metadata"]["resourceVersion"]}
    removed = set(before) - set(after)
    assert not set(after) - set(before)
    assert {h for h, (verb, _) in sections.items() if verb == "changed"} == changed
    assert {h for h, (verb, _) in sections.items() if verb == "been removed"} == removed
    assert plan == "Plan: 0 to add, %d to change, %d to destroy, %d unchanged" % (
        len(changed), len(removed), len(after) - len(changed))
    assert preview["summary"] == plan and '"summary": "%s"' % plan in stdout  # -v prints the result with it
    assert preview["diff"]["prepared"].endswith(plan + "\n")  # one text, where kubernetes.core.helm puts helm-diff's

    cm = "%s, web-cm, ConfigMap (v1)" % namespace
    hunk, *body = sections[cm][1]
    assert [hunk.rsplit(" ", 1)[0]] + body == _yaml_diff(before[cm], after[cm], 1) and hunk.endswith("@@ data")
    assert "-   message: hello" in sections[cm][1] and "    z: six" not in sections[cm][1]
    web = sections["%s, web-web, Deployment (apps)" % namespace][1]
    assert "-   replicas: 1" in web and "+   replicas: 2" in web
    secret = sections["%s, web-s, Secret (v1)" % namespace][1]
    assert "+   password: (sensitive value changed)" in secret
    for value in (VALUES["password"], new["password"]):
        assert value not in stdout
    stdout, again = _playbook(tmp_path, kubeconfig, namespace, new, "--check", "--diff")
    assert "diff" not in again and "Plan: " not in stdout  # no change, no diff (as kubernetes.core.helm)


def test_the_json_form_is_ansibles_before_and_after_objects_and_masks_no_other_object(tmp_path, kubeconfig,
                                                                                       namespace):
    write_chart(tmp_path, TEMPLATES, values={})
    _playbook(tmp_path, kubeconfig, namespace, VALUES)
    new = dict(VALUES, message="bye", replicas=2)
    stdout, preview = _playbook(tmp_path, kubeconfig, namespace, new, "--check", "--diff", diff_format="json")
    _playbook(tmp_path, kubeconfig, namespace, new)
    client = client_for(kubeconfig)
    entries = {d["after_header"]: d for d in preview["diff"]}
    for kind, name in (("ConfigMap", "web-cm"), ("Deployment", "web-web")):
        live = client.get("apps/v1" if kind == "Deployment" else "v1", kind, name, namespace)
        # the user "admin" is a Secret value: the Deployment's "admin-user" is shown as the cluster holds it
        assert prediction_matches(live, entries["%s/%s/%s" % (kind, namespace, name)]["after"]), kind
    assert "--- before: ConfigMap/%s/web-cm" % namespace in stdout
    lines = [line.replace(" ", "") for line in stdout.splitlines()]
    assert '-"message":"hello",' in lines and '+"message":"bye",' in lines  # the callback's JSON diff
    container = entries["Deployment/%s/web-web" % namespace]["after"]["spec"]["template"]["spec"]["containers"][0]
    assert container["env"] == [{"name": "USER_KEY", "value": "admin-user"}]
