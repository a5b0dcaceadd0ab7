"""Chart-side name for the shared Masterminds/semver port (``module_utils/semver``);
kept so ``render`` can import ``chart.semver`` until it imports ``..semver`` itself."""
from ..semver import is_compatible_range

__all__ = ["is_compatible_range"]
