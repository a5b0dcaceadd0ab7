"""What an install/upgrade needs from rendering, as plain data (so the engine never imports the renderer)."""
from collections.abc import Sequence

from ..release.model import chart_record, hook_record, notes


class ReleaseInput:
    """Manifest, hooks (Helm JSON), notes, CRD files, the chart as stored, and the user config.

    ``nondeterministic``: the random and clock functions the render called (see actions/sameness.py).
    """

    def __init__(self, manifest, hooks=(), notes="", crds=(), chart=None, config=None, nondeterministic=()):
        self.manifest = manifest or ""
        self.hooks = list(hooks)
        self.notes = notes or ""
        # [(path, text)]; a sequence as given (render's CrdFiles decodes only what a CRD install reads)
        self.crds = crds if isinstance(crds, Sequence) else list(crds)
        self.chart = chart or chart_record({"name": "unknown", "version": "0.0.0"})
        self.config = config or {}
        self.nondeterministic = tuple(nondeterministic)


def chart_of(chart):
    """The ``chart`` record Helm stores for a loaded chart (subcharts are not stored)."""
    return chart_record(chart.metadata, chart.templates, chart.files, chart.values, chart.schema, chart.lock)


def from_render(result):
    """A ReleaseInput from render.render_release's RenderResult."""
    hooks = [hook_record(h.name, h.kind, h.path, h.manifest, h.events, h.weight, h.delete_policies,
                         h.output_log_policies) for h in result.hooks]
    return ReleaseInput(result.manifest, hooks, result.notes, result.crds, chart_of(result.chart), result.values,
                        result.nondeterministic)


def from_record(rel, crds=()):
    """A stored revision's content as a ReleaseInput: what to plan (and store again) when a render means
    the same as that revision, so neither formatting nor re-rolled randomness reaches the cluster."""
    return ReleaseInput(rel.get("manifest"), [dict(h) for h in rel.get("hooks") or []],
                        notes(rel), crds, rel.get("chart"), rel.get("config"))
