"""The README's demo command, ``scripts/demo``, from a checkout (the newest series only: it makes its own venv,
whatever ansible-core the tests run on)."""
import os
import subprocess
import sys


def test_the_readme_demo_command_keeps_to_its_own_venv_and_prints_nothing_alarming_before_the_play(tmp_path):
    """``scripts/demo`` from a checkout, as the README runs it: its dependencies go into the project's venv (the
    system interpreter is left as it was), it builds only the control plane, and no ERROR or warning comes
    before the play."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def system_packages():
        return subprocess.run(["python3", "-m", "pip", "freeze", "--all"], capture_output=True, text=True,
                              env={k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
                              ).stdout

    before = system_packages()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "K8S_AUTH_KUBECONFIG", "PYTHONWARNINGS")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not p.startswith(sys.prefix))
    env["HELMLESS_CONTROLPLANE_DIR"] = str(tmp_path / "cp")
    proc = subprocess.run([os.path.join(root, "scripts", "demo"), "-e", "release_namespace=demo-" + os.urandom(3).hex()],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=1800)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-6000:]
    assert "failed=0" in proc.stdout and "changed=5" in proc.stdout
    preamble = proc.stdout[:proc.stdout.index("PLAY [")] + proc.stderr
    assert "ERROR" not in preamble and "arning" not in preamble, preamble
    for tool in ("helm4", "helm3", "helm-oracle", "kustomize"):
        assert tool not in preamble, preamble  # the demo builds, or reports, only the control plane
    assert system_packages() == before
