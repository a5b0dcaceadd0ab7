"""``.Files``: Helm's ``engine.files`` (a ``map[string][]byte`` with methods).

It is a named map type in Go, so it is a ``dict`` here (``index .Files "a"`` gives the
bytes) carrying ``GO_TYPE``/``GO_METHODS`` like :class:`GoStruct`; methods win over keys.
"""

import base64
import posixpath

from ..govalue.signature import go_signature
from ..goyaml import to_yaml
from ..govalue.values import StringSlice
from .match import glob_regex

_EXCLUDED = ("Chart.yaml", "Chart.lock", "values.yaml", "values.schema.json")


class Files(dict):
    GO_TYPE = "engine.files"
    GO_METHODS = ("Get", "GetBytes", "Glob", "Lines", "AsConfig", "AsSecrets")

    def go_method(self, name):
        if name in self.GO_METHODS:
            return getattr(self, name)
        return None

    @classmethod
    def from_chart(cls, chart):
        """The files a chart exposes: everything but Chart.yaml/lock, values, templates/ and charts/."""
        return cls((name, data) for name, data in chart.files)

    @go_signature("string")
    def GetBytes(self, name):
        return self.get(name, b"")

    @go_signature("string")
    def Get(self, name):
        """Go's ``string([]byte)``: invalid UTF-8 bytes are kept (as surrogate escapes)."""
        return self.get(name, b"").decode("utf-8", "surrogateescape")

    @go_signature("string")
    def Glob(self, pattern):
        try:
            regex = glob_regex(pattern)
        except ValueError:
            regex = glob_regex("**")
        return Files((name, data) for name, data in self.items() if regex.match(name))

    @go_signature("string")
    def Lines(self, name):
        # Helm 4.3: a missing or empty file has no lines (4.2 panicked on an empty one).
        if not self.get(name):
            return StringSlice()
        text = self.Get(name)
        if text.endswith("\n"):
            text = text[:-1]
        return StringSlice(text.split("\n"))

    def AsConfig(self):
        """A YAML map of base name to content, for a ConfigMap's ``data``."""
        data = {posixpath.basename(name): _json_string(content) for name, content in sorted(self.items())}
        return _trim(to_yaml(data))

    def AsSecrets(self):
        """A YAML map of base name to base64 content, for a Secret's ``data``."""
        data = {posixpath.basename(name): base64.b64encode(content).decode("ascii")
                for name, content in sorted(self.items())}
        return _trim(to_yaml(data))


def _json_string(data):
    """What ``json.Marshal(string(b))`` keeps of arbitrary bytes: invalid UTF-8 becomes U+FFFD."""
    return data.decode("utf-8", "replace")


def _trim(text):
    """Helm's ``toYAML`` drops the final newline."""
    return text[:-1] if text.endswith("\n") else text
