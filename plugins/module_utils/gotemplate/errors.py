"""Template errors, formatted exactly as Go's text/template formats them.

Callers (Helm's render layer) rewrite these messages (``parse error at (...)``, Helm 4's
multi-line chains), so the parts are kept as attributes instead of only a string.
"""
from ..errors import HelmlessError
from ..govalue.strconv import go_quote


class TemplateError(HelmlessError):
    """Base of every error the template engine raises."""


class ParseError(TemplateError):
    """``template: NAME:LINE: MSG`` — a template text that does not parse."""

    def __init__(self, name, line, message):
        self.name = name
        self.line = line
        self.message = message
        super().__init__("template: %s:%d: %s" % (name, line, message))


class ExecError(TemplateError):
    """An execution error: ``template: LOC: executing "NAME" at <NODE>: MSG``.

    ``location`` is ``file:line:col`` (or None for errors without a node), ``name`` the
    template being executed, ``node`` the node's Go String(), ``message`` this level's
    message.  When a function call failed because a nested template execution failed
    (``include``/``tpl``), ``cause`` is that nested error and ``message`` the text in
    front of it (``error calling include``), so the whole chain stays inspectable.
    """

    def __init__(self, location, name, node, message, cause=None):
        self.location = location
        self.name = name
        self.node = node
        self.message = message
        self.cause = cause
        self.wrapped = cause
        super().__init__(self._text())

    def _head(self):
        if self.name is None:
            return ""
        if self.location is None:
            return "template: %s: " % self.name
        return "template: %s: executing %s at <%s>: " % (self.location, go_quote(self.name), self.node)

    def _text(self):
        if self.cause is None:
            return self._head() + self.message
        return self._head() + self.message + ": " + str(self.cause)

    @property
    def chain(self):
        """[(location, executing-name, node, message)] from the outermost call to the failure."""
        out = []
        err = self
        while isinstance(err, ExecError):
            out.append((err.location, err.name, err.node, err.message))
            err = err.cause
        if err is not None:
            last = out[-1]
            out[-1] = (last[0], last[1], last[2], last[3] + ": " + str(err))
        return out


class WrappedError(TemplateError):
    """A function's error that embeds a nested template error, e.g. Helm's ``tpl``:
    ``error during tpl function execution for "...": <nested error>``."""

    def __init__(self, prefix, cause):
        self.prefix = prefix
        self.cause = cause
        self.wrapped = cause
        super().__init__(prefix + ": " + str(cause))
