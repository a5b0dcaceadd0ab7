"""Executables: Helm's post-renderer contract and kustomize's exec plugins."""
import os
import shlex
import shutil
import subprocess
import tempfile

from .errors import PostRenderError, PostRenderYAMLError
from .resources import Res
from .yamlio import dump, dump_all, load_all

NEEDS_HASH = "kustomize.config.k8s.io/needs-hash"
BEHAVIOR = "kustomize.config.k8s.io/behavior"
ID = "kustomize.config.k8s.io/id"


def resolve_executable(path, cwd):
    """Helm resolves a bare name on PATH and anything with a slash relative to the cwd."""
    if os.sep not in path:
        found = shutil.which(path)
        if found:
            return found
    full = path if os.path.isabs(path) else os.path.join(cwd or os.getcwd(), path)
    if not (os.path.isfile(full) and os.access(full, os.X_OK)):
        raise PostRenderError("post-renderer %s: no executable found at %s" % (path, full))
    return full


def _execute(argv, text, cwd, label, env=None):
    try:
        proc = subprocess.run(argv, input=(text or "").encode(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd or None,
                              env=env, check=False)
    except OSError as exc:
        raise PostRenderError("%s: cannot run %s: %s" % (label, argv[0], exc.strerror)) from exc
    stderr = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode != 0:
        raise PostRenderError("%s exited with code %d: %s" % (label, proc.returncode, stderr or "(no stderr)"))
    return proc.stdout.decode("utf-8", "replace"), stderr


def parse_output(text, label, stderr=""):
    """The renderer's stdout as objects; anything but a stream of mappings is an error."""
    try:
        docs = load_all(text)
    except PostRenderYAMLError as exc:
        raise PostRenderError("%s produced output that is not valid YAML: %s%s" % (
            label, " ".join(str(exc).split()), "; stderr: " + stderr if stderr else "")) from exc
    for doc in docs:
        if not isinstance(doc, dict) or not doc.get("kind"):
            raise PostRenderError("%s produced a document that is not a Kubernetes object: %.200r%s"
                                  % (label, doc, "; stderr: " + stderr if stderr else ""))
    return docs


def run_exec(spec, objs, cwd):
    """Helm's contract: the whole stream on stdin, the new stream on stdout."""
    if isinstance(spec, str):
        path, args = spec, []
    else:
        path, args = spec.get("exec"), [str(a) for a in spec.get("args") or []]
        if not isinstance(path, str) or not path:
            raise PostRenderError("post-renderer: 'exec' must be the path of an executable")
    label = "post-renderer %s" % path
    out, stderr = _execute([resolve_executable(path, cwd)] + args, dump_all(objs), cwd, label)
    return parse_output(out, label, stderr)


# --- kustomize exec plugins ------------------------------------------------------------------

def plugin_path(config):
    home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    kind = config["kind"]
    return os.path.join(home, "kustomize", "plugin", config["apiVersion"], kind.lower(), kind)


def run_plugin(config, resources, cwd, generator):
    """Run one exec plugin; returns Res objects carrying the needs-hash/behavior options."""
    exe = plugin_path(config)
    label = "kustomize plugin %s/%s" % (config["apiVersion"], config["kind"])
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        raise PostRenderError("%s: no executable plugin at %s (Go .so plugins are not supported)"
                              % (label, exe))
    text = dump(config)
    args = shlex.split(config.get("argsOneLiner") or "")
    if config.get("argsFromFile"):
        with open(os.path.join(cwd or ".", config["argsFromFile"]), encoding="utf-8") as fh:
            args += [ln.strip() for ln in fh if ln.strip() and not ln.lstrip().startswith("#")]
    env = dict(os.environ, KUSTOMIZE_PLUGIN_CONFIG_STRING=text,
               KUSTOMIZE_PLUGIN_CONFIG_ROOT=os.path.abspath(cwd or "."))
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", prefix="kust-plugin-") as fh:
        fh.write(text)
        fh.flush()
        stdin = None if generator else dump_all([_with_id(r) for r in resources])
        out, stderr = _execute([exe, fh.name] + args, stdin, cwd, label, env)
    by_id = {_res_id(r): r for r in resources}
    result = []
    for obj in parse_output(out, label, stderr):
        old = by_id.get((((obj.get("metadata") or {}).get("annotations")) or {}).get(ID))
        res = _with_options(obj, label)
        if old is not None:
            # kustomize keeps an object's options through a transformer by this id, but not
            # its name history: references to a name the plugin changed stay as they are.
            res.needs_hash = res.needs_hash or old.needs_hash
        result.append(res)
    return result


def _res_id(res):
    """The id annotation kustomize puts on every object it hands a transformer plugin."""
    fields = (("group", res.group), ("kind", res.kind), ("name", res.name),
              ("namespace", res.namespace), ("version", res.version))
    return "".join("%s: %s\n" % (k, v) for k, v in fields if v)


def _with_id(res):
    obj = dict(res.obj)
    meta = obj["metadata"] = dict(obj.get("metadata") or {})
    meta["annotations"] = dict(meta.get("annotations") or {}, **{ID: _res_id(res)})
    return obj


def _with_options(obj, label):
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    annotations.pop(ID, None)
    needs = annotations.pop(NEEDS_HASH, None)
    behavior = annotations.pop(BEHAVIOR, None) or ""
    if not annotations and "annotations" in (obj.get("metadata") or {}):
        del obj["metadata"]["annotations"]
    if behavior and behavior not in ("create", "merge", "replace"):
        raise PostRenderError("%s: %s must be create, merge or replace, not %r" % (label, BEHAVIOR, behavior))
    if needs not in (None, "true", "false", True, False):
        raise PostRenderError("%s: %s must be \"true\" or \"false\", not %r" % (label, NEEDS_HASH, needs))
    res = Res(obj, needs_hash=needs in ("true", True), behavior=behavior)
    if res.needs_hash and res.kind not in ("ConfigMap", "Secret"):
        raise PostRenderError("%s: %s is set on %s, but only ConfigMap and Secret can get a hash suffix"
                              % (label, NEEDS_HASH, res.ident()))
    return res
