"""``health_checks``: CEL expressions judging custom resources while waiting, as Flux's ``healthCheckExprs``.

An entry names an ``api_version`` (only its group counts: every served version matches) and optionally a
``kind`` (none: every kind of the group; an entry with the kind wins over the group's). Its expressions,
evaluated on the live object, decide the object's status instead of kstatus: first a ``status.
observedGeneration`` that differs from ``metadata.generation`` is InProgress, then ``in_progress``,
``failed`` and ``current`` in that order, the first one true decides; none true is InProgress.

An expression reading a field the object does not have yet (an operator writes ``status`` later) is not
ready yet, and a timeout names it; one that cannot be evaluated otherwise (no such overload, a result that
is not a boolean) fails the wait at once, naming the object and the expression. The CEL library
(``common-expression-language``: cel-rust's interpreter) is imported only by tasks that have health checks.
"""
from .errors import KubeError
from .kstatus import CURRENT, FAILED, IN_PROGRESS

ORDER = (("in_progress", IN_PROGRESS), ("failed", FAILED), ("current", CURRENT))
_ALIASES = {"apiVersion": "api_version", "inProgress": "in_progress"}  # Flux's names
_NOT_YET = (KeyError, LookupError)


class HealthCheckError(KubeError):
    """A health check that cannot be used (refused before anything is written) or that failed on an object."""


def _cel():
    try:
        import cel  # lazy: only tasks with health_checks pay its import (requirements.txt)
    except ImportError as exc:
        raise HealthCheckError("health_checks need the Python package common-expression-language on the "
                               "controller (pip install common-expression-language)") from exc
    return cel


class Expression:
    """One compiled expression, with where it came from (``health_checks[0].current``) for messages."""

    def __init__(self, where, text, program):
        self.where = where
        self.text = text
        self.program = program

    def __str__(self):
        return "%s %s" % (self.where, self.text)

    def value(self, obj):
        """(True or False, None), or (None, why) when the object lacks a field the expression reads (not
        ready yet); HealthCheckError when it cannot be evaluated on this object at all."""
        try:
            result = self.program.execute(obj)
        except _NOT_YET as exc:
            return None, "no such key: %s" % exc
        except RuntimeError as exc:
            if "Undefined variable" not in str(exc):
                raise HealthCheckError(str(exc)) from exc
            return None, str(exc).split(". ", maxsplit=1)[0]
        except (TypeError, ValueError) as exc:
            raise HealthCheckError(str(exc)) from exc
        if not isinstance(result, bool):
            raise HealthCheckError("it evaluated to %r, not a boolean" % (result,))
        return result, None


class Check:
    """The expressions of one entry."""

    def __init__(self, expressions):
        self.expressions = expressions  # [(status, Expression)] in evaluation order

    def status(self, obj):
        """(status, message) of live ``obj``; HealthCheckError (naming the expression) when one fails on it."""
        meta, status = obj.get("metadata") or {}, obj.get("status") or {}
        generation, observed = meta.get("generation"), status.get("observedGeneration") if isinstance(
            status, dict) else None
        if isinstance(observed, int) and isinstance(generation, int) and observed != generation:
            return IN_PROGRESS, "generation is %d, but latest observed generation is %d" % (generation, observed)
        waiting = []
        for state, expression in self.expressions:
            try:
                result, why = expression.value(obj)
            except HealthCheckError as exc:
                raise HealthCheckError("health check %s cannot be evaluated: %s" % (expression, exc)) from exc
            if result:
                return state, "health check %s is true" % expression
            if why:
                waiting.append("%s cannot be evaluated yet (%s)" % (expression, why))
        return IN_PROGRESS, "; ".join(waiting) or "no health check expression is true yet"


class HealthChecks:
    """The compiled entries of a task, keyed by (group, kind) and (group, None)."""

    def __init__(self, checks):
        self.checks = checks

    def __bool__(self):
        return bool(self.checks)

    def for_object(self, obj):
        """The Check that judges ``obj``, or None (kstatus or Helm's rules judge it)."""
        group = str(obj.get("apiVersion") or "").rpartition("/")[0]
        return self.checks.get((group, obj.get("kind"))) or self.checks.get((group, None))


def compile_checks(entries, option="health_checks"):
    """HealthChecks from the option's list; HealthCheckError naming the entry and expression that is wrong."""
    checks = {}
    library = None
    for index, entry in enumerate(entries or ()):
        where = "%s[%d]" % (option, index)
        if isinstance(entry, dict):
            entry = dict(entry)
            for alias, name in _ALIASES.items():  # Ansible keeps an alias beside the option it names
                value = entry.pop(alias, None)
                if entry.get(name) is None:
                    entry[name] = value
        if not isinstance(entry, dict) or not entry.get("api_version"):
            raise HealthCheckError("%s: an entry needs api_version (and current, optionally kind, failed, "
                                   "in_progress)" % where)
        if not entry.get("current"):
            raise HealthCheckError("%s.current: an expression is required (true when the object is ready)" % where)
        group = str(entry["api_version"]).rpartition("/")[0]
        key = (group, entry.get("kind") or None)
        if key in checks:
            raise HealthCheckError("%s: a second entry for %s" % (
                where, "%s %s" % (group or "core", key[1]) if key[1] else "group %s" % (group or "core")))
        library = library or _cel()
        expressions = []
        for name, state in ORDER:
            text = entry.get(name)
            if not text:
                continue
            try:
                program = library.compile(str(text))
            except (ValueError, RuntimeError, TypeError) as exc:
                raise HealthCheckError("%s.%s: the expression %s does not compile: %s" % (
                    where, name, text, exc)) from exc
            expressions.append((state, Expression("%s.%s" % (where, name), str(text), program)))
        checks[key] = Check(expressions)
    return HealthChecks(checks)
