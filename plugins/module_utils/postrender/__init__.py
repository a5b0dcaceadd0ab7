"""Post-rendering between render and plan (SPEC §6): executables, native kustomize, exec plugins.

``run(manifest_text, renderers, enable_plugins=False, cwd=None)`` applies the user's
``post_renderer`` list in order.  Each item is one of

- an executable: a path string or ``{exec: path, args: [...]}`` (Helm's contract: the whole
  stream on stdin, the new stream on stdout; a bare name is looked up on PATH, a relative
  path against ``cwd``);
- ``{kustomize: {...}}``: kustomize v5.5's built-in generators and transformers, natively
  (see ``kustomize.SUPPORTED`` for the fields), in kustomize's order; ``{kustomize: path}``
  reads those fields from a kustomization file (or directory) and resolves its files there;
- a kustomize exec-plugin config (an object with apiVersion/kind, or the path of a YAML file
  holding one or more) run as a *transformer*, or ``{generators: [...], transformers: [...]}``
  listing configs (objects or file paths) to run as generators and then transformers - in
  kustomize a config means whatever list it is listed under, so the wrapper says which.
  Plugins only run with ``enable_plugins=True``.

Helm 4 post-renders templates and hooks together and tracks each document's template in the
annotation ``postrenderer.helm.sh/postrender-filename``: ``run`` turns every ``# Source:``
comment into that annotation (renderers see it, as with ``helm --post-renderer``), and back
into a ``# Source:`` comment afterwards; objects a renderer created are named
``generated-by-postrender-<index>.yaml``.  ``run_files`` does the same over Helm's
{template path: text} map (annotateAndMerge / splitAndDeannotate).
"""
import os

from .errors import PostRenderError, PostRenderYAMLError
from .execrender import parse_output, run_exec, run_plugin
from .generators import absorb
from .kustomize import build, finish
from .namerefs import add_hashes, fix_references
from .resources import FILENAME_ANNOTATION, Res, expand_lists
from .yamlio import dump, load_all, load_all_v2
from ..regexcache import regex

__all__ = ["run", "run_files", "PostRenderError", "FILENAME_ANNOTATION"]

_SEPARATOR = regex(r"(?m)^---[ \t]*(?:#.*)?$")
_SOURCE = regex(r"(?m)^# Source: (.*?)\s*$")


def run(manifest_text, renderers, *, enable_plugins=False, cwd=None):
    """Apply ``renderers`` in order to ``manifest_text``; returns the new manifest text."""
    objs, source = [], ""
    for chunk in _SEPARATOR.split(manifest_text or ""):
        match = _SOURCE.search(chunk)
        # A template may start with its own "---": its documents keep the file's source.
        source = match.group(1) if match else source
        for obj in _parse_input(chunk, source or "input"):
            if source:
                _annotate(obj, source)
            objs.append(obj)
    any_source = bool(source)
    objs = _apply_all(objs, renderers, enable_plugins, cwd)
    out = []
    for index, obj in enumerate(objs):
        source = _deannotate(obj) or "generated-by-postrender-%d.yaml" % index
        out.append("---\n" + ("# Source: %s\n" % source if any_source else "") + dump(obj))
    return "".join(out)


def run_files(files, renderers, *, enable_plugins=False, cwd=None):
    """Helm 4's combined strategy over {template path: rendered text}: partials and blank
    files are skipped, files go in sorted order, results come back grouped by file."""
    objs = []
    for name in sorted(files):
        content = files[name]
        if os.path.basename(name).startswith("_") or not content.strip():
            continue
        for obj in _parse_input(content, name):
            _annotate(obj, name)
            objs.append(obj)
    result = {}
    for index, obj in enumerate(_apply_all(objs, renderers, enable_plugins, cwd)):
        name = _deannotate(obj) or "generated-by-postrender-%d.yaml" % index
        result[name] = result.get(name, "") + ("---\n" if name in result else "") + dump(obj)
    return result


def _parse_input(text, where):
    try:
        docs = load_all(text)
    except PostRenderYAMLError as exc:
        raise PostRenderError("parsing %s: %s" % (where, " ".join(str(exc).split()))) from exc
    for doc in docs:
        if not isinstance(doc, dict):
            raise PostRenderError("parsing %s: a document is not a mapping" % where)
    return docs


def _annotate(obj, source):
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = obj["metadata"] = {}
    if not isinstance(meta.get("annotations"), dict):
        meta["annotations"] = {}
    meta["annotations"][FILENAME_ANNOTATION] = source


def _deannotate(obj):
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("annotations"), dict):
        return ""
    source = meta["annotations"].pop(FILENAME_ANNOTATION, "")
    if not meta["annotations"]:
        del meta["annotations"]
    return source


def _apply_all(objs, renderers, enable_plugins, cwd):
    if renderers is None:
        return objs
    if not isinstance(renderers, list):
        renderers = [renderers]
    for num, item in enumerate(renderers):
        objs = _apply_one(objs, item, enable_plugins, cwd, "post_renderer[%d]" % num)
    return objs


def _apply_one(objs, item, enable_plugins, cwd, where):
    if isinstance(item, dict) and "kustomize" in item:
        if len(item) != 1:
            raise PostRenderError("%s: 'kustomize' cannot be combined with other keys" % where)
        cfg = item["kustomize"] or {}
        if isinstance(cfg, str):
            cfg, cwd = _load_kustomization(cfg, cwd, where)
        resources = build([Res(o) for o in expand_lists(objs)], cfg, cwd)
        return [r.obj for r in resources]
    if isinstance(item, dict) and "exec" in item:
        return run_exec(item, objs, cwd)
    plugins = _plugin_configs(item, cwd, where)
    if plugins is None:
        if isinstance(item, str):
            return run_exec(item, objs, cwd)
        raise PostRenderError("%s: expected an executable, {exec: ...}, {kustomize: ...}, a kustomize "
                              "plugin config, or {generators|transformers: [plugin configs]}" % where)
    if not enable_plugins:
        raise PostRenderError("%s: kustomize plugins run arbitrary programs and are disabled; set "
                              "enable_plugins: true (kustomize's --enable-alpha-plugins) to run them" % where)
    resources = [Res(o) for o in objs]
    for config in plugins["generators"]:
        for res in run_plugin(config, [], cwd, generator=True):
            absorb(resources, res)
    for config in plugins["transformers"]:
        resources = run_plugin(config, resources, cwd, generator=False)
    add_hashes(resources)
    fix_references(resources)
    return [r.obj for r in finish(resources)]


def _load_kustomization(path, cwd, where):
    """``kustomize: <file or directory>``: its fields, and its directory as the root for the
    files it names (read like kustomize does, with go-yaml v2 typing)."""
    path = os.path.join(cwd or ".", path)
    if os.path.isdir(path):
        for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
            if os.path.isfile(os.path.join(path, name)):
                path = os.path.join(path, name)
                break
    try:
        with open(path, encoding="utf-8") as fh:
            docs = load_all_v2(fh.read())
    except OSError as exc:
        raise PostRenderError("%s: kustomization %s: %s" % (where, path, exc.strerror)) from exc
    except PostRenderYAMLError as exc:
        raise PostRenderError("%s: kustomization %s: %s" % (where, path, " ".join(str(exc).split()))) from exc
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise PostRenderError("%s: kustomization %s must be one mapping" % (where, path))
    return docs[0], os.path.dirname(os.path.abspath(path))


def _plugin_configs(item, cwd, where):
    """{generators: [...], transformers: [...]} from an item, or None if it is no plugin item.

    A bare config (object or path to a YAML file) is a transformer, as in kustomize a config
    means whatever list it is listed under; use the wrapper keys to run generators."""
    if isinstance(item, dict) and set(item) and set(item) <= {"generators", "transformers"}:
        return {key: [_load_config(c, cwd, "%s.%s[%d]" % (where, key, i))
                      for i, c in enumerate(item.get(key) or [])]
                for key in ("generators", "transformers")}
    if isinstance(item, dict) and "apiVersion" in item and "kind" in item:
        return {"generators": [], "transformers": [_load_config(item, cwd, where)]}
    if isinstance(item, str) and item.endswith((".yaml", ".yml")):
        path = os.path.join(cwd or ".", item)
        if os.path.isfile(path) and not os.access(path, os.X_OK):
            return {"generators": [], "transformers": _load_configs(path, where)}
    return None


def _load_configs(path, where):
    try:
        with open(path, encoding="utf-8") as fh:
            docs = parse_output(fh.read(), "%s (%s)" % (where, path))
    except OSError as exc:
        raise PostRenderError("%s: %s: %s" % (where, path, exc.strerror)) from exc
    return [_load_config(d, None, where) for d in docs]


def _load_config(config, cwd, where):
    if isinstance(config, str):
        configs = _load_configs(os.path.join(cwd or ".", config), where)
        if len(configs) != 1:
            raise PostRenderError("%s: %s must hold exactly one plugin config" % (where, config))
        return configs[0]
    if not isinstance(config, dict) or not config.get("apiVersion") or not config.get("kind"):
        raise PostRenderError("%s: a plugin config needs apiVersion and kind" % where)
    return config
