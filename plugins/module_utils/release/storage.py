"""Helm's Secret and ConfigMap storage drivers, history queries and ``history_max`` pruning.

Objects are named ``sh.helm.release.v1.<name>.v<revision>`` in the release namespace and carry the
labels Helm queries by (name, owner=helm, status, version, createdAt/modifiedAt). A Secret's
``data.release`` is base64 of the base64 text Helm stores; a ConfigMap holds that text directly.
"""
import base64
import time

from ..kube.errors import ApiError
from .codec import ReleaseDecodeError, decode_release, encode_release, go_json
from .model import DEPLOYED, PENDING, status
from ..errors import HelmlessError

SYSTEM_LABELS = ("name", "owner", "status", "version", "createdAt", "modifiedAt")
# The API server's cap on one Secret's (or ConfigMap's) data: the sum of its values' lengths, after the
# Secret's own base64 is decoded (core validation, MaxSecretSize). Our one value is Helm's base64 text.
MAX_RECORD_BYTES = 1024 * 1024


class StorageError(HelmlessError):
    """A release record could not be read or written."""


class ReleaseTooLarge(StorageError):
    """A release record that no Secret/ConfigMap can hold."""


class ReleaseExists(StorageError):
    """Create found the revision already stored (another operation got there first)."""


def release_key(name, version):
    return "sh.helm.release.v1.%s.v%d" % (name, version)


class Storage:
    """Release records of one namespace, in Secrets (default) or ConfigMaps."""

    def __init__(self, client, namespace, driver="secret"):
        if driver not in ("secret", "secrets", "configmap", "configmaps"):
            raise StorageError("unknown storage driver %r (use secret, configmap or sql)" % driver)
        self.client = client
        self.namespace = namespace
        self.kind = "Secret" if driver.startswith("secret") else "ConfigMap"
        self._history = {}
        self.unsettled = set()  # (name, version) whose last stored status is pending-*: our final write failed

    # ---- encoding ---------------------------------------------------------------------------
    def _labels(self, release, created):
        labels = {k: v for k, v in (release.get("_labels") or {}).items() if k not in SYSTEM_LABELS}
        labels.update({"name": release["name"], "owner": "helm", "status": status(release),
                       "version": str(release["version"])})
        labels["createdAt" if created else "modifiedAt"] = str(int(time.time()))
        if not created and (release.get("_labels") or {}).get("createdAt"):
            labels["createdAt"] = release["_labels"]["createdAt"]
        return labels

    def _object(self, release, created):
        body = {k: v for k, v in release.items() if not k.startswith("_")}
        text = encode_release(body)
        obj = {"apiVersion": "v1", "kind": self.kind,
               "metadata": {"name": release_key(release["name"], release["version"]),
                            "namespace": self.namespace, "labels": self._labels(release, created)}}
        if self.kind == "Secret":
            obj["type"] = "helm.sh/release.v1"
            obj["data"] = {"release": base64.b64encode(text.encode("ascii")).decode("ascii")}
        else:
            obj["data"] = {"release": text}
        return obj

    def check_size(self, release):
        """Raise ReleaseTooLarge when the record would exceed the API server's 1 MiB limit.

        Called before anything is written: Helm finds out only when it stores the record, after the
        objects were applied, leaving a release without history.
        """
        size = len(encode_release({k: v for k, v in release.items() if not k.startswith("_")}))
        if size <= MAX_RECORD_BYTES:
            return size
        chart = release.get("chart") or {}
        parts = {"chart files": chart.get("files"), "chart templates": chart.get("templates"),
                 "chart values": chart.get("values"), "manifest": release.get("manifest"),
                 "values": release.get("config"), "hooks": release.get("hooks")}
        sizes = sorted(((len(go_json(v)), k) for k, v in parts.items() if v), reverse=True)
        raise ReleaseTooLarge(
            "release %s revision %d is too large to store: its record is %d bytes in a %s (gzip + base64), over "
            "the API server's limit of %d bytes; nothing was changed. Largest parts (JSON before gzip): %s"
            % (release["name"], release["version"], size, self.kind, MAX_RECORD_BYTES,
               ", ".join("%s %d bytes" % (k, n) for n, k in sizes[:3])))

    def _decode(self, obj):
        data = (obj.get("data") or {}).get("release")
        if not data:
            raise ReleaseDecodeError("no release data")
        text = base64.b64decode(data).decode("ascii") if self.kind == "Secret" else data
        release = decode_release(text)
        release["_labels"] = dict((obj.get("metadata") or {}).get("labels") or {})
        return release

    # ---- queries ----------------------------------------------------------------------------
    def history(self, name, refresh=False):
        """All stored revisions of ``name``, oldest first (undecodable records skipped, as Helm)."""
        if name in self._history and not refresh:
            return list(self._history[name])
        items = self.client.list("v1", self.kind, self.namespace, "name=%s,owner=helm" % name)
        out = []
        for obj in items:
            try:
                out.append(self._decode(obj))
            except ReleaseDecodeError:
                continue
        out.sort(key=lambda r: r.get("version", 0))
        self._history[name] = out
        return list(out)

    def list_all(self, label_selector="owner=helm"):
        out = []
        for obj in self.client.list("v1", self.kind, self.namespace, label_selector):
            try:
                out.append(self._decode(obj))
            except ReleaseDecodeError:
                continue
        return out

    def get(self, name, version):
        for release in self.history(name):
            if release["version"] == version:
                return release
        return None

    @staticmethod
    def last(history):
        return history[-1] if history else None

    @staticmethod
    def deployed(history):
        deployed = [r for r in history if status(r) == DEPLOYED]
        return deployed[-1] if deployed else None

    # ---- writes -----------------------------------------------------------------------------
    def create(self, release, history_max=0):
        if history_max and history_max > 0:
            self.prune(release["name"], history_max - 1)
        obj = self._object(release, created=True)
        try:
            self.client.create(obj, self.namespace)
        except ApiError as exc:
            if exc.already_exists:
                raise ReleaseExists("release %s revision %d already exists" % (release["name"], release["version"])) from exc
            raise StorageError("create release %s: %s" % (release_key(release["name"], release["version"]), exc)) from exc
        release.setdefault("_labels", {})["createdAt"] = obj["metadata"]["labels"]["createdAt"]
        self._history.pop(release["name"], None)
        self._settle(release)

    def _settle(self, release):
        key = (release["name"], release["version"])
        if status(release) in PENDING:
            self.unsettled.add(key)
        else:
            self.unsettled.discard(key)

    def update(self, release):
        obj = self._object(release, created=False)
        try:
            self.client.replace(obj, self.namespace)
        except ApiError as exc:
            raise StorageError("update release %s: %s" % (obj["metadata"]["name"], exc)) from exc
        self._history.pop(release["name"], None)
        self._settle(release)

    def delete(self, name, version):
        self.client.delete("v1", self.kind, release_key(name, version), self.namespace)
        self._history.pop(name, None)
        self.unsettled.discard((name, version))

    def prune(self, name, keep):
        """Helm's removeLeastRecent: delete the oldest revisions except the last deployed one."""
        doomed = least_recent(self.history(name, refresh=True), keep)
        for version in doomed:
            self.delete(name, version)
        return doomed


def least_recent(history, keep):
    """The revisions Helm's removeLeastRecent deletes to keep ``keep``: oldest first, never the last deployed."""
    if len(history) <= keep:
        return []
    deployed = Storage.deployed(history)
    doomed = []
    for release in history:
        if len(history) - len(doomed) <= keep:
            break
        if deployed is not None and release["version"] == deployed["version"]:
            continue
        doomed.append(release["version"])
    return doomed


def is_pending(release):
    return release is not None and status(release) in PENDING
