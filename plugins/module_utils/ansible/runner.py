"""Module bodies for release, rollback and release_info: options → engine call → result.

Functions take the validated ``params`` dict and return ``(result, warnings)`` or raise ModuleFailure,
so they run the same from AnsibleModule, from tests and from benchmarks. The release engine and the kube
client are imported by the functions that use them: the template, repository, pull and registry_auth
tasks import this module too and should not load them (module start-up is paid by every task).
"""
import os
import re

from ..actions.printer import hook_log_stderr, hook_log_text
from ..actions.progress import Progress
from ..kube.errors import KubeError
from ..chart.capabilities import HELM_VERSION
from .commands import (pull_command, registry_command, release_command, release_test_command, repository_command,
                       rollback_command, template_command)
from ..errors import HelmlessError
from ..gcpolicy import one_task_process
from .options import IGNORED
from . import request
from .secrets import credentials, note_connection, note_known, note_release, object_mask, redacted
from ..regexcache import regex

_NAME_RE = regex(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DURATION = regex(r"(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)")
_UNIT = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


class ModuleFailure(HelmlessError):
    """Fail the task with this message (and the partial result in ``result``)."""

    def __init__(self, message, result=None, warnings=()):
        super().__init__(message)
        self.result = result or {}
        self.warnings = list(warnings)


def parse_duration(text, default=300):
    """Go duration (``5m0s``, ``90s``) or plain seconds → seconds."""
    if text in (None, ""):
        return default
    text = str(text).strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ModuleFailure('invalid duration "%s"' % text)
    return sum(float(n) * _UNIT[u] for n, u in parts)


def connect(params):
    """The KubeClient of the task's connection options, acting as the identity they name."""
    from ..kube.client import KubeClient
    from ..kube.config import load_connection

    if params.get("service_account") and params.get("impersonate_user"):
        raise ModuleFailure("service_account and impersonate_user are mutually exclusive: both name the user to "
                            "act as")
    try:
        conn = load_connection(params.get("kubeconfig"), params.get("context"), params.get("host"),
                               params.get("api_key"), params.get("ca_cert"), params.get("validate_certs"),
                               identity=request.identity(params))
    except KubeError as exc:
        raise ModuleFailure(str(exc)) from exc
    note_connection(conn)
    return KubeClient(conn, cache_dir=os.environ.get("HELMLESS_CACHE_DIR"))


def ignored_warnings(params):
    """One warning per accepted-but-ignored option that is set (every module, also when the task fails)."""
    return ["%s is ignored by helmless.core (see the option's documentation)" % name
            for name in IGNORED if params.get(name)]


def _validate_name(name):
    if not name or len(name) > 53 or not _NAME_RE.match(name):
        raise ModuleFailure('invalid release name "%s": names must be lowercase DNS-1123 labels of at most 53 '
                            'characters' % name)


def _wait(params):
    """The ``wait`` option as Helm 4's strategy; an unknown value fails before anything is read or written."""
    from ..kube.readiness import wait_strategy
    try:
        return wait_strategy(params.get("wait"))
    except KubeError as exc:
        raise ModuleFailure("wait: %s" % exc) from exc


def _options(params, check_mode, progress, **extra):
    from ..actions.base import Options

    timeout = parse_duration(params.get("timeout") or params.get("wait_timeout"))
    return Options(check_mode=check_mode, strategy=params.get("apply_strategy") or "chart-delta",
                   server_side=params.get("server_side") or "auto", take_ownership=params.get("take_ownership", False),
                   force=params.get("force", False), force_conflicts=params.get("force_conflicts", False),
                   wait=_wait(params), wait_for_jobs=params.get("wait_for_jobs", False), timeout=timeout,
                   atomic=bool(params.get("atomic") or params.get("rollback_on_failure")),
                   cleanup_on_fail=params.get("cleanup_on_fail", False),
                   history_max=params.get("history_max") if params.get("history_max") is not None else 10,
                   disable_hook=params.get("disable_hook", False), progress=progress,
                   hook_logs=progress.hook_logs, **extra)


def _controls(params):
    """The Flux-style controls as Options keywords (docs/flux-controls.md), refused before anything is read
    or written when an ignore rule, a health check or the remediation options are wrong."""
    from ..actions.base import OperationError, Options
    from ..actions.remediation import strategy
    from ..kube.health import HealthCheckError, compile_checks
    from ..plan.ignore import IgnoreError, compile_rules

    try:
        out = dict(ignore=compile_rules(params.get("ignore")), health_checks=compile_checks(params.get("health_checks")),
                   retries=params.get("retries") or 0, remediation=params.get("remediation"),
                   retry_delay=parse_duration(params.get("retry_delay"), 0), test=params.get("test", False),
                   test_filter=params.get("test_filter") or (), force_reconcile=params.get("force_reconcile", False),
                   ignore_test_failures=params.get("ignore_test_failures", False))
        strategy(Options(atomic=bool(params.get("atomic") or params.get("rollback_on_failure")), **out))
    except (IgnoreError, HealthCheckError, OperationError) as exc:
        raise ModuleFailure(str(exc)) from exc
    return out


def _result(outcome, params, diff, client, warnings, progress):
    from ..actions.printer import operation_stdout

    warnings.extend(w for w in outcome.warnings if w not in warnings)
    result = outcome.result(diff=diff, show_secrets=params.get("show_secrets", False), mask=object_mask(),
                            diff_format=params.get("diff_format") or "yaml",
                            diff_context=3 if params.get("diff_context") is None else params["diff_context"])
    result["api_requests"] = {"total": client.count(), "writes": client.count(writes_only=True, include_dry_run=False)}
    result["progress"] = progress.lines
    result["hook_logs"] = progress.hook_logs
    result["helm_version"] = HELM_VERSION
    # as kubernetes.core.helm: helm's output when it ran a command, '' in check mode and when nothing changed
    ran = outcome.changed and not outcome.check_mode and outcome.release is not None
    result["stdout"] = operation_stdout(outcome.operation, outcome.release, params["release_name"],
                                        outcome.info) if ran else ""
    result["stderr"] = _lines(warnings) + hook_log_stderr(progress.hook_logs)
    result["command"] = (rollback_command(params) if outcome.operation == "rollback" else
                         release_command(params, uninstall=outcome.operation == "uninstall"))
    return result, warnings


def _refused_plan(exc):
    """The plan a PlanError behind ``exc`` carries when the server refused requests (each one marked)."""
    cause = exc.__cause__
    while cause is not None and getattr(cause, "plan", None) is None:
        cause = cause.__cause__
    return getattr(cause, "plan", None)


def _fail(exc, params, diff, client, warnings, progress, command):
    partial = {"progress": progress.lines, "hook_logs": progress.hook_logs}
    refused = _refused_plan(exc)
    if getattr(exc, "outcome", None) is not None and refused is not None and not exc.outcome.changes:
        exc.outcome.plan(refused)
    if getattr(exc, "outcome", None) is not None:
        partial = _result(exc.outcome, params, diff, client, warnings, progress)[0]
        partial["changed"] = not exc.outcome.check_mode and exc.outcome.release is not None
    partial.update(_failed_output(exc, warnings, command, progress.hook_logs))
    return ModuleFailure(str(exc) + hook_log_text(progress.hook_logs), partial)


def _fetch_values(params, warnings, command, **extra):
    """The task's ValueSources with ``values_files`` URLs fetched (the repository code loads only for a URL)."""
    sources = request.value_sources(params)
    if not any(isinstance(item, str) and re.match(r"(?i)https?://", item) for item in sources.files):
        return sources
    from ..repo import RepoError, fetch_values_files
    try:
        return sources.with_(files=tuple(fetch_values_files(sources.files, request.chart_source(params))))
    except RepoError as exc:
        raise ModuleFailure(str(exc), dict(_failed_output(exc, warnings, command), **extra)) from exc


def _read_cluster_values(client, namespace, sources, progress=None):
    """``sources`` with its ``values_from`` read from the cluster (nothing is written before): the values of
    Secrets are masked from here on, everywhere the task reports."""
    if not sources.values_from:
        return sources
    from ..actions.valuesfrom import ValuesFromError, cluster_values
    try:
        values, secrets, read = cluster_values(client, namespace, sources.values_from)
    except ValuesFromError as exc:
        raise ModuleFailure(str(exc)) from exc
    note_known(secrets)
    if progress is not None:
        progress("values", "read %s" % ", ".join(read) if read else "no values_from source exists (all optional)")
    return sources.with_(cluster=values)


def _failed_output(exc, warnings, command, hook_logs=()):
    """helm's output when it fails: nothing on stdout; on stderr the warnings, the hooks' logs (as Helm 4
    logs them), then ``Error: ...``."""
    return {"stdout": "", "stderr": _lines(warnings) + hook_log_stderr(hook_logs) + "Error: %s\n" % exc,
            "command": command}


def _lines(messages):
    """Messages as a program prints them to stderr, one a line."""
    return "".join(m + "\n" for m in messages)


def _render(params, engine, progress, warnings, sources):
    """The ReleaseInput of the chart the options name, rendered for the release (actions.prepare decides how)."""
    from ..actions.prepare import RenderRequest, prepare
    from ..render import RenderError

    source = request.chart_source(params)
    chart_ref, want = source.local()
    if chart_ref is None:
        from ..repo import RepoError, fetch_chart
        try:  # repository/URL charts are fetched here, before the release is read or planned
            chart_ref, want = fetch_chart(source, warnings)
        except RepoError as exc:
            raise ModuleFailure(str(exc)) from exc
    if chart_ref != source.ref:
        progress("chart", "%s fetched to %s" % (source.ref, chart_ref))
    render_request = RenderRequest(
        chart=chart_ref, name=params["release_name"], namespace=params["release_namespace"], values=sources,
        reset_values=params.get("reset_values", True), reuse_values=params.get("reuse_values"),
        reset_then_reuse_values=params.get("reset_then_reuse_values"), post_renderer=params.get("post_renderer"),
        enable_plugins=params.get("enable_plugins", False),
        skip_schema_validation=params.get("skip_schema_validation", False),
        fresh=params.get("force_reconcile", False),
        skip_crds=params.get("skip_crds", False) or params.get("crds") == "skip")
    try:
        inp, have = prepare(engine, render_request, progress)
    except RenderError as exc:
        raise ModuleFailure(str(exc), {"progress": progress.lines}) from exc
    if want and want != have:
        raise ModuleFailure("chart_version %s requested but %s has version %s" % (want, chart_ref, have))
    return inp


@redacted
def run_release(params, check_mode=False, diff=False):
    progress = Progress()
    warnings = ignored_warnings(params)
    absent = params.get("release_state", "present") == "absent"
    command = release_command(params, uninstall=absent)
    try:
        return _run_release(params, check_mode, diff, progress, warnings, absent, command)
    except ModuleFailure as exc:  # every failure, also before the cluster is reached, carries helm's output
        for key, value in _failed_output(exc, warnings, command).items():
            exc.result.setdefault(key, value)
        raise


def _run_release(params, check_mode, diff, progress, warnings, absent, command):
    from ..actions.base import OperationError
    from ..actions.operations import ReleaseEngine

    _validate_name(params["release_name"])
    try:
        _wait(params)
    except ModuleFailure as exc:
        exc.result.update(_failed_output(exc, warnings, command))
        raise
    controls = {} if absent else _controls(params)
    if controls.get("health_checks") and _wait(params) == "hookOnly" and not (params.get("atomic")
                                                                              or params.get("rollback_on_failure")):
        warnings.append("health_checks are used only while waiting: set wait (true, watcher or legacy)")
    sources = None if absent else _fetch_values(params, warnings, command)  # URLs before the cluster is touched
    client = connect(params)
    engine = ReleaseEngine(client, params["release_name"], params["release_namespace"],
                           params.get("storage_driver") or "secret",
                           sql_connection=params.get("sql_connection_string"))
    try:
        if absent:
            note_release(engine.history())
            opts = _options(params, check_mode, progress, purge=params.get("purge", True))
            return _result(engine.absent(opts), params, diff, client, warnings, progress)
        if params.get("install_only"):
            left = _left_installed(engine, check_mode, progress)
            if left is not None:
                return _result(left, params, diff, client, warnings, progress)
        sources = _read_cluster_values(client, params["release_namespace"], sources, progress)
        inp = _render(params, engine, progress, warnings, sources)
        note_release(engine.history(), inp)
        crds = params.get("crds") or "install"
        opts = _options(params, check_mode, progress, create_namespace=params.get("create_namespace", False),
                        skip_crds=params.get("skip_crds", False) or crds == "skip", upgrade_crds=crds == "upgrade",
                        description=params.get("description"), labels=params.get("labels"), **controls)

        def again():  # a retry renders as the new revision it writes
            return _render(dict(params, force_reconcile=True), engine, progress, warnings, sources)
        return _result(engine.present(inp, opts, again), params, diff, client, warnings, progress)
    except (OperationError, KubeError) as exc:
        raise _fail(exc, params, diff, client, warnings, progress, command) from exc


def _left_installed(engine, check_mode, progress):
    """``install_only``: the outcome of a release with a deployed revision, left as it is (None: install)."""
    from ..actions.report import Outcome
    from ..release.storage import Storage

    history = engine.history()
    deployed = Storage.deployed(history)
    if deployed is None:
        return None
    note_release(history)
    outcome = Outcome("upgrade", check_mode)
    outcome.release = deployed
    progress("result", "install_only: revision %d is deployed, left as it is" % deployed["version"])
    return outcome


@redacted
def run_rollback(params, check_mode=False, diff=False):
    from ..actions.base import OperationError
    from ..actions.operations import ReleaseEngine

    progress = Progress()
    warnings = ignored_warnings(params)
    _wait(params)
    client = connect(params)
    engine = ReleaseEngine(client, params["release_name"], params["release_namespace"],
                           params.get("storage_driver") or "secret",
                           sql_connection=params.get("sql_connection_string"))
    try:
        note_release(engine.history())
        opts = _options(params, check_mode, progress, description=params.get("description"))
        return _result(engine.rollback(params.get("revision") or 0, opts), params, diff, client, warnings,
                       progress)
    except (OperationError, KubeError) as exc:
        raise _fail(exc, params, diff, client, warnings, progress, rollback_command(params)) from exc


@redacted
def run_release_test(params, check_mode=False):
    """``helm test``: run the release's tests, record the runs; check mode lists what would run."""
    from ..actions.base import OperationError, ReleaseContext
    from ..actions.report import release_status
    from ..actions.testing import TestFailed, run_tests

    progress = Progress()
    warnings = ignored_warnings(params)
    command = release_test_command(params)
    _validate_name(params["release_name"])
    timeout = parse_duration(params.get("timeout"))
    client = connect(params)
    engine = ReleaseContext(client, params["release_name"], params["release_namespace"],
                            params.get("storage_driver") or "secret",
                            sql_connection=params.get("sql_connection_string"))
    try:
        note_release(engine.history())
        rel, tests = run_tests(engine, params.get("filter") or (), timeout, params.get("logs", False), check_mode,
                               progress, progress.hook_logs)
    except TestFailed as exc:
        failed = dict(_failed_output(exc, warnings, command, progress.hook_logs), changed=True, tests=exc.tests,
                      rc=1, progress=progress.lines, hook_logs=progress.hook_logs)
        # helm test prints the suite (and with --logs the test pods' logs), then fails
        failed["stdout"] = _test_stdout(engine.history()[-1], exc.tests if params.get("logs") else None)
        raise ModuleFailure(str(exc) + hook_log_text(progress.hook_logs), failed) from exc
    except (OperationError, KubeError) as exc:
        raise ModuleFailure(str(exc), dict(_failed_output(exc, warnings, command), changed=False, rc=1,
                                           progress=progress.lines)) from exc
    shown = tests if params.get("logs") and not check_mode else None
    return {"changed": bool(tests), "status": release_status(rel), "tests": tests, "progress": progress.lines,
            "hook_logs": progress.hook_logs, "command": command, "stdout": _test_stdout(rel, shown),
            "stderr": _lines(warnings) + hook_log_stderr(progress.hook_logs), "rc": 0}, warnings


def _test_stdout(rel, logged=None):
    """What ``helm test`` prints: the release's status with its test suite, without notes; with ``--logs``
    (``logged``: the test results carrying them), an empty line and the test pods' logs."""
    from ..actions.printer import status_text
    from ..actions.testing import logs_stdout
    text = status_text(dict(rel, info=dict(rel.get("info") or {}, notes="")))
    return text if logged is None else text + "\n" + logs_stdout(logged)


@redacted
def run_info(params):
    from ..actions.info import describe, list_releases
    from ..actions.base import OperationError, ReleaseContext
    from ..plan.ignore import IgnoreError, compile_rules

    warnings = ignored_warnings(params)
    try:
        ignore = compile_rules(params.get("ignore"))
    except IgnoreError as exc:
        raise ModuleFailure(str(exc)) from exc
    client = connect(params)
    engine = ReleaseContext(client, params.get("release_name") or "", params["release_namespace"],
                            params.get("storage_driver") or "secret",
                            sql_connection=params.get("sql_connection_string"))
    try:
        if params.get("release_name"):
            status = describe(engine, params.get("revision"), params.get("get_all_values", False),
                              params.get("show_secrets", False), params.get("release_state") or (), ignore)
            result = {"changed": False}
            if status is not None:
                result["status"] = status
            return result, warnings
        return {"changed": False, "releases": list_releases(engine, params.get("release_state") or [],
                                                            params.get("selector"), params.get("show_secrets", False))}, warnings
    except (OperationError, KubeError) as exc:
        raise ModuleFailure(str(exc)) from exc


def run_module(module, run, *args):
    """What every module does after parsing its options: hide credentials, run, report warnings or failure."""
    freeze_imports()
    module.no_log_values.update(credentials(module.params))
    try:
        result, warnings = run(module.params, *args)
    except ModuleFailure as exc:
        for warning in ignored_warnings(module.params) + exc.warnings:
            module.warn(warning)
        module.fail_json(msg=str(exc), **exc.result)
    except HelmlessError as exc:  # an engine error no runner turned into a ModuleFailure: still the user's message
        module.fail_json(msg=str(exc))
    for warning in warnings:
        module.warn(warning)
    module.exit_json(**result)


def freeze_imports():
    """Exempt everything loaded so far (modules, classes, functions) from garbage collection.

    A module process runs one task and exits; without this every collection of the older generations
    walks all imported objects again (~50 ms CPU of a no-op task).
    """
    one_task_process()


@redacted(keys=("command", "stderr"))
def run_template_task(params, check_mode=False):
    """``helm template`` for the template module: the render, plus helm's ``stdout``/``stderr``/``rc``."""
    from ..render.template import TemplateCommandError, TemplateRequest, run_template

    command = template_command(params)
    warnings = ignored_warnings(params)
    sources = _fetch_values(params, warnings, command, rc=1)
    if sources.values_from:  # values in the cluster: the connection options name it
        try:
            sources = _read_cluster_values(connect(params), params.get("release_namespace") or "default", sources)
        except ModuleFailure as exc:
            exc.result.update(_failed_output(exc, warnings, command), rc=1)
            raise
    template = TemplateRequest(
        chart=request.chart_source(params), name=params.get("release_name") or "release-name",
        namespace=params.get("release_namespace") or "default", values=sources,
        is_upgrade=bool(params.get("is_upgrade")), kube_version=params.get("kube_version"),
        api_versions=tuple(params.get("api_versions") or ()), post_renderer=params.get("post_renderer"),
        enable_plugins=bool(params.get("enable_plugins")), include_crds=bool(params.get("include_crds")),
        disable_hooks=bool(params.get("disable_hook")), show_only=tuple(params.get("show_only") or ()),
        output_dir=params.get("output_dir"), check_mode=check_mode,
        extra_results=tuple(params.get("extra_results") or ()))
    try:
        result, more = run_template(template)
    except TemplateCommandError as exc:
        raise ModuleFailure(str(exc), dict(_failed_output(exc, warnings, command), rc=1)) from exc
    warnings += more
    result.update(changed=result.get("changed", False), stderr=_lines(warnings), rc=0, command=command,
                  helm_version=HELM_VERSION)
    return result, warnings


@redacted
def run_repository(params, check_mode=False):
    """``helm repo add``/``remove`` for the repository module; idempotent, check mode writes nothing."""
    from ..repo import RepoError, add_repository, make_entry, remove_repository

    name = params["repo_name"]
    try:
        if params.get("repo_state", "present") == "absent":
            changed, message = remove_repository(name, check_mode)
        else:
            entry = make_entry(name, params["repo_url"], params.get("repo_username"), params.get("repo_password"),
                               params.get("pass_credentials"), params.get("insecure_skip_tls_verify"),
                               params.get("ca_file"), params.get("cert_file"), params.get("key_file"))
            changed, message = add_repository(entry, params.get("force_update", False), check_mode)
    except RepoError as exc:
        raise ModuleFailure(str(exc), _failed_output(exc, (), repository_command(params))) from exc
    warnings = ignored_warnings(params)
    return {"changed": changed, "repo_name": name, "repo_url": params.get("repo_url"), "stdout": message + "\n",
            "stderr": _lines(warnings), "command": repository_command(params)}, warnings


@redacted
def run_pull(params, check_mode=False):
    """``helm pull`` for the pull module: the archive (or untarred chart) in ``destination``, idempotently."""
    from ..repo import Access, RepoError, pull_chart

    access = Access(username=params.get("repo_username"), password=params.get("repo_password"),
                    pass_credentials=params.get("pass_credentials"),
                    insecure_skip_tls_verify=params.get("skip_tls_certs_check"),
                    ca_file=params.get("chart_ca_cert"), cert_file=params.get("chart_ssl_cert_file"),
                    key_file=params.get("chart_ssl_key_file"))
    try:
        pulled = pull_chart(params["chart_ref"], params["destination"], params.get("chart_version") or None,
                            params.get("repo_url") or None, access, params.get("chart_devel", False),
                            params.get("untar_chart", False), params.get("plain_http", False), check_mode,
                            params.get("verify_chart", False), params.get("verify_chart_keyring"),
                            params.get("provenance", False), params.get("force", False),
                            params.get("cosign_key"))
    except RepoError as exc:
        raise ModuleFailure(str(exc), dict(_failed_output(exc, (), pull_command(params)), rc=1)) from exc
    warnings = ignored_warnings(params)
    return {"changed": pulled.changed, "chart": pulled.name, "version": pulled.version, "path": pulled.path,
            "digest": pulled.digest, "stdout": pulled.output, "stderr": _lines(warnings), "rc": 0,
            "command": pull_command(params)}, warnings


@redacted
def run_registry_auth(params, check_mode=False):
    """``helm registry login``/``logout`` for the registry_auth module; idempotent, check mode writes nothing.

    ``present`` always checks the credentials against the registry (as Helm does), also when the same
    entry is stored already and in check mode: a task that passes means pulls with this login work.
    """
    from ..repo import Access, RepoError
    from ..repo.logins import login, logout, normalize_host
    from ..repo.oci import Registry

    host = normalize_host(params["host"])
    if not host:
        raise ModuleFailure("host must name a registry (host or host:port), got %r" % params["host"])
    try:
        if params.get("state", "present") == "absent":
            changed, message = logout(host, check_mode)
        else:
            access = Access(username=params["username"], password=params["password"],
                            insecure_skip_tls_verify=params.get("insecure"), ca_file=params.get("ca_file"),
                            cert_file=params.get("cert_file"), key_file=params.get("key_file"))

            def verify():
                Registry(host, access, params.get("plain_http", False)).get("/v2/")
            changed, message = login(host, params["username"], params["password"], verify, check_mode)
    except RepoError as exc:
        raise ModuleFailure(str(exc), _failed_output(exc, (), registry_command(params, host))) from exc
    warnings = ignored_warnings(params)
    return {"changed": changed, "host": host, "stdout": message + "\n", "stdout_lines": [message],
            "stderr": _lines(warnings), "command": registry_command(params, host)}, warnings
