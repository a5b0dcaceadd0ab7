"""Errors raised by the chart package.

Messages follow Helm's wording where Helm has one, so users can search for them.
"""
from ..errors import HelmlessError


class ChartError(HelmlessError):
    """A chart could not be loaded, validated or prepared for rendering."""


class ValuesError(ChartError):
    """Values are malformed (bad --set expression, schema violation, bad table path)."""
