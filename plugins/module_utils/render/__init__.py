"""Render a chart the way Helm 4 does for ``helm install`` / ``helm template``: the public API.

``render_release`` runs the whole pipeline - user values, dependencies, render values and
schema, the engine, NOTES, the optional post-renderer, hook/manifest sorting - and returns a
:class:`RenderResult` holding exactly what Helm's engine produced and what Helm would store.
"""
import copy
import posixpath
import sys
from collections.abc import Sequence

from .. import goyaml
from ..chart.dependencies import check_dependencies, process_dependencies
from ..chart.errors import ChartError, ValuesError
from ..chart.loader import load_chart
from ..chart.values import Capabilities, ReleaseOptions, to_render_values, user_values
from ..goyaml import merge_maps
from ..semver import is_compatible_range
from .engine import Engine, RenderError, paused_gc
from .manifest import Hook, RenderManifestError, _path_match, assemble, sort_manifests, template_output
from .nondeterministic import Tracker
from .outputcache import Entry

__all__ = ["render_release", "RenderResult", "RenderError", "Hook", "merge_user_values",
           "template_output"]

NOTES_SUFFIX = "NOTES.txt"
# --set variants in the order Helm applies them (pkg/cli/values MergeValues), whatever
# their order on the command line.
SET_ORDER = ("json", "raw", "string", "file", "literal")


class RenderResult(object):
    """What one render produced.

    ``rendered``: template name -> engine output (partials omitted, NOTES included);
    ``manifest``: the release manifest exactly as Helm stores it; ``hooks``: :class:`Hook`
    objects in Helm's kind order; ``notes``; ``crds``: ``(path, text)`` of ``crds/`` files (a :class:`CrdFiles`);
    ``resources``: the parsed non-hook documents; ``values``: the user-supplied config as
    stored in ``release.config``; ``chart``: the chart rendered (dependencies processed);
    ``warnings``: what Helm would log while coalescing values (``cannot overwrite table...``);
    ``nondeterministic``: the random and clock functions the templates called (sorted names).
    """

    def __init__(self, rendered, manifest, hooks, notes, crds, resources, values, chart,
                 manifests=(), warnings=(), nondeterministic=()):
        self.rendered = rendered
        self.manifest = manifest
        self.hooks = hooks
        self.notes = notes
        self.crds = crds
        self.resources = resources
        self.values = values
        self.chart = chart
        self.manifests = list(manifests)
        self.warnings = list(warnings)
        self.nondeterministic = tuple(nondeterministic)

    def template_output(self, disable_hooks=False, show_only=None):
        """What ``helm template`` prints for this render."""
        return template_output(self.manifest, self.hooks, disable_hooks, show_only)


def _load(chart):
    """A chart of our own: loaded from a path, or a copy (dependency processing prunes it)."""
    if isinstance(chart, (str, bytes)) or hasattr(chart, "__fspath__"):
        return load_chart(chart)
    return chart.copy()


def merge_user_values(values=None, values_files=(), set_values=(), base=None):
    """The user-supplied config: ``base`` (values read from the cluster, ``values_from``), ``-f`` files,
    then ``values``, then the ``--set`` family.

    A ``values_files`` item is a path or a ``(name, bytes)`` pair (a values file fetched from a URL).

    ``set_values`` holds ``{"value": "a.b=c", "value_type": raw|string|json|file|literal}``
    (as kubernetes.core.helm takes them) or plain ``"a.b=c"`` strings (raw). Helm applies the
    groups in a fixed order: json, raw, string, file, literal.
    """
    merged = copy.deepcopy(base) if base else {}  # --set writes into what it is given
    for path in values_files or ():
        if isinstance(path, tuple):  # (URL, content) fetched beforehand
            path, data = path
        else:
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError as exc:
                raise RenderError("open %s: %s" % (path, (exc.strerror or str(exc)).lower()), kind="values")
        try:
            loaded = goyaml.load_values(data)
        except goyaml.YAMLError as exc:
            raise RenderError("failed to parse %s: %s" % (path, exc), kind="values")
        merged = merge_maps(merged, loaded or {})
    if values:
        merged = merge_maps(merged, goyaml.as_values_numbers(values))
    groups = {kind: [] for kind in SET_ORDER}
    for item in set_values or ():
        if isinstance(item, str):
            item = {"value": item, "value_type": "raw"}
        kind = item.get("value_type") or "raw"
        if kind not in groups:
            raise RenderError("unknown set value type %r (expected one of %s)"
                              % (kind, ", ".join(SET_ORDER)))
        groups[kind].append(item["value"])
    # The --set family exactly as the helm CLI's MergeValues applies it (order, JSON objects, error texts).
    try:
        return user_values([merged], set_json=groups["json"], set_values=groups["raw"], set_string=groups["string"],
                           set_file=groups["file"], set_literal=groups["literal"])
    except ValuesError as exc:
        raise RenderError(str(exc), kind="values")


def render_release(chart, name, namespace, values=None, values_files=(), set_values=(),
                   revision=1, is_install=True, is_upgrade=False, kube_version=None,
                   api_versions=None, lookup=None, post_renderer=None, include_crds=False,
                   show_only=None, subchart_notes=False, enable_plugins=False, skip_schema_validation=False,
                   vary=False, base_values=None, crds_installed=False):
    """Render ``chart`` (a path or a loaded Chart) as release ``name`` in ``namespace``.

    ``show_only`` keeps only the matching templates in ``rendered``/``manifest``/``hooks``
    (patterns relative to the chart, as ``helm template -s``). ``vary`` moves the clock the
    templates read (see nondeterministic.py). ``base_values`` (``values_from``) come first in the merge
    of the user-supplied values. ``crds_installed``: the Capabilities as Helm's install reads them, after
    it created the ``crds/`` of the chart and its enabled subcharts (their served versions added to
    ``api_versions``). Raises :class:`RenderError` with Helm's message on any failure.
    """
    with paused_gc():
        try:
            return _render_release(chart, name, namespace, values, values_files, set_values, revision,
                                   is_install, is_upgrade, kube_version, api_versions, lookup,
                                   post_renderer, include_crds, show_only, subchart_notes,
                                   enable_plugins, skip_schema_validation, vary, base_values, crds_installed)
        except RecursionError:  # Go's stack grows; ours is bounded: say so instead of a traceback
            raise RenderError("values or templates are nested too deeply to render (beyond Python's "
                              "recursion limit of %d levels)" % sys.getrecursionlimit(), "values") from None


def _render_release(chart, name, namespace, values, values_files, set_values, revision,
                    is_install, is_upgrade, kube_version, api_versions, lookup, post_renderer,
                    include_crds, show_only, subchart_notes, enable_plugins, skip_schema_validation,
                    vary, base_values=None, crds_installed=False):
    try:
        chart = _load(chart)
        _check_installable(chart)
        config = merge_user_values(values, values_files, set_values, base_values)
        warnings = []
        process_dependencies(chart, config, warnings)
        if crds_installed and api_versions is not None:
            api_versions = _with_crds(api_versions, chart.crd_objects())
        caps = Capabilities(kube_version=kube_version, api_versions=api_versions)
        options = ReleaseOptions(name=name, namespace=namespace, revision=revision,
                                 is_install=is_install, is_upgrade=is_upgrade)
        top = to_render_values(chart, config, options, caps, warnings, validate=not skip_schema_validation)
        _check_kube_version(chart, caps)
        tracker = Tracker(vary)
        kept = None if vary else Entry(chart, config, options, kube_version, api_versions, lookup)
        rendered = kept.get() if kept is not None else None
        if rendered is None:
            rendered = Engine(lookup=kept.lookup if kept is not None else lookup, tracker=tracker).render(chart, top)
            if kept is not None:
                kept.put(rendered, tracker)
    except ValuesError as exc:
        raise RenderError(str(exc), kind="values")
    except ChartError as exc:
        raise RenderError(str(exc), kind="chart")
    files = dict(rendered)
    notes = _take_notes(files, chart.name, subchart_notes)
    if post_renderer:
        files = _post_render(files, post_renderer, enable_plugins)
    try:
        hooks, manifests = sort_manifests(files)
    except RenderManifestError as exc:
        raise RenderError(str(exc))
    crds = CrdFiles([(full_path, data) for _name, full_path, data in chart.crd_objects()])
    if show_only:
        hooks, manifests = _show_only(hooks, manifests, show_only)
    manifest = assemble(manifests, crds if include_crds else ())
    resources = [m.obj for m in manifests if m.obj is not None]
    return RenderResult(rendered, manifest, hooks, notes, crds, resources, config, chart, manifests,
                        _unique(warnings), sorted(tracker.called))


def _with_crds(api_versions, crd_files):
    """``api_versions`` and, after them, ``group/version`` and ``group/version/Kind`` of each served version
    of the CRDs in ``crd_files`` (a file that does not parse is left to the install, which reports it)."""
    out = list(api_versions)
    known = set(out)
    for _name, path, data in crd_files:
        try:
            docs = goyaml.load_all(_text(data), path)
        except goyaml.YAMLError:
            continue
        for doc in docs:
            if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc.get("spec") or {}
            for ver in spec.get("versions") or ():
                if isinstance(ver, dict) and ver.get("served"):
                    gv = "%s/%s" % (spec.get("group"), ver.get("name"))
                    for item in (gv, "%s/%s" % (gv, (spec.get("names") or {}).get("kind"))):
                        if item not in known:
                            known.add(item)
                            out.append(item)
    return out


class CrdFiles(Sequence):
    """``(full path, text)`` of the ``crds/`` files of a chart and its subcharts (Helm's CRDObjects), each
    decoded when read and not kept: a no-op upgrade never reads them, and kube-prometheus-stack carries
    6 MB of them, which its loaded chart holds as bytes already."""

    __slots__ = ("_entries",)

    def __init__(self, entries):
        self._entries = entries  # [(full path, bytes)]

    def __len__(self):
        return len(self._entries)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [(path, _text(data)) for path, data in self._entries[index]]
        path, data = self._entries[index]
        return path, _text(data)


def _unique(items):
    return list(dict.fromkeys(items))


def _text(data):
    return data if isinstance(data, str) else data.decode("utf-8", "surrogateescape")


def _check_installable(chart):
    """What the helm CLI checks first: an application chart with its dependencies vendored."""
    kind = chart.metadata.get("type") or "application"
    if kind != "application":
        raise RenderError("%s charts are not installable" % kind, kind="chart")
    try:
        check_dependencies(chart)
    except ChartError as exc:
        raise RenderError("an error occurred while checking for chart dependencies. You may need "
                          "to run `helm dependency build` to fetch missing dependencies: %s" % exc,
                          kind="chart")


def _check_kube_version(chart, caps):
    constraint = chart.metadata.get("kubeVersion")
    if not constraint:
        return
    version = caps.KubeVersion.String()
    if not is_compatible_range(constraint, version):
        raise RenderError("chart requires kubeVersion: %s which is incompatible with Kubernetes %s"
                          % (constraint, version))


def _take_notes(files, chart_name, subchart_notes):
    """Remove every ``*NOTES.txt`` from ``files``; return the root chart's (or all) notes."""
    root_notes = posixpath.join(chart_name, "templates", NOTES_SUFFIX)
    parts = []
    for path in sorted(files):
        if path.endswith(NOTES_SUFFIX):
            text = files.pop(path)
            if subchart_notes or path == root_notes:
                parts.append(text)
    return "\n".join(parts)


def _show_only(hooks, manifests, patterns):
    keep = []
    for pattern in patterns:
        pattern = pattern.replace("\\", "/")
        found = [m for m in list(manifests) + list(hooks)
                 if _path_match(pattern, _chart_relative(_source(m)))]
        if not found:
            raise RenderError("could not find template %s in chart" % pattern)
        keep.extend(found)
    ids = {id(x) for x in keep}
    return [h for h in hooks if id(h) in ids], [m for m in manifests if id(m) in ids]


def _source(item):
    return item.path if isinstance(item, Hook) else item.name


def _chart_relative(path):
    return path.split("/", 1)[1] if "/" in path else path


def _post_render(files, renderers, enable_plugins):
    """Helm 4's combined post-rendering: templates and hooks together, before sorting."""
    # lazy: only charts run with a post_renderer load the post-render stage (the kustomize port)
    from ..postrender import PostRenderError, run_files
    try:
        return run_files(files, renderers, enable_plugins=enable_plugins)
    except PostRenderError as exc:
        raise RenderError("error while running post render on files: %s" % exc)
