"""cosign-signed OCI charts: the real cosign CLI (``scripts/controlplane build cosign``) signs charts pushed by the
real helm CLI to a local registry, in both of its formats; ``pull`` and ``template`` verify them with
``cosign_key`` before anything is written, and refuse what ``cosign verify`` refuses, naming the reference and
the reason."""
import hashlib
import json
import os
import subprocess
import urllib.request

import pytest

from helm_oracle import package, push

import cp_build  # on sys.path once helm_oracle is imported
from ocikit import oci_registry  # noqa: F401 - fixture
from repokit import helm_home, write_chart  # noqa: F401 - fixture

from ansible_collections.helmless.core.plugins.module_utils.ansible.options import PULL, TEMPLATE
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import (
    ModuleFailure, run_pull, run_template_task)

COSIGN = cp_build.binaries()["cosign"]
OFFLINE = ["--tlog-upload=false", "--use-signing-config=false"]  # no Rekor nor TUF here: keys only


class Cosign(object):
    """The cosign CLI with its home and keys under ``root``, talking plain HTTP to ``registry``."""

    def __init__(self, root, registry):
        if not os.access(COSIGN, os.X_OK):
            pytest.fail("cosign is not built (%s): run scripts/controlplane build cosign" % COSIGN, pytrace=False)
        self.root, self.registry = str(root), registry
        self.env = dict(os.environ, HOME=self.root, COSIGN_PASSWORD="", DOCKER_CONFIG=os.path.join(self.root, "docker"))

    def run(self, *args, check=True):
        proc = subprocess.run([COSIGN] + list(args), cwd=self.root, env=self.env, capture_output=True, text=True)
        assert proc.returncode == 0 or not check, proc.stdout + proc.stderr
        return proc

    def key_pair(self, name):
        """``cosign generate-key-pair``: the public key's path."""
        self.run("generate-key-pair", "--output-key-prefix", name)
        return os.path.join(self.root, name + ".pub")

    def sign(self, reference, key, bundle=True):
        """``cosign sign --key`` (cosign 3's Sigstore bundle, or with ``bundle=False`` cosign 2's .sig tag)."""
        self.run("sign", "--key", os.path.join(self.root, key + ".key"), "-y", "--allow-http-registry",
                 "--new-bundle-format=%s" % str(bundle).lower(), *OFFLINE, reference)

    def verify(self, reference, public):
        return self.run("verify", "--key", public, "--insecure-ignore-tlog", "--allow-http-registry",
                        "--new-bundle-format=true", reference, check=False).returncode == 0


def _digest(registry, path, tag):
    request = urllib.request.Request("http://%s/v2/%s/manifests/%s" % (registry, path, tag),
                                     headers={"Accept": "application/vnd.oci.image.manifest.v1+json"})
    with urllib.request.urlopen(request) as answer:
        return "sha256:" + hashlib.sha256(answer.read()).hexdigest()


@pytest.fixture
def signed(tmp_path, oci_registry, helm_home):
    """Charts in the registry: 1.0.0 signed (bundle), 1.1.0 signed (.sig), 1.2.0 unsigned, 1.3.0 signed by another
    key, 2.0.0 signed then pushed again with other content; returns (cosign, public key, ``oci://`` base)."""
    cosign = Cosign(tmp_path / "cosign", oci_registry)
    os.makedirs(cosign.root)
    public = cosign.key_pair("trusted")
    cosign.key_pair("other")
    for version in ("1.0.0", "1.1.0", "1.2.0", "1.3.0", "2.0.0"):
        chart = write_chart(tmp_path / ("src-" + version), "demo", version)
        push(package(chart, str(tmp_path / "pkg")), "oci://%s/charts" % oci_registry, plain_http=True)
    for version, key, bundle in (("1.0.0", "trusted", True), ("1.1.0", "trusted", False), ("1.3.0", "other", True),
                                 ("2.0.0", "trusted", True)):
        cosign.sign("%s/charts/demo@%s" % (oci_registry, _digest(oci_registry, "charts/demo", version)), key, bundle)
    moved = write_chart(tmp_path / "src-moved", "demo", "2.0.0", values="greeting: tampered\n")
    push(package(moved, str(tmp_path / "moved")), "oci://%s/charts" % oci_registry, plain_http=True)
    return cosign, public, "oci://%s/charts/demo" % oci_registry


def _pull(dest, ref, **kw):
    params = {name: opt.get("default") for name, opt in PULL.items()}
    params.update(chart_ref=ref, destination=str(dest), plain_http=True, **kw)
    return run_pull(params)[0]


def _template(ref, **kw):
    params = {name: opt.get("default") for name, opt in TEMPLATE.items()}
    params.update(chart_ref=ref, plain_http=True, **kw)
    return run_template_task(params)[0]


def test_a_chart_signed_with_the_key_is_pulled_and_rendered_in_either_cosign_format(tmp_path, signed):
    cosign, public, base = signed
    for version in ("1.0.0", "1.1.0"):
        assert cosign.verify("%s:%s" % (base[len("oci://"):], version), public)  # the reference agrees
        pulled = _pull(tmp_path / ("dest-" + version), base + ":" + version, cosign_key=public)
        assert pulled["changed"] and pulled["version"] == version
    with open(public) as handle:
        inline = handle.read()
    rendered = _template(base, chart_version="1.0.0", cosign_key=inline)  # the PEM itself works too
    assert "greeting: \"hello\"" in rendered["stdout"]


@pytest.mark.parametrize("version, reason", [
    ("1.2.0", "no cosign signature of this digest in the registry"),
    ("1.3.0", "no signature of this digest verifies with the key"),
    ("2.0.0", "no cosign signature of this digest in the registry"),  # its tag moved after signing
])
def test_an_unsigned_foreign_or_moved_chart_fails_naming_reference_and_reason_and_writes_nothing(
        tmp_path, signed, version, reason):
    cosign, public, base = signed
    assert not cosign.verify("%s:%s" % (base[len("oci://"):], version), public)  # cosign refuses it too
    dest = tmp_path / "dest"
    for attempt in (lambda: _pull(dest, base, chart_version=version, cosign_key=public),
                    lambda: _template(base + ":" + version, cosign_key=public)):
        with pytest.raises(ModuleFailure) as failed:
            attempt()
        message = str(failed.value)
        assert message.startswith("cosign verification of %s:%s (sha256:" % (base, version)), message
        assert reason in message and "Traceback" not in json.dumps(failed.value.result)
    assert not dest.exists()


def test_cosign_key_is_refused_for_a_chart_that_is_not_in_an_oci_registry_and_for_a_bad_key(tmp_path, signed):
    _cosign, public, base = signed
    chart = write_chart(tmp_path / "local", "demo", "1.0.0")
    with pytest.raises(ModuleFailure, match="cosign signatures are verified for OCI charts"):
        _template(chart, cosign_key=public)
    with pytest.raises(ModuleFailure, match="cosign_key %s: not a PEM public key" % (tmp_path / "bad.pub")):
        bad = tmp_path / "bad.pub"
        bad.write_text("not a key")
        _pull(tmp_path / "dest", base + ":1.0.0", cosign_key=str(bad))
    assert not (tmp_path / "dest").exists()
