"""The chart model of Helm 4: loading, metadata, values, dependencies, ``--set`` parsing, schemas.

Public API::

    from ..chart import load_chart, Chart, ChartError
    from ..chart.values import coalesce_values, to_render_values, ReleaseOptions, Capabilities
    from ..chart.dependencies import process_dependencies
    from ..chart.strvals import parse_set, parse_set_string, parse_set_json, parse_set_file, parse_set_literal
    from ..chart.schema import validate_values
"""

from .errors import ChartError, ValuesError
from .loader import load_archive, load_chart, load_dir
from .model import Chart

__all__ = ["load_chart", "load_archive", "load_dir", "Chart", "ChartError", "ValuesError"]
