"""kube/http.py's HTTP/1.1 against a local socket server that answers with the bytes each test gives: bodies
by length, chunked (extensions, trailers) and until close, kept-alive connections, and answers that are not
HTTP fail as ProtocolError (an OSError: the kube client's retry rules apply)."""
import socket
import threading

import pytest

from ansible_collections.helmless.core.plugins.module_utils.kube.http import Pool, ProtocolError


@pytest.fixture
def server():
    """``(url, answers, seen)``: each accepted connection reads a request head and sends the next answer
    (bytes, or ``(bytes, "close")`` to close the connection after it); ``seen`` lists (connection number, request
    head)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    answers, seen = [], []

    def serve(conn, number):
        buffered = b""
        while answers:
            while b"\r\n\r\n" not in buffered:
                data = conn.recv(65536)
                if not data:
                    return
                buffered += data
            head, _sep, buffered = buffered.partition(b"\r\n\r\n")
            seen.append((number, head.decode()))
            answer = answers.pop(0)
            close = isinstance(answer, tuple)
            conn.sendall(answer[0] if close else answer)
            if close:
                conn.close()
                return

    def accept():
        number = 0
        while True:
            try:
                conn, _addr = listener.accept()
            except OSError:
                return
            number += 1
            threading.Thread(target=serve, args=(conn, number), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
    yield "http://127.0.0.1:%d" % listener.getsockname()[1], answers, seen
    listener.close()


def test_bodies_by_length_and_chunked_come_whole_over_one_kept_alive_connection(server):
    url, answers, seen = server
    answers += [b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nRetry-After: 3\r\n\r\nhello",
                b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nchun\r\n3\r\nked\r\n0\r\n"
                b"X-Trailer: t\r\n\r\n"]
    pool = Pool(url)
    first = pool.request("GET", "/a", headers={"Accept": "application/json"}, timeout=5)
    second = pool.request("POST", "/b", body='{"k": "é"}', timeout=5)
    assert (first.status, first.data, first.headers.get("retry-after")) == (200, b"hello", "3")
    assert (second.status, second.data) == (201, b"chunked")
    assert [number for number, _head in seen] == [1, 1]
    assert seen[0][1].splitlines()[:2] == ["GET /a HTTP/1.1", "Host: 127.0.0.1:%s" % url.rsplit(":", 1)[1]]
    assert "Content-Length: %d" % len('{"k": "é"}'.encode()) in seen[1][1].splitlines()


def test_an_answer_until_close_is_read_to_the_end_and_the_next_request_opens_a_new_connection(server):
    url, answers, seen = server
    answers += [(b"HTTP/1.0 200 OK\r\n\r\nall of it", "close"), b"HTTP/1.1 204 No Content\r\n\r\n"]
    pool = Pool(url)
    assert pool.request("GET", "/x", timeout=5).data == b"all of it"
    assert pool.request("DELETE", "/y", timeout=5).status == 204
    assert [number for number, _head in seen] == [1, 2]


@pytest.mark.parametrize("answer", [b"garbage\r\n\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort",
                                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", b""])
def test_an_answer_that_is_not_http_or_stops_short_is_a_protocol_error(server, answer):
    url, answers, _seen = server
    answers.append((answer, "close"))
    with pytest.raises(ProtocolError):
        Pool(url).request("GET", "/", timeout=5)


def test_a_header_with_a_line_break_is_refused_before_anything_is_sent(server):
    url, answers, seen = server
    answers.append(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    with pytest.raises(ValueError):
        Pool(url).request("GET", "/", headers={"Authorization": "Bearer a\r\nX-Injected: 1"}, timeout=5)
    assert seen == []
