"""kustomize's built-in generators and transformers, natively, in kustomize v5.5's order."""
import os
import re

from . import fieldspecs as F
from .errors import PostRenderError, PostRenderYAMLError
from .generators import absorb, generate
from .namerefs import add_hashes, fix_references
from .patches import drop_empty_nulls, json6902, smp
from .resources import Res, apply_fieldspecs, fs, gvk_matches, ns_equal, target_matches
from .yamlio import load_all, load_all_v2

SUPPORTED = frozenset((
    "apiVersion", "kind", "metadata", "resources", "namespace", "namePrefix", "nameSuffix",
    "commonLabels", "labels", "commonAnnotations", "images", "replicas", "patches",
    "patchesStrategicMerge", "patchesJson6902", "configMapGenerator", "secretGenerator",
    "generatorOptions"))


def build(resources, cfg, cwd):
    """Run one kustomization over ``resources`` (a list of Res, changed in place)."""
    if not isinstance(cfg, dict):
        raise PostRenderError("kustomize: expected a mapping of kustomization fields")
    unknown = sorted(set(cfg) - SUPPORTED)
    if unknown:
        raise PostRenderError("kustomize: unsupported field(s) %s; supported: %s"
                              % (", ".join(unknown), ", ".join(sorted(SUPPORTED))))
    for path in cfg.get("resources") or []:
        for obj in _load_file(path, cwd, "resources"):
            resources.append(Res(obj))
    _check_unique(resources)
    opts = cfg.get("generatorOptions") or {}
    for spec in cfg.get("configMapGenerator") or []:
        absorb(resources, generate("ConfigMap", spec, opts, cwd))
    for spec in cfg.get("secretGenerator") or []:
        absorb(resources, generate("Secret", spec, opts, cwd))

    for entry in cfg.get("patchesStrategicMerge") or []:
        text = _read(entry, cwd, "patchesStrategicMerge") if _looks_like_path(entry) else entry
        _patch(resources, text, None, {}, "patchesStrategicMerge")
    for num, entry in enumerate(cfg.get("patches") or []):
        text = entry.get("patch") if entry.get("patch") is not None else \
            _read(entry.get("path"), cwd, "patches[%d]" % num)
        _patch(resources, text, entry.get("target"), entry.get("options") or {}, "patches[%d]" % num)
    if cfg.get("namespace"):
        _namespace(resources, cfg["namespace"])
    if cfg.get("namePrefix") or cfg.get("nameSuffix"):
        _prefix_suffix(resources, cfg.get("namePrefix") or "", cfg.get("nameSuffix") or "")
    if cfg.get("commonLabels"):
        _set_map(resources, F.COMMON_LABELS, cfg["commonLabels"])
    for entry in cfg.get("labels") or []:
        specs = (F.COMMON_LABELS if entry.get("includeSelectors")
                 else F.TEMPLATE_LABELS if entry.get("includeTemplates") else [fs("metadata/labels", create=True)])
        specs = specs + [fs(f["path"], f.get("kind", ""), f.get("group"), f.get("version"),
                            f.get("create", False)) for f in entry.get("fields") or []]
        _set_map(resources, specs, entry.get("pairs") or {})
    if cfg.get("commonAnnotations"):
        _set_map(resources, F.COMMON_ANNOTATIONS, cfg["commonAnnotations"])
    for num, entry in enumerate(cfg.get("patchesJson6902") or []):
        text = entry.get("patch") if entry.get("patch") is not None else \
            _read(entry.get("path"), cwd, "patchesJson6902[%d]" % num)
        _patch(resources, text, entry.get("target") or {}, {}, "patchesJson6902[%d]" % num)
    for entry in cfg.get("replicas") or []:
        _replicas(resources, entry)
    for entry in cfg.get("images") or []:
        _images(resources, entry)
    add_hashes(resources)
    fix_references(resources)
    return finish(resources)


def finish(resources):
    """kustomize drops empty ``metadata.annotations`` from every object it emits."""
    for res in resources:
        res.needs_hash = False
        meta = res.obj.get("metadata")
        if isinstance(meta, dict) and "annotations" in meta and not meta["annotations"]:
            del meta["annotations"]
    return resources


def _check_unique(resources):
    """kustomize refuses two objects with one id (apiVersion, kind, namespace, name)."""
    seen = set()
    for res in resources:
        key = (res.obj.get("apiVersion"), res.kind, res.namespace or "default", res.name)
        if key in seen:
            raise PostRenderError("kustomize: may not add resource with an already registered id: "
                                  "%s %s" % (res.obj.get("apiVersion"), res.ident()))
        seen.add(key)


def _looks_like_path(entry):
    return isinstance(entry, str) and "\n" not in entry and entry.rstrip().endswith((".yaml", ".yml", ".json"))


def _read(path, cwd, where):
    if not path:
        raise PostRenderError("%s: needs patch or path" % where)
    try:
        with open(os.path.join(cwd or ".", path), encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise PostRenderError("%s: %s: %s" % (where, path, exc.strerror)) from exc


def _load_file(path, cwd, where):
    text = _read(path, cwd, where)
    try:
        return load_all(text)
    except PostRenderYAMLError as exc:
        raise PostRenderError("%s: %s: %s" % (where, path, exc)) from exc


def _parse_patch(text, where):
    if isinstance(text, (list, dict)):
        return [text]
    try:
        docs = load_all(text)
    except PostRenderYAMLError as exc:
        raise PostRenderError("%s: patch is not valid YAML: %s" % (where, exc)) from exc
    if not docs:
        raise PostRenderError("%s: empty patch" % where)
    if isinstance(docs[0], list):
        # kustomize reads JSON 6902 patches with go-yaml v2: ``y``/``on`` are booleans there.
        docs = load_all_v2(text)
    return docs


def _patch(resources, text, target, options, where):
    docs = _parse_patch(text, where)
    if isinstance(docs[0], list):
        if not target:
            raise PostRenderError("%s: a JSON 6902 patch needs a target" % where)
        for res in [r for r in resources if target_matches(target, r)]:
            # A JSON 6902 patch may rename anything; only strategic merge patches are held back.
            _apply(resources, res, lambda obj, ops=docs[0]: json6902(obj, ops, "%s on %s" % (where, res.ident())),
                   {"allowNameChange": True, "allowKindChange": True})
        return
    for doc in docs:
        if not isinstance(doc, dict):
            raise PostRenderError("%s: a strategic merge patch must be a mapping" % where)
        if target:
            matched = [r for r in resources if target_matches(target, r)]
        else:
            matched = _patch_target(resources, doc, where)
        for res in matched:
            def apply(obj, doc=doc, res=res):
                patch = dict(doc)
                if target:
                    # A targeted patch's own name/kind only count when a change is allowed.
                    meta = patch["metadata"] = dict(patch.get("metadata") or {})
                    if not options.get("allowNameChange") or not meta.get("name"):
                        meta["name"] = res.name
                    if res.namespace:
                        meta["namespace"] = res.namespace
                    if not options.get("allowKindChange"):
                        patch.pop("kind", None)
                        patch.pop("apiVersion", None)
                return smp(drop_empty_nulls(obj), patch, res.kind)
            _apply(resources, res, apply, options)


def _patch_target(resources, doc, where):
    meta = doc.get("metadata") or {}
    kind, name, ns = doc.get("kind"), meta.get("name"), meta.get("namespace") or ""
    group = (doc.get("apiVersion") or "").rpartition("/")[0] if "/" in (doc.get("apiVersion") or "") else ""
    found = [r for r in resources if r.kind == kind and name in r.prev_names and r.group == group
             and ns_equal(ns, r.namespace)]
    if len(found) != 1:
        raise PostRenderError("%s: %s target for patch %s %s%s" % (
            where, "no resource matches the" if not found else "multiple resources match the",
            kind, ns + "/" if ns else "", name))
    return found


def _apply(resources, res, fn, options):
    before_name, before_kind = res.name, res.kind
    result = fn(res.obj)
    if result is None:
        resources.remove(res)
        return
    res.obj = result
    if not options.get("allowNameChange") and res.name != before_name:
        res.meta["name"] = before_name
    elif res.name != before_name:
        res.set_name(res.name)
    if not options.get("allowKindChange") and res.kind != before_kind:
        res.obj["kind"] = before_kind


def _namespace(resources, namespace):
    for res in resources:
        if not res.cluster_scoped:
            res.meta["namespace"] = namespace
        if res.kind in ("RoleBinding", "ClusterRoleBinding"):
            for subject in res.obj.get("subjects") or []:
                if isinstance(subject, dict) and subject.get("name") == "default":
                    subject["namespace"] = namespace

    def setter(res, parent, key):
        if key == "name" and res.kind == "Namespace":
            res.set_name(namespace)
        else:
            parent[key] = namespace
    apply_fieldspecs(resources, F.NAMESPACE_EXTRA, setter, create_leaf=str)


def _prefix_suffix(resources, prefix, suffix):
    for res in resources:
        if any(res.kind == kind and (group is None or res.group == group) for kind, group in F.PREFIX_SKIP):
            continue
        res.set_name(prefix + res.name + suffix)


def _set_map(resources, specs, pairs):
    values = {str(k): _as_string(v) for k, v in pairs.items()}

    def setter(res, parent, key):
        current = parent[key]
        if not isinstance(current, dict):
            current = parent[key] = {}
        current.update(values)
    apply_fieldspecs(resources, specs, setter, create_leaf=dict)


def _as_string(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _replicas(resources, entry):
    name, count = entry.get("name"), entry.get("count")
    found = [r for r in resources if name in r.prev_names and any(gvk_matches(s, r) for s in F.REPLICAS)]
    if not found:
        raise PostRenderError("replicas: resource with name %s does not match a config with the "
                              "following GVK [Deployment StatefulSet ReplicaSet ReplicationController]"
                              % name)
    for res in found:
        if not isinstance(res.obj.get("spec"), dict):
            res.obj["spec"] = {}
        res.obj["spec"]["replicas"] = count


def _split_image(image):
    name, digest = image.partition("@")[::2]
    slash = name.find("/")
    colon = name.find(":", slash if slash > 0 else 0)
    if colon < 0:
        return name, "", digest
    return name[:colon], name[colon + 1:], digest


def _image_matches(image, name):
    try:
        return re.match("^" + name + r"(@sha256)?(:[a-zA-Z0-9_.{}-]*)?(@sha256:[a-zA-Z0-9]*)?$", image) is not None
    except re.error:
        return _split_image(image)[0] == name


def _new_image(image, entry):
    if not isinstance(image, str) or not _image_matches(image, entry.get("name") or ""):
        return image
    name, tag, digest = _split_image(image)
    new_tag, new_digest = str(entry.get("newTag") or ""), entry.get("digest") or ""
    if entry.get("newName"):
        name = entry["newName"]
    if new_tag and new_digest:
        tag, digest = new_tag, new_digest
    elif new_tag:
        tag, digest = new_tag, ""
    elif new_digest:
        tag, digest = "", new_digest
    return name + (":" + tag if tag else "") + ("@" + digest if digest else "")


def _update_containers(node, entry):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("containers", "initContainers") and isinstance(value, list):
                for item in value:
                    if isinstance(item, dict) and "image" in item:
                        item["image"] = _new_image(item["image"], entry)
            else:
                _update_containers(value, entry)
    elif isinstance(node, list):
        for value in node:
            _update_containers(value, entry)


def _images(resources, entry):
    for res in resources:
        _update_containers(res.obj, entry)

    def setter(res, parent, key):
        parent[key] = _new_image(parent[key], entry)
    # Only existing image fields are rewritten, whatever the specs' create flag says.
    vol_specs = [dict(s, create=False) for s in F.IMAGES if "volumes" in s["path"]]
    apply_fieldspecs(resources, vol_specs, setter)
