"""configMapGenerator / secretGenerator and kustomize's content hash suffix."""
import base64
import hashlib
import json
import os

from .errors import PostRenderError
from .resources import Res, ns_equal

_HASH_MAP = str.maketrans({"0": "g", "1": "h", "3": "k", "a": "m", "e": "t"})


def _go_json(value):
    """encoding/json.Marshal: sorted keys, compact, HTML-escaped, UTF-8."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def content_hash(obj):
    """The 10-character suffix kustomize appends to generated ConfigMaps and Secrets.

    kustomize v5 hashes kind, (an empty) name and the data fields, so the suffix depends on
    content only, not on prefixes or namespaces.
    """
    kind = obj.get("kind")
    if kind == "ConfigMap":
        doc = {"kind": "ConfigMap", "name": "", "data": obj.get("data") or ""}
        if obj.get("binaryData"):
            doc["binaryData"] = obj["binaryData"]
    elif kind == "Secret":
        doc = {"kind": "Secret", "type": obj.get("type") or "", "name": "",
               "data": obj.get("data") or {}}
    else:
        raise PostRenderError("cannot add a hash suffix to %s %s: only ConfigMap and Secret"
                              % (kind, (obj.get("metadata") or {}).get("name")))
    return hashlib.sha256(_go_json(doc).encode()).hexdigest()[:10].translate(_HASH_MAP)


def _wrapped_base64(raw):
    """ConfigMap binaryData as kustomize writes it: 70-column lines, each ending in a
    newline once there is more than one."""
    text = base64.b64encode(raw).decode()
    if len(text) < 70:
        return text
    return "".join(text[i:i + 70] + "\n" for i in range(0, len(text), 70))


def _unquote(value):
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _pairs(spec, cwd, what):
    """(key, bytes-or-str) pairs from literals, env files and files, in kustomize's order."""
    pairs = []
    for path in list(spec.get("envs") or []) + ([spec["env"]] if spec.get("env") else []):
        full = os.path.join(cwd or ".", path)
        try:
            with open(full, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        except OSError as exc:
            raise PostRenderError("%s: env file %s: %s" % (what, path, exc.strerror)) from exc
        for num, line in enumerate(lines, 1):
            line = line.lstrip()
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.partition("=")
            if not sep:
                if key not in os.environ:
                    continue
                value = os.environ[key]
            pairs.append((key, value))
    for lit in spec.get("literals") or []:
        key, sep, value = str(lit).partition("=")
        if not sep:
            raise PostRenderError("%s: literal %r is not key=value" % (what, lit))
        pairs.append((key, _unquote(value)))
    for entry in spec.get("files") or []:
        key, sep, path = str(entry).partition("=")
        if not sep:
            path, key = key, os.path.basename(key)
        try:
            with open(os.path.join(cwd or ".", path), "rb") as fh:
                pairs.append((key, fh.read()))
        except OSError as exc:
            raise PostRenderError("%s: file %s: %s" % (what, path, exc.strerror)) from exc
    seen = set()
    for key, _content in pairs:
        if key in seen:
            raise PostRenderError("%s: duplicate key %r" % (what, key))
        seen.add(key)
    return pairs


def generate(kind, spec, options, cwd):
    """One generated ConfigMap or Secret as a Res (hash not yet applied)."""
    name = spec.get("name")
    what = "%s %s" % ("configMapGenerator" if kind == "ConfigMap" else "secretGenerator", name)
    if not name:
        raise PostRenderError("%s: a generator needs a name" % what)
    meta = {"name": name}
    if spec.get("namespace"):
        meta["namespace"] = spec["namespace"]
    opts = dict(options or {})
    own = spec.get("options") or {}
    for field in ("labels", "annotations"):
        merged = dict(opts.get(field) or {})
        merged.update(own.get(field) or {})
        if merged:
            meta[field] = merged
    obj = {"apiVersion": "v1", "kind": kind, "metadata": meta}
    data, binary = {}, {}
    for key, value in _pairs(spec, cwd, what):
        if kind == "Secret":
            raw = value if isinstance(value, bytes) else value.encode()
            data[key] = base64.b64encode(raw).decode()
        elif isinstance(value, bytes):
            try:
                data[key] = value.decode("utf-8")
            except UnicodeDecodeError:
                binary[key] = _wrapped_base64(value)
        else:
            data[key] = value
    if kind == "Secret":
        obj["type"] = spec.get("type") or "Opaque"
    if data or kind == "Secret":
        obj["data"] = data
    if binary:
        obj["binaryData"] = binary
    immutable = own.get("immutable", opts.get("immutable"))
    if immutable:
        obj["immutable"] = True
    disable = own.get("disableNameSuffixHash", opts.get("disableNameSuffixHash", False))
    return Res(obj, needs_hash=not disable, behavior=spec.get("behavior") or "create", generated=True)


def absorb(resources, res):
    """Add a generated resource honouring its behavior (create/merge/replace)."""
    match = [r for r in resources if r.kind == res.kind and res.name in r.prev_names
             and ns_equal(r.namespace, res.namespace)]
    behavior = res.behavior or "create"
    if behavior == "create":
        if match:
            raise PostRenderError("%s: an object with that id already exists; use behavior merge "
                                  "or replace" % res.ident())
        resources.append(res)
        return
    if behavior not in ("merge", "replace"):
        raise PostRenderError("%s: unknown behavior %r" % (res.ident(), behavior))
    if not match:
        raise PostRenderError("%s does not exist; cannot merge or replace (a generator's "
                              "namespace must match the object's)" % res.ident())
    old = match[0]
    if behavior == "replace":
        # New content, but the old object's metadata (new labels/annotations win).
        meta = dict(old.meta)
        old.obj = dict(res.obj, metadata=meta)
    else:
        for field in ("data", "binaryData"):
            if res.obj.get(field):
                old.obj[field] = dict(old.obj.get(field) or {}, **res.obj[field])
    for field in ("labels", "annotations"):
        if res.meta.get(field):
            old.meta[field] = dict(old.meta.get(field) or {}, **res.meta[field])
    # The existing object keeps its own options: merging into a chart's ConfigMap adds no hash.
