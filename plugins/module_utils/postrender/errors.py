"""The error types of the post-render stage."""
from ..errors import HelmlessError


class PostRenderError(HelmlessError):
    """A post-renderer failed or produced something that is not a manifest stream."""


class PostRenderYAMLError(PostRenderError):
    """A stream that does not parse as YAML; ``str()`` is the parser's own message."""
