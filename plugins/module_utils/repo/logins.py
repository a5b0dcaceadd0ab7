"""Helm's registry logins (``helm registry login``/``logout``) and their use by OCI pulls.

Helm keeps them in ``$HELM_REGISTRY_CONFIG`` (default ``<config home>/registry/config.json``), a Docker
``config.json``: ``{"auths": {"host:port": {"auth": base64("user:pass")}}}``. Written as oras-go's file
store writes it (top-level and ``auths`` keys sorted, tab-indented, other keys kept, the entry replaced
whole, 0600 through a temporary file and a rename). Pulls read that file first and Docker's
``config.json`` second, as Helm's store with Docker fallback does. A host with a Docker credential helper
(``credHelpers[host]``, else ``credsStore``) is served by ``docker-credential-<name>`` from ``PATH``
instead of ``auths``, through the helpers' protocol (``get``/``store``/``erase``, server address or JSON on
stdin, JSON on stdout), as oras-go's native store runs them for Helm.
"""
import base64
import binascii
import json
import os
import subprocess

from .errors import RepoError
from .paths import atomic_write, config_home

DOCKER_HUB = "https://index.docker.io/v1/"
_GO_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def registry_config():
    """``$HELM_REGISTRY_CONFIG`` or ``<config home>/registry/config.json``."""
    return os.environ.get("HELM_REGISTRY_CONFIG") or os.path.join(config_home(), "registry", "config.json")


def docker_config():
    """Docker's ``config.json`` (``$DOCKER_CONFIG`` or ``~/.docker``), Helm's fallback store."""
    base = os.environ.get("DOCKER_CONFIG") or os.path.join(os.path.expanduser("~"), ".docker")
    return os.path.join(base, "config.json")


def normalize_host(host):
    """``host[:port]`` from what a user may write (``oci://``, ``https://``, a trailing path)."""
    host = (host or "").strip()
    for prefix in ("oci://", "https://", "http://"):
        if host.startswith(prefix):
            host = host[len(prefix):]
    return host.split("/", 1)[0]


def server_address(host):
    """The ``auths`` key of a registry host (Docker Hub's legacy key, as oras-go maps it)."""
    return DOCKER_HUB if host in ("docker.io", "registry-1.docker.io") else host


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise RepoError("failed to open config file at %s: %s" % (path, exc))


def _load(path):
    text = _read(path)
    if not text.strip():
        return {}
    try:
        content = json.loads(text)
    except ValueError as exc:
        raise RepoError("failed to decode config file at %s: invalid config format: %s" % (path, exc))
    if not isinstance(content, dict) or not isinstance(content.get("auths") or {}, dict):
        raise RepoError("failed to decode config file at %s: invalid config format: auths is not an object" % path)
    return content


def _members(text):
    """``{key: value's JSON text}`` of a JSON object, the values byte for byte (Go's json.RawMessage)."""
    decoder, members = json.JSONDecoder(), {}

    def skip(pos):
        while text[pos] in " \t\r\n":
            pos += 1
        return pos
    pos = skip(0) + 1
    while text[skip(pos)] != "}":
        key, pos = decoder.raw_decode(text, skip(pos))
        start = skip(skip(pos) + 1)  # past the colon
        end = decoder.raw_decode(text, start)[1]
        members[key] = text[start:end]
        pos = skip(end)
        if text[pos] == ",":
            pos += 1
    return members


def _object(members):
    return "{%s}" % ",".join("%s:%s" % (json.dumps(key, ensure_ascii=False), value)
                             for key, value in sorted(members.items()))


def _go_indent(text):
    """Go's MarshalIndent(..., "", "\t") of raw JSON: whitespace outside strings dropped, ``<>&`` and
    U+2028/2029 in strings escaped, strings otherwise kept verbatim, empty objects and arrays compact."""
    out, depth, pos = [], 0, 0
    while pos < len(text):
        char = text[pos]
        if char == '"':
            end = pos + 1
            while text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            chunk = text[pos:end + 1]
            for raw, escaped in _GO_ESCAPES:
                chunk = chunk.replace(raw, escaped)
            out.append(chunk)
            pos = end + 1
            continue
        if char in "{[":
            after = pos + 1
            while text[after] in " \t\r\n":
                after += 1
            if text[after] in "}]":
                out.append(char + text[after])
                pos = after + 1
                continue
            depth += 1
            out.append(char + "\n" + "\t" * depth)
        elif char in "}]":
            depth -= 1
            out.append("\n" + "\t" * depth + char)
        elif char == ",":
            out.append(",\n" + "\t" * depth)
        elif char == ":":
            out.append(": ")
        elif char not in " \t\r\n":
            out.append(char)
        pos += 1
    return "".join(out)


def _save(path, key, entry):
    """Set (or with ``entry=None`` remove) ``auths[key]`` as oras-go's file store saves: every other value
    kept as written, top-level and ``auths`` keys sorted, an empty ``credsStore`` dropped, tab-indented."""
    text = _read(path)
    top = _members(text) if text.strip() else {}
    auths = _members(top["auths"]) if top.get("auths", "null") != "null" else {}
    if entry is None:
        auths.pop(key, None)
    else:
        auths[key] = json.dumps(entry, separators=(",", ":"))
    if "credsStore" in top and not json.loads(top["credsStore"]):
        del top["credsStore"]
    top["auths"] = _object(auths)
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
    atomic_write(path, _go_indent(_object(top)).encode("utf-8"), 0o600)


def _entry(username, password):
    return {"auth": base64.b64encode(("%s:%s" % (username, password)).encode("utf-8")).decode("ascii")}


def _decode(entry, key, path):
    """(username, password) of an ``auths`` entry; ``auth`` wins over the legacy fields."""
    if not isinstance(entry, dict):
        raise RepoError("%s: auths entry %s is not an object" % (path, key))
    username, password = entry.get("username") or "", entry.get("password") or ""
    if entry.get("auth"):
        try:
            decoded = base64.b64decode(entry["auth"], validate=True).decode("utf-8")
        except (binascii.Error, ValueError) as exc:
            raise RepoError("%s: failed to decode auth field of %s: invalid config format: %s" % (path, key, exc))
        if ":" not in decoded:
            raise RepoError("%s: auth of %s does not conform the base64(username:password) format" % (path, key))
        username, password = decoded.split(":", 1)
    return username, password


def _helper(content, key):
    return (content.get("credHelpers") or {}).get(key) or content.get("credsStore") or ""


# What every helper prints (and exits 1 with) when it holds nothing for the server (docker-credential-helpers).
_NOT_FOUND = "credentials not found in native keychain"
HELPER_TIMEOUT = 60


def _run_helper(helper, action, data):
    """Run ``docker-credential-<helper> <action>`` with ``data`` on stdin: (exit code, stdout, stderr)."""
    program = "docker-credential-" + helper
    try:
        proc = subprocess.run([program, action], input=data.encode("utf-8"), capture_output=True,
                              timeout=HELPER_TIMEOUT, check=False)
    except FileNotFoundError:
        raise RepoError("credential helper %s (named by credsStore/credHelpers) is not on PATH" % program)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RepoError("credential helper %s %s failed: %s" % (program, action, exc))
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def _helper_failed(helper, action, code, out, err):
    message = (out.strip() or err.strip() or "no output")[:500]
    return RepoError("credential helper docker-credential-%s %s exited with status %d: %s"
                     % (helper, action, code, message))


def helper_get(helper, key):
    """(username, secret) the helper holds for server ``key``, or None when it holds nothing."""
    code, out, err = _run_helper(helper, "get", key)
    if code != 0:
        if out.strip() == _NOT_FOUND:
            return None
        raise _helper_failed(helper, "get", code, out, err)
    try:
        found = json.loads(out)
        username, secret = found.get("Username") or "", found.get("Secret") or ""
    except (ValueError, AttributeError):
        raise RepoError("credential helper docker-credential-%s get printed no credentials JSON for %s: %r"
                        % (helper, key, out[:200]))
    if not isinstance(username, str) or not isinstance(secret, str):
        raise RepoError("credential helper docker-credential-%s get printed invalid credentials for %s"
                        % (helper, key))
    return (username, secret) if username or secret else None


def _helper_store(helper, key, username, password):
    payload = json.dumps({"ServerURL": key, "Username": username, "Secret": password})
    code, out, err = _run_helper(helper, "store", payload)
    if code != 0:
        raise _helper_failed(helper, "store", code, out, err)


def _helper_erase(helper, key):
    code, out, err = _run_helper(helper, "erase", key)
    if code != 0 and out.strip() != _NOT_FOUND:
        raise _helper_failed(helper, "erase", code, out, err)


def stored_credentials(host):
    """(username, password) stored for ``host`` by a registry login (Helm's file, then Docker's), or None.

    A broken Helm registry config fails (as Helm's client does); a broken Docker config is skipped, as
    Helm then uses its own store alone. A credential helper that fails fails the pull, naming the helper.
    """
    key = server_address(host)
    for path in (registry_config(), docker_config()):
        try:
            content = _load(path)
        except RepoError:
            if path == registry_config():
                raise
            continue
        found = _find(content, path, key)
        if found:
            return found
    return None


def _find(content, path, key):
    helper = _helper(content, key)
    if helper:
        return helper_get(helper, key)
    auths = content.get("auths") or {}
    found = auths.get(key)
    if found is None:  # legacy keys with a scheme or path: https://host/
        found = next((value for name, value in auths.items() if normalize_host(name) == key), None)
    if found is None:
        return None
    username, password = _decode(found, key, path)
    return (username, password) if username or password else None


def login(host, username, password, verify, check_mode=False):
    """Verify with ``verify()`` (raises RepoError), then store the entry: ``(changed, helm's output)``."""
    if ":" in (username or ""):
        raise RepoError("failed to store credentials for %s: bad credential format: colons(:) are not allowed "
                        "in username" % host)
    path = registry_config()
    content = _load(path)
    key = server_address(host)
    helper = _helper(content, key)
    try:
        verify()
    except RepoError as exc:
        raise RepoError('authenticating to "%s": %s' % (host, exc))
    if helper:  # stored through the helper, as Helm (oras-go) does
        if helper_get(helper, key) == (username, password):
            return False, "Login Succeeded"
        if not check_mode:
            _helper_store(helper, key, username, password)
        return True, "Login Succeeded"
    entry = _entry(username, password)
    if (content.get("auths") or {}).get(key) == entry:
        return False, "Login Succeeded"
    if not check_mode:
        _save(path, key, entry)
    return True, "Login Succeeded"


def logout(host, check_mode=False):
    """Remove the entry of ``host``: ``(changed, helm's output)``; nothing is written when there is none."""
    path = registry_config()
    content = _load(path)
    key = server_address(host)
    helper = _helper(content, key)
    if helper:
        changed = helper_get(helper, key) is not None
        if changed and not check_mode:
            _helper_erase(helper, key)
        return changed, "Removing login credentials for %s" % host
    changed = key in (content.get("auths") or {})
    if changed and not check_mode:
        _save(path, key, None)
    return changed, "Removing login credentials for %s" % host
