"""The typed request a task's options make, built here at the Ansible boundary and nowhere else.

Module option names (kubernetes.core's, with their aliases and defaults) stop here: the engine takes a
``ChartSource`` (where the chart comes from, how it is checked, the repository ``Credentials``), the
``ValueSources`` (``values_from``, values files, values, ``--set``) and the ``Identity`` to act as.
Everything here is cheap to import: a task with a local chart loads no repository nor cluster code.
"""
from ..chart.source import ChartSource, Credentials, ValueSources, ValuesReference


def credentials(params):
    """How to reach the chart's repository or registry (release, releases, template options)."""
    return Credentials(username=params.get("repo_username"), password=params.get("repo_password"),
                       pass_credentials=bool(params.get("pass_credentials")),
                       insecure_skip_tls_verify=bool(params.get("insecure_skip_tls_verify")
                                                     or params.get("insecure_registry")),
                       ca_file=params.get("ca_file"), cert_file=params.get("cert_file"),
                       key_file=params.get("key_file"))


def chart_source(params):
    """Where the chart of a release or template task comes from and how it is checked."""
    return ChartSource(ref=params.get("chart_ref"), version=params.get("chart_version") or None,
                       repo_url=params.get("chart_repo_url") or None, devel=bool(params.get("devel")),
                       update_repo_cache=bool(params.get("update_repo_cache")),
                       plain_http=bool(params.get("plain_http")),
                       dependency_update=bool(params.get("dependency_update")), verify=bool(params.get("verify")),
                       keyring=params.get("keyring"), cosign_key=params.get("cosign_key"),
                       credentials=credentials(params))


def value_sources(params):
    """The values of a release or template task, in the order they merge."""
    refs = tuple(ValuesReference(kind=item["kind"], name=item["name"], namespace=item.get("namespace") or None,
                                 values_key=item.get("values_key") or "values.yaml",
                                 target_path=item.get("target_path") or None, optional=bool(item.get("optional")),
                                 literal=bool(item.get("literal")))
                 for item in params.get("values_from") or ())
    return ValueSources(values=params.get("release_values") or {}, files=tuple(params.get("values_files") or ()),
                        set_values=tuple(params.get("set_values") or ()), values_from=refs)


def identity(params):
    """Who the task acts as (``service_account`` is the user it stands for), or None; a KubeConfigError
    for a ``service_account`` that names none."""
    from ..kube.config import Identity, service_account_user  # lazy: only tasks that talk to a cluster

    user, account = params.get("impersonate_user"), params.get("service_account")
    if account:
        user = service_account_user(account, params.get("release_namespace"))
    found = Identity(user=user, groups=tuple(params.get("impersonate_groups") or ()),
                     uid=params.get("impersonate_uid"), extra=params.get("impersonate_extra"))
    return found if found != Identity() else None
