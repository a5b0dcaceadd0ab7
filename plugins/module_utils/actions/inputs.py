"""What an install/upgrade needs from rendering, as plain data (so the engine never imports the renderer)."""
from ..release.model import chart_record, hook_record


class ReleaseInput:
    """Manifest, hooks (Helm JSON), notes, CRD files, the chart as stored, and the user config."""

    def __init__(self, manifest, hooks=(), notes="", crds=(), chart=None, config=None):
        self.manifest = manifest or ""
        self.hooks = list(hooks)
        self.notes = notes or ""
        self.crds = list(crds)  # [(path, text)]
        self.chart = chart or chart_record({"name": "unknown", "version": "0.0.0"})
        self.config = config or {}


def chart_of(chart):
    """The ``chart`` record Helm stores for a loaded chart (subcharts are not stored)."""
    return chart_record(chart.metadata, chart.templates, chart.files, chart.values, chart.schema, chart.lock)


def from_render(result):
    """A ReleaseInput from render.render_release's RenderResult."""
    hooks = [hook_record(h.name, h.kind, h.path, h.manifest, h.events, h.weight, h.delete_policies,
                         h.output_log_policies) for h in result.hooks]
    return ReleaseInput(result.manifest, hooks, result.notes, result.crds, chart_of(result.chart), result.values)
