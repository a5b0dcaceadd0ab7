"""Progress of long operations: ``-v`` shows each phase, and a wait says what is still not ready while it waits."""
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release

from test_release_support import deployment, job, module_params, to_yaml, write_chart

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _chart(tmp_path, hook=True, stuck=False):
    app = deployment("web")
    if stuck:  # no node matches, so its pod stays Pending and the Deployment never becomes ready
        app["spec"]["template"]["spec"]["nodeSelector"] = {"helmless.test/no-such-node": "true"}
    templates = {
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-cm\ndata:\n"
                   "  message: {{ .Values.message | quote }}\n",
        "deploy.yaml": to_yaml(app),
    }
    if hook:
        templates["migrate.yaml"] = to_yaml(job("migrate", ["pre-upgrade"], policies=["before-hook-creation"]))
    return write_chart(tmp_path, templates, values={"message": "hello"})


def _phases(lines):
    return [re.match(r"\d+\.\d\ds (\w+): ", line).group(1) for line in lines]


@pytest.mark.ansible_core
def test_a_verbose_playbook_shows_render_plan_hooks_apply_wait_and_result(tmp_path, kubeconfig, namespace):
    task = {"name": "deploy", "helmless.core.release": {
        "name": "web", "namespace": namespace, "chart_ref": _chart(tmp_path), "kubeconfig": kubeconfig,
        "wait": True, "values": {"message": "{{ message }}"}}}
    play = [{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": [
        dict(task, vars={"message": "one"}), dict(task, vars={"message": "two"}, register="upgrade"),
        {"copy": {"content": "{{ upgrade | to_json }}", "dest": str(tmp_path / "out.json")}}]}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"),
               ANSIBLE_LOCALHOST_WARNING="false", ANSIBLE_NOCOLOR="1")
    proc = subprocess.run(["ansible-playbook", "-v", "-i", "localhost,", "-e",
                           "ansible_python_interpreter=" + sys.executable, str(tmp_path / "play.yml")],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    progress = json.loads((tmp_path / "out.json").read_text())["progress"]
    # every phase of the upgrade, in the order it ran
    assert _phases(progress) == ["render", "plan", "record", "hook", "hook", "apply", "wait", "wait", "result"]
    assert "chart demo-0.1.0: 2 object(s), 1 hook(s)" in progress[0]
    assert "upgrade: 1 apply, 1 unchanged (chart-delta, ssa)" in progress[1]
    assert progress[2].endswith("record: revision 2 pending-upgrade")
    assert progress[3].endswith("hook: pre-upgrade Job/migrate (weight 0) created")
    assert re.search(r"hook: pre-upgrade Job/migrate \(weight 0\) succeeded after [\d.]+s$", progress[4])
    assert progress[5].endswith("apply: apply ConfigMap/%s/web-cm" % namespace)
    assert progress[6].endswith("wait: 2 object(s), timeout 300s (watcher)")
    assert re.search(r"wait: all ready after [\d.]+s$", progress[7])
    assert progress[8].endswith("result: revision 2 deployed")
    # and -v prints them with the task result
    assert all(json.dumps(line) in proc.stdout for line in progress)


def test_a_wait_reports_what_is_still_not_ready_while_it_waits_and_when_it_gives_up(tmp_path, kubeconfig,
                                                                                    namespace):
    params = module_params(name="web", namespace=namespace, chart_ref=_chart(tmp_path, hook=False, stuck=True),
                           kubeconfig=kubeconfig, wait=True, timeout="8s")
    with pytest.raises(ModuleFailure) as failure:
        run_release(params)
    progress = failure.value.result["progress"]
    waiting = [line for line in progress if " not ready after " in line]
    assert waiting, progress
    assert re.search(r"wait: 1 not ready after \d+s: Deployment/%s/web \(0/1 replicas ready" % namespace, waiting[0])
    assert "revision 1 failed: timed out waiting for the condition" in progress[-1]
    assert "Deployment/web (0/1 replicas ready" in str(failure.value)


def test_check_mode_and_no_op_runs_say_so(tmp_path, kubeconfig, namespace):
    base = dict(name="web", namespace=namespace, chart_ref=_chart(tmp_path, hook=False), kubeconfig=kubeconfig)
    preview, _ = run_release(module_params(**base), check_mode=True)
    assert _phases(preview["progress"]) == ["render", "plan", "result"]
    assert "install: 2 apply (chart-delta, ssa)" in preview["progress"][1]
    assert preview["progress"][2].endswith("check mode: revision 1 would be deployed; nothing was written")
    run_release(module_params(**base))
    again, _ = run_release(module_params(**base))
    assert again["progress"][0].endswith("same content as revision 1")
    assert again["progress"][-1].endswith("result: no change: revision 1 stays deployed")
