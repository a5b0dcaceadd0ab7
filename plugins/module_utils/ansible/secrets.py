"""What a task must never show, hidden at one boundary: the runner functions' return and failure.

``redacted`` wraps a runner (``params`` → ``(result, warnings)`` or an exception). It builds the task's
``Redactor`` from the credentials among the options, lets the runner add what it learns while it runs
(``note_release``: the Secret values of the release, unless ``show_secrets``; ``note_connection``: the
tokens a connection sends), and masks the result, the warnings and the exception (message, partial
result, warnings) on the way out. Credentials are masked whatever ``show_secrets`` says.
"""
import base64
import contextvars
import functools

from ..actions.redaction import MIN_LENGTH, Redactor, record_secrets, url_passwords
from .options import NO_LOG

_SENSITIVE = ("token", "password", "client-key-data", "client-certificate-data", "id-token", "refresh-token",
              "access-token", "client-secret")
# (username option, password option) pairs: Basic auth sends base64("user:password"), which errors may quote
_LOGINS = (("repo_username", "repo_password"), ("username", "password"))
_ACTIVE = contextvars.ContextVar("helmless_redaction", default=None)
# Result keys that describe objects: their Secrets are redacted field by field (actions.report), the rest
# is what the cluster holds, so only credentials are masked there.
OBJECT_KEYS = ("diff", "plan", "drift", "hooks")


def sensitive_values(kubeconfig):
    """Credentials inside a kubeconfig given as a dict (or as inline YAML), to add to the module's no_log values."""
    if isinstance(kubeconfig, str) and kubeconfig.strip().startswith(("apiVersion", "{")) and "\n" in kubeconfig:
        import yaml  # lazy: module_utils import without PyYAML (ansible/libraries.py)
        try:
            kubeconfig = yaml.safe_load(kubeconfig)
        except yaml.YAMLError:
            return set()  # connecting reports it, without quoting the content
    found = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _SENSITIVE and isinstance(value, str) and value:
                    found.add(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    walk(kubeconfig if isinstance(kubeconfig, (dict, list)) else None)
    return found


def credentials(params):
    """The secrets among a task's options: the value of every ``no_log`` option (api_key, passwords and
    their Basic auth form, the SQL connection string), kubeconfig credentials, the passwords of
    ``user:password@`` URLs (a repository URL, a chart or values file URL, the SQL connection string)."""
    found = sensitive_values(params.get("kubeconfig"))
    for value in params.values():
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str):
                found |= url_passwords(text)
    found.update(params[name] for name in NO_LOG if isinstance(params.get(name), str) and params[name])
    for user, password in _LOGINS:
        if params.get(password):
            pair = "%s:%s" % (params.get(user) or "", params[password])
            found.add(base64.b64encode(pair.encode("utf-8")).decode("ascii"))
    return {value for value in found if len(value) >= MIN_LENGTH}  # also Ansible's no_log values: "x" would mask every x


class _Task:
    def __init__(self, params):
        self.show_secrets = bool(params.get("show_secrets"))
        self.redactor = Redactor(credentials(params), keep=(params.get("release_name"), params.get("release_namespace")))


def redacted(run=None, keys=None):
    """Mask what runner ``run`` returns and raises; ``keys``: only these keys of a successful result
    (template leaves the chart's rendered output as it is, like ``helm template``)."""
    if run is None:
        return functools.partial(redacted, keys=keys)

    @functools.wraps(run)
    def wrapper(params, *args, **kwargs):
        if _ACTIVE.get() is not None:  # a runner called by another: the outer one masks
            return run(params, *args, **kwargs)
        task = _Task(params)
        token = _ACTIVE.set(task)
        try:
            result, warnings = run(params, *args, **kwargs)
        except Exception as exc:
            redactor = task.redactor
            redactor.error(exc)
            if getattr(exc, "result", None) is not None:
                exc.result = redactor.value(exc.result, OBJECT_KEYS)
            if getattr(exc, "warnings", None) is not None:
                exc.warnings = redactor.value(exc.warnings)
            raise
        finally:
            _ACTIVE.reset(token)
        if keys is None:
            result = task.redactor.value(result, OBJECT_KEYS)
        else:
            result = dict(result, **{k: task.redactor.value(result[k]) for k in keys if k in result})
        return result, [task.redactor.text(w) for w in warnings]
    return wrapper


def note_release(records, inp=None):
    """The running task shows none of the Secret values of these release records and of ``inp`` (a
    ReleaseInput about to be planned), unless it has ``show_secrets``."""
    task = _ACTIVE.get()
    if task is None or task.show_secrets:
        return
    task.redactor.add(record_secrets(list(records) + ([{"manifest": inp.manifest, "hooks": inp.hooks}] if inp else [])))


def note_known(strings):
    """The running task shows none of these values anywhere, objects included (values the release read
    from a Secret), unless it has ``show_secrets``."""
    task = _ACTIVE.get()
    if task is not None and not task.show_secrets:
        task.redactor.add_known(strings)


def object_mask():
    """The free-text masking of the running task, for the fields of Secret objects other than their
    values (a label or annotation may quote one); None with ``show_secrets`` or outside a task."""
    task = _ACTIVE.get()
    return None if task is None or task.show_secrets else task.redactor.text


def note_connection(connection):
    """The running task shows none of the credentials ``connection`` sends (read when masking: an exec
    plugin's token comes only with the first request)."""
    task = _ACTIVE.get()
    if task is not None:
        task.redactor.add_source(connection.secrets)
