"""The one exception type of the YAML/JSON/TOML layer."""
from ..errors import HelmlessError


class YAMLError(HelmlessError):
    """A document could not be loaded or a value could not be serialised.

    ``go_message`` is the error text Go produces (``error converting YAML to JSON:
    yaml: line 3: ...``); ``source`` names the file when the caller gave one, and
    ``line`` is the 1-based line Go reports (None when Go reports none).  ``str()``
    is ``"<source>: <go_message>"`` or just the Go message.
    """

    def __init__(self, go_message, source=None, line=None):
        self.go_message = go_message
        self.source = source
        self.line = line
        super().__init__("%s: %s" % (source, go_message) if source else go_message)

    def with_source(self, source):
        """The same error attributed to ``source``."""
        return YAMLError(self.go_message, source, self.line)
