"""Hook logs (``helm.sh/hook-output-log-policy``) as helm v4 prints them, side by side with the real helm CLI.

The control plane serves a container's log as what its command line echoes (docs/dev/controlplane.md), so
the module and helm, each in its own namespace, read real log lines of the same hooks.
"""
import re

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import (
    ModuleFailure, run_release, run_release_test)
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import CONNECTION, RELEASE_TEST

from test_release_support import module_params, to_yaml, write_chart


def _pod_spec(script):
    return {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", script]}]}


def _hook(kind, name, events, script, logs=None, weight=0, delete=None):
    annotations = {"helm.sh/hook": events, "helm.sh/hook-weight": str(weight)}
    if logs:
        annotations["helm.sh/hook-output-log-policy"] = logs
    if delete:
        annotations["helm.sh/hook-delete-policy"] = delete
    meta = {"name": name, "annotations": annotations}
    if kind == "Pod":
        return to_yaml({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": _pod_spec(script)})
    return to_yaml({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
                    "spec": {"backoffLimit": 0, "template": {"spec": _pod_spec(script)}}})


TEMPLATES = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  v: {{ .Values.v | quote }}\n",
    "migrate.yaml": _hook("Job", "migrate", "pre-install,pre-upgrade",
                          "echo 'migrating schema {{ .Values.v }}'; echo done", logs="hook-succeeded",
                          delete="before-hook-creation"),
    "smoke.yaml": _hook("Pod", "smoke", "post-install,post-upgrade", "echo smoke=ok", weight=1,
                        logs="hook-succeeded,hook-failed", delete="before-hook-creation"),
    "quiet.yaml": _hook("Pod", "quiet", "post-install", "echo not asked for", weight=2),
    "check.yaml": ("{{- if .Values.broken }}\n" +
                   _hook("Job", "check", "pre-upgrade", "echo \"migration failed: column v exists\"; exit 1",
                         logs="hook-failed", weight=5) + "{{- end }}\n"),
    "test.yaml": _hook("Pod", "probe", "test", "echo probe reached app; echo all good", logs="hook-succeeded"),
}


def _timeless(text, namespace):
    """Output with the namespace and the times (the only inputs that differ) put aside."""
    times = ("LAST DEPLOYED:", "Last Started:", "Last Completed:")
    return [line.split(":", 1)[0] if line.startswith(times) else line.replace(namespace, "<ns>")
            for line in text.splitlines()]


def _hook_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("level=INFO msg=")]


def test_hook_logs_are_printed_as_helm_prints_them_and_a_failed_hooks_log_is_in_the_error(
        tmp_path, kubeconfig, namespace, reference_namespace, helm4):
    chart = write_chart(tmp_path, TEMPLATES, values={"v": "1", "broken": False})
    ours, _ = run_release(module_params(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig))
    helms = helm4.run("install", "web", chart, "-n", reference_namespace)
    assert _hook_lines(ours["stderr"]) == _hook_lines(helms.stderr)
    # a log is one record; the hook without the annotation prints nothing
    assert _hook_lines(ours["stderr"]) == ['level=INFO msg="migrating schema 1\\ndone"', 'level=INFO msg="smoke=ok"']
    assert [(e["hook"], e["container"], e["log"]) for e in ours["hook_logs"]] == [
        ("migrate", "c", "migrating schema 1\ndone\n"), ("smoke", "c", "smoke=ok\n")]
    assert ours["hook_logs"][0]["pod"].startswith("migrate-")  # the Job's pod

    with pytest.raises(ModuleFailure) as failed:
        run_release(module_params(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                                  values={"v": "2", "broken": True}))
    helm_failed = helm4.run("upgrade", "web", chart, "-n", reference_namespace, "--set", "v=2,broken=true",
                            check=False)
    assert helm_failed.returncode != 0
    error = helm_failed.stderr.splitlines()[-1]
    assert error.startswith("Error: ") and str(failed.value).startswith(
        error[len("Error: "):].replace(reference_namespace, namespace))
    assert 'level=INFO msg="migration failed: column v exists"' in _hook_lines(helm_failed.stderr)
    assert _hook_lines(failed.value.result["stderr"]) == _hook_lines(helm_failed.stderr)
    assert failed.value.result["stderr"].splitlines()[-1] == error.replace(reference_namespace, namespace)
    # the task's message: helm's error, then the log of the hook that failed, named
    assert re.search(r"\nlogs of hook check \(pod check-\w{5}, container c\):\nmigration failed: column v exists$",
                     str(failed.value)), str(failed.value)

    params = dict({name: opt.get("default") for table in (CONNECTION, RELEASE_TEST) for name, opt in table.items()},
                  release_name="web", release_namespace=namespace, kubeconfig=kubeconfig, logs=True)
    tested, _ = run_release_test(params)
    helm_tested = helm4.run("test", "web", "-n", reference_namespace, "--logs")
    assert _timeless(tested["stdout"], namespace) == _timeless(helm_tested.stdout, reference_namespace)
    assert tested["stdout"].endswith("\nPOD LOGS: probe (c)\nprobe reached app\nall good\n\n")
    assert tested["tests"][0]["logs"] == {"c": "probe reached app\nall good\n"}
    assert _hook_lines(tested["stderr"]) == _hook_lines(helm_tested.stderr) == [
        'level=INFO msg="probe reached app\\nall good"']
