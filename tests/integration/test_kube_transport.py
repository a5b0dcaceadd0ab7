"""The kube client's own HTTP layer (kube/http.py) against the real API server: a kubeconfig's proxy-url
(one CONNECT tunnel, kept alive across requests, also once the process has more than 1024 files open) and its
tls-server-name."""
import os
import resource
import selectors
import socket
import threading

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.kube.client import KubeClient
from ansible_collections.helmless.core.plugins.module_utils.kube.config import load_connection
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import Unreachable


@pytest.fixture
def tunnel():
    """A minimal HTTP CONNECT proxy: records each CONNECT line, relays bytes both ways."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    seen = []

    def relay(client):
        head = b""
        while b"\r\n\r\n" not in head:
            head += client.recv(4096)
        line = head.split(b"\r\n")[0].decode()
        seen.append(line)
        host, port = line.split()[1].rsplit(":", 1)
        upstream = socket.create_connection((host, int(port)))
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        with selectors.DefaultSelector() as selector:  # not select.select: descriptors past 1024 are fine
            selector.register(client, selectors.EVENT_READ, upstream)
            selector.register(upstream, selectors.EVENT_READ, client)
            while True:
                ready = selector.select(10)
                if not ready:
                    return
                for key, _mask in ready:
                    data = key.fileobj.recv(65536)
                    if not data:
                        return
                    key.data.sendall(data)

    def accept():
        while True:
            try:
                client, _addr = server.accept()
            except OSError:
                return
            threading.Thread(target=relay, args=(client,), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
    yield "http://127.0.0.1:%d" % server.getsockname()[1], seen
    server.close()


@pytest.fixture
def past_1024_files():
    """More than 1024 descriptors open, so the sockets opened next are numbered past what select() can watch
    (FD_SETSIZE), as in a long-running controller."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 2048
    if soft < wanted:
        assert hard == resource.RLIM_INFINITY or hard >= wanted, "this test needs RLIMIT_NOFILE of %d" % wanted
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    held = [os.open(os.devnull, os.O_RDONLY)]
    while held[-1] <= 1024:
        held.append(os.open(os.devnull, os.O_RDONLY))
    yield
    for fd in held:
        os.close(fd)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _config(kubeconfig, **cluster):
    with open(kubeconfig) as handle:
        config = yaml.safe_load(handle)
    config["clusters"][0]["cluster"].update(cluster)
    return config


def test_a_proxy_url_tunnels_every_request_through_one_kept_alive_connect(kubeconfig, tunnel):
    url, seen = tunnel
    client = KubeClient(load_connection(_config(kubeconfig, **{"proxy-url": url})))
    assert client.request("GET", "/version")["gitVersion"]
    assert any(ns["metadata"]["name"] == "default" for ns in client.list("v1", "Namespace"))
    server = _config(kubeconfig)["clusters"][0]["cluster"]["server"].split("//", 1)[1]
    assert seen == ["CONNECT %s HTTP/1.0" % server]


def test_the_proxy_tunnel_is_kept_alive_when_the_process_has_more_than_1024_files_open(kubeconfig, tunnel,
                                                                                       past_1024_files):
    url, seen = tunnel
    client = KubeClient(load_connection(_config(kubeconfig, **{"proxy-url": url})))
    for _attempt in range(3):
        assert client.request("GET", "/version")["gitVersion"]
    assert len(seen) == 1, seen


def test_tls_server_name_is_the_name_the_certificate_is_checked_against(kubeconfig):
    assert KubeClient(load_connection(_config(kubeconfig, **{"tls-server-name": "localhost"}))).request(
        "GET", "/version")["gitVersion"]
    wrong = KubeClient(load_connection(_config(kubeconfig, **{"tls-server-name": "wrong.example"})), retries=0)
    with pytest.raises(Unreachable, match="Hostname mismatch"):
        wrong.request("GET", "/version")
