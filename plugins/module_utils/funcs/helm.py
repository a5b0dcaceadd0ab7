"""Helm's own template functions (``pkg/engine/funcs.go`` and ``engine.go initFunMap``).

The static ones are in :data:`HELM_FUNCS`. ``include``, ``tpl``, ``required``, ``fail`` and
``lookup`` close over a render (its template set, its include counters, the lookup client),
so the engine builds them per render with :func:`render_funcs`.
"""
from .. import goyaml
from ..gotemplate.errors import TemplateError, WrappedError
from ..govalue.signature import go_signature
from ..govalue.strconv import go_quote
from .durations import DURATION_FUNCS
from ..errors import HelmlessError

WARN_START = "HELM_ERR_START"
WARN_END = "HELM_ERR_END"
RECURSION_MAX = 1000


def warn_wrap(message):
    """``required``/``fail`` messages travel inside these markers up to the engine."""
    return WARN_START + message + WARN_END


class HelmFuncError(HelmlessError):
    """An error returned by a Helm function; the executor reports ``error calling <fn>: <msg>``."""


@go_signature("interface {}")
def to_yaml(value):
    """``toYaml``: sigs.k8s.io/yaml without the final newline; when Marshal returns an error
    (NaN/Inf, characters yaml.v2 rejects) Helm renders ``""``, and so do we."""
    try:
        return _trim_newline(goyaml.to_yaml(value))
    except goyaml.YAMLError:
        return ""


@go_signature("interface {}")
def to_yaml_pretty(value):
    """``toYamlPretty``: yaml.v3 with indent 2, no final newline; errors give ``""``."""
    try:
        return _trim_newline(goyaml.to_yaml_pretty(value))
    except goyaml.YAMLError as exc:
        if str(exc).startswith("cannot marshal type"):
            raise  # yaml.v3 panics (rather than failing) on a type it cannot encode
        return ""


@go_signature("string")
def from_yaml(text):
    """``fromYaml``: a map, or ``{"Error": msg}`` when the text is not a YAML mapping."""
    return goyaml.from_yaml(text)


@go_signature("string")
def from_yaml_array(text):
    """``fromYamlArray``: a list, or ``[msg]`` on error."""
    return goyaml.from_yaml_array(text)


@go_signature("interface {}")
def to_json(value):
    """``toJson``: ``json.Marshal``; an error (NaN, Inf) gives ``""``."""
    try:
        return goyaml.to_json(value)
    except goyaml.JSONError:
        return ""


@go_signature("string")
def from_json(text):
    """``fromJson``: a map, or ``{"Error": msg}``."""
    return goyaml.from_json(text)


@go_signature("string")
def from_json_array(text):
    """``fromJsonArray``: a list, or ``[msg]``."""
    return goyaml.from_json_array(text)


@go_signature("interface {}")
def to_toml(value):
    """``toToml``: BurntSushi/toml output (trailing newline kept); on error the error text.
    The encoder's panics (``toToml nil``) are not errors it returns: they fail the call."""
    try:
        return goyaml.to_toml(value)
    except goyaml.TOMLError as exc:
        if exc.panic:
            raise
        return str(exc)


def _must(encode):
    """Helm 4's ``mustToYaml``/``mustToJson`` and 4.2's ``mustToToml``: the encoder's error (or panic)
    fails the call instead of rendering ``""`` or the error text."""
    @go_signature("interface {}")
    def must(value):
        try:
            return encode(value)
        except (goyaml.YAMLError, goyaml.JSONError, goyaml.TOMLError) as exc:
            raise HelmFuncError(str(exc))
    return must


@go_signature("string")
def from_toml(text):
    """``fromToml``: a map, or ``{"Error": msg}``."""
    return goyaml.from_toml(text)


@go_signature("string")
def get_host_by_name(_name):
    """DNS lookups are disabled (Helm's default without ``--enable-dns``)."""
    return ""


@go_signature("string", "interface {}")
def required(warn, value):
    """``required``: fail on nil or the empty string; ``false``, ``0`` and ``[]`` pass."""
    if value is None or (isinstance(value, str) and value == ""):
        raise HelmFuncError(warn_wrap(warn))
    return value


@go_signature("string")
def fail(message):
    """``fail``: always an error, carried to the engine inside the HELM_ERR markers."""
    raise HelmFuncError(warn_wrap(message))


@go_signature("string", "string", "string", "string")
def empty_lookup(_api_version, _kind, _namespace, _name):
    """``lookup`` without a cluster: an empty map (prints ``map[]``)."""
    return {}


def _trim_newline(text):
    return text[:-1] if text.endswith("\n") else text


must_to_yaml = _must(lambda value: _trim_newline(goyaml.to_yaml(value)))
must_to_json = _must(goyaml.to_json)
must_to_toml = _must(goyaml.to_toml)


HELM_FUNCS = {
    "toToml": to_toml,
    "mustToToml": must_to_toml,
    "fromToml": from_toml,
    "toYaml": to_yaml,
    "mustToYaml": must_to_yaml,
    "toYamlPretty": to_yaml_pretty,
    "fromYaml": from_yaml,
    "fromYamlArray": from_yaml_array,
    "toJson": to_json,
    "mustToJson": must_to_json,
    "fromJson": from_json,
    "fromJsonArray": from_json_array,
    "required": required,
    "fail": fail,
    "getHostByName": get_host_by_name,
    "lookup": empty_lookup,
}
HELM_FUNCS.update(DURATION_FUNCS)

# Sprig functions Helm removes from the map it hands to templates.
REMOVED_SPRIG = ("env", "expandenv")


def include_func(template_set, counters):
    """``include name data``: execute a named template into a string, recursion-bounded."""
    @go_signature("string", "interface {}")
    def include(name, data):
        count = counters.get(name, 0)
        if count > RECURSION_MAX:
            raise HelmFuncError("rendering template has a nested reference name: %s: "
                                "unable to execute template" % name)
        counters[name] = count + 1
        try:
            return template_set.execute(name, data)
        finally:
            counters[name] -= 1
    return include


def tpl_func(template_set, counters, funcs_for):
    """``tpl text data``: parse ``text`` as a new template ``gotpl`` in a clone of the set and run it.

    ``funcs_for(clone)`` returns the include/tpl pair bound to the clone, so defines made in
    the text are visible to includes inside it (and to nested tpl), never outside. The text's own
    tree runs even when it is empty and an enclosing tpl's ``gotpl`` stays in the set (Go's New).
    """
    @go_signature("string", "interface {}")
    def tpl(text, data):
        clone = template_set.clone()
        clone.add_funcs(funcs_for(clone))
        try:
            tree = clone.parse_new("gotpl", text)
        except TemplateError as exc:
            raise WrappedError("cannot parse template %s" % go_quote(text), exc)
        try:
            out = clone.execute_tree(tree, data)
        except TemplateError as exc:
            raise WrappedError("error during tpl function execution for %s" % go_quote(text), exc)
        return out.replace("<no value>", "")
    return tpl
