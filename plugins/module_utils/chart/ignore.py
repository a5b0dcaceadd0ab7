"""``.helmignore`` rules (Helm's pkg/ignore), including its quirks.

A negated rule (``!pat``) ignores every path it does *not* match and lets matching
paths continue to the next rule; a rule ending in ``/`` applies to directories only;
a rule without ``/`` matches the base name; ``**`` is refused.
"""

import posixpath

from .errors import ChartError
from .match import BadPattern, go_match, go_match_regex

HELMIGNORE = ".helmignore"


class Rules(object):
    def __init__(self):
        self.patterns = []

    @classmethod
    def parse(cls, text):
        rules = cls()
        for line in text.splitlines():
            rules.add(line)
        return rules

    def add_defaults(self):
        """Helm ignores dot files inside ``templates/``."""
        self.add("templates/.?*")

    def add(self, rule):
        rule = rule.strip()
        if not rule or rule.startswith("#"):
            return
        if "**" in rule:
            raise ChartError("double-star (**) syntax is not supported")
        try:
            go_match(rule, "abc")
        except BadPattern as exc:
            raise ChartError(str(exc))
        negate = rule.startswith("!")
        if negate:
            rule = rule[1:]
        must_dir = rule.endswith("/")
        if must_dir:
            rule = rule[:-1]
        if rule.startswith("/"):
            mode, rule = "full", rule[1:]
        elif "/" in rule:
            mode = "full"
        else:
            mode = "base"
        try:
            regex = go_match_regex(rule)
        except BadPattern:
            regex = None
        self.patterns.append((regex, mode, negate, must_dir))

    def ignore(self, path, is_dir):
        """Whether ``path`` (slash-separated, relative to the chart) is ignored."""
        if path in ("", ".", "./"):
            return False
        for regex, mode, negate, must_dir in self.patterns:
            if regex is None:
                return False
            name = posixpath.basename(path) if mode == "base" else path
            matched = regex.match(name) is not None
            if negate:
                if must_dir and not is_dir:
                    return True
                if not matched:
                    return True
                continue
            if must_dir and not is_dir:
                continue
            if matched:
                return True
        return False
