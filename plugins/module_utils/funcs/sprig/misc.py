"""Sprig paths (Go ``path``/``path/filepath`` on Linux), URLs (net/url), network, UUID."""
import random as _random
import socket

from ...govalue.gopath import go_base, go_clean as clean
from ...govalue.signature import go_signature
from ...govalue.strconv import go_quote
from ._go import to_bytes, from_bytes, GoPanic
from .reflection import type_name
from ...errors import HelmlessError

# ------------------------------------------------------------------ path


@go_signature("string")
def base(p):
    return go_base(p)


@go_signature("string")
def dir_(p):
    i = p.rfind("/")
    return clean(p[:i + 1])


@go_signature("string")
def ext(p):
    i = len(p) - 1
    while i >= 0 and p[i] != "/":
        if p[i] == ".":
            return p[i:]
        i -= 1
    return ""


@go_signature("string")
def isAbs(p):
    return p.startswith("/")


@go_signature("string")
def clean_(p):
    return clean(p)


# ------------------------------------------------------------------ net/url

_ENC_PATH, _ENC_SEG, _ENC_HOST, _ENC_ZONE, _ENC_USER, _ENC_QUERY, _ENC_FRAG = range(7)


class URLError(HelmlessError):
    pass


def _should_escape(c, mode):
    if c.isascii() and c.isalnum():
        return False
    if mode in (_ENC_HOST, _ENC_ZONE) and c in "!$&'()*+,;=:[]<>\"":
        return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == _ENC_PATH:
            return c == "?"
        if mode == _ENC_SEG:
            return c in "/;,?"
        if mode == _ENC_USER:
            return c in "@/?:"
        if mode == _ENC_QUERY:
            return True
        if mode == _ENC_FRAG:
            return False
    if mode == _ENC_FRAG and c in "!()*":
        return False
    return True


def _escape(s, mode):
    out = []
    for byte in to_bytes(s):
        c = chr(byte)
        if byte < 0x80 and not _should_escape(c, mode):
            out.append(c)
        elif c == " " and mode == _ENC_QUERY:
            out.append("+")
        elif byte >= 0x80 and mode in (_ENC_HOST, _ENC_ZONE):
            out.append(chr(byte))
        else:
            out.append("%%%02X" % byte)
    text = "".join(out)
    if mode in (_ENC_HOST, _ENC_ZONE):
        return from_bytes(bytes(ord(c) for c in text))
    return text


def _unescape(s, mode):
    b = to_bytes(s)
    out = bytearray()
    i = 0
    while i < len(b):
        c = b[i]
        if c == 0x25:
            h = b[i + 1:i + 3]
            if len(h) < 2 or not all(chr(x) in "0123456789abcdefABCDEF" for x in h):
                bad = from_bytes(b[i:i + 3])
                raise URLError("invalid URL escape " + go_quote(bad))
            out.append(int(h, 16))
            i += 3
            continue
        if c == 0x2B and mode == _ENC_QUERY:
            out.append(0x20)
        else:
            if mode == _ENC_HOST and c < 0x80 and _should_escape(chr(c), mode):
                raise URLError("invalid character " + go_quote(chr(c)) + " in host name")
            out.append(c)
        i += 1
    return from_bytes(bytes(out))


def _get_scheme(raw):
    for i, c in enumerate(raw):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                return "", raw
            continue
        if c == ":":
            if i == 0:
                raise URLError("missing protocol scheme")
            return raw[:i], raw[i + 1:]
        return "", raw
    return "", raw


def _valid_port(port):
    if port == "":
        return True
    if port[0] != ":":
        return False
    return all(c in "0123456789" for c in port[1:])


def _parse_host(host):
    if host.startswith("["):
        i = host.rfind("]")
        if i < 0:
            raise URLError("missing ']' in host")
        if not _valid_port(host[i + 1:]):
            raise URLError("invalid port %s after host" % go_quote(host[i + 1:]))
    else:
        i = host.rfind(":")
        if i >= 0 and not _valid_port(host[i:]):
            raise URLError("invalid port %s after host" % go_quote(host[i:]))
    return _unescape(host, _ENC_HOST)


def _split_userinfo(ui):
    name, sep, pw = ui.partition(":")
    return _unescape(name, _ENC_USER), (_unescape(pw, _ENC_USER) if sep else None)


def _user_string(user):
    name, pw = user
    s = _escape(name, _ENC_USER)
    if pw is not None:
        s += ":" + _escape(pw, _ENC_USER)
    return s


def url_parse(raw):
    """net/url.Parse into a dict of URL fields (raises URLError with Go's text)."""
    u, frag = raw.partition("#")[::2]
    try:
        res = _parse(u)
    except URLError as exc:
        raise URLError("parse %s: %s" % (go_quote(u), exc))
    try:
        res["fragment"] = _unescape(frag, _ENC_FRAG)
    except URLError as exc:
        raise URLError("parse %s: %s" % (go_quote(raw), exc))
    return res


def _parse(raw):
    if any(ord(c) < 0x20 or c == "\x7f" for c in raw):
        raise URLError("net/url: invalid control character in URL")
    res = {"scheme": "", "host": "", "path": "", "query": "", "opaque": "", "user": None}
    if raw == "*":
        res["path"] = "*"
        return res
    scheme, rest = _get_scheme(raw)
    res["scheme"] = scheme.lower()
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    else:
        rest, res["query"] = rest.partition("?")[::2]
    if not rest.startswith("/"):
        if res["scheme"]:
            res["opaque"] = rest
            return res
        if ":" in rest.partition("/")[0]:
            raise URLError("first path segment in URL cannot contain colon")
    if (res["scheme"] or not rest.startswith("///")) and rest.startswith("//"):
        authority, rest = rest[2:], ""
        i = authority.find("/")
        if i >= 0:
            authority, rest = authority[:i], authority[i:]
        i = authority.rfind("@")
        res["host"] = _parse_host(authority[i + 1:] if i >= 0 else authority)
        if i >= 0:
            ui = authority[:i]
            if any(not (c.isascii() and c.isalnum()) and c not in "-._:~!$&'()*+,;=%@"
                   for c in ui):
                raise URLError("net/url: invalid userinfo")
            res["user"] = _split_userinfo(ui)
    res["path"] = _unescape(rest, _ENC_PATH)
    return res


def _hostname(host):
    if host.startswith("["):
        i = host.find("]")
        return host[1:i] if i >= 0 else host[1:]
    i = host.rfind(":")
    if i >= 0 and _valid_port(host[i:]):
        return host[:i]
    return host


@go_signature("string")
def urlParse(v):
    try:
        u = url_parse(v)
    except URLError as exc:
        raise GoPanic("unable to parse url: %s" % exc)
    return {
        "scheme": u["scheme"], "host": u["host"], "hostname": _hostname(u["host"]),
        "path": u["path"], "query": u["query"], "opaque": u["opaque"],
        "fragment": u["fragment"],
        "userinfo": _user_string(u["user"]) if u["user"] is not None else "",
    }


def _meta(d, key):
    if key not in d:
        return ""
    v = d[key]
    if not isinstance(v, str):
        raise GoPanic("unable to parse %s key, must be of type string, but %s found"
                      % (key, type_name(v)))
    return v


@go_signature("map[string]interface {}")
def urlJoin(d):
    d = d or {}
    scheme, host, path = _meta(d, "scheme"), _meta(d, "host"), _meta(d, "path")
    query, opaque, frag = _meta(d, "query"), _meta(d, "opaque"), _meta(d, "fragment")
    ui = _meta(d, "userinfo")
    user = None
    if ui:
        try:
            user = url_parse("proto://%s@host" % ui)["user"]
        except URLError as exc:
            raise GoPanic("unable to parse userinfo in dict: %s" % exc)
    out = []
    if scheme:
        out.append(scheme + ":")
    if opaque:
        out.append(opaque)
    else:
        if scheme or host or user is not None:
            if host or path or user is not None:
                out.append("//")
            if user is not None:
                out.append(_user_string(user) + "@")
            if host:
                out.append(_escape(host, _ENC_HOST))
        epath = "*" if path == "*" else _escape(path, _ENC_PATH)
        if epath and epath[0] != "/" and host:
            out.append("/")
        if not out and ":" in epath.partition("/")[0]:
            out.append("./")
        out.append(epath)
    if query:
        out.append("?" + query)
    if frag:
        out.append("#" + _escape(frag, _ENC_FRAG))
    return "".join(out)


# ------------------------------------------------------------------ network, uuid

@go_signature("string")
def getHostByName(name):
    """Sprig's DNS lookup (Helm replaces it; see funcs/helm.py)."""
    try:
        infos = socket.getaddrinfo(name, None)
    except (OSError, UnicodeError):
        return ""
    addrs = sorted({i[4][0] for i in infos})
    return _random.choice(addrs) if addrs else ""


@go_signature()
def uuidv4():
    import uuid  # lazy: importing it (and platform) costs every task ~2 ms
    return str(uuid.uuid4())


FUNCS = {
    "base": base, "dir": dir_, "clean": clean_, "ext": ext, "isAbs": isAbs,
    "osBase": base, "osDir": dir_, "osClean": clean_, "osExt": ext, "osIsAbs": isAbs,
    "urlParse": urlParse, "urlJoin": urlJoin, "getHostByName": getHostByName,
    "uuidv4": uuidv4,
}
