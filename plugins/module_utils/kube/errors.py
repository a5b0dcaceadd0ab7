"""Errors raised by the kube layer, with the API server's own message kept."""
import json

from ..errors import HelmlessError


class KubeError(HelmlessError):
    """Anything that went wrong talking to the cluster."""


class Unreachable(KubeError):
    """The API server could not be reached (after retries)."""


class ResponseLost(Unreachable):
    """A non-idempotent request went out but its answer was lost: it may or may not have been applied."""

    def __init__(self, message, api_error=None):
        super().__init__(message)
        self.api_error = api_error


class KubeConfigError(KubeError):
    """A kubeconfig or connection option that cannot be used."""


class ApiError(KubeError):
    """A non-2xx answer from the API server."""

    def __init__(self, status, method, path, body):
        self.status = status
        self.method = method
        self.path = path
        self.body = body
        self.reason = ""
        self.message = ""
        try:
            doc = json.loads(body)
            self.reason = doc.get("reason", "") or ""
            self.message = doc.get("message", "") or ""
        except (ValueError, AttributeError):
            self.message = (body or "").strip()[:500]
        super().__init__("%s %s: %s (HTTP %s)" % (method, path, self.message or self.reason, status))

    @property
    def not_found(self):
        return self.status == 404

    @property
    def conflict(self):
        return self.status == 409

    @property
    def already_exists(self):
        return self.status == 409 and self.reason == "AlreadyExists"
