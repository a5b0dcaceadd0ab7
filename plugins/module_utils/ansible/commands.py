"""The helm command line equivalent to a task, returned as ``command`` like kubernetes.core's modules do.

Informational only: nothing runs it. It lets a playbook that logs ``result.command`` keep doing so, and shows
a reader what the task does in helm's terms. Secrets never appear (``--password`` is masked, the token of
``api_key`` is left out, ``release_values`` are given as ``--values=-``: helm reads such a file from stdin).
"""
import shlex

MASK = "********"
_SET_FLAGS = {"raw": "--set", "string": "--set-string", "json": "--set-json", "file": "--set-file",
              "literal": "--set-literal"}


def _line(words):
    return " ".join(shlex.quote(str(word)) for word in words)


def _flag(words, params, name, flag):
    if params.get(name):
        words.append(flag)


def _value(words, params, name, flag):
    if params.get(name) not in (None, "", []):
        words.append("%s=%s" % (flag, params[name]))


def _options(words, params, *pairs):
    """For each (option, FLAG) in order: ``FLAG=value`` when FLAG ends with ``=``, else FLAG when the option is on."""
    for name, flag in pairs:
        if flag.endswith("="):
            _value(words, params, name, flag[:-1])
        else:
            _flag(words, params, name, flag)


# The TLS files of a chart repository or registry, under the option names most modules use.
_TLS = (("ca_file", "--ca-file="), ("cert_file", "--cert-file="), ("key_file", "--key-file="))


def _cluster(words, params):
    if isinstance(params.get("kubeconfig"), str) and "\n" not in params["kubeconfig"]:  # a path, not inline content
        _value(words, params, "kubeconfig", "--kubeconfig")
    _value(words, params, "context", "--kube-context")
    _value(words, params, "host", "--kube-apiserver")
    _value(words, params, "ca_cert", "--kube-ca-file")
    if params.get("validate_certs") is False:
        words.append("--kube-insecure-skip-tls-verify")
    if params.get("service_account"):  # helm has no flag of its own for it: the user it stands for
        from ..kube.config import KubeConfigError, service_account_user
        try:
            user = service_account_user(params["service_account"], params.get("release_namespace"))
            words.append("--kube-as-user=" + user)
        except KubeConfigError:
            pass  # connecting refuses it, naming it
    _value(words, params, "impersonate_user", "--kube-as-user")
    for group in params.get("impersonate_groups") or ():
        words.append("--kube-as-group=%s" % group)


def _values(words, params):
    for path in params.get("values_files") or ():
        words.append("--values=%s" % (path[0] if isinstance(path, tuple) else path))  # (URL, fetched content)
    if params.get("release_values"):
        words.append("--values=-")
    for item in params.get("set_values") or ():
        words.append("%s=%s" % (_SET_FLAGS.get(item.get("value_type") or "raw", "--set"), item["value"]))


def _credentials(words, params, username="repo_username", password="repo_password"):
    if params.get(username):
        words.append("--username=%s" % params[username])
    if params.get(password):
        words.append("--password=%s" % MASK)


def _chart_source(words, params, repo="chart_repo_url"):
    _value(words, params, "chart_version", "--version")
    _value(words, params, repo, "--repo")
    _credentials(words, params)
    _options(words, params, ("pass_credentials", "--pass-credentials"), *_TLS, ("plain_http", "--plain-http"),
             ("verify", "--verify"), ("keyring", "--keyring="))


def _timing(words, params):
    wait = params.get("wait")
    if wait not in (None, False, "", "hookOnly", "false", "False"):
        words.append("--wait" if wait is True or str(wait).lower() in ("true", "yes", "watcher") else
                     "--wait=%s" % wait)
    _flag(words, params, "wait_for_jobs", "--wait-for-jobs")
    _flag(words, params, "cleanup_on_fail", "--cleanup-on-fail")
    if params.get("timeout") or params.get("wait_timeout"):
        words.append("--timeout=%s" % (params.get("timeout") or params.get("wait_timeout")))
    _flag(words, params, "disable_hook", "--no-hooks")


def release_command(params, uninstall=False):
    """``helm upgrade --install`` (kubernetes.core's form) or ``helm uninstall``."""
    name, namespace = params["release_name"], params["release_namespace"]
    if uninstall:
        words = ["helm", "uninstall", name, "--namespace=%s" % namespace]
        if not params.get("purge", True):
            words.append("--keep-history")
        _timing(words, params)
        _cluster(words, params)
        return _line(words)
    words = ["helm", "upgrade", "--install", name, params.get("chart_ref") or "", "--namespace=%s" % namespace]
    _chart_source(words, params)
    _flag(words, params, "insecure_skip_tls_verify", "--insecure-skip-tls-verify")
    _flag(words, params, "create_namespace", "--create-namespace")
    _flag(words, params, "dependency_update", "--dependency-update")
    _values(words, params)
    if params.get("reset_values", True):
        words.append("--reset-values")
    elif params.get("reuse_values"):
        words.append("--reuse-values")
    elif params.get("reset_then_reuse_values"):
        words.append("--reset-then-reuse-values")
    _timing(words, params)
    if params.get("atomic") or params.get("rollback_on_failure"):
        words.append("--rollback-on-failure")
    if params.get("labels"):
        words.append("--labels=%s" % ",".join("%s=%s" % kv for kv in sorted(params["labels"].items())))
    _flag(words, params, "devel", "--devel")
    _flag(words, params, "force", "--force-replace")
    if params.get("apply_strategy") == "server-side" or params.get("server_side") == "true":
        words.append("--server-side=true")
    elif params.get("apply_strategy") == "helm3" or params.get("server_side") == "false":
        words.append("--server-side=false")
    _flag(words, params, "force_conflicts", "--force-conflicts")
    _flag(words, params, "take_ownership", "--take-ownership")
    if params.get("skip_crds") or params.get("crds") == "skip":
        words.append("--skip-crds")
    _flag(words, params, "skip_schema_validation", "--skip-schema-validation")
    _value(words, params, "description", "--description")
    if isinstance(params.get("post_renderer"), str):
        _value(words, params, "post_renderer", "--post-renderer")
    if params.get("history_max") is not None:
        words.append("--history-max=%d" % params["history_max"])
    _cluster(words, params)
    return _line(words)


def release_test_command(params):
    words = ["helm", "test", params["release_name"], "--namespace=%s" % params["release_namespace"]]
    for text in params.get("filter") or ():
        words.append("--filter=%s" % text)
    _value(words, params, "timeout", "--timeout")
    _flag(words, params, "logs", "--logs")
    _cluster(words, params)
    return _line(words)


def rollback_command(params):
    words = ["helm", "rollback", params["release_name"]]
    if params.get("revision"):
        words.append(str(params["revision"]))
    words.append("--namespace=%s" % params["release_namespace"])
    _timing(words, params)
    _flag(words, params, "force", "--force-replace")
    _value(words, params, "description", "--description")
    _cluster(words, params)
    return _line(words)


def template_command(params):
    words = ["helm", "template"] + ([params["release_name"]] if params.get("release_name") else []) + [
        params["chart_ref"], "--namespace=%s" % (params.get("release_namespace") or "default")]
    _chart_source(words, params)
    _flag(words, params, "insecure_registry", "--insecure-skip-tls-verify")
    _flag(words, params, "dependency_update", "--dependency-update")
    _values(words, params)
    _flag(words, params, "include_crds", "--include-crds")
    for path in params.get("show_only") or ():
        words.append("--show-only=%s" % path)
    _value(words, params, "output_dir", "--output-dir")
    _flag(words, params, "disable_hook", "--no-hooks")
    _flag(words, params, "is_upgrade", "--is-upgrade")
    _flag(words, params, "devel", "--devel")
    _value(words, params, "kube_version", "--kube-version")
    for version in params.get("api_versions") or ():
        words.append("--api-versions=%s" % version)
    return _line(words)


def pull_command(params):
    words = ["helm", "pull", params["chart_ref"]]
    _options(words, params, ("repo_url", "--repo="), ("chart_version", "--version="))
    _credentials(words, params)
    _options(words, params, ("pass_credentials", "--pass-credentials"),
             ("skip_tls_certs_check", "--insecure-skip-tls-verify"), ("chart_ca_cert", "--ca-file="),
             ("chart_ssl_cert_file", "--cert-file="), ("chart_ssl_key_file", "--key-file="),
             ("plain_http", "--plain-http"), ("chart_devel", "--devel"), ("verify_chart", "--verify"),
             ("verify_chart_keyring", "--keyring="), ("provenance", "--prov"))
    if params.get("untar_chart"):
        words += ["--untar", "--untardir=%s" % params["destination"]]
    else:
        words.append("--destination=%s" % params["destination"])
    return _line(words)


def repository_command(params):
    if params.get("repo_state", "present") == "absent":
        return _line(["helm", "repo", "remove", params["repo_name"]])
    words = ["helm", "repo", "add", params["repo_name"], params.get("repo_url") or ""]
    _credentials(words, params)
    _options(words, params, ("pass_credentials", "--pass-credentials"),
             ("insecure_skip_tls_verify", "--insecure-skip-tls-verify"), *_TLS, ("force_update", "--force-update"))
    return _line(words)


def registry_command(params, host):
    if params.get("state", "present") == "absent":
        return _line(["helm", "registry", "logout", host])
    words = ["helm", "registry", "login", host]
    _credentials(words, params, "username", "password")
    _options(words, params, ("insecure", "--insecure"), *_TLS, ("plain_http", "--plain-http"))
    return _line(words)
