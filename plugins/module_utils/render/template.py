"""``helm template`` as a plain function: the logic behind the ``template`` module.

Takes a :class:`TemplateRequest` (built from the module's options at the Ansible boundary) and returns the
result dict and warnings; no Ansible import here, so it is testable and reusable.
"""
import os
from dataclasses import dataclass, field

from . import RenderError, render_release
from .manifest import SOURCE_HEADER, RenderManifestError, template_output
from ..chart.source import ChartSource, ValueSources
from ..errors import HelmlessError


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

    ``result`` holds rendered, manifest, notes, hooks, crds, resources and ``stdout`` (what
    ``helm template`` prints); with ``output_dir`` the files are written as Helm writes them
    and ``files`` lists them.
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
    try:
        stdout = template_output(result.manifest, result.hooks, disable_hooks, list(request.show_only) or None)
    except RenderManifestError as exc:
        raise TemplateCommandError(str(exc))
    out = {
        "rendered": result.rendered,
        "manifest": result.manifest,
        "notes": result.notes,
        "hooks": [] if disable_hooks else [h.to_dict() for h in result.hooks],
        "crds": [{"path": path, "content": text} for path, text in result.crds],
        "resources": result.resources,
        "stdout": stdout,
    }
    if request.output_dir:
        out["files"] = write_output_dir(request.output_dir, result, disable_hooks, request.include_crds,
                                        dry_run=request.check_mode)
    return out, warnings


def write_output_dir(output_dir, result, disable_hooks=False, include_crds=False, dry_run=False):
    """``helm template --output-dir``: each document appended to ``<dir>/<source path>``.

    As in Helm, CRDs and resources are written first, then hooks with a fresh record of
    written files, so the first hook of a template that also holds resources replaces them.
    """
    written = []

    def write(name, text, append):
        target = os.path.join(output_dir, *name.split("/"))
        if target not in written:
            written.append(target)
        if dry_run:
            return
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "a" if append else "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(SOURCE_HEADER % (name, text))

    seen = set()
    for name, text in (list(result.crds) if include_crds else []) + [(m.name, m.content) for m in result.manifests]:
        write(name, text, name in seen)
        seen.add(name)
    if not disable_hooks:
        seen = set()
        for hook in result.hooks:
            write(hook.path, hook.manifest, hook.path in seen)
            seen.add(hook.path)
    return sorted(written)
