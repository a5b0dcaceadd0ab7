"""YAML, JSON and TOML exactly as Helm's Go libraries read and write them.

Loading follows ``sigs.k8s.io/yaml`` (go-yaml v2 typing, then a JSON round trip: keys
are strings, numbers float64); ``to_yaml`` is ``sigs.k8s.io/yaml.Marshal``,
``to_yaml_pretty`` yaml.v3's encoder, ``to_json``/``from_json`` Go's encoding/json,
``to_toml``/``from_toml`` BurntSushi/toml.  Values use the model of
``govalue/values.py``.
"""
from .errors import YAMLError
from .loader import iter_documents, convert_error
from .dump import to_yaml, to_yaml_pretty
from .gojson import JSONError, NilMap, NilList, decode as _json_decode, kind_name as _kind, to_json as _to_json
from .gotoml import TOMLError, to_toml, from_toml

__all__ = [
    "load", "load_values", "load_all", "to_yaml", "to_yaml_pretty", "to_json", "from_json",
    "from_json_array", "from_yaml", "from_yaml_array", "to_toml", "from_toml", "merge_maps",
    "as_values_numbers",
    "YAMLError", "JSONError", "TOMLError", "NilMap", "NilList",
]

_MAP_TYPE = "map[string]interface {}"
_LIST_TYPE = "[]interface {}"


def _first_document(text):
    """go-yaml v2 Unmarshal + JSON conversion of the first document (Go error text)."""
    for value, late in iter_documents(text):
        if late is not None:
            raise YAMLError("error converting YAML to JSON: " + late)
        return value
    return None


def _unmarshal(text, target, source=None):
    """``sigs.k8s.io/yaml.Unmarshal(text, &target)``; target is _MAP_TYPE, _LIST_TYPE or None."""
    try:
        value = _first_document(text)
    except YAMLError as err:
        raise convert_error(err, source)
    if target is None or value is None:
        return value
    want = dict if target == _MAP_TYPE else list
    if not isinstance(value, want):
        raise YAMLError("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s "
                        "into Go value of type %s" % (_kind(value), target), source)
    return value


def load(text, source=None):
    """``sigs.k8s.io/yaml.Unmarshal`` into ``interface{}`` (first document only).

    Numbers become float, keys strings; an empty document is None.  Errors raise
    YAMLError with Go's message (``error converting YAML to JSON: yaml: line N: ...``),
    prefixed by ``source`` when given.
    """
    return _unmarshal(text, None, source)


def load_all(text, source=None):
    """Every document of a YAML stream, each converted like :func:`load`."""
    docs = []
    try:
        for value, late in iter_documents(text):
            if late is not None:
                raise YAMLError("error converting YAML to JSON: " + late)
            docs.append(value)
    except YAMLError as err:
        raise convert_error(err, source)
    return docs


def as_values_numbers(value):
    """``value`` (a Python structure, e.g. a module's ``values``) as Helm reads it from a
    values file: every integer becomes a float64, as YAML/JSON numbers do."""
    if isinstance(value, dict):
        return {k: as_values_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_values_numbers(v) for v in value]
    if isinstance(value, int) and value.__class__ is not bool:
        return float(value)
    return value


def merge_maps(a, b):
    """Helm's ``MergeMaps``: a copy of ``a`` with ``b`` merged in (maps recursively, b wins)."""
    out = dict(a)
    for k, v in b.items():
        if isinstance(v, dict):
            cur = out.get(k)
            if isinstance(cur, dict):
                out[k] = merge_maps(cur, v)
                continue
        out[k] = v
    return out


def _split_documents(text):
    """k8s.io/apimachinery YAMLReader: split at lines starting with ``---``."""
    docs = []
    buf = []
    for line in text.splitlines(True):
        if line.startswith("---"):
            rest = line[3:].strip()
            if rest and rest[0] != "#":
                raise YAMLError("error reading yaml document: invalid Yaml document separator: %s" % rest)
            if buf:
                docs.append("".join(buf))
                buf = []
            continue
        buf.append(line)
    if buf:
        docs.append("".join(buf))
    return docs


def load_values(text, source=None):
    """Helm 4 ``LoadValues``: a chart's values.yaml or a ``-f`` file as a dict.

    Every document must be a map (or empty); documents are merged in order with
    MergeMaps.  Errors carry Go's text (``cannot unmarshal yaml document: ...``).
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    values = {}
    try:
        chunks = _split_documents(text)
    except YAMLError as err:
        raise err.with_source(source) if source else err
    for chunk in chunks:
        try:
            current = _unmarshal(chunk, _MAP_TYPE)
        except YAMLError as err:
            raise YAMLError("cannot unmarshal yaml document: " + err.go_message, source, err.line)
        if current:
            values = merge_maps(values, current)
    return values


def from_yaml(text):
    """Helm's ``fromYaml``: a dict, or ``{"Error": msg}`` when Go's Unmarshal fails."""
    try:
        value = _unmarshal(text, _MAP_TYPE)
    except YAMLError as err:
        return {"Error": err.go_message}
    return value if value is not None else {}


def from_yaml_array(text):
    """Helm's ``fromYamlArray``: a list, or ``[msg]`` on error."""
    try:
        value = _unmarshal(text, _LIST_TYPE)
    except YAMLError as err:
        return [err.go_message]
    return value if value is not None else []


def to_json(value):
    """Go ``json.Marshal`` text; raises JSONError (Go's text) for NaN/Inf."""
    return _to_json(value)


def _json_unmarshal(text, target):
    """``json.Unmarshal(text, &target)``: (value, error text or None); JSON null is nil."""
    try:
        value, err = _json_decode(text)
    except JSONError as exc:
        return None, str(exc)
    if value is None:
        return (NilMap() if target == _MAP_TYPE else NilList()), None
    want = dict if target == _MAP_TYPE else list
    if not isinstance(value, want):
        return None, "json: cannot unmarshal %s into Go value of type %s" % (_kind(value), target)
    return value, err


def from_json(text):
    """Helm's ``fromJson``: a dict; on error ``{"Error": msg}`` (plus what Go decoded).

    JSON ``null`` gives a :class:`NilMap` (prints ``map[]``, re-marshals to ``null``).
    """
    value, err = _json_unmarshal(text, _MAP_TYPE)
    if err is not None:
        value = value if isinstance(value, dict) else {}
        value["Error"] = err
    return value


def from_json_array(text):
    """Helm's ``fromJsonArray``: a list, or ``[msg]`` on error; ``null`` gives NilList."""
    value, err = _json_unmarshal(text, _LIST_TYPE)
    if err is not None:
        return [err]
    return value
