"""Signing keys for provenance tests, made the way Helm's own tooling expects them: a small Go program on
ProtonMail/go-crypto (the OpenPGP library Helm 4 uses) writes an RSA key pair as binary keyrings (a secret
one for ``helm package --sign --keyring``, a public one for ``helm verify``). It is built once from the Go
module proxy into ~/.cache/helmless/ (as scripts/controlplane builds its binaries)."""
import fcntl
import glob
import os
import subprocess

VERSION = "v1.4.1"  # helm v4.3.2's go-crypto
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "helmless", "pgpkeygen-go-crypto-%s" % VERSION)
BINARY = os.path.join(CACHE, "bin", "pgpkeygen")
MAIN = """package main

import (
\t"os"

\t"github.com/ProtonMail/go-crypto/openpgp"
\t"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// pgpkeygen NAME EMAIL SECRING PUBRING: an RSA-3072 key whose primary key signs (as helm package --sign needs).
func main() {
\tcfg := &packet.Config{Algorithm: packet.PubKeyAlgoRSA, RSABits: 3072}
\te, err := openpgp.NewEntity(os.Args[1], "", os.Args[2], cfg)
\tif err != nil {
\t\tpanic(err)
\t}
\tsec, err := os.Create(os.Args[3])
\tif err != nil {
\t\tpanic(err)
\t}
\tif err := e.SerializePrivate(sec, cfg); err != nil {
\t\tpanic(err)
\t}
\tsec.Close()
\tpub, err := os.Create(os.Args[4])
\tif err != nil {
\t\tpanic(err)
\t}
\tif err := e.Serialize(pub); err != nil {
\t\tpanic(err)
\t}
\tpub.Close()
}
"""


def keygen_binary():
    """Build (once, under a lock shared by parallel workers) and return the key generator."""
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, "build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(BINARY):
            src = os.path.join(CACHE, "src")
            os.makedirs(src, exist_ok=True)
            with open(os.path.join(src, "go.mod"), "w") as handle:
                handle.write("module helmless/pgpkeygen\n\ngo 1.22\n")
            with open(os.path.join(src, "main.go"), "w") as handle:
                handle.write(MAIN)
            env = dict(os.environ, GOTOOLCHAIN="local", CGO_ENABLED="0", GOFLAGS="-mod=mod -buildvcs=false",
                       GOWORK="off")
            for args in (["go", "get", "github.com/ProtonMail/go-crypto@" + VERSION],
                         ["go", "build", "-o", BINARY + ".tmp", "."]):
                proc = subprocess.run(args, cwd=src, env=env, capture_output=True, text=True)
                assert proc.returncode == 0, proc.stdout + proc.stderr
            os.replace(BINARY + ".tmp", BINARY)
    return BINARY


def key_pair(directory, name, email):
    """(secret keyring path, public keyring path) of a fresh key for ``name <email>``."""
    secring = os.path.join(str(directory), "%s-secring.gpg" % name.split()[0].lower())
    pubring = os.path.join(str(directory), "%s-pubring.gpg" % name.split()[0].lower())
    subprocess.run([keygen_binary(), name, email, secring, pubring], check=True, capture_output=True)
    return secring, pubring


def helm4():
    found = glob.glob(os.path.expanduser("~/.cache/helmless/helm4-*/bin/helm"))
    assert found, "helm v4 CLI is not built: run scripts/controlplane build"
    return found[0]


def helm(*args, env=None, cwd=None):
    """Run the real helm v4 CLI; returns the CompletedProcess (text)."""
    return subprocess.run([helm4(), *args], capture_output=True, text=True, env=env, cwd=cwd)
