"""The render an install or upgrade plans from, as Helm's action.Install/Upgrade prepare it.

Decides the values to render with (``reset_values``/``reuse_values``/``reset_then_reuse_values``), the
revision and ``.Release.IsInstall`` to render as, and whether the render means the same as the deployed
revision (sameness.py): then the deployed content itself is planned, so a chart that prints its revision
or generates random values stays idempotent. Only release tasks that install or upgrade import this
module (and so the renderer); the other actions work on stored records.
"""
import copy
from dataclasses import dataclass

from ..chart.loader import load_chart
from ..chart.model import Chart
from ..chart.source import ValueSources
from ..chart.values import coalesce_tables, coalesce_values
from ..kube.errors import KubeError
from ..release.model import DEPLOYED, FAILED, PENDING, SUPERSEDED, UNINSTALLED, description, status
from .base import OperationError
from ..render import RenderError, merge_user_values, render_release
from .inputs import from_record, from_render
from .sameness import differs, record_of, same_content, same_values
from .upgrade import UPGRADE_FAILED, no_deployed_releases


@dataclass
class RenderRequest:
    """What to render: a chart on disk, the release, the user-supplied values (a ``chart.source.ValueSources``
    whose URLs are fetched and ``values_from`` read) and the render options."""
    chart: str
    name: str
    namespace: str
    values: ValueSources
    reset_values: bool = True
    reuse_values: bool = False
    reset_then_reuse_values: bool = False
    post_renderer: object = None
    enable_plugins: bool = False
    skip_schema_validation: bool = False
    fresh: bool = False  # render as a new revision even when the inputs are the deployed ones (force_reconcile)
    skip_crds: bool = False


def _hook_key(hook):
    return hook.get("path"), hook.get("kind"), hook.get("name")


def _in_order_of(kept, fresh):
    """The deployed hooks in the order the render gives them: a filtered ``helm test`` stored the hooks it
    skipped first, and helm's next revision stores its render's order."""
    rank = {_hook_key(h): i for i, h in enumerate(fresh)}
    return sorted(kept, key=lambda h: rank.get(_hook_key(h), len(rank)))


def prepare(engine, request, progress):
    """Render ``request`` with the cluster's capabilities and ``lookup`` for release ``engine.name``.

    Returns ``(ReleaseInput, version of the chart rendered)``; a RenderError is reported to ``progress``
    and raised.
    """
    client = engine.client
    history = engine.history()
    deployed = [r for r in history if status(r) == DEPLOYED]
    current = deployed[-1] if deployed else (history[-1] if history else None)
    installed = current is not None and status(current) != UNINSTALLED
    try:
        sources = request.values
        config = merge_user_values(sources.values, sources.files, sources.set_values, sources.cluster)
        if not deployed and history and status(history[-1]) not in (FAILED, SUPERSEDED, UNINSTALLED) + PENDING:
            # e.g. left uninstalling by a failed uninstall: helm upgrade refuses it before it renders
            raise OperationError(no_deployed_releases(request.name))
        chart = request.chart
        if installed and not request.reset_values:
            config, chart = reused_values(request, current, config)
        version = client.server_version()

        def render(revision, is_install, vary=False):
            return render_release(
                chart, name=request.name, namespace=request.namespace, values=config,
                revision=revision, is_install=is_install, is_upgrade=not is_install,
                kube_version=version.get("gitVersion"), api_versions=client.discovery.api_versions(),
                lookup=None if vary else lookup_for(client), post_renderer=request.post_renderer,
                enable_plugins=request.enable_plugins, skip_schema_validation=request.skip_schema_validation,
                vary=vary, crds_installed=not installed and not request.skip_crds)

        probed = []

        def probe(as_then):
            try:
                probed.append(from_render(render(*as_then, vary=True)))
            except RenderError:
                return None
            return probed[-1]

        same = rerolled = False
        # Other values change the release whatever the render: then it renders once, as the new revision.
        if (installed and current is history[-1] and status(current) == DEPLOYED and not request.fresh
                and same_values(current, config)):
            # Same inputs as the deployed revision? Render as that revision (.Release.Revision/IsInstall as
            # then) so charts that print their revision stay idempotent; only a real change renders anew.
            as_then = (current["version"], was_install(current))
            result = render(*as_then)
            inp = from_render(result)
            same = not differs(current, inp, lambda: probe(as_then))
            if same:
                rerolled = not same_content(current, record_of(inp))
                fresh, inp = inp, from_record(current, inp.crds)  # plan and keep exactly what is deployed,
                inp.chart, inp.config = fresh.chart, fresh.config  # stored with the chart and values given now
                inp.hooks = _in_order_of(inp.hooks, fresh.hooks)
        if not same:
            # an install renders as revision 1, also over an uninstalled history (Helm's Install with Replace)
            result = render(history[-1]["version"] + 1 if installed else 1, not installed)
            inp = from_render(result)
    except RenderError as exc:
        progress("render", "failed: %s" % exc)
        if installed and exc.kind in ("render", "values"):  # inside helm upgrade's Run, so its prefix
            raise RenderError(UPGRADE_FAILED + str(exc), exc.kind) from exc
        raise
    note = ""
    if same:
        note = ": same content as revision %d" % current["version"]
        if rerolled:
            names = sorted(set(result.nondeterministic).union(*(p.nondeterministic for p in probed)))
            note += " (only what %s generate differs)" % ", ".join(names)
    progress("render", _rendered(result) + note)
    return inp, result.chart.metadata.get("version")


def reused_values(request, current, config):
    """The values and chart an upgrade renders with, as Helm's reuseValues (``reset_values`` false):
    ``reuse_values`` merges the new values over the deployed ones and renders with the deployed revision's
    values (its chart's defaults with its values) as the chart's defaults; ``reset_then_reuse_values``
    merges the same but keeps the new chart's defaults; neither: the deployed values when none are given."""
    old = copy.deepcopy(current.get("config") or {})
    if request.reuse_values:
        chart = load_chart(request.chart) if isinstance(request.chart, str) else request.chart.copy()
        stored = current.get("chart") or {}
        chart.values = dict(coalesce_values(Chart(stored.get("metadata") or {}, values=copy.deepcopy(
            stored.get("values") or {})), copy.deepcopy(old)))
        return coalesce_tables(config, old), chart
    if request.reset_then_reuse_values:
        return coalesce_tables(config, old), request.chart
    return (config or old), request.chart


def _rendered(result):
    meta = result.chart.metadata
    return "chart %s-%s: %d object(s), %d hook(s)%s" % (
        meta.get("name"), meta.get("version"), len(result.resources), len(result.hooks), ", %d CRD file(s)" % len(result.crds) if result.crds else "")


def was_install(release):
    """Whether revision ``release`` was rendered as an install (``.Release.IsInstall``)."""
    return release["version"] == 1 or (description(release) or "").startswith("Install")


def lookup_for(client):
    """Helm's ``lookup`` against the live cluster (empty map when absent or unknown)."""
    def lookup(api_version, kind, namespace, name):
        try:
            if name:
                return client.get(api_version, kind, name, namespace or None) or {}
            items = client.list(api_version, kind, namespace or None)
            return {"apiVersion": api_version, "kind": kind + "List", "metadata": {}, "items": items}
        except KubeError:
            return {}
    return lookup
