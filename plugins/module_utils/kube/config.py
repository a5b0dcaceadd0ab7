"""Connection options (kubeconfig file or dict, context, host, token, CA) → a Connection.

We read kubeconfig ourselves: importing the ``kubernetes`` package costs seconds per module run (it
loads every API model), which alone would break the no-op budget. Client certificates, tokens, token
files, basic auth, exec credential plugins and the in-cluster service account are handled here; only
legacy ``auth-provider`` entries (gcp/oidc) go through the ``kubernetes`` package's loader.
Explicit options override the kubeconfig, as in kubernetes.core.
"""
import base64
import datetime
import json
import os
import threading
import time
from dataclasses import dataclass

from . import blockyaml
from .errors import KubeConfigError

_SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
_TMP = []


def _tmpfile(data, suffix):
    import atexit  # lazy, as tempfile, shutil and subprocess: most kubeconfigs need no file and no plugin
    import shutil
    import tempfile
    if not _TMP:
        _TMP.append(tempfile.mkdtemp(prefix="helmless-kube-"))
        atexit.register(shutil.rmtree, _TMP[0], True)
    fd, path = tempfile.mkstemp(dir=_TMP[0], suffix=suffix)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return path


class Connection:
    """Everything needed to open TLS connections and authenticate to one API server."""

    def __init__(self, host):
        self.host = host.rstrip("/")
        self.ca_file = None
        self.cert_file = None
        self.key_file = None
        self.verify = True
        self.tls_server_name = None
        self.proxy = None
        self.token = None
        self.token_file = None
        self.basic = None
        self.exec_config = None
        self.impersonate = {}  # user, uid, groups, extra: who the requests act as (kubectl's --as family)
        self._exec_token = None
        self._exec_expiry = None
        self._exec_lock = threading.Lock()

    def authorization(self):
        if self.exec_config is not None and (self._exec_token is None or self._exec_expired()):
            with self._exec_lock:  # parallel requests ask the plugin once
                if self._exec_token is None or self._exec_expired():
                    self._run_exec()
        token = self._exec_token or self.token
        if self.token_file:
            try:
                with open(self.token_file, encoding="utf-8") as handle:
                    token = handle.read().strip()
            except OSError as exc:
                raise KubeConfigError("cannot read token file %s: %s" % (self.token_file, exc)) from exc
        if token:
            return "Bearer " + token
        if self.basic:
            return "Basic " + base64.b64encode(("%s:%s" % self.basic).encode()).decode()
        return None

    def impersonation_headers(self):
        """The API server's impersonation headers, as client-go sends them (a header per group and extra
        value; extra keys percent-escaped where a header name cannot hold them)."""
        imp = self.impersonate
        if not imp.get("user"):
            return {}
        headers = {"Impersonate-User": imp["user"]}
        if imp.get("uid"):
            headers["Impersonate-Uid"] = imp["uid"]
        if imp.get("groups"):
            headers["Impersonate-Group"] = list(imp["groups"])
        for key, values in sorted((imp.get("extra") or {}).items()):
            headers["Impersonate-Extra-" + _header_key(key)] = list(values)
        return headers

    def secrets(self):
        """The credentials this connection sends as they stand (tokens, Basic auth password and header),
        for callers that must keep them out of what they show."""
        found = {self.token, self._exec_token}
        if self.basic:
            found.add(self.basic[1])
            found.add(base64.b64encode(("%s:%s" % self.basic).encode()).decode())
        return {value for value in found if value}

    def _exec_expired(self):
        return self._exec_expiry is not None and time.time() >= self._exec_expiry

    def refresh(self, used):
        """After a 401: re-run the exec plugin once if ``used`` (the Authorization sent) came from it.

        As client-go does, a token the server refuses is dropped and the plugin asked again; True when
        it gave other credentials, so the refused request may be resent (a 401 was not processed).
        """
        if self.exec_config is None:
            return False
        with self._exec_lock:
            if self._exec_token is not None and used != "Bearer " + self._exec_token:
                return True  # another thread already refreshed: resend with its token
            old = self._exec_token
            self._exec_token = None
            self._run_exec()
            return self._exec_token != old

    def _run_exec(self):
        import subprocess  # lazy: only exec credential plugins run a process
        spec = self.exec_config
        env = dict(os.environ)
        for item in spec.get("env") or []:
            env[item["name"]] = item["value"]
        env["KUBERNETES_EXEC_INFO"] = json.dumps({"apiVersion": spec.get("apiVersion"), "kind": "ExecCredential",
                                                  "spec": {"interactive": False}})
        try:
            proc = subprocess.run([spec["command"]] + list(spec.get("args") or []), env=env, capture_output=True,
                                  text=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            raise KubeConfigError("exec credential plugin %s: %s" % (spec.get("command"), exc)) from exc
        if proc.returncode != 0:
            raise KubeConfigError("exec credential plugin %s failed: %s" % (spec.get("command"), proc.stderr.strip()))
        try:
            status = json.loads(proc.stdout).get("status") or {}
        except ValueError as exc:
            raise KubeConfigError("exec credential plugin %s printed no ExecCredential" % spec.get("command")) from exc
        self._exec_token = status.get("token") or ""
        self._exec_expiry = _rfc3339(status.get("expirationTimestamp"))
        if status.get("clientCertificateData"):
            self.cert_file = _tmpfile(status["clientCertificateData"].encode(), ".crt")
            self.key_file = _tmpfile(status["clientKeyData"].encode(), ".key")

    def pool(self, maxsize=16):
        from .http import Pool, tls_context  # lazy: sockets and ssl only when a task talks to a cluster

        context = None
        if self.host.startswith("https"):
            context = tls_context(self.verify, self.ca_file, self.cert_file, self.key_file)
        return Pool(self.host, context, self.tls_server_name, self.proxy, maxsize)


_HEADER_KEY = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#$&'*+-.^_`|~")


def _header_key(key):
    """client-go's headerKeyEscape: every byte a header name cannot hold (and ``%``) as ``%XX``."""
    return "".join(chr(b) if chr(b) in _HEADER_KEY else "%%%02X" % b for b in key.encode("utf-8"))


def impersonation(user=None, groups=None, uid=None, extra=None, base=None, where="impersonate"):
    """The identity to act as: ``user``/``groups``/``uid``/``extra`` (task options, each when given) over
    ``base`` (a kubeconfig's ``as`` family), field by field as kubectl's flags override the kubeconfig.
    Groups, a uid or extras without a user are refused, as the API server refuses them."""
    out = dict(base or {})
    for key, value in (("user", user), ("groups", groups), ("uid", uid), ("extra", extra)):
        if value not in (None, "", [], {}):
            out[key] = value
    if out.get("groups") is not None:
        if isinstance(out["groups"], str) or not all(isinstance(g, str) and g for g in out["groups"]):
            raise KubeConfigError("%s groups must be a list of group names, got %r" % (where, out["groups"]))
    extra_values = {}
    for key, values in (out.get("extra") or {}).items():
        values = [values] if isinstance(values, str) else values
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise KubeConfigError("%s extra %r must be a string or a list of strings, got %r" % (where, key, values))
        extra_values[str(key)] = values
    out["extra"] = extra_values
    if not out.get("user") and (out.get("groups") or out.get("uid") or out.get("extra")):
        raise KubeConfigError("%s: groups, uid and extra need a user to impersonate (the API server refuses "
                              "them alone)" % where)
    return {k: v for k, v in out.items() if v}


@dataclass(frozen=True)
class Identity:
    """Who a task acts as (kubectl's ``--as``, ``--as-group``, ``--as-uid``; kubeconfig ``as-user-extra``);
    an unset field keeps the kubeconfig's."""
    user: str = None
    groups: tuple = ()
    uid: str = None
    extra: dict = None


def service_account_user(account, namespace=None):
    """The user name of ServiceAccount ``namespace/name`` (or ``name`` in ``namespace``), as the API server
    names it: ``system:serviceaccount:<namespace>:<name>``."""
    ns, _slash, name = str(account).rpartition("/")
    ns = ns or namespace
    if not name or not ns or "/" in ns or ":" in str(account):
        raise KubeConfigError("service_account %r: give namespace/name, or a name in the release namespace"
                              % account)
    return "system:serviceaccount:%s:%s" % (ns, name)


def _rfc3339(text):
    """An ExecCredential expirationTimestamp as epoch seconds (None when absent or unreadable)."""

    try:
        return datetime.datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp() if text else None
    except ValueError:
        return None


def _data_or_file(entry, key, base, suffix):
    if entry.get(key + "-data"):
        return _tmpfile(base64.b64decode(entry[key + "-data"]), suffix)
    path = entry.get(key)
    if path and not os.path.isabs(path) and base:
        path = os.path.join(base, path)
    return path


def _parse(text, where):
    """A kubeconfig document: the block YAML kubectl writes without PyYAML, anything else with it."""
    doc = blockyaml.load(text)
    if doc is not None:
        return doc
    import yaml  # lazy: module_utils import without PyYAML (ansible/libraries.py), and most kubeconfigs need none
    try:
        # libyaml's loader when PyYAML has it: the pure-Python one spends ms per task on certificates
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    except yaml.YAMLError as exc:
        raise KubeConfigError("invalid kubeconfig %s: %s" % (where, exc)) from exc


def _read_kubeconfig(kubeconfig):
    """(merged config dict, directory for relative paths)."""
    if isinstance(kubeconfig, dict):
        return kubeconfig, None
    paths = [os.path.expanduser(p) for p in str(kubeconfig).split(os.pathsep) if p]
    merged, base = {"clusters": [], "users": [], "contexts": []}, None
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            if len(paths) == 1 or isinstance(exc, UnicodeDecodeError):
                raise KubeConfigError("kubeconfig %s: %s" % (path, getattr(exc, "strerror", None) or exc)) from exc
            continue
        doc = _parse(text, path) or {}
        if not isinstance(doc, dict):
            raise KubeConfigError("invalid kubeconfig %s: not a mapping" % path)
        base = base or os.path.dirname(os.path.abspath(path))
        if not merged.get("current-context"):
            merged["current-context"] = doc.get("current-context")
        for key in ("clusters", "users", "contexts"):
            known = {item.get("name") for item in merged[key]}
            merged[key].extend(i for i in doc.get(key) or [] if isinstance(i, dict) and i.get("name") not in known)
    return merged, base


def _named(config, key, name, what):
    for item in config.get(key) or []:
        if item.get("name") == name:
            return item.get(what) or {}
    if key == "contexts":  # client-go's wording, which playbooks written for helm match on
        raise KubeConfigError('invalid kubeconfig: context "%s" does not exist' % name)
    raise KubeConfigError("invalid kubeconfig: %s %r not found" % (key[:-1], name))


def _from_kubeconfig(kubeconfig, context):
    config, base = _read_kubeconfig(kubeconfig)
    name = context or config.get("current-context")
    if not name:
        raise KubeConfigError("invalid kubeconfig: no context given and no current-context set")
    ctx = _named(config, "contexts", name, "context")
    cluster = _named(config, "clusters", ctx.get("cluster"), "cluster")
    user = _named(config, "users", ctx.get("user"), "user") if ctx.get("user") else {}
    if not cluster.get("server"):
        raise KubeConfigError("invalid kubeconfig: cluster %r has no server" % ctx.get("cluster"))
    conn = Connection(cluster["server"])
    conn.ca_file = _data_or_file(cluster, "certificate-authority", base, ".crt")
    conn.verify = not cluster.get("insecure-skip-tls-verify", False)
    conn.tls_server_name = cluster.get("tls-server-name")
    conn.proxy = cluster.get("proxy-url")
    if conn.proxy and not str(conn.proxy).startswith("http://"):  # kube/http.py speaks plain HTTP to a proxy
        raise KubeConfigError("invalid kubeconfig: cluster %r proxy-url %s: only http:// proxies are supported"
                              % (ctx.get("cluster"), conn.proxy))
    conn.cert_file = _data_or_file(user, "client-certificate", base, ".crt")
    conn.key_file = _data_or_file(user, "client-key", base, ".key")
    conn.token = user.get("token")
    conn.token_file = user.get("tokenFile")
    if user.get("username"):
        conn.basic = (user["username"], user.get("password", ""))
    conn.exec_config = user.get("exec")
    conn.impersonate = impersonation(user.get("as"), user.get("as-groups"), user.get("as-uid"),
                                     user.get("as-user-extra"), where="kubeconfig user %r" % ctx.get("user"))
    if user.get("auth-provider"):
        conn.token = _auth_provider_token(kubeconfig, name)
    return conn


def _auth_provider_token(kubeconfig, context):
    """Legacy auth-provider plugins: let the kubernetes package refresh and hand us the token."""
    try:
        from kubernetes import client, config  # lazy: optional, only for legacy auth-provider plugins
    except ImportError as exc:
        raise KubeConfigError("kubeconfig auth-provider entries need the Python library kubernetes, which is not "
                              "installed (pip install kubernetes)") from exc
    try:
        cfg = client.Configuration()
        if isinstance(kubeconfig, dict):
            config.load_kube_config_from_dict(kubeconfig, context=context, client_configuration=cfg)
        else:
            config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=cfg)
        token = cfg.get_api_key_with_prefix("authorization") or ""
    except Exception as exc:  # the package raises many kinds for provider failures
        raise KubeConfigError("kubeconfig auth-provider: %s" % exc) from exc
    return token.split(" ", 1)[-1] if token else None


def _in_cluster():
    host, port = os.environ.get("KUBERNETES_SERVICE_HOST"), os.environ.get("KUBERNETES_SERVICE_PORT", "443")
    if ":" in (host or ""):
        host = "[%s]" % host
    conn = Connection("https://%s:%s" % (host, port))
    conn.ca_file = os.path.join(_SA_DIR, "ca.crt")
    conn.token_file = os.path.join(_SA_DIR, "token")
    return conn


def load_connection(kubeconfig=None, context=None, host=None, api_key=None, ca_cert=None, validate_certs=None,
                    proxy=None, identity=None):
    """The Connection for these options (``None`` means unset); ``identity`` (an :class:`Identity`)
    overrides the kubeconfig's ``as`` family field by field, as kubectl's ``--as`` flags do."""
    if isinstance(kubeconfig, str) and kubeconfig.strip().startswith(("apiVersion", "{")) and "\n" in kubeconfig:
        kubeconfig = _parse(kubeconfig, "(inline)")
    if kubeconfig:
        conn = _from_kubeconfig(kubeconfig, context)
    elif host:
        conn = Connection(host)
    else:
        default = os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
        first = os.path.expanduser(default.split(os.pathsep)[0])
        if os.path.exists(first):
            conn = _from_kubeconfig(default, context)
        elif os.environ.get("KUBERNETES_SERVICE_HOST"):
            conn = _in_cluster()
        else:
            raise KubeConfigError("no kubeconfig found (%s) and no host given" % first)
    if host:
        conn.host = host.rstrip("/")
    if api_key:
        conn.token, conn.token_file, conn.exec_config = api_key, None, None
    if ca_cert:
        conn.ca_file = os.path.expanduser(ca_cert)
    if validate_certs is not None:
        conn.verify = bool(validate_certs)
    if proxy:
        conn.proxy = proxy
    if identity is not None:
        conn.impersonate = impersonation(identity.user, list(identity.groups or ()) or None, identity.uid,
                                         identity.extra, base=conn.impersonate)
    return conn
