"""Charts from Helm chart repositories: ``helm pull``/``repo add``/``dependency update`` semantics.

Plain Python (no Ansible): :func:`chart_from_options` is the one call the modules make; it turns
``chart_ref`` and the repository options into a local chart path before anything is planned.
"""
import os
import re

from .deps import dependency_update
from .errors import RepoError
from .fetch import Access, get
from .locate import Located, locate_chart, scoped_to
from .pull import DEVEL_CONSTRAINT, Pulled, pull_chart
from .repofile import add_repository, make_entry, remove_repository

__all__ = ["Access", "Located", "RepoError", "add_repository", "chart_from_options", "dependency_update",
           "locate_chart", "make_entry", "pull_chart", "Pulled",
           "remove_repository", "values_sources", "verify_located"]


def access_from_options(params):
    return Access(username=params.get("repo_username"), password=params.get("repo_password"),
                  pass_credentials=params.get("pass_credentials"),
                  insecure_skip_tls_verify=params.get("insecure_skip_tls_verify") or params.get("insecure_registry"),
                  ca_file=params.get("ca_file"), cert_file=params.get("cert_file"), key_file=params.get("key_file"))


def chart_from_options(params, warnings=None):
    """Module options → ``(local chart path, version the local chart must have or None)``.

    ``chart_version`` is a constraint for repository charts (Helm's ``--version``) and an exact
    expectation for a local chart (checked by the caller after loading, as before). Warnings for the
    user (a ``dependency_update`` with nothing to update) are appended to ``warnings``.
    """
    access = access_from_options(params)
    version = params.get("chart_version") or (DEVEL_CONSTRAINT if params.get("devel") else None)
    located = locate_chart(params.get("chart_ref"), version,
                           params.get("chart_repo_url") or None, access,
                           bool(params.get("update_repo_cache")), bool(params.get("plain_http")),
                           cosign_key=params.get("cosign_key"))
    if params.get("verify"):
        verify_located(located, params.get("keyring"))
    if params.get("dependency_update") and not located.remote and os.path.isdir(located.path):
        dependency_update(located.path, access, bool(params.get("plain_http")), warnings)
    return located.path, (None if located.remote else params.get("chart_version") or None)


def verify_located(located, keyring=None):
    """Helm's ``--verify``: the located archive against its ``.prov`` with ``keyring`` (default: Helm's);
    returns the :class:`~.provenance.Verification`, RepoError with Helm's message otherwise."""
    from .provenance import default_keyring, verify_archive, verify_chart_file  # lazy: only --verify needs OpenPGP
    keyring = keyring or default_keyring()
    if not located.remote:
        return verify_chart_file(os.path.abspath(located.path), keyring)
    with open(located.path, "rb") as handle:
        data = handle.read()
    return verify_archive(data, located.provenance(), located.filename, keyring)


def values_sources(params):
    """``values_files`` with its ``http(s)://`` entries fetched, as Helm's ``-f <url>``: local paths stay as
    given, a URL becomes ``(url, bytes)``. TLS options and credentials are the chart's; credentials go to the
    chart repository's host (or, without ``chart_repo_url``, to the URL named), everywhere with
    ``pass_credentials``. Errors name the URL and the HTTP status."""
    access = access_from_options(params)
    out = []
    for item in params.get("values_files") or ():
        if re.match(r"(?i)https?://", item):
            try:
                out.append((item, get(item, scoped_to(params.get("chart_repo_url") or item, access))))
            except RepoError as exc:
                raise RepoError("values_files: %s" % exc)
        else:
            out.append(item)
    return out
