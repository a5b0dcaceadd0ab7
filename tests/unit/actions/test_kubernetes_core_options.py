"""Every option (and alias) of kubernetes.core 6.6.0's helm modules is accepted by the helmless.core module
that replaces it, read from kubernetes.core's own argument specs (the modules in the ``ansible`` 14.5.0 sdist,
downloaded once into ~/.cache/helmless/pypi as the compatibility test does), not from a list kept by hand."""
import fcntl
import json
import os
import subprocess
import sys
import tarfile

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.options import (
    CONNECTION, PULL, REGISTRY_AUTH, RELEASE, RELEASE_INFO, REPOSITORY, TEMPLATE, argument_spec)

PACKAGE, RELEASE_66 = "14.5.0", "6.6.0"
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "helmless", "pypi")
PLUGINS = "ansible_collections/kubernetes/core/plugins/"
OURS = {"helm": (CONNECTION, RELEASE), "helm_info": (CONNECTION, RELEASE_INFO), "helm_template": (TEMPLATE,),
        "helm_pull": (PULL,), "helm_repository": (REPOSITORY,), "helm_registry_auth": (REGISTRY_AUTH,)}
# Run in a child: each module's main() builds its AnsibleModule, which is replaced to hand back the spec.
CAPTURE = """
import importlib, json, sys
import ansible.module_utils.basic as basic
class Spec(Exception): pass
def capture(*args, argument_spec=None, **kwargs): raise Spec(argument_spec)
basic.AnsibleModule = capture
out = {}
for name in sys.argv[1:]:
    try:
        importlib.import_module("ansible_collections.kubernetes.core.plugins.modules." + name).main()
    except Spec as found:
        out[name] = {k: {"type": v.get("type", "str"), "aliases": v.get("aliases") or [],
                         "choices": v.get("choices")} for k, v in found.args[0].items()}
print(json.dumps(out))
"""


def _collection():
    """The directory holding kubernetes.core 6.6.0 as ``ansible_collections/kubernetes/core``."""
    dest = os.path.join(CACHE, "kubernetes.core-%s-plugins" % RELEASE_66)
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isdir(dest):
            sdist = os.path.join(CACHE, "ansible-%s.tar.gz" % PACKAGE)
            if not os.path.exists(sdist):
                proc = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                                       "--ignore-requires-python", "-q", "-d", CACHE, "ansible==" + PACKAGE],
                                      capture_output=True, text=True)
                assert proc.returncode == 0, proc.stderr
            work = dest + ".tmp%d" % os.getpid()
            with tarfile.open(sdist) as tar:
                members = [m for m in tar.getmembers() if m.isfile() and "/" in m.name and (
                    m.name.split("/", 1)[1].startswith(PLUGINS) or
                    m.name.split("/", 1)[1] == "ansible_collections/kubernetes/core/MANIFEST.json")]
                for member in members:
                    member.name = member.name.split("/", 1)[1]
                tar.extractall(work, members=members, filter="data")
            os.rename(work, dest)
    return dest


@pytest.fixture(scope="module")
def kubernetes_core_specs():
    root = _collection()
    with open(os.path.join(root, "ansible_collections/kubernetes/core/MANIFEST.json")) as handle:
        assert json.load(handle)["collection_info"]["version"] == RELEASE_66
    proc = subprocess.run([sys.executable, "-c", CAPTURE] + sorted(OURS), capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=root))
    assert proc.returncode == 0, proc.stderr
    specs = json.loads(proc.stdout)
    assert sorted(specs) == sorted(OURS)
    return specs


@pytest.mark.parametrize("module", sorted(OURS))
def test_every_kubernetes_core_option_and_alias_is_accepted(kubernetes_core_specs, module):
    ours = argument_spec(*OURS[module])
    accepted = {alias: name for name, opt in ours.items() for alias in [name] + list(opt.get("aliases") or [])}
    missing = [name for name, opt in kubernetes_core_specs[module].items()
               for alias in [name] + opt["aliases"] if alias not in accepted]
    assert missing == [], "%s rejects kubernetes.core.%s options %s" % (module, module, missing)
    for name, opt in kubernetes_core_specs[module].items():
        mine = ours[accepted[name]]
        # raw takes what a narrower type takes (wait: a bool there, a strategy name here)
        assert mine.get("type", "str") in (opt["type"], "raw"), (name, opt["type"], mine.get("type"))
        assert not set(opt["choices"] or ()) - set(mine.get("choices") or opt["choices"] or ()), name
