"""The one error type of the repo package: its message is for the user (names the URL, chart and version)."""
from ..errors import HelmlessError


class RepoError(HelmlessError):
    """A chart or index could not be located, fetched or verified."""
