"""Kubernetes API access: authentication, retries, discovery and OpenAPI caches, readiness rules."""
