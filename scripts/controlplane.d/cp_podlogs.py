"""Container logs for the loopback control plane: what each container's command line echoes.

kwok runs no containers; it serves a container's log from the file its ``Logs`` object (kwok.x-k8s.io,
watched with ``--enable-crds=Logs``) names. This process, started with the control plane, watches every
pod that runs to completion (restartPolicy Never or OnFailure: hooks, tests, Job pods), writes each
container's log - the text its ``echo`` commands print, in the container runtime's log format - and
that pod's ``Logs`` object, waits until kwok serves it, then annotates the pod ``helmless.test/logs``
with its uid. Our Stages end such a pod only once annotated (kwok-stages.yaml), so a log read after a
pod ended always finds it, however late this process saw the pod.

Run as ``cp_podlogs.py DIR KWOK_ADDRESS`` (cp_run starts and stops it with the other processes).
"""
import datetime
import json
import os
import shlex
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import cp_run

ANNOTATION = "helmless.test/logs"
SHELLS = ("sh", "bash", "ash", "dash", "zsh", "busybox")
_SEPARATORS = set(";&|()\n")


def command_line(container):
    """The container's argv: command, then args (the image's own entrypoint is unknown here: empty)."""
    return [str(word) for word in (container.get("command") or []) + (container.get("args") or [])]


def _script(argv):
    """The shell script of ``sh -c SCRIPT`` (options such as ``-ec`` included), else None."""
    if not argv or os.path.basename(argv[0]) not in SHELLS:
        return None
    words = argv[1:]
    if os.path.basename(argv[0]) == "busybox" and words and words[0] in SHELLS:
        words = words[1:]
    for i, word in enumerate(words):
        if not word.startswith("-"):
            return None
        if "c" in word[1:] and i + 1 < len(words):
            return words[i + 1]
    return None


def _commands(script):
    """The simple commands of a shell script as word lists, split at ; & | ( ) and line breaks."""
    lexer = shlex.shlex(script, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    out, current, skip = [], [], False
    for token in lexer:
        if token and set(token) <= _SEPARATORS:
            out.append(current)
            current = []
        elif token and set(token) <= set("<>&") and set(token) & set("<>"):
            skip = True  # a redirection: its target is no argument
        elif skip:
            skip = False
        else:
            current.append(token)
    out.append(current)
    return [words for words in out if words]


def _echo(words):
    newline = True
    while words and words[0] in ("-n", "-e", "-E", "-ne", "-en"):
        newline = newline and "n" not in words[0]
        words = words[1:]
    return " ".join(words) + ("\n" if newline else "")


def echoed(container):
    """What the container prints: each ``echo`` of its command line (``echo TEXT``, or ``sh -c`` with
    ``echo`` commands, up to an ``exit``), as a shell would print it; "" when it echoes nothing."""
    argv = command_line(container)
    script = _script(argv)
    commands = _commands(script) if script is not None else [argv] if argv else []
    text = []
    for words in commands:
        name = os.path.basename(words[0])
        if name == "exit":
            break
        if name == "echo":
            text.append(_echo(words[1:]))
    return "".join(text)


def cri_log(text, when):
    """``text`` in the container runtime's log format, as kwok reads it: ``<time> stdout F <line>`` a line
    (``P``, partial, for a last line without its line break)."""
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S.%f000Z")
    lines = text.split("\n")
    last = lines.pop()
    out = "".join("%s stdout F %s\n" % (stamp, line) for line in lines)
    return out + ("%s stdout P %s\n" % (stamp, last) if last else "")


class PodLogs:
    def __init__(self, d, kwok_address):
        self.dir = os.path.join(d, "pod-logs")
        self.api = cp_run.Api(d, cp_run.read_state(d)["server"])
        self.kwok = "https://%s" % kwok_address
        self.insecure = ssl.create_default_context()  # kwok serves with a certificate of its own
        self.insecure.check_hostname = False
        self.insecure.verify_mode = ssl.CERT_NONE
        self.done = set()
        self.lock = threading.Lock()

    def wants(self, pod):
        meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        return (spec.get("restartPolicy") in ("Never", "OnFailure") and not meta.get("deletionTimestamp")
                and (meta.get("annotations") or {}).get(ANNOTATION) != meta.get("uid"))

    def handle(self, pod):
        uid = pod["metadata"]["uid"]
        with self.lock:
            if uid in self.done:
                return
            self.done.add(uid)
        for attempt in range(3):  # a pod left unannotated would never end: try again after a failure
            try:
                return self._serve(pod)
            except Exception as exc:  # noqa: BLE001 - one pod's failure must not stop the others
                cp_run.log("pod-logs: %s/%s (attempt %d): %s" % (pod["metadata"].get("namespace"),
                                                                 pod["metadata"].get("name"), attempt + 1, exc))
                time.sleep(1)
        with self.lock:
            self.done.discard(uid)  # its next event tries again

    def _serve(self, pod):
        meta, spec = pod["metadata"], pod["spec"]
        ns, name, uid = meta["namespace"], meta["name"], meta["uid"]
        containers = (spec.get("initContainers") or []) + (spec.get("containers") or [])
        base = os.path.join(self.dir, ns, name, uid)
        os.makedirs(base, exist_ok=True)
        now = datetime.datetime.now(datetime.timezone.utc)
        logs, expected = [], {}
        for container in containers:
            path = os.path.join(base, container["name"] + ".log")
            expected[container["name"]] = text = echoed(container)
            with open(path, "w") as fh:
                fh.write(cri_log(text, now))
            logs.append({"containers": [container["name"]], "logsFile": path})
        body = {"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Logs",
                "metadata": {"name": name, "namespace": ns}, "spec": {"logs": logs}}
        path = "/apis/kwok.x-k8s.io/v1alpha1/namespaces/%s/logs" % ns
        status, answer = self.api.call("POST", path, body)
        if status == 409:
            status, answer = self._patch(path + "/" + name, {"spec": {"logs": logs}})
        if status not in (200, 201):
            raise RuntimeError("Logs object: HTTP %s %s" % (status, answer))
        deadline = time.time() + 30
        while not all(self._served(ns, name, c, text) for c, text in expected.items()):
            if time.time() > deadline:
                raise RuntimeError("kwok does not serve the logs after 30s")
            time.sleep(0.05)
        status, answer = self._patch("/api/v1/namespaces/%s/pods/%s" % (ns, name),
                                     {"metadata": {"uid": uid, "annotations": {ANNOTATION: uid}}})
        if status not in (200, 404, 409, 422):  # a pod gone (or replaced) meanwhile needs nothing more
            raise RuntimeError("annotating the pod: HTTP %s %s" % (status, answer))

    def _patch(self, path, body):
        req = urllib.request.Request(self.api.server + path, data=json.dumps(body).encode(), method="PATCH",
                                     headers={"Content-Type": "application/merge-patch+json"})
        try:
            with urllib.request.urlopen(req, context=self.api.ctx, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()[:300]

    def _served(self, ns, name, container, text):
        url = "%s/containerLogs/%s/%s/%s" % (self.kwok, ns, name, urllib.parse.quote(container))
        try:
            with urllib.request.urlopen(url, context=self.insecure, timeout=5) as resp:
                return resp.read().decode() == text
        except (OSError, ValueError):
            return False

    def run(self):
        pool = ThreadPoolExecutor(max_workers=4)
        version = None
        while True:
            try:
                if version is None:
                    status, body = self.api.call("GET", "/api/v1/pods")
                    if status != 200:
                        raise RuntimeError("listing pods: HTTP %s" % status)
                    version = body["metadata"]["resourceVersion"]
                    for pod in body.get("items") or []:
                        if self.wants(pod):
                            pool.submit(self.handle, pod)
                version = self._watch(version, pool)
            except Exception as exc:  # noqa: BLE001 - the API server restarts in fault tests: start over
                cp_run.log("pod-logs: %s; listing again" % exc)
                version = None
                time.sleep(1)

    def _watch(self, version, pool):
        """Follow pod events from ``version``; returns the last version seen (None: list again)."""
        query = urllib.parse.urlencode({"watch": "1", "resourceVersion": version, "allowWatchBookmarks": "true",
                                        "timeoutSeconds": "300"})
        req = urllib.request.Request(self.api.server + "/api/v1/pods?" + query)
        with urllib.request.urlopen(req, context=self.api.ctx, timeout=330) as resp:
            for line in resp:
                event = json.loads(line)
                obj = event.get("object") or {}
                if event.get("type") == "ERROR":
                    return None  # 410 Gone: too old a version
                version = (obj.get("metadata") or {}).get("resourceVersion") or version
                if event.get("type") in ("ADDED", "MODIFIED") and self.wants(obj):
                    pool.submit(self.handle, obj)
        return version


if __name__ == "__main__":
    PodLogs(sys.argv[1], sys.argv[2]).run()
