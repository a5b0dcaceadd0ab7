"""Go's text/template in Python, as Helm uses it.

``TemplateSet`` parses and executes; values follow the model in ``values.py``; ``fmt``
holds Go's value formatting.  See ``template.py`` for the API.
"""
from .errors import ExecError, ParseError, TemplateError, WrappedError
from .signature import go_signature
from .template import TemplateSet

__all__ = ["TemplateSet", "TemplateError", "ParseError", "ExecError", "WrappedError", "go_signature"]
