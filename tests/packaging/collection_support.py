"""Helpers shared by the packaging tests and the integration tests that use the installed collection.

Every helper works on a copy or an artifact in a tmp dir: nothing is written into the work tree.
"""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SKIP_DIRS = {".git", ".build", ".pytest_cache", "__pycache__", ".ansible"}


def tracked_files():
    """Repository-relative paths of the work tree's files, as git would commit them (all but ignored ones)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True).stdout
        files = [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for base, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and os.path.relpath(os.path.join(base, d), ROOT)
                       != os.path.join("tests", "output")]
            files += [os.path.relpath(os.path.join(base, n), ROOT) for n in names if not n.endswith(".pyc")]
    return [f for f in files if os.path.isfile(os.path.join(ROOT, f))]


def copy_collection(dest_root):
    """Copy the tracked files to ``<dest_root>/ansible_collections/helmless/core``; returns that path."""
    dest = os.path.join(str(dest_root), "ansible_collections", "helmless", "core")
    for rel in tracked_files():
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), target, follow_symlinks=False)
    return dest


def run(cmd, **kwargs):
    """Run a command (text, captured); returns the CompletedProcess."""
    return subprocess.run(cmd, capture_output=True, text=True, **kwargs)


def tool(name):
    """Path of a console script installed next to this Python (scripts/test installs them)."""
    path = os.path.join(os.path.dirname(sys.executable), name)
    return path if os.path.exists(path) else (shutil.which(name) or name)


def build_and_install(tmp):
    """``ansible-galaxy collection build`` of a clean copy, then ``install`` into a fresh collections path.

    Returns ``(artifact path, collections path)``.
    """
    tmp = str(tmp)
    source = copy_collection(os.path.join(tmp, "src"))
    dist = os.path.join(tmp, "dist")
    proc = run([tool("ansible-galaxy"), "collection", "build", "--output-path", dist, source])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    artifacts = [f for f in os.listdir(dist) if f.endswith(".tar.gz")]
    assert artifacts == ["helmless-core-%s.tar.gz" % _version(source)], artifacts
    artifact = os.path.join(dist, artifacts[0])
    collections = os.path.join(tmp, "collections")
    proc = run([tool("ansible-galaxy"), "collection", "install", "--offline", "-p", collections, artifact],
               env=isolated_env(collections))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return artifact, collections


def _version(source):
    import yaml

    with open(os.path.join(source, "galaxy.yml")) as fh:
        return yaml.safe_load(fh)["version"]


def isolated_env(collections, **extra):
    """Environment where Ansible sees only ``collections`` (plus its own builtins)."""
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections), ANSIBLE_COLLECTIONS_SCAN_SYS_PATH="false",
               ANSIBLE_LOCALHOST_WARNING="false", ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    env.pop("PYTHONPATH", None)
    env.update(extra)
    return env
