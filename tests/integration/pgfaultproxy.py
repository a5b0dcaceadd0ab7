"""A fault-injecting TCP proxy in front of the real test PostgreSQL (test code, threads; no tests here).

It reads the client's side of the PostgreSQL wire protocol (startup, then typed messages) and matches the
SQL text of each Query ('Q') or Parse ('P') message against rules. A rule fires once, on the ``nth``
statement that contains its text, and either

    drop_before   closes the client's connection without forwarding the statement;
    drop_after    forwards it (with the rest of its extended-protocol batch, up to Sync), waits until the
                  server is ready for the next query (so it ran), and closes the connection without
                  passing the answer on;
    call          (any other action name) runs a function first (restart the server, lock a table...),
                  then forwards the statement.

The rule ``committed`` matches the statement that makes the first write durable: ``COMMIT``, or a write
(INSERT, UPDATE, DELETE) sent outside a transaction block, as the server's last ReadyForQuery said.

Every statement is logged with the fault it got. Listens on 127.0.0.1 only; plain TCP (sslmode=disable).
"""
import socket
import struct
import threading

_UNTYPED = {80877103, 80877104}  # SSLRequest, GSSENCRequest: answered by the server, startup follows


_WRITES = (b"INSERT", b"UPDATE", b"DELETE")


class Rule:
    def __init__(self, text, action, nth=1, call=None):
        self.text, self.action, self.nth, self.call = text.encode(), action, nth, call
        self.seen = 0
        self.fired = False

    def matches(self, text, idle):
        if self.text == b"committed":
            return text.lstrip().upper().startswith(b"COMMIT") or (idle and text.lstrip().upper().startswith(_WRITES))
        return self.text in text


class PgFaultProxy:
    def __init__(self, upstream_port):
        self.upstream = ("127.0.0.1", upstream_port)
        self.rules = []
        self.log = []
        self._lock = threading.Lock()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._open = set()
        self._stopped = False

    def url(self, direct_url):
        """``direct_url`` (the test server's) through the proxy."""
        return direct_url.replace(":%d/" % self.upstream[1], ":%d/" % self.port)

    def add(self, text, action, nth=1, call=None):
        self.rules.append(Rule(text, action, nth, call))
        return self

    def faults(self):
        return [entry for entry in self.log if entry[1] != "pass"]

    def start(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def stop(self):
        self._stopped = True
        self._listener.close()
        for sock in list(self._open):
            _close(sock)

    def _accept(self):
        while not self._stopped:
            try:
                client, _addr = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                _close(client)
                continue
            self._open.update((client, server))
            state = {"closed": False, "answered": threading.Event(), "untyped": 0, "status": b"I"}
            threading.Thread(target=self._client_to_server, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self._server_to_client, args=(server, client, state), daemon=True).start()

    def _decide(self, kind, payload, idle):
        if kind not in (b"Q", b"P"):
            return None, "pass"
        text = payload.split(b"\0", 2)[1 if kind == b"P" else 0]
        with self._lock:
            for rule in self.rules:
                if rule.fired or not rule.matches(text, idle):
                    continue
                rule.seen += 1
                if rule.seen == rule.nth:
                    rule.fired = True
                    self.log.append((text.decode(errors="replace"), rule.action))
                    return rule, rule.action
            self.log.append((text.decode(errors="replace"), "pass"))
        return None, "pass"

    def _client_to_server(self, client, server, state):
        try:
            startup = True
            while True:
                if startup:
                    head = _read(client, 4)
                    body = _read(client, struct.unpack("!I", head)[0] - 4)
                    startup = struct.unpack("!I", body[:4])[0] in _UNTYPED
                    state["untyped"] += startup  # answered by one byte, no message
                    server.sendall(head + body)
                    continue
                kind, message = _message(client)
                rule, action = self._decide(kind, message[4:], state["status"] == b"I")
                if action == "drop_before":
                    break
                if rule is not None and rule.call is not None:
                    rule.call()
                if action == "drop_after":
                    while kind not in (b"S", b"Q"):  # the batch runs at its Sync
                        server.sendall(kind + message)
                        kind, message = _message(client)
                    state["closed"] = True  # the answer is swallowed: wait until the server has sent it
                server.sendall(kind + message)
                if action == "drop_after":
                    state["answered"].wait(10)
                    break
        except OSError:
            pass
        _close(client)
        _close(server)

    def _server_to_client(self, server, client, state):
        try:
            while True:
                if state["untyped"]:
                    data = _read(server, 1)
                    state["untyped"] -= 1
                else:
                    kind, message = _message(server)
                    data = kind + message
                    if kind == b"Z":  # ReadyForQuery: its status byte says whether a transaction is open
                        state["status"] = message[4:5]
                        if state["closed"]:
                            state["answered"].set()
                if not state["closed"]:
                    client.sendall(data)
        except OSError:
            pass
        _close(client)
        _close(server)


def _message(sock):
    """One typed message: its type byte, then its length word and body as they came."""
    kind = _read(sock, 1)
    head = _read(sock, 4)
    return kind, head + _read(sock, struct.unpack("!I", head)[0] - 4)


def _read(sock, count):
    out = b""
    while len(out) < count:
        chunk = sock.recv(count - len(out))
        if not chunk:
            raise OSError("closed")
        out += chunk
    return out


def _close(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
