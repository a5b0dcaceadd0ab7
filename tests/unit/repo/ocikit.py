"""A real OCI registry for tests: go-containerregistry's in-memory registry (pkg/registry), built once from
the Go module proxy into ~/.cache/helmless/ (as scripts/controlplane builds its binaries) and started per
test on 127.0.0.1 with an ephemeral port."""
import os
import subprocess

import pytest

from gokit import go_binary

VERSION = "v0.22.1"
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "helmless", "go-containerregistry-%s" % VERSION)
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
    """The registry binary (built on first use)."""
    return go_binary(CACHE, "registry", "helmless/ocireg", "1.26", "github.com/google/go-containerregistry@" + VERSION, MAIN)


@pytest.fixture
def oci_registry():
    """``host:port`` of a fresh, empty, plain-HTTP registry."""
    proc = subprocess.Popen([registry_binary()], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class TokenAuthProxy(object):
    """A registry front that demands a bearer token (the Docker token flow): ``/token`` hands one out for
    the right Basic credentials, ``/v2/`` reads are forwarded to ``backend`` only with it. With
    ``basic=True`` it is a Basic-auth registry instead: ``/v2/`` wants the credentials themselves."""

    def __init__(self, backend, username, password, basic=False):
        import base64
        import http.server
        import threading
        import urllib.error
        import urllib.request

        basic_header = "Basic " + base64.b64encode(("%s:%s" % (username, password)).encode()).decode()
        proxy = self
        self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def _reply(self, code, body=b"", headers=()):
                self.send_response(code)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def do_GET(self):
                auth = self.headers.get("Authorization")
                proxy.seen.append((self.path, auth))
                if self.path.startswith("/token"):
                    if auth != basic_header:
                        return self._reply(401)
                    return self._reply(200, b'{"token": "granted"}', [("Content-Type", "application/json")])
                if basic and auth != basic_header:
                    return self._reply(401, b"{}", [("WWW-Authenticate", 'Basic realm="test"')])
                if not basic and auth != "Bearer granted":
                    challenge = 'Bearer realm="http://%s/token",service="test"' % proxy.address
                    return self._reply(401, b"{}", [("WWW-Authenticate", challenge)])
                request = urllib.request.Request("http://%s%s" % (backend, self.path), method=self.command,
                                                 headers={k: v for k, v in self.headers.items()
                                                          if k.lower() in ("accept",)})
                try:
                    with urllib.request.build_opener().open(request) as answer:
                        body, code, headers = answer.read(), answer.status, answer.headers.items()
                except urllib.error.HTTPError as exc:
                    body, code, headers = exc.read(), exc.code, exc.headers.items()
                keep = [(k, v) for k, v in headers if k.lower() in ("content-type", "docker-content-digest")]
                self._reply(code, body, keep)

            do_HEAD = do_GET

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.address = "127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
