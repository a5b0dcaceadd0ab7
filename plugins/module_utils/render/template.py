"""``helm template`` as a plain function: the logic behind the ``template`` module.

Takes a :class:`TemplateRequest` (built from the module's options at the Ansible boundary) and returns the
result dict and warnings; no Ansible import here, so it is testable and reusable.
"""
import os
from dataclasses import dataclass, field

from . import RenderError, render_release
from .manifest import SOURCE_HEADER, RenderManifestError, _path_match, template_output
from ..chart.source import ChartSource, ValueSources
from ..errors import HelmlessError

# What the result holds beyond kubernetes.core.helm_template's keys, each only when ``extra_results`` names it
# (``all``: every one, the module's result before that option). Each repeats the manifest in another form, and a large
# chart's result is mostly what Ansible then copies, serializes and hands to callbacks.
EXTRA_RESULTS = ("manifest", "rendered", "resources", "crds", "hooks")


class TemplateCommandError(HelmlessError):
    """The template could not be produced; the message is for the user."""


@dataclass
class TemplateRequest:
    """What ``helm template`` renders: the chart, the release, the values (URLs fetched and ``values_from``
    read) and the output options."""
    chart: ChartSource
    name: str = "release-name"
    namespace: str = "default"
    values: ValueSources = field(default_factory=ValueSources)
    is_upgrade: bool = False
    kube_version: str = None
    api_versions: tuple = ()
    post_renderer: object = None
    enable_plugins: bool = False
    include_crds: bool = False
    disable_hooks: bool = False
    show_only: tuple = ()
    output_dir: str = None
    check_mode: bool = False
    extra_results: tuple = ()


def _check_chart(source, warnings):
    """The local chart path: repository/URL charts are fetched (and dependencies updated) first.
    Returns ``(path, version a local chart is expected to have or None)``."""
    path, version = source.local()
    if path is not None:
        return path, version
    from ..repo import RepoError, fetch_chart  # lazy: a local chart loads no repository code
    try:
        return fetch_chart(source, warnings)
    except RepoError as exc:
        raise TemplateCommandError(str(exc))


def run_template(request):
    """Render like ``helm template``; returns ``(result, warnings)``.

    ``result`` holds ``stdout`` (what ``helm template`` prints: the documents, or with ``output_dir`` the
    ``wrote <file>`` lines, after writing the files as Helm lays them out, and ``files``), ``notes``, and
    the EXTRA_RESULTS that ``extra_results`` names.
    """
    warnings = []
    chart_ref, wanted = _check_chart(request.chart, warnings)
    values = request.values
    try:
        result = render_release(
            chart_ref, name=request.name, namespace=request.namespace,
            values=values.values or None, values_files=values.files, set_values=values.set_values,
            base_values=values.cluster, is_install=not request.is_upgrade, is_upgrade=request.is_upgrade,
            kube_version=request.kube_version, api_versions=request.api_versions or None,
            post_renderer=request.post_renderer, enable_plugins=request.enable_plugins,
            include_crds=request.include_crds)
    except RenderError as exc:
        raise TemplateCommandError(str(exc))
    warnings.extend(result.warnings)
    if wanted and wanted.lstrip("v") != str(result.chart.version).lstrip("v"):
        warnings.append("chart_version %s ignored: the local chart is version %s"
                        % (wanted, result.chart.version))
    disable_hooks = request.disable_hooks
    show_only = list(request.show_only) or None
    out = {"notes": result.notes}
    try:
        if request.output_dir:
            out["stdout"], out["files"], out["changed"] = write_output_dir(
                request.output_dir, output_files(result, disable_hooks, request.include_crds, show_only),
                dry_run=request.check_mode)
        else:
            out["stdout"] = template_output(result.manifest, result.hooks, disable_hooks, show_only)
    except RenderManifestError as exc:
        raise TemplateCommandError(str(exc))
    except OSError as exc:
        raise TemplateCommandError("output_dir: %s" % exc)
    extras = set(request.extra_results)
    for key in EXTRA_RESULTS if "all" in extras else [k for k in EXTRA_RESULTS if k in extras]:
        out[key] = _extra(key, result, disable_hooks)
    return out, warnings


def _extra(key, result, disable_hooks):
    if key == "hooks":
        return [] if disable_hooks else [h.to_dict() for h in result.hooks]
    if key == "crds":
        return [{"path": path, "content": text} for path, text in result.crds]
    return getattr(result, key)


def output_files(result, disable_hooks=False, include_crds=False, show_only=None):
    """``helm template --output-dir``'s writes in its order: ``(source path, document)`` pairs, each appended
    to ``<dir>/<source path>`` when that path was written before, else replacing it: CRDs (with
    ``include_crds``), resources, then hooks. ``show_only`` keeps the templates it matches (as for stdout:
    chart-relative paths, globs); a pattern matching none is an error, as Helm's. Helm itself refuses
    ``--show-only`` with ``--output-dir`` (it finds nothing in the empty stdout left after writing)."""
    writes = (list(result.crds) if include_crds else []) + [(m.name, m.content) for m in result.manifests]
    if not disable_hooks:
        writes += [(hook.path, hook.manifest) for hook in result.hooks]
    if not show_only:
        return writes
    keep = set()
    for pattern in show_only:
        pattern = pattern.replace("\\", "/")
        found = {i for i, (path, _text) in enumerate(writes) if _path_match(pattern, path.partition("/")[2])}
        if not found:
            raise RenderManifestError("could not find template %s in chart" % pattern)
        keep |= found
    return [write for i, write in enumerate(writes) if i in keep]


def write_output_dir(output_dir, writes, dry_run=False):
    """Lay ``writes`` (output_files) out under ``output_dir`` as ``helm template --output-dir`` does; returns
    ``(stdout, files, changed)``: helm's ``wrote <file>`` line for each write then its empty manifest line,
    the files sorted, and whether any file's content differed (only those are written; none in ``dry_run``).

    Files are made whole in memory and each compared with what is on disk first, so a rerun with the same
    output changes nothing. Helm appends a hook to a file that exists from an earlier run, doubling it on
    each rerun; here a file holds exactly this render's documents."""
    contents = {}
    lines = []
    for name, text in writes:
        target = output_dir + os.sep + os.path.join(*name.split("/"))
        contents.setdefault(target, []).append(SOURCE_HEADER % (name, text))
        lines.append("wrote %s\n" % target)
    changed = False
    for target, docs in contents.items():
        data = "".join(docs).encode("utf-8", "surrogateescape")
        try:
            with open(target, "rb") as handle:
                if handle.read() == data:
                    continue
        except OSError:
            pass
        changed = True
        if not dry_run:
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(data)
    return "".join(lines) + "\n", sorted(contents), changed
