"""Chart.yaml: decoding the way sigs.k8s.io/yaml fills ``chart.Metadata``, and validation.

Helm unmarshals Chart.yaml into a Go struct, so a YAML number or bool lands in a
string field as text (``appVersion: 1.10`` becomes ``"1.1"``: floats are printed with
``strconv.FormatFloat(f, 'g', -1, 32)``), keys match field names case-insensitively,
and a wrongly shaped value is a JSON unmarshal error.
"""

import math
import struct

from ..govalue.gopath import go_base
from ..govalue.strconv import go_quote
from ..semver import is_valid_version
from .errors import ChartError
from ..regexcache import regex

APIVERSION_V1 = "v1"
APIVERSION_V2 = "v2"

# (json name, Go field name, kind) in Go declaration order.
METADATA_FIELDS = (
    ("name", "Name", "string"),
    ("home", "Home", "string"),
    ("sources", "Sources", "strings"),
    ("version", "Version", "string"),
    ("description", "Description", "string"),
    ("keywords", "Keywords", "strings"),
    ("maintainers", "Maintainers", "maintainers"),
    ("icon", "Icon", "string"),
    ("apiVersion", "APIVersion", "string"),
    ("condition", "Condition", "string"),
    ("tags", "Tags", "string"),
    ("appVersion", "AppVersion", "string"),
    ("deprecated", "Deprecated", "bool"),
    ("annotations", "Annotations", "annotations"),
    ("kubeVersion", "KubeVersion", "string"),
    ("dependencies", "Dependencies", "dependencies"),
    ("type", "Type", "string"),
)
MAINTAINER_FIELDS = (("name", "Name", "string"), ("email", "Email", "string"), ("url", "URL", "string"))
# (json name, Go field name, kind, omitempty)
DEPENDENCY_FIELDS = (
    ("name", "Name", "string", False),
    ("version", "Version", "string", True),
    ("repository", "Repository", "string", False),
    ("condition", "Condition", "string", True),
    ("tags", "Tags", "strings", True),
    ("enabled", "Enabled", "bool", True),
    ("import-values", "ImportValues", "any_list", True),
    ("alias", "Alias", "string", True),
)
LOCK_FIELDS = (("generated", "Generated", "any"), ("digest", "Digest", "string"),
               ("dependencies", "Dependencies", "dependencies"))

_ALIAS_RE = regex(r"^[a-zA-Z0-9_-]+$")
_JSON_KIND = {dict: "object", list: "array", str: "string", bool: "bool", int: "number", float: "number"}
_GO_KIND = {"string": "string", "strings": "[]string", "bool": "bool", "maintainers": "[]*v2.Maintainer",
            "annotations": "map[string]string", "dependencies": "[]*v2.Dependency",
            "any_list": "[]interface {}"}


def format_float32(value):
    """Go's ``strconv.FormatFloat(value, 'g', -1, 32)``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    f32 = struct.unpack("f", struct.pack("f", value))[0]
    if f32 == 0:
        return "0"
    for prec in range(1, 10):
        digits = "%.*e" % (prec - 1, f32)
        if struct.unpack("f", struct.pack("f", float(digits)))[0] == f32:
            break
    mantissa, exp = digits.split("e")
    exp = int(exp)
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    if exp < -4 or exp >= 6:
        return "%se%s%02d" % (mantissa, "-" if exp < 0 else "+", abs(exp))
    sign = "-" if mantissa.startswith("-") else ""
    num = mantissa.lstrip("-").replace(".", "")
    if exp >= 0:
        whole = num[:exp + 1].ljust(exp + 1, "0")
        frac = num[exp + 1:]
        return sign + whole + ("." + frac if frac else "")
    return sign + "0." + "0" * (-exp - 1) + num


def scalar_to_string(value):
    """How sigs.k8s.io/yaml turns a YAML scalar into a Go string field."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # yaml.v2 resolves integer-looking scalars to int; our loader may hand them over as float.
        if value == int(value) and abs(value) < 2 ** 63 and value not in (float("inf"), float("-inf")):
            return str(int(value))
        return format_float32(value)
    return value


def sanitize(text):
    """Helm's ``sanitizeString``: whitespace becomes a space, non-printables are dropped."""
    return "".join(" " if ch.isspace() else ch for ch in text if ch.isspace() or ch.isprintable())


class _Decoder(object):
    """Fills a struct-shaped dict from decoded YAML, reporting errors as Go's json package does."""

    def __init__(self, filename):
        self.filename = filename

    def fail(self, value, struct_name, field, kind):
        raise ChartError("cannot load %s: error unmarshaling JSON: while decoding JSON: json: cannot "
                         "unmarshal %s into Go struct field %s.%s of type %s"
                         % (self.filename, json_kind(value), struct_name, field, _GO_KIND.get(kind, kind)))

    def struct(self, data, fields, struct_name):
        out = {}
        if data is None:
            return out
        if not isinstance(data, dict):
            raise ChartError("cannot load %s: error unmarshaling JSON: while decoding JSON: json: cannot "
                             "unmarshal %s into Go value of type v2.%s" % (self.filename, json_kind(data), struct_name))
        lookup = {}
        for spec in fields:
            lookup.setdefault(spec[0].lower(), spec)
        for key in sorted(data):
            spec = None
            for candidate in fields:
                if candidate[0] == key:
                    spec = candidate
                    break
            if spec is None:
                spec = lookup.get(key.lower())
            if spec is None:
                continue
            json_name, kind = spec[0], spec[2]
            value = self.field(data[key], kind, struct_name, json_name)
            omitempty = spec[3] if len(spec) > 3 else True
            if value is None or omitempty and value in ("", [], {}, False):
                out.pop(json_name, None)
            else:
                out[json_name] = value
        for spec in fields:
            if len(spec) > 3 and not spec[3] and spec[2] == "string":
                out.setdefault(spec[0], "")
        return _ordered(out, fields)

    def field(self, value, kind, struct_name, field):
        if value is None:
            return None
        if kind == "any" or kind == "any_list" and isinstance(value, list):
            return value
        if kind == "string":
            value = scalar_to_string(value)
            if not isinstance(value, str):
                self.fail(value, struct_name, field, kind)
            return value
        if kind == "bool":
            if not isinstance(value, bool):
                self.fail(value, struct_name, field, kind)
            return value
        if kind == "strings":
            if not isinstance(value, list):
                self.fail(value, struct_name, field, kind)
            out = []
            for item in value:
                item = "" if item is None else scalar_to_string(item)
                if not isinstance(item, str):
                    self.fail(item, struct_name, field, "string")
                out.append(item)
            return out
        if kind == "annotations":
            if not isinstance(value, dict):
                self.fail(value, struct_name, field, kind)
            out = {}
            for key, item in value.items():
                item = "" if item is None else scalar_to_string(item)
                if not isinstance(item, str):
                    self.fail(item, struct_name, field, "string")
                out[key] = item
            return out
        if kind in ("maintainers", "dependencies"):
            if not isinstance(value, list):
                self.fail(value, struct_name, field, kind)
            fields = MAINTAINER_FIELDS if kind == "maintainers" else DEPENDENCY_FIELDS
            name = "Maintainer" if kind == "maintainers" else "Dependency"
            return [None if item is None else self.struct(item, fields, name) for item in value]
        self.fail(value, struct_name, field, kind)


def _ordered(out, fields):
    return {spec[0]: out[spec[0]] for spec in fields if spec[0] in out}


def json_kind(value):
    """The JSON type name Go's json errors use (number, string, array, object, bool, null)."""
    if value is None:
        return "null"
    return _JSON_KIND.get(type(value), "value")


def decode_metadata(data, filename="Chart.yaml", into=None):
    """Chart.yaml (already YAML-decoded) as a JSON-form dict; ``into`` is updated in place.

    Like Go's json.Unmarshal into an existing struct, fields missing from ``data`` keep
    their value in ``into`` (requirements.yaml is decoded over Chart.yaml this way).
    """
    decoded = _Decoder(filename).struct(data, METADATA_FIELDS, "Metadata")
    out = dict(into or {})
    out.update(decoded)
    return order_metadata(out)


def decode_struct(data, filename, fields, struct_name):
    """``data`` decoded into a Go struct of ``fields`` ((json name, Go name, kind), ...)."""
    return _Decoder(filename).struct(data, fields, struct_name)


def decode_lock(data, filename="Chart.lock"):
    return _Decoder(filename).struct(data, LOCK_FIELDS, "Lock")


def order_metadata(meta):
    """Keys in Go field order, as Helm's JSON output lists them."""
    ordered = {}
    for json_name, _go, _kind in METADATA_FIELDS:
        if json_name in meta:
            ordered[json_name] = meta[json_name]
    return ordered


def validate_metadata(meta):
    """Helm's ``Metadata.Validate``: sanitizes strings in place and raises ``ChartError``."""
    for key in ("name", "description", "home", "icon", "condition", "tags", "appVersion", "kubeVersion"):
        if key in meta:
            meta[key] = sanitize(meta[key])
    for key in ("sources", "keywords"):
        if key in meta:
            meta[key] = [sanitize(item) for item in meta[key]]
    if not meta.get("apiVersion"):
        raise ChartError("validation: chart.metadata.apiVersion is required")
    name = meta.get("name", "")
    if not name:
        raise ChartError("validation: chart.metadata.name is required")
    if name != go_base(name):
        raise ChartError('validation: chart.metadata.name %s is invalid' % go_quote(name))
    version = meta.get("version", "")
    if not version:
        raise ChartError("validation: chart.metadata.version is required")
    if not is_valid_version(version):
        raise ChartError('validation: chart.metadata.version %s is invalid' % go_quote(version))
    if meta.get("type", "") not in ("", "application", "library"):
        raise ChartError("validation: chart.metadata.type must be application or library")
    for maintainer in meta.get("maintainers", []):
        if maintainer is None:
            raise ChartError("validation: maintainers must not contain empty or null nodes")
        for key in ("name", "email", "url"):
            if key in maintainer:
                maintainer[key] = sanitize(maintainer[key])
    seen = set()
    for dep in meta.get("dependencies", []):
        if dep is None:
            raise ChartError("validation: dependencies must not contain empty or null nodes")
        for key in ("name", "version", "repository", "condition"):
            if key in dep:
                dep[key] = sanitize(dep[key])
        if "tags" in dep:
            dep["tags"] = [sanitize(tag) for tag in dep["tags"]]
        alias = dep.get("alias", "")
        if alias and not _ALIAS_RE.match(alias):
            raise ChartError('validation: dependency %s has disallowed characters in the alias'
                             % go_quote(dep.get("name", "")))
        key = alias or dep.get("name", "")
        if key in seen:
            raise ChartError('validation: more than one dependency with name or alias %s' % go_quote(key))
        seen.add(key)


def template_dependency_map(dep):
    """A dependency as ``.Chart.Dependencies`` shows it (Go field names)."""
    return {
        "Name": dep.get("name", ""),
        "Version": dep.get("version", ""),
        "Repository": dep.get("repository", ""),
        "Condition": dep.get("condition", ""),
        "Tags": list(dep.get("tags") or []),
        "Enabled": bool(dep.get("enabled", False)),
        "ImportValues": list(dep.get("import-values") or []),
        "Alias": dep.get("alias", ""),
    }


def template_chart_map(meta, is_root, empty_annotations=False):
    """Helm 4's ``.Chart``: the metadata struct as a map keyed by Go field names plus ``IsRoot``."""
    out = {}
    for json_name, go_name, kind in METADATA_FIELDS:
        value = meta.get(json_name)
        if kind == "string":
            out[go_name] = value or ""
        elif kind == "strings":
            out[go_name] = list(value or [])
        elif kind == "bool":
            out[go_name] = bool(value)
        elif kind == "annotations":
            out[go_name] = dict(value) if value is not None else ({} if empty_annotations else None)
        elif kind == "maintainers":
            out[go_name] = [{"Name": m.get("name", ""), "Email": m.get("email", ""), "URL": m.get("url", "")}
                            for m in value or []]
        elif kind == "dependencies":
            out[go_name] = [template_dependency_map(d) for d in value or []]
    out["IsRoot"] = bool(is_root)
    return out
