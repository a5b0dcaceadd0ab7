"""Keep-alive HTTP/1.1 to one API server, on sockets and ssl of the standard library.

What the client needs is small: persistent connections shared by threads, TLS with the kubeconfig's CA,
client certificate and server name (or none of the checks), an http:// proxy (CONNECT for https), and
knowing whether a failed request ever left. urllib3 did this at ~55 ms of imports in every task, a fifth of
a no-op release's own cost, and http.client at ~9 ms (it loads the email package to parse headers), so the
protocol is written here: a request line and headers out; a status line, headers and a body by
Content-Length, chunked or until close back. ``Unsent`` marks a connection that could not be opened
(resending is always safe); any other error after that leaves the outcome unknown to the caller.
"""
import select
import socket
import ssl
import threading
from urllib.parse import urlsplit

_MAX_LINE = 65536
_MAX_HEADERS = 200
_BAD_HEADER = frozenset("\r\n\0")


class Unsent(OSError):
    """The request never reached the server: no connection could be opened to it (or to the proxy)."""


class ProtocolError(OSError):
    """The server's answer is not HTTP/1.x (a garbled status line, header or chunk) or stopped short."""


class Headers(dict):
    """Response headers by lower-cased name (the last of repeated ones); ``get`` ignores case."""

    def get(self, name, default=None):
        return dict.get(self, name.lower(), default)


class Response:
    """A whole response: ``status``, ``headers`` (``.get(name)``) and the body as bytes (``data``)."""

    __slots__ = ("status", "headers", "data")

    def __init__(self, status, headers, data):
        self.status = status
        self.headers = headers
        self.data = data


class _Connection:
    """One socket and its buffered reader."""

    __slots__ = ("sock", "reader")

    def __init__(self, sock):
        self.sock = sock
        self.reader = sock.makefile("rb")

    def close(self):
        for part in (self.reader, self.sock):
            try:
                part.close()
            except OSError:
                pass

    def line(self):
        line = self.reader.readline(_MAX_LINE + 1)
        if len(line) > _MAX_LINE:
            raise ProtocolError("response line longer than %d bytes" % _MAX_LINE)
        return line

    def head(self):
        """``(status, headers)`` of the next response (1xx interim answers skipped)."""
        while True:
            line = self.line()
            if not line:
                raise ProtocolError("the server closed the connection without answering")
            parts = line.decode("latin-1").rstrip("\r\n").split(None, 2)
            if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit() or len(parts[1]) != 3:
                raise ProtocolError("not an HTTP/1.x status line: %r" % line[:80])
            status, headers = int(parts[1]), Headers()
            headers.version = parts[0]
            for _count in range(_MAX_HEADERS + 1):
                line = self.line()
                if line in (b"\r\n", b"\n", b""):
                    break
                name, sep, value = line.decode("latin-1").partition(":")
                if not sep:
                    raise ProtocolError("not a header line: %r" % line[:80])
                headers[name.strip().lower()] = value.strip()
            else:
                raise ProtocolError("more than %d response headers" % _MAX_HEADERS)
            if status >= 200 or status == 101:
                return status, headers

    def body(self, method, status, headers):
        """The body bytes and whether the connection must close after it."""
        close = "close" in headers.get("connection", "").lower() or headers.version == "HTTP/1.0"
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return b"", close
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return self._chunked(), close
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                raise ProtocolError("bad Content-Length %r" % length)
            data = self.reader.read(int(length))
            if len(data) < int(length):
                raise ProtocolError("the body ended after %d of %s bytes" % (len(data), length))
            return data, close
        return self.reader.read(), True

    def _chunked(self):
        parts = []
        while True:
            size = self.line().split(b";", 1)[0].strip()
            try:
                size = int(size, 16)
            except ValueError:
                raise ProtocolError("bad chunk size %r" % size[:40]) from None
            if size == 0:
                while self.line() not in (b"\r\n", b"\n", b""):  # trailers
                    pass
                return b"".join(parts)
            data = self.reader.read(size)
            if len(data) < size or self.reader.read(2) != b"\r\n":
                raise ProtocolError("a chunk of the body stopped short")
            parts.append(data)


def _request_bytes(method, target, host, headers, body):
    """The request head and body; a header with a line break or NUL is refused (ValueError), as http.client
    refuses it: it would smuggle headers of its own. A list value sends the header once per item."""
    lines = ["%s %s HTTP/1.1" % (method, target), "Host: " + host, "Accept-Encoding: identity"]
    for name, values in headers.items():
        if _BAD_HEADER.intersection(name) or ":" in name:
            raise ValueError("Invalid header name %r" % name)
        for value in values if isinstance(values, list) else [values]:
            value = str(value)
            if _BAD_HEADER.intersection(value):  # the value itself is not quoted: it is a credential, often
                raise ValueError("Invalid header value for %s: it holds a line break or NUL" % name)
            lines.append("%s: %s" % (name, value))
    if body is not None or method in ("POST", "PUT", "PATCH"):
        lines.append("Content-Length: %d" % len(body or b""))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


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
        default = 443 if self._https else 80
        self._host_header = _bracketed(self._host) + ("" if self._port == default else ":%d" % self._port)
        self._idle = []
        self._lock = threading.Lock()
        self._maxsize = maxsize

    def _open(self, timeout):
        host, port = self._host, self._port
        if self._proxy is not None:
            host, port = self._proxy.hostname, self._proxy.port or 80  # an http:// proxy (kube/config.py checks)
        try:
            sock = socket.create_connection((host, port), timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._https and self._proxy is not None:
                _tunnel(sock, "%s:%d" % (_bracketed(self._host), self._port))
        except OSError as exc:
            raise Unsent(str(exc)) from exc
        if self._https:
            try:
                sock = self._context.wrap_socket(sock, server_hostname=self._server_hostname)
            except BaseException:
                sock.close()
                raise
        return _Connection(sock)

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
            body = body.encode("utf-8")
        target = self._prefix + path
        if self._proxy is not None and not self._https:
            target = self._origin + target  # a plain-HTTP proxy is sent the absolute URL
        payload = _request_bytes(method, target, self._host_header, headers or {}, body)
        conn = self._take(timeout)
        try:
            conn.sock.sendall(payload)
            status, head = conn.head()
            data, close = conn.body(method, status, head)
        except BaseException:
            conn.close()
            raise
        if not close:
            with self._lock:
                if len(self._idle) < self._maxsize:
                    self._idle.append(conn)
                    conn = None
        if conn is not None:
            conn.close()
        return Response(status, head, data)


def _bracketed(host):
    return "[%s]" % host if ":" in host else host


def _tunnel(sock, authority):
    """CONNECT ``authority`` through the proxy on ``sock``; OSError unless it answers 200."""
    sock.sendall(("CONNECT %s HTTP/1.0\r\n\r\n" % authority).encode("ascii"))
    conn = _Connection(sock)
    try:
        status, _headers = conn.head()
    except ProtocolError as exc:
        raise OSError("Tunnel connection failed: %s" % exc) from exc
    finally:
        conn.reader.close()  # not the socket, which goes on to carry TLS (the proxy sends nothing more before it)
    if status != 200:
        raise OSError("Tunnel connection failed: %d" % status)


def _dropped(conn):
    sock = conn.sock
    if sock is None:
        return True
    try:
        poller = select.poll()  # select.select refuses descriptors past 1024, which a long-lived controller reaches
        poller.register(sock, select.POLLIN)
        ready = poller.poll(0)
    except (OSError, ValueError):
        return True
    return bool(ready)  # an idle connection has nothing to read (nor a hang-up) unless the server closed it
