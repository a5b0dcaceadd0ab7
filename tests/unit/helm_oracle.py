"""Real Helm at the pinned version as the tests' oracle: a client for ``helm-oracle`` (scripts/oracle).

``scripts/controlplane build`` builds the oracle from the Go module proxy against ``helm.sh/helm/v4`` at
``HELM4_VERSION`` (scripts/versions.env) into ``~/.cache/helmless``. One long-running oracle process serves
every request of a test process (JSON lines over its stdin/stdout), so thousands of cases stay fast.

The surface follows what the suites used before (helm-python-sdk), so a suite switches with an import:

    Chart.load(path).render(values, name="rel", namespace="ns")    {template path: text}
    install(path, values, name="rel", namespace="ns")              the client dry-run release (manifest, notes, hooks)
    values_from_yaml(text), parse_set(expr), ...                   Helm's own value readers

Failures raise :class:`HelmError` subclasses whose message is Helm's error text exactly as Helm prints it.
"""
import atexit
import json
import os
import subprocess
import sys
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(_HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "controlplane.d"))
import cp_build  # noqa: E402  (one place knows where the build puts binaries)

sys.path.remove(os.path.join(ROOT, "scripts", "controlplane.d"))

HELM_VERSION = cp_build.load_versions()["HELM4_VERSION"]
BINARY = cp_build.binaries()["helm-oracle"]
HELM_CLI = cp_build.binaries()["helm4"]


class HelmError(Exception):
    """Helm refused the request; ``str(exc)`` is Helm's message, ``kind`` the step that failed."""

    kind = "error"

    def __init__(self, message, kind=None):
        super().__init__(message)
        self.detail = message
        if kind:
            self.kind = kind


class HelmChartLoadError(HelmError):
    """The chart did not load (loader.Load)."""


class HelmValuesError(HelmError, ValueError):
    """Values did not parse, coalesce or pass the chart's schema."""


class HelmRenderError(HelmError):
    """A template failed (engine.Render)."""


class HelmReleaseError(HelmError):
    """The client dry-run install failed after rendering (manifest sorting, hooks, ...)."""


class HelmInvalidArgError(HelmError, ValueError):
    """A request option Helm rejects (a bad kube version, say)."""


_KINDS = {"load": HelmChartLoadError, "values": HelmValuesError, "render": HelmRenderError,
          "install": HelmReleaseError, "kube_version": HelmInvalidArgError}


class _Oracle(object):
    """The oracle process, started on first use and again if it ever dies."""

    def __init__(self):
        self.proc = None
        self.lock = threading.Lock()

    def _start(self):
        if not os.access(BINARY, os.X_OK):
            raise RuntimeError("the Helm oracle %s is not built: run scripts/controlplane build" % BINARY)
        self.proc = subprocess.Popen([BINARY], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=1 << 16)
        atexit.register(self.close)

    def call(self, request):
        line = (json.dumps(request) + "\n").encode("utf-8", "surrogateescape")
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self._start()
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
            answer = self.proc.stdout.readline()
        if not answer:
            self.proc = None
            raise RuntimeError("the Helm oracle died on %r" % request.get("op"))
        reply = json.loads(answer)
        if "error" in reply:
            err = reply["error"]
            raise _KINDS.get(err["kind"], HelmError)(err["message"], err["kind"])
        return reply["ok"]

    def close(self):
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.stdin.close()
            proc.wait()


_ORACLE = _Oracle()


def call(op, **fields):
    """One raw oracle request (see scripts/oracle/main.go for the operations)."""
    fields["op"] = op
    return _ORACLE.call(fields)


_SET_FLAGS = ("set", "set_string", "set_json", "set_file", "set_literal")


def _values_fields(values=None, values_yaml=None, values_files=None):
    if values_files is not None:
        return {"values_files": [os.fspath(p) for p in values_files]}
    if values_yaml is not None:
        return {"values_yaml": values_yaml}
    return {"values": values or {}}


def render(path, values=None, name="release-name", namespace="default", **options):
    """``{template path: text}`` as Helm's engine renders the chart at ``path`` (no cluster).

    ``options``: revision, is_install, is_upgrade, kube_version, api_versions, values_yaml, values_files and
    the CLI's --set family as lists (set, set_string, set_json, set_file, set_literal)."""
    fields = _values_fields(values, options.pop("values_yaml", None), options.pop("values_files", None))
    fields.update(options)
    return call("render", chart=os.fspath(path), name=name, namespace=namespace, **fields)["rendered"]


def install(path, values=None, name="release-name", namespace="default", **options):
    """The release ``helm install --dry-run=client`` builds: {manifest, notes, hooks, description}.

    ``options``: kube_version, api_versions, include_crds, disable_hooks, sub_notes, values_yaml,
    values_files."""
    fields = _values_fields(values, options.pop("values_yaml", None), options.pop("values_files", None))
    fields.update(options)
    return call("install", chart=os.fspath(path), name=name, namespace=namespace, **fields)


class Chart(object):
    """A chart as Helm loads it (``Chart.load`` raises :class:`HelmChartLoadError` as Helm refuses it)."""

    def __init__(self, path, info):
        self.path = path
        self.metadata = info["metadata"]
        self.values = info["values"] or {}
        self.files = info["files"]
        self.templates = info["templates"]
        self.crds = info["crds"]
        self.schema = info["schema"]
        self.dependencies = info["dependencies"]

    @classmethod
    def load(cls, path):
        path = os.fspath(path)
        return cls(path, call("chart", chart=path))

    @property
    def name(self):
        return self.metadata.get("name") or ""

    @property
    def version(self):
        return self.metadata.get("version") or ""

    def render(self, values=None, name="release-name", namespace="default", **options):
        return render(self.path, values, name=name, namespace=namespace, **options)

    def merge_values(self, values=None):
        return call("merge_values", chart=self.path, values=values or {})

    def close(self):
        """Nothing to free: every request loads the chart afresh."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Config(object):
    """``Config(storage_driver="memory").install(chart, name, values, namespace=, dry_run="client")``: the
    client dry-run install under helm-python-sdk's spelling (nothing else is offered: no cluster)."""

    def __init__(self, storage_driver="memory"):
        if storage_driver != "memory":
            raise ValueError("the oracle keeps no release storage")

    def install(self, chart, name, values=None, namespace="default", dry_run="client", **options):
        if dry_run != "client":
            raise ValueError("the oracle only runs client dry-run installs")
        path = chart.path if isinstance(chart, Chart) else chart
        return install(path, values, name=name, namespace=namespace, **options)


def values_from_yaml(text):
    """A YAML values document as Helm reads it (common.ReadValues)."""
    return call("values_from_yaml", yaml=text)


def load_values(text):
    """A ``-f`` values file's text as the helm CLI reads it (multi-document, loader.LoadValues)."""
    return call("load_values", yaml=text)


def parse_set(expr):
    """``--set``."""
    return call("strvals", mode="set", expr=expr)


def parse_set_string(expr):
    """``--set-string``."""
    return call("strvals", mode="string", expr=expr)


def parse_set_json(expr):
    """``--set-json`` (the key=value form)."""
    return call("strvals", mode="json", expr=expr)


def parse_set_literal(expr):
    """``--set-literal``."""
    return call("strvals", mode="literal", expr=expr)


def parse_set_file(expr):
    """``--set-file``: each value names a file whose text becomes the value."""
    return call("strvals", mode="file", expr=expr)


def capabilities(kube_version=None, api_versions=None):
    """Helm's default capabilities (or with a ``--kube-version``/``--api-versions`` override)."""
    return call("capabilities", kube_version=kube_version or "", api_versions=api_versions or [])


def cli(*args):
    """Run the real helm CLI at the pin (no cluster): its stdout, or :class:`HelmError` with Helm's message
    (stderr's ``Error: ...`` without the prefix). Homes not set in the environment (HELM_CONFIG_HOME ...) are
    a throwaway directory, so the user's helm configuration is never read or written."""
    import tempfile
    if not os.access(HELM_CLI, os.X_OK):
        raise RuntimeError("the helm CLI %s is not built: run scripts/controlplane build" % HELM_CLI)
    with tempfile.TemporaryDirectory(prefix="helm-cli-") as home:
        env = dict(os.environ)
        for var, sub in (("HELM_CONFIG_HOME", "config"), ("HELM_CACHE_HOME", "cache"),
                         ("HELM_DATA_HOME", "data"), ("KUBECONFIG", "kubeconfig")):
            env.setdefault(var, os.path.join(home, sub))
        proc = subprocess.run([HELM_CLI] + [os.fspath(a) for a in args], capture_output=True, text=True,
                              env=env, errors="surrogateescape")
    if proc.returncode != 0:
        err = proc.stderr
        at = err.rfind("\nError: ")
        message = err[at + 8:] if at >= 0 else err[7:] if err.startswith("Error: ") else err
        raise HelmError(message.rstrip("\n"), "cli")
    return proc.stdout


def cli_install(path, name="release-name", namespace="default", values_files=()):
    """``helm install --dry-run=client -o json``: ``("ok", release dict)`` or ``("error", Helm's message)``."""
    args = ["install", name, path, "--namespace", namespace, "--dry-run=client", "-o", "json"]
    for values_file in values_files:
        args += ["--values", values_file]
    try:
        return "ok", json.loads(cli(*args))
    except HelmError as exc:
        return "error", str(exc)


def package(path, destination):
    """``helm package PATH -d DESTINATION``; the archive's path."""
    out = cli("package", path, "--destination", destination)
    return out.strip().rsplit(": ", 1)[-1]


def repo_index(directory, url=None):
    """``helm repo index DIR [--url URL]``."""
    cli("repo", "index", directory, *(["--url", url] if url else []))


def pull(chart_ref, destination, version=None, repo_url=None, untar=False, username=None, password=None,
         plain_http=False, registry_config=None):
    """``helm pull``."""
    args = ["pull", chart_ref, "--destination", destination]
    args += ["--registry-config", registry_config] if registry_config else []
    for flag, value in (("--version", version), ("--repo", repo_url), ("--username", username),
                        ("--password", password)):
        if value:
            args += [flag, value]
    args += ["--untar"] if untar else []
    args += ["--plain-http"] if plain_http else []
    cli(*args)


def dependency_update(chart_path, plain_http=False):
    """``helm dependency update CHART``."""
    cli("dependency", "update", chart_path, *(["--plain-http"] if plain_http else []))


def registry_login(host, username, password, registry_config, plain_http=False):
    """``helm registry login HOST`` writing ``registry_config``."""
    cli("registry", "login", host, "--username", username, "--password", password, "--registry-config",
        registry_config, *(["--plain-http"] if plain_http else []))


def registry_logout(host, registry_config):
    """``helm registry logout HOST``."""
    cli("registry", "logout", host, "--registry-config", registry_config)


def push(archive, remote, plain_http=False):
    """``helm push ARCHIVE REMOTE``."""
    cli("push", archive, remote, *(["--plain-http"] if plain_http else []))


def built_version():
    """The helm.sh/helm/v4 module version the oracle binary was built with."""
    return call("version")["helm"]
