"""The in-memory chart: what Helm's ``chart.Chart`` (pkg/chart/v2) holds."""

from .metadata import template_chart_map

CRD_EXTENSIONS = (".yaml", ".yml", ".json")


class Chart(object):
    """A loaded chart and its subcharts.

    ``metadata`` is Chart.yaml in its JSON form (the keys Helm writes, in Go field
    order). ``templates``, ``files`` and ``raw`` are lists of ``(name, bytes)`` with
    names relative to this chart. ``values`` holds the parsed values.yaml.
    """

    def __init__(self, metadata, templates=None, files=None, values=None, schema=None,
                 lock=None, raw=None, dependencies=None):
        self.metadata = metadata
        self.templates = templates or []
        self.files = files or []
        self.values = values if values is not None else {}
        self.schema = schema
        self.lock = lock
        self.raw = raw or []
        self.parent = None
        # Chart.yaml said ``annotations: {}``: the JSON form omits it, ``.Chart.Annotations`` is ``{}``.
        self.empty_annotations = False
        self.dependencies = []
        for dep in dependencies or []:
            self.add_dependency(dep)

    def __repr__(self):
        return "<Chart %s-%s>" % (self.name, self.metadata.get("version", ""))

    @property
    def name(self):
        return self.metadata.get("name", "")

    @property
    def version(self):
        return self.metadata.get("version", "")

    def add_dependency(self, chart):
        chart.parent = self
        self.dependencies.append(chart)

    def set_dependencies(self, charts):
        self.dependencies = []
        for chart in charts:
            self.add_dependency(chart)

    def is_root(self):
        return self.parent is None

    def is_library(self):
        return self.metadata.get("type") == "library"

    def root(self):
        chart = self
        while chart.parent is not None:
            chart = chart.parent
        return chart

    def chart_path(self):
        """Path used in template names: ``parent/charts/sub`` (Helm's ``ChartFullPath``)."""
        if self.parent is None:
            return self.name
        return self.parent.chart_path() + "/charts/" + self.name

    chart_full_path = chart_path

    def dotted_path(self):
        """``parent.sub`` (Helm's ``ChartPath``)."""
        if self.parent is None:
            return self.name
        return self.parent.dotted_path() + "." + self.name

    def crds(self):
        """``(name, bytes)`` of every CRD file (``crds/*.yaml|yml|json``) of this chart only."""
        return [(name, data) for name, data in self.files
                if name.startswith("crds/") and name.lower().endswith(CRD_EXTENSIONS)]

    def crd_objects(self):
        """Helm's ``CRDObjects``: ``(name, full path, bytes)`` for this chart and all subcharts,
        e.g. ``("crds/a.yaml", "parent/charts/sub/crds/a.yaml", b"...")``."""
        out = [(name, self.chart_full_path() + "/" + name, data) for name, data in self.crds()]
        for dep in self.dependencies:
            out.extend(dep.crd_objects())
        return out

    def renderable_templates(self):
        """Templates the engine parses: all of them, or only ``_*`` partials of a library chart."""
        if not self.is_library():
            return list(self.templates)
        return [(name, data) for name, data in self.templates if name.rsplit("/", 1)[-1].startswith("_")]

    def template_chart(self):
        """The template-facing ``.Chart`` map (Helm 4: Go field names plus ``IsRoot``)."""
        return template_chart_map(self.metadata, self.is_root(), self.empty_annotations)

    def copy(self):
        """A shallow copy whose metadata and dependency list can be changed independently."""
        out = Chart(dict(self.metadata), list(self.templates), list(self.files), self.values,
                    self.schema, self.lock, list(self.raw))
        out.empty_annotations = self.empty_annotations
        if "dependencies" in self.metadata:
            out.metadata["dependencies"] = [dict(d) for d in self.metadata["dependencies"]]
        out.parent = self.parent
        for dep in self.dependencies:
            clone = dep.copy()
            out.add_dependency(clone)
        return out
