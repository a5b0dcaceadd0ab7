"""HTTP(S) GET the way Helm's getter.HTTPGetter does it: Basic auth only for the repository's own
scheme and host (unless ``pass_credentials``), optional client certificates, CA bundle and
``insecure_skip_tls_verify``, and ``failed to fetch <url> : <status>`` on a non-200 answer.
"""
import base64
import ssl
import urllib.error
import urllib.parse
import urllib.request

from .errors import RepoError

USER_AGENT = "Helm/4.2.3 (helmless.core)"
TIMEOUT = 120
MAX_SIZE = 512 * 1024 * 1024


class Access(object):
    """How to reach one repository: its URL (the credential scope), credentials and TLS settings."""

    def __init__(self, url="", username=None, password=None, pass_credentials=False,
                 insecure_skip_tls_verify=False, ca_file=None, cert_file=None, key_file=None):
        self.url = url or ""
        self.username = username or ""
        self.password = password or ""
        self.pass_credentials = bool(pass_credentials)
        self.insecure_skip_tls_verify = bool(insecure_skip_tls_verify)
        self.ca_file, self.cert_file, self.key_file = ca_file or "", cert_file or "", key_file or ""

    @classmethod
    def from_entry(cls, entry, **overrides):
        """From a repositories.yaml entry (Helm's JSON field names)."""
        values = dict(url=entry.get("url"), username=entry.get("username"), password=entry.get("password"),
                      pass_credentials=entry.get("pass_credentials_all"),
                      insecure_skip_tls_verify=entry.get("insecure_skip_tls_verify"),
                      ca_file=entry.get("caFile"), cert_file=entry.get("certFile"), key_file=entry.get("keyFile"))
        values.update({k: v for k, v in overrides.items() if v})
        return cls(**values)

    def sends_credentials_to(self, href):
        """Helm sends Basic auth to ``href`` only on the repository's scheme and host:port."""
        if not (self.username and self.password):
            return False
        if self.pass_credentials:
            return True
        mine, theirs = urllib.parse.urlsplit(self.url), urllib.parse.urlsplit(href)
        return mine.scheme == theirs.scheme and mine.netloc.rsplit("@", 1)[-1] == theirs.netloc.rsplit("@", 1)[-1]

    def ssl_context(self):
        context = ssl.create_default_context(cafile=self.ca_file or None)
        if self.cert_file:
            context.load_cert_chain(self.cert_file, self.key_file or None)
        if self.insecure_skip_tls_verify:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return context


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects like Go's http.Client: credentials never follow to another host."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and urllib.parse.urlsplit(newurl).netloc != urllib.parse.urlsplit(req.full_url).netloc:
            new.remove_header("Authorization")
        return new


def request(href, access=None, headers=None):
    """GET ``href``: ``(status line, body, response headers)``; RepoError only when no answer arrives."""
    access = access or Access()
    scheme = urllib.parse.urlsplit(href).scheme
    if scheme not in ("http", "https"):
        raise RepoError('could not find protocol handler for: %s (only http, https, oci and local charts are '
                        'supported)' % scheme)
    target, userinfo = _without_userinfo(href)
    req = urllib.request.Request(target, headers={"User-Agent": USER_AGENT})
    for key, value in (headers or {}).items():
        req.add_header(key, value)
    if "Authorization" not in (headers or {}):
        if access.sends_credentials_to(href):
            req.add_header("Authorization", _basic(access.username, access.password))
        elif userinfo is not None:  # Go's http.Client sends a URL's user:password as Basic auth
            user = userinfo.partition(":")
            req.add_header("Authorization", _basic(urllib.parse.unquote(user[0]), urllib.parse.unquote(user[2])))
    handlers = [_Redirects()]
    if scheme == "https":
        try:
            handlers.append(urllib.request.HTTPSHandler(context=access.ssl_context()))
        except (OSError, ssl.SSLError) as exc:
            raise RepoError("can't create TLS config for %s: %s" % (href, exc))
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(req, timeout=TIMEOUT) as response:
            data = response.read(MAX_SIZE + 1)
            status, reply = "%d %s" % (response.status, response.reason), response.headers
    except urllib.error.HTTPError as exc:
        return "%d %s" % (exc.code, exc.reason), b"", exc.headers
    except urllib.error.URLError as exc:
        raise RepoError('Get "%s": %s' % (href, exc.reason))
    except (OSError, ValueError) as exc:
        raise RepoError('Get "%s": %s' % (href, exc))
    if len(data) > MAX_SIZE:
        raise RepoError("%s is larger than %d bytes" % (href, MAX_SIZE))
    return status, data, reply


def _without_userinfo(href):
    """``(href without user:password@, the userinfo or None)``: urllib would take the userinfo for the host."""
    parts = urllib.parse.urlsplit(href)
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return href, None
    return urllib.parse.urlunsplit(parts._replace(netloc=host)), userinfo


def _basic(username, password):
    return "Basic " + base64.b64encode(("%s:%s" % (username, password)).encode("utf-8")).decode("ascii")


def get(href, access=None, accept=None):
    """The body of ``href`` as bytes; RepoError with Helm's wording on any failure."""
    status, data = request(href, access, {"Accept": accept} if accept else None)[:2]
    if not status.startswith("200 "):
        raise RepoError("failed to fetch %s : %s" % (href, status))
    return data
