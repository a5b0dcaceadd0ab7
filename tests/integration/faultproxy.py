"""A fault-injecting TLS proxy in front of the real local API server (test code, aiohttp).

Our client talks TLS to the proxy (its own CA and serving cert); the proxy forwards every request to the
real kube-apiserver authenticated as the control plane's admin (as ``kubectl proxy`` does) and streams
the real answer back, unless a rule matches. A rule is a method + path pattern, an action and a schedule:

    actions   status (429/5xx, optional Retry-After), reset (connection dropped before forwarding),
              lose_response (forwarded, so the server applied it, then the connection dropped),
              reset_mid_body (headers and half the body, then dropped), delay, stall (hold, then drop),
              unauthorized (401 for a given bearer token)
    schedules every(n), burst(start, count), window(t0, t1) seconds after the rule was added, always()

Every request is logged with the fault it got, so tests assert what the client did on the wire.
Listens on 127.0.0.1 only.
"""
import asyncio
import ipaddress
import json
import os
import re
import ssl
import sys
import threading
import time

import aiohttp
import pytest
from aiohttp import web

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "controlplane.d"))

import cp_certs  # noqa: E402

HOP_HEADERS = {"host", "connection", "keep-alive", "transfer-encoding", "content-length", "authorization",
               "proxy-connection", "te", "upgrade", "content-encoding"}


# ---- schedules: callables (index of the matching request, seconds since the rule was added) → bool ----
def always():
    return lambda index, elapsed: True


def every(n, offset=0):
    """Every ``n``-th matching request (the ``offset``-th, the ``offset+n``-th, ...)."""
    return lambda index, elapsed: index % n == offset % n


def burst(start, count):
    """Matching requests number ``start`` .. ``start+count-1`` (0-based)."""
    return lambda index, elapsed: start <= index < start + count


def window(t0, t1):
    """Matching requests that arrive between ``t0`` and ``t1`` seconds after the rule was added."""
    return lambda index, elapsed: t0 <= elapsed < t1


class Rule:
    """One fault: which requests (method/path regexes, optional bearer token), what, and when."""

    def __init__(self, action, method=".*", path=".*", schedule=None, status=503, retry_after=None,
                 seconds=0.0, token=None, limit=None):
        if action not in ("status", "reset", "lose_response", "reset_mid_body", "delay", "stall", "unauthorized"):
            raise ValueError("unknown fault action %r" % action)
        self.action, self.status, self.retry_after, self.seconds = action, status, retry_after, seconds
        self.method, self.path = re.compile(method), re.compile(path)
        self.schedule = schedule or always()
        self.token = token
        self.limit = limit  # at most this many faults from this rule
        self.added = time.monotonic()
        self.matched = 0
        self.fired = 0

    def fires(self, method, path, authorization):
        if not (self.method.fullmatch(method) and self.path.search(path)):
            return False
        if self.token is not None and authorization != "Bearer " + self.token:
            return False
        index = self.matched
        self.matched += 1
        if self.limit is not None and self.fired >= self.limit:
            return False
        if self.schedule(index, time.monotonic() - self.added):
            self.fired += 1
            return True
        return False

    def describe(self):
        if self.action == "status":
            return "%d%s" % (self.status, " Retry-After %s" % self.retry_after if self.retry_after is not None else "")
        return self.action


def _status_body(code, message):
    reasons = {401: "Unauthorized", 429: "TooManyRequests", 500: "InternalError", 502: "BadGateway",
               503: "ServiceUnavailable", 504: "Timeout"}
    return json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": message, "reason": reasons.get(code, "Unknown"), "code": code})


def _abort(request):
    """Drop the connection with a TCP reset (SO_LINGER 0), as a crashing server or a broken network does."""
    transport = request.transport
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        import socket
        import struct
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    transport.abort()


def _serving_cert(directory):
    """A CA and a 127.0.0.1 serving cert of the proxy's own; return (ca path, cert path, key path)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography import x509

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = cp_certs._name("faultproxy-ca")
    ca = cp_certs._cert(ca_name, ca_key, ca_name, ca_key, ca=True)
    sans = [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
    cert = cp_certs._cert(cp_certs._name("faultproxy"), key, ca_name, ca_key, server_sans=sans)
    paths = [os.path.join(directory, n) for n in ("proxy-ca.crt", "proxy.crt", "proxy.key")]
    for path, data in zip(paths, (ca.public_bytes(serialization.Encoding.PEM),
                                  cert.public_bytes(serialization.Encoding.PEM), cp_certs._key_pem(key))):
        with open(path, "wb") as fh:
            fh.write(data)
    return paths


class FaultProxy:
    """Start with ``FaultProxy(cp_dir, server, tmpdir).start()``; ``kubeconfig()`` points a client at it."""

    def __init__(self, cp_dir, upstream, workdir):
        self.upstream = upstream.rstrip("/")
        self.workdir = workdir
        pki = os.path.join(cp_dir, "pki")
        self._upstream_ssl = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
        self._upstream_ssl.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))
        self.ca_file, cert, key = _serving_cert(workdir)
        self._serve_ssl = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self._serve_ssl.load_cert_chain(cert, key)
        self.rules = []
        self.log = []  # dicts: n, t, method, path, fault, status
        self._lock = threading.Lock()
        self._loop = None
        self._thread = None
        self._runner = None
        self._session = None
        self.port = None
        self.url = None

    # ---- control (from the test's thread) --------------------------------------------------------
    def add(self, action, **kwargs):
        rule = Rule(action, **kwargs)
        with self._lock:
            self.rules.append(rule)
        return rule

    def clear(self):
        with self._lock:
            self.rules = []

    def entries(self, method=None, path=None, fault=None):
        with self._lock:
            items = list(self.log)
        return [e for e in items if (method is None or e["method"] == method)
                and (path is None or re.search(path, e["path"])) and (fault is None or e["fault"] == fault)]

    def faults(self):
        return [e for e in self.entries() if e["fault"]]

    def kubeconfig(self, token=None, exec_config=None, name="faultproxy.kubeconfig"):
        user = {}
        if token:
            user["token"] = token
        if exec_config:
            user["exec"] = exec_config
        doc = {"apiVersion": "v1", "kind": "Config", "current-context": "proxy",
               "clusters": [{"name": "proxy", "cluster": {"server": self.url, "certificate-authority": self.ca_file}}],
               "users": [{"name": "proxy", "user": user}],
               "contexts": [{"name": "proxy", "context": {"cluster": "proxy", "user": "proxy"}}]}
        path = os.path.join(self.workdir, name)
        with open(path, "w") as fh:
            json.dump(doc, fh)
        return path

    def start(self):
        ready = threading.Event()
        self._thread = threading.Thread(target=self._main, args=(ready,), daemon=True, name="faultproxy")
        self._thread.start()
        if not ready.wait(30) or self.port is None:
            raise RuntimeError("fault proxy did not start")
        return self

    def stop(self):
        if self._loop is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop = None

    # ---- the server (in its own thread and event loop) -------------------------------------------
    def _main(self, ready):
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._startup())
        ready.set()
        self._loop.run_forever()
        self._loop.close()

    async def _startup(self):
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(ssl=self._upstream_ssl, limit=64),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=10), auto_decompress=False)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self._serve_ssl)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]
        self.url = "https://127.0.0.1:%d" % self.port

    async def _shutdown(self):
        await self._runner.cleanup()
        await self._session.close()

    def _pick(self, method, path, authorization):
        with self._lock:
            for rule in self.rules:
                if rule.fires(method, path, authorization):
                    return rule
        return None

    def _record(self, method, path, fault, status):
        with self._lock:
            self.log.append({"n": len(self.log), "t": time.monotonic(), "method": method, "path": path,
                             "fault": fault, "status": status})

    async def _handle(self, request):
        method, path = request.method, request.path_qs
        rule = self._pick(method, request.path, request.headers.get("Authorization"))
        fault = rule.describe() if rule else None
        if rule and rule.action == "status":
            self._record(method, path, fault, rule.status)
            headers = {"Content-Type": "application/json"}
            if rule.retry_after is not None:
                headers["Retry-After"] = str(rule.retry_after)
            return web.Response(status=rule.status, headers=headers,
                                text=_status_body(rule.status, "injected fault: %s" % fault))
        if rule and rule.action == "unauthorized":
            self._record(method, path, fault, 401)
            return web.Response(status=401, content_type="application/json",
                                text=_status_body(401, "Unauthorized"))
        if rule and rule.action in ("reset", "stall"):
            self._record(method, path, fault, None)  # on arrival: a stalled request is logged before its resend
            if rule.action == "stall":
                await asyncio.sleep(rule.seconds)
            _abort(request)
            return web.Response(status=500)  # never sent: the connection is gone
        if rule and rule.action == "delay":
            await asyncio.sleep(rule.seconds)
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS}
        try:
            upstream = await self._session.request(method, self.upstream + path, data=body or None,
                                                   headers=headers, allow_redirects=False)
        except aiohttp.ClientError as exc:
            self._record(method, path, "upstream unreachable", 502)
            return web.Response(status=502, content_type="application/json",
                                text=_status_body(502, "proxy: upstream unreachable: %s" % exc))
        async with upstream:
            if rule and rule.action == "lose_response":
                await upstream.read()
                self._record(method, path, fault, upstream.status)
                _abort(request)
                return web.Response(status=500)
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason,
                                          headers={k: v for k, v in upstream.headers.items()
                                                   if k.lower() not in HOP_HEADERS})
            if rule and rule.action == "reset_mid_body":
                data = await upstream.read()
                response.content_length = len(data)
                await response.prepare(request)
                await response.write(data[:max(1, len(data) // 2)])
                self._record(method, path, fault, upstream.status)
                _abort(request)
                return response
            self._record(method, path, fault, upstream.status)
            await response.prepare(request)
            async for chunk in upstream.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response



@pytest.fixture
def faultproxy(controlplane, tmp_path):
    """A FaultProxy in front of the session's control plane (import this fixture into a test module)."""
    proxy = FaultProxy(controlplane.dir, controlplane.server, str(tmp_path)).start()
    yield proxy
    proxy.stop()
