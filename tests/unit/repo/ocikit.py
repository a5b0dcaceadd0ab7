"""A real OCI registry for tests: go-containerregistry's in-memory registry (pkg/registry), built once from
the Go module proxy into ~/.cache/helmless/ (as scripts/controlplane builds its binaries) and started per
test on 127.0.0.1 with an ephemeral port."""
import fcntl
import os
import subprocess

import pytest

VERSION = "v0.22.1"
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "helmless", "go-containerregistry-%s" % VERSION)
BINARY = os.path.join(CACHE, "bin", "registry")
MAIN = """package main

import (
\t"fmt"
\t"log"
\t"net"
\t"net/http"
\t"os"

\t"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
\tl, err := net.Listen("tcp", "127.0.0.1:0")
\tif err != nil {
\t\tlog.Fatal(err)
\t}
\tfmt.Println(l.Addr().String())
\tlog.Fatal(http.Serve(l, registry.New(registry.Logger(log.New(os.Stderr, "", 0)))))
}
"""


def registry_binary():
    """Build (once, under a lock shared by parallel workers) and return the registry binary."""
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, "build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(BINARY):
            src = os.path.join(CACHE, "src")
            os.makedirs(src, exist_ok=True)
            with open(os.path.join(src, "go.mod"), "w") as handle:
                handle.write("module helmless/ocireg\n\ngo 1.26\n")
            with open(os.path.join(src, "main.go"), "w") as handle:
                handle.write(MAIN)
            env = dict(os.environ, GOTOOLCHAIN="local", CGO_ENABLED="0", GOFLAGS="-mod=mod -buildvcs=false",
                       GOWORK="off")
            for args in (["go", "get", "github.com/google/go-containerregistry@" + VERSION],
                         ["go", "build", "-o", BINARY + ".tmp", "."]):
                proc = subprocess.run(args, cwd=src, env=env, capture_output=True, text=True)
                assert proc.returncode == 0, proc.stdout + proc.stderr
            os.replace(BINARY + ".tmp", BINARY)
    return BINARY


@pytest.fixture
def oci_registry():
    """``host:port`` of a fresh, empty, plain-HTTP registry."""
    proc = subprocess.Popen([registry_binary()], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
