"""Regexes compiled when first used.

Every task is a fresh process, and a large pattern costs milliseconds to compile (the template lexer's
SIMPLE alone ~5 ms): a module-level pattern that most tasks never use should not cost them that.
"""
import re


class LazyRegex(object):
    """``re.compile(pattern, flags)`` on first attribute access, then the compiled pattern's attributes."""

    def __init__(self, pattern, flags=0):
        self._source = (pattern, flags)

    def __getattr__(self, name):  # only for what is not set yet: compile once, then keep ``match`` at hand
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self._compiled = re.compile(*self._source)
            self.match = compiled.match
        return getattr(compiled, name)
