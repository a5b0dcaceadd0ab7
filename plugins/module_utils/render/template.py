"""``helm template`` as a plain function: the logic behind the ``template`` module.

Takes the module's options (kubernetes.core.helm_template names) and returns the result
dict and warnings; no Ansible import here, so it is testable and reusable.
"""
import os

from . import RenderError, render_release
from .manifest import SOURCE_HEADER, RenderManifestError, template_output
from ..errors import HelmlessError


class TemplateCommandError(HelmlessError):
    """The template could not be produced; the message is for the user."""


def local_chart(options):
    """``(path, version)`` for a chart directory or archive on disk that needs no dependency update nor
    provenance check, as repo.chart_from_options decides; ``(None, None)`` otherwise. Lets a task with a
    local chart skip loading the repository code (HTTP, TLS, OCI), which only remote charts need."""
    ref = options.get("chart_ref")
    if (not ref or options.get("chart_repo_url") or options.get("dependency_update") or options.get("verify")
            or options.get("cosign_key") or ref.startswith("oci://") or not os.path.exists(ref)):
        return None, None
    return ref, options.get("chart_version") or None


def _check_chart(options, warnings):
    """The local chart path: repository/URL charts are fetched (and dependencies updated) first.
    Returns ``(path, version a local chart is expected to have or None)``."""
    path, version = local_chart(options)
    if path is not None:
        return path, version
    from ..repo import RepoError, chart_from_options
    try:
        return chart_from_options(options, warnings)
    except RepoError as exc:
        raise TemplateCommandError(str(exc))


def run_template(options):
    """Render like ``helm template``; returns ``(result, warnings)``.

    ``result`` holds rendered, manifest, notes, hooks, crds, resources and ``stdout`` (what
    ``helm template`` prints); with ``output_dir`` the files are written as Helm writes them
    and ``files`` lists them.
    """
    warnings = []
    chart_ref, wanted = _check_chart(options, warnings)
    try:
        result = render_release(
            chart_ref,
            name=options.get("release_name") or "release-name",
            namespace=options.get("release_namespace") or "default",
            values=options.get("release_values") or None,
            values_files=options.get("values_files") or (),
            set_values=options.get("set_values") or (),
            is_install=not options.get("is_upgrade"),
            is_upgrade=bool(options.get("is_upgrade")),
            kube_version=options.get("kube_version"),
            api_versions=options.get("api_versions"),
            post_renderer=options.get("post_renderer"),
            enable_plugins=bool(options.get("enable_plugins")),
            include_crds=bool(options.get("include_crds")))
    except RenderError as exc:
        raise TemplateCommandError(str(exc))
    warnings.extend(result.warnings)
    if wanted and wanted.lstrip("v") != str(result.chart.version).lstrip("v"):
        warnings.append("chart_version %s ignored: the local chart is version %s"
                        % (wanted, result.chart.version))
    disable_hooks = bool(options.get("disable_hook"))
    try:
        stdout = template_output(result.manifest, result.hooks, disable_hooks,
                                 options.get("show_only") or None)
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
    if options.get("output_dir"):
        out["files"] = write_output_dir(options["output_dir"], result, disable_hooks,
                                        bool(options.get("include_crds")),
                                        dry_run=bool(options.get("check_mode")))
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
