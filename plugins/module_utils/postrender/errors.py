"""The one error type of the post-render stage."""


class PostRenderError(Exception):
    """A post-renderer failed or produced something that is not a manifest stream."""
