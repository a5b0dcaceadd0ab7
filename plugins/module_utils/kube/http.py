"""Keep-alive HTTP(S) to one API server, on the standard library (http.client and ssl).

What the client needs is small: persistent connections shared by threads, TLS with the kubeconfig's CA,
client certificate and server name (or none of the checks), an http:// proxy (CONNECT for https), and
knowing whether a failed request ever left. urllib3 did this at ~55 ms of imports in every task, a fifth of
a no-op release's own cost. ``Unsent`` marks a connection that could not be opened (resending is always
safe); any other error after that leaves the outcome unknown to the caller.
"""
import http.client
import select
import ssl
import threading
from urllib.parse import urlsplit


class Unsent(OSError):
    """The request never reached the server: no connection could be opened to it (or to the proxy)."""


class Response:
    """A whole response: ``status``, ``headers`` (``.get(name)``) and the body as bytes (``data``)."""

    __slots__ = ("status", "headers", "data")

    def __init__(self, status, headers, data):
        self.status = status
        self.headers = headers
        self.data = data


class _Plain(http.client.HTTPConnection):
    def connect(self):
        try:
            super().connect()
        except OSError as exc:
            raise Unsent(str(exc)) from exc


class _TLS(_Plain):
    """TLS over ``_Plain``'s socket (tunnelled when a proxy is set), checked against ``server_hostname``."""

    def __init__(self, host, port, timeout, context, server_hostname):
        super().__init__(host, port, timeout=timeout)
        self._context = context
        self._server_hostname = server_hostname

    def connect(self):
        super().connect()
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self._server_hostname)


def tls_context(verify=True, ca_file=None, cert_file=None, key_file=None):
    context = ssl.create_default_context(cafile=ca_file if verify else None)
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if cert_file:
        context.load_cert_chain(cert_file, key_file)
    return context


class Pool:
    """Connections to the API server at ``base`` (``https://host:port/optional/prefix``), any number of threads.

    Up to ``maxsize`` idle connections are kept; more are opened when more threads ask at once."""

    def __init__(self, base, context=None, server_hostname=None, proxy=None, maxsize=16):
        url = urlsplit(base)
        self._https = url.scheme == "https"
        self._host, self._port = url.hostname, url.port or (443 if self._https else 80)
        self._prefix = url.path.rstrip("/")
        self._origin = "%s://%s" % (url.scheme, url.netloc)
        self._context = context if self._https else None
        self._server_hostname = server_hostname or self._host
        self._proxy = urlsplit(proxy) if proxy else None
        self._idle = []
        self._lock = threading.Lock()
        self._maxsize = maxsize

    def _open(self, timeout):
        host, port = self._host, self._port
        if self._proxy is not None:
            host, port = self._proxy.hostname, self._proxy.port or 80  # an http:// proxy (kube/config.py checks)
        if self._https:
            conn = _TLS(host, port, timeout, self._context, self._server_hostname)
            if self._proxy is not None:
                conn.set_tunnel(self._host, self._port)
        else:
            conn = _Plain(host, port, timeout=timeout)
        conn.connect()
        return conn

    def _take(self, timeout):
        while True:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
            if conn is None:
                return self._open(timeout)
            if _dropped(conn):  # the server closed it while idle (as urllib3 checks before reuse)
                conn.close()
                continue
            conn.sock.settimeout(timeout)
            return conn

    def request(self, method, path, body=None, headers=None, timeout=None):
        """Send ``method`` ``path`` (with its query) and read the whole answer: a Response."""
        if isinstance(body, str):
            body = body.encode("utf-8")  # http.client would send a str as Latin-1
        conn = self._take(timeout)
        target = self._prefix + path
        if self._proxy is not None and not self._https:
            target = self._origin + target  # a plain-HTTP proxy is sent the absolute URL
        try:
            conn.request(method, target, body=body, headers=headers or {})
            resp = conn.getresponse()
            data = resp.read()
        except BaseException:
            conn.close()
            raise
        if resp.will_close:
            conn.close()
        else:
            with self._lock:
                if len(self._idle) < self._maxsize:
                    self._idle.append(conn)
                    conn = None
            if conn is not None:
                conn.close()
        return Response(resp.status, resp.headers, data)


def _dropped(conn):
    sock = conn.sock
    if sock is None:
        return True
    try:
        readable, _w, _x = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)  # an idle connection has nothing to read unless the server closed it
