"""Charts from Helm chart repositories: ``helm pull``/``repo add``/``dependency update`` semantics.

Plain Python (no Ansible): :func:`fetch_chart` is the one call the modules make; it turns a
``chart.source.ChartSource`` into a local chart path before anything is planned.
"""
import os
import re

from .deps import dependency_update
from .errors import RepoError
from .fetch import Access, get
from .locate import Located, locate_chart
from .pull import DEVEL_CONSTRAINT, Pulled, pull_chart
from .repofile import add_repository, make_entry, remove_repository

__all__ = ["Access", "Located", "RepoError", "access_for", "add_repository", "dependency_update", "fetch_chart",
           "fetch_values_files", "locate_chart", "make_entry", "pull_chart", "Pulled", "remove_repository",
           "verify_located"]


def access_for(credentials, url=""):
    """The ``Access`` of ``credentials`` (a ``chart.source.Credentials``), scoped to repository ``url``."""
    return Access(url, credentials.username, credentials.password, credentials.pass_credentials,
                  credentials.insecure_skip_tls_verify, credentials.ca_file, credentials.cert_file,
                  credentials.key_file)


def fetch_chart(source, warnings=None):
    """``source`` (a ``chart.source.ChartSource``) → ``(local chart path, version the local chart must have
    or None)``.

    ``source.version`` is a constraint for repository charts (Helm's ``--version``) and an exact
    expectation for a local chart (checked by the caller after loading). Warnings for the user (a
    ``dependency_update`` with nothing to update) are appended to ``warnings``.
    """
    access = access_for(source.credentials)
    version = source.version or (DEVEL_CONSTRAINT if source.devel else None)
    located = locate_chart(source.ref, version, source.repo_url or None, access, source.update_repo_cache,
                           source.plain_http, cosign_key=source.cosign_key)
    if source.verify:
        verify_located(located, source.keyring)
    if source.dependency_update and not located.remote and os.path.isdir(located.path):
        dependency_update(located.path, access, source.plain_http, warnings)
    return located.path, (None if located.remote else source.version or None)


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


def fetch_values_files(files, source):
    """``files`` with their ``http(s)://`` entries fetched, as Helm's ``-f <url>``: local paths stay as given,
    a URL becomes ``(url, bytes)``. TLS settings and credentials are the chart's (``source``); credentials
    go to the chart repository's host (or, without ``repo_url``, to the URL named), everywhere with
    ``pass_credentials``. Errors name the URL and the HTTP status."""
    out = []
    for item in files or ():
        if isinstance(item, str) and re.match(r"(?i)https?://", item):
            try:
                out.append((item, get(item, access_for(source.credentials, source.repo_url or item))))
            except RepoError as exc:
                raise RepoError("values_files: %s" % exc)
        else:
            out.append(item)
    return out
