"""Signing keys for provenance tests, made the way Helm's own tooling expects them: a small Go program on
ProtonMail/go-crypto (the OpenPGP library Helm 4 uses) writes an RSA key pair as binary keyrings (a secret
one for ``helm package --sign --keyring``, a public one for ``helm verify``). It is built once from the Go
module proxy into ~/.cache/helmless/ (as scripts/controlplane builds its binaries)."""
import glob
import os
import subprocess

from gokit import go_binary

VERSION = "v1.4.1"  # helm v4.3.2's go-crypto
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "helmless", "pgpkeygen-go-crypto-%s" % VERSION)
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
    """The key generator (built on first use)."""
    return go_binary(CACHE, "pgpkeygen", "helmless/pgpkeygen", "1.22", "github.com/ProtonMail/go-crypto@" + VERSION, MAIN)


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
