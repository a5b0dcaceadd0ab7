"""What a task asks for, as typed values: where the chart comes from and where its values come from.

The Ansible layer builds these from the module options (ansible/request.py), so no engine package reads
option names: repo fetches a ``ChartSource``, render merges ``ValueSources``, actions reads the cluster's
``ValuesReference``s. Kept free of imports so a task with a local chart loads no repository code.
"""
import os
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Credentials:
    """How to reach a chart repository or registry: Basic auth and TLS (Helm's ``--username``... flags)."""
    username: str = None
    password: str = None
    pass_credentials: bool = False
    insecure_skip_tls_verify: bool = False
    ca_file: str = None
    cert_file: str = None
    key_file: str = None


@dataclass(frozen=True)
class ChartSource:
    """Where the chart comes from and how it is checked (Helm's ``LocateChart`` inputs).

    ``version`` is a constraint for a repository chart and the version a local chart must have."""
    ref: str
    version: str = None
    repo_url: str = None
    devel: bool = False
    update_repo_cache: bool = False
    plain_http: bool = False
    dependency_update: bool = False
    verify: bool = False
    keyring: str = None
    cosign_key: str = None
    credentials: Credentials = field(default_factory=Credentials)

    def local(self):
        """``(path, version)`` for a chart directory or archive on disk that needs no dependency update nor
        signature check; ``(None, None)`` when the repository code must locate (and maybe fetch) it."""
        ref = self.ref
        if (not ref or self.repo_url or self.dependency_update or self.verify or self.cosign_key
                or ref.startswith("oci://") or not os.path.exists(ref)):
            return None, None
        return ref, self.version or None


@dataclass(frozen=True)
class ValuesReference:
    """One ``values_from`` entry, Flux's ValuesReference: a ConfigMap's or Secret's key, merged as a values
    file, or (``target_path``) set at a path as ``--set`` sets it (``literal``: ``--set-literal``)."""
    kind: str
    name: str
    namespace: str = None
    values_key: str = "values.yaml"
    target_path: str = None
    optional: bool = False
    literal: bool = False

    def label(self, index, namespace):
        return "values_from[%d] (%s %s/%s, key %s)" % (
            index, self.kind, self.namespace or namespace, self.name, self.values_key or "values.yaml")


@dataclass(frozen=True)
class ValueSources:
    """The user-supplied values, merged in this order: ``values_from`` (read from the cluster), ``files``
    (a path, or ``(name, bytes)`` once a URL was fetched), ``values``, then ``set_values`` (the ``--set``
    family). ``cluster`` holds what ``values_from`` resolved to, once read."""
    values: dict = field(default_factory=dict)
    files: tuple = ()
    set_values: tuple = ()
    values_from: tuple = ()
    cluster: dict = None

    def with_(self, **changes):
        return replace(self, **changes)
