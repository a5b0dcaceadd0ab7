"""Chart provenance: charts signed by the real helm v4 CLI (``helm package --sign``) with keys made by go-crypto
(provkit) are accepted and rejected exactly as ``helm verify`` accepts and rejects them, by the verifier and
through the template and pull modules (``verify``/``keyring``, ``verify_chart``/``verify_chart_keyring``/
``provenance``)."""
import os
import shutil

import pytest

from ansible_collections.helmless.core.plugins.module_utils.repo.errors import RepoError
from ansible_collections.helmless.core.plugins.module_utils.repo.provenance import verify_chart_file

from provkit import helm, key_pair
from repokit import Server, env, run_module, write_chart  # noqa: F401 - env is a fixture


@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    """A chart packaged and signed by helm; the signer's and a stranger's keyrings."""
    root = tmp_path_factory.mktemp("signed")
    secring, pubring = key_pair(root, "Chart Signer", "signer@example.com")
    stranger = key_pair(root, "Other Person", "other@example.com")[1]
    chart = write_chart(root / "src", "web", "1.2.3")
    out = root / "pkg"
    out.mkdir()
    proc = helm("package", "--sign", "--key", "Chart Signer", "--keyring", secring, "--destination", str(out), chart)
    assert proc.returncode == 0, proc.stderr
    return {"archive": str(out / "web-1.2.3.tgz"), "pubring": pubring, "secring": secring, "stranger": stranger,
            "root": root}


def _case(signed, tmp_path, name):
    """(archive path, keyring) for one case; the archive and .prov are copies the case may alter."""
    archive = str(tmp_path / "web-1.2.3.tgz")
    shutil.copy(signed["archive"], archive)
    shutil.copy(signed["archive"] + ".prov", archive + ".prov")
    keyring = signed["pubring"]
    if name == "tampered archive":
        with open(archive, "r+b") as handle:
            data = bytearray(handle.read())
            data[len(data) // 2] ^= 0x01
            handle.seek(0)
            handle.write(data)
    elif name == "tampered provenance":
        with open(archive + ".prov") as handle:
            text = handle.read()
        with open(archive + ".prov", "w") as handle:
            handle.write(text.replace("version: 1.2.3", "version: 1.2.4"))
    elif name == "missing keyring":
        keyring = str(tmp_path / "nope.gpg")
    elif name == "unknown signer":
        keyring = signed["stranger"]
    elif name == "no provenance":
        os.unlink(archive + ".prov")
    elif name == "secret keyring":
        keyring = signed["secring"]
    return archive, keyring


CASES = ["signed", "secret keyring", "tampered archive", "tampered provenance", "missing keyring", "unknown signer",
         "no provenance"]


@pytest.mark.parametrize("name", CASES)
def test_the_verdict_and_the_error_are_helm_verifys(signed, tmp_path, name):
    archive, keyring = _case(signed, tmp_path, name)
    theirs = helm("verify", archive, "--keyring", keyring)
    try:
        ours, error = verify_chart_file(archive, keyring), None
    except RepoError as exc:
        ours, error = None, str(exc)
    assert (theirs.returncode == 0) == (error is None), (name, theirs.stdout, theirs.stderr, error)
    if error is None:
        assert ours.text() == theirs.stdout
    else:
        helms = theirs.stderr.strip()[len("Error: "):]
        if helms.startswith("openpgp: invalid signature"):  # the reason after it is the library's own wording
            assert error.startswith("openpgp: invalid signature"), (helms, error)
        else:
            assert error == helms


def test_template_verifies_a_local_archive_and_refuses_a_tampered_one(signed, tmp_path, env):
    archive, keyring = _case(signed, tmp_path, "signed")
    good = run_module("template", {"chart_ref": archive, "verify": True, "keyring": keyring}, env, tmp_path)[0]
    assert not good.get("failed") and "# Source: web/templates/cm.yaml" in good["stdout"], good
    assert "--verify" in good["command"] and "--keyring=%s" % keyring in good["command"]
    stranger = run_module("template", {"chart_ref": archive, "verify": True, "keyring": signed["stranger"]}, env,
                          tmp_path)[0]
    assert stranger["failed"] and stranger["msg"] == "openpgp: signature made by unknown entity", stranger
    directory = run_module("template", {"chart_ref": write_chart(tmp_path / "dir", "web", "1.2.3"), "verify": True,
                                        "keyring": keyring}, env, tmp_path)[0]
    assert directory["failed"] and directory["msg"] == "unpacked charts cannot be verified"


def test_pull_verifies_like_helm_pull_verify_and_writes_nothing_when_it_fails(signed, tmp_path, env):
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(signed["archive"], str(served))
    shutil.copy(signed["archive"] + ".prov", str(served))
    assert helm("repo", "index", str(served)).returncode == 0
    server = Server(served)
    try:
        args = {"chart_ref": "web", "repo_url": server.url, "destination": str(tmp_path / "out"),
                "verify_chart": True, "verify_chart_keyring": signed["pubring"]}
        refused = run_module("pull", dict(args, verify_chart_keyring=signed["stranger"]), env, tmp_path)[0]
        assert refused["failed"] and "unknown entity" in refused["msg"] and not (tmp_path / "out").exists()
        pulled = run_module("pull", args, env, tmp_path)[0]
        again = run_module("pull", args, env, tmp_path)[0]
        (tmp_path / "helm").mkdir()
        theirs = helm("pull", "web", "--repo", server.url, "--verify", "--keyring", signed["pubring"],
                      "--destination", str(tmp_path / "helm"))
        later = run_module("pull", dict(args, verify_chart=False, provenance=True,
                                        destination=str(tmp_path / "prov-only")), env, tmp_path)[0]
    finally:
        server.close()
    assert theirs.returncode == 0, theirs.stderr
    assert not pulled.get("failed") and pulled["changed"] and not again["changed"], (pulled, again)
    assert pulled["stdout"] == theirs.stdout
    for name in ("web-1.2.3.tgz", "web-1.2.3.tgz.prov"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "helm" / name).read_bytes()
    assert later["changed"] and (tmp_path / "prov-only" / "web-1.2.3.tgz.prov").exists()
