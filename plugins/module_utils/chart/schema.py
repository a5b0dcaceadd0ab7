"""``values.schema.json`` validation of a chart and its subcharts, with Helm 4's messages.

Helm 4 validates with santhosh-tekuri/jsonschema v6 (draft from ``$schema``, 2020-12 by
default).  We validate with the ``jsonschema`` package and rebuild v6's error tree and
wording::

    values don't meet the specifications of the schema(s) in the following chart(s):
    mychart:
    - at '/replicas': got string, want integer
    - at '/service': validation failed
      - at '/service': missing property 'port'

A schema node with one failing cause is shown as that cause; with several, as
``validation failed`` followed by the causes.  v6 lists properties in Go map order
(random); we list them sorted.
"""

import json
import re

import jsonschema
from jsonschema import validators

from ..gotemplate.fmt import format_value
from .errors import ValuesError

HEADER = "values don't meet the specifications of the schema(s) in the following chart(s):\n"

# Keywords whose next path segment names a subschema.
_NAMED = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions", "dependencies")
_INDEXED = ("allOf", "anyOf", "oneOf", "prefixItems")
_SINGLE = ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
           "$ref", "$dynamicRef", "$recursiveRef", "additionalItems", "unevaluatedProperties",
           "unevaluatedItems")
# Applicators evaluated per member of the instance (the child sits one level deeper).
_PER_MEMBER = ("properties", "patternProperties", "additionalProperties", "items", "prefixItems",
               "additionalItems", "contains", "unevaluatedProperties", "unevaluatedItems")
_GROUPS = {"allOf": "allOf failed", "anyOf": "anyOf failed"}
_ORDER = ("$ref", "$dynamicRef", "$recursiveRef", "type", "const", "enum", "format",
          "maxProperties", "minProperties", "required", "dependentRequired", "dependencies", "properties",
          "patternProperties", "additionalProperties", "propertyNames", "dependentSchemas",
          "maxItems", "minItems", "uniqueItems", "prefixItems", "items", "additionalItems", "contains",
          "minContains", "maxContains", "maxLength", "minLength", "pattern", "contentEncoding",
          "contentMediaType", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "multipleOf",
          "not", "allOf", "anyOf", "oneOf", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems")


def validate_values(chart, values):
    """Validate coalesced ``values`` against the schemas of ``chart`` and its subcharts.

    Raises :class:`ValuesError` with Helm's full message when any schema fails.
    """
    report = schema_report(chart, values)
    if report:
        raise ValuesError(HEADER + report)


def schema_report(chart, values):
    """Helm's ``ValidateAgainstSchema`` text ("" when everything validates)."""
    out = []
    if chart.schema is not None:
        text = validate_single(values, chart.schema)
        if text:
            out.append("%s:\n%s" % (chart.name, text))
    for dep in chart.dependencies:
        raw = values.get(dep.name) if isinstance(values, dict) else None
        if raw is None:
            continue
        if not isinstance(raw, dict):
            out.append("%s:\ninvalid type for values: expected object (map), got %s\n"
                       % (dep.name, _go_type(raw)))
            continue
        out.append(schema_report(dep, raw))
    return "".join(out)


def _go_type(value):
    from ..gotemplate.values import go_type_name
    return go_type_name(value)


def validate_single(values, schema_bytes):
    """Errors of one schema as v6 prints them (each line ends with a newline), "" when valid."""
    try:
        schema = json.loads(schema_bytes.decode("utf-8") if isinstance(schema_bytes, bytes) else schema_bytes)
    except ValueError as exc:
        return "%s\n" % exc
    try:
        cls = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return "jsonschema: invalid schema: %s\n" % exc.message
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    errors = list(validator.iter_errors(_plain(values)))
    if not errors:
        return ""
    root = _Node(())
    for error in errors:
        _insert(root, error, list(error.absolute_schema_path), list(error.absolute_path), ())
    return "".join(_render_causes(root, 0)) + "\n"


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class _Node(object):
    """A subschema evaluated at one instance location."""

    def __init__(self, loc):
        self.loc = loc
        self.children = {}
        self.leaves = []


class _Group(object):
    def __init__(self, loc, message):
        self.loc = loc
        self.message = message
        self.children = {}


def _insert(node, error, spath, ipath, loc):
    """File ``error`` under the node its schema path leads to."""
    while len(spath) > 1:
        keyword = spath[0]
        if keyword in _NAMED or keyword in _INDEXED or keyword == "items" and isinstance(spath[1], int):
            step, spath = (keyword, spath[1]), spath[2:]
        elif keyword in _SINGLE:
            step, spath = (keyword, None), spath[1:]
        else:
            break
        child_loc = loc
        if keyword in _PER_MEMBER and len(ipath) > len(loc):
            child_loc = loc + (ipath[len(loc)],)
        if keyword in _GROUPS:
            group = node.children.get((keyword, None, loc))
            if group is None:
                group = node.children[(keyword, None, loc)] = _Group(loc, _GROUPS[keyword])
            key = (keyword, step[1], child_loc)
            if key not in group.children:
                group.children[key] = _Node(child_loc)
            node = group.children[key]
        else:
            key = (keyword, step[1], child_loc)
            if key not in node.children:
                node.children[key] = _Node(child_loc)
            node = node.children[key]
        loc = child_loc
    keyword = spath[0] if spath else None
    if keyword in ("anyOf", "oneOf") and error.validator in ("anyOf", "oneOf"):
        group = _Group(loc, _group_message(error))
        node.children[(keyword, None, loc)] = group
        for sub in error.context or ():
            rel = list(sub.relative_schema_path)
            index = rel[0]
            key = (keyword, index, loc)
            if key not in group.children:
                group.children[key] = _Node(loc)
            _insert(group.children[key], sub, rel[1:], list(sub.absolute_path), loc)
        return
    node.leaves.append((keyword, error))


def _group_message(error):
    if error.validator == "anyOf":
        return "anyOf failed"
    matched = [i for i, sub in enumerate(error.validator_value)
               if not any(e.relative_schema_path and e.relative_schema_path[0] == i for e in error.context)]
    if len(matched) > 1:
        return "oneOf failed, subschemas %s matched" % ", ".join(str(i) for i in matched)
    return "oneOf failed, none matched"


def _rank(keyword):
    try:
        return _ORDER.index(keyword)
    except ValueError:
        return len(_ORDER)


def _causes(node):
    """``(sort key, kind, item)`` of a node's causes in v6's keyword order."""
    out = []
    required = []
    for keyword, error in node.leaves:
        if keyword == "required":
            required.append(error)
            continue
        out.append(((_rank(keyword), ""), "leaf", (node.loc, _message(keyword, error))))
    if required:
        names = [_squote(name) for name in _required_missing(required[0])]
        text = ("missing property %s" if len(names) == 1 else "missing properties %s") % ", ".join(names)
        out.append(((_rank("required"), ""), "leaf", (node.loc, text)))
    for (keyword, sub, _loc), child in node.children.items():
        out.append(((_rank(keyword), _sort_token(sub)), "node", child))
    out.sort(key=lambda item: item[0])
    return out


def _required_missing(error):
    instance = error.instance if isinstance(error.instance, dict) else {}
    return [name for name in error.validator_value if name not in instance]


def _sort_token(value):
    if value is None:
        return ""
    if isinstance(value, int):
        return "%020d" % value
    return str(value)


def _render_causes(node, depth):
    lines = []
    for _key, kind, item in _causes(node):
        lines.extend(_render(kind, item, depth))
    return lines


def _render(kind, item, depth):
    pad = "  " * depth
    if kind == "leaf":
        loc, text = item
        return ["%s- at %s: %s\n" % (pad, _squote(_pointer(loc)), text)]
    if isinstance(item, _Group):
        lines = ["%s- at %s: %s\n" % (pad, _squote(_pointer(item.loc)), item.message)]
        for key in sorted(item.children, key=lambda k: _sort_token(k[1])):
            lines.extend(_render("node", item.children[key], depth + 1))
        return lines
    causes = _causes(item)
    if len(causes) == 1:
        _key, sub_kind, sub_item = causes[0]
        return _render(sub_kind, sub_item, depth)
    lines = ["%s- at %s: validation failed\n" % (pad, _squote(_pointer(item.loc)))]
    for _key, sub_kind, sub_item in causes:
        lines.extend(_render(sub_kind, sub_item, depth + 1))
    return lines


def _pointer(loc):
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in loc)


def _squote(text):
    """v6's ``quote``: Go's %q with single quotes."""
    from ..gotemplate.fmt import go_quote
    quoted = go_quote(str(text))[1:-1].replace('\\"', '"').replace("'", "\\'")
    return "'" + quoted + "'"


def _json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _display(value):
    if isinstance(value, str):
        return _squote(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return _num(value)


def _num(value):
    if isinstance(value, bool) or value is None:
        return format_value(value)
    if isinstance(value, float) and value == int(value) and abs(value) < 1e21:
        return "%d" % int(value)
    return format_value(value)


def _message(keyword, error):
    value, inst = error.validator_value, error.instance
    if keyword == "type":
        want = value if isinstance(value, list) else [value]
        return "got %s, want %s" % (_json_type(inst), " or ".join(want))
    if keyword == "enum":
        if len(value) == 1:
            return "value must be %s" % _display(value[0])
        return "value must be one of %s" % ", ".join(_display(v) for v in value)
    if keyword == "const":
        return "value must be %s" % _display(value)
    if keyword == "additionalProperties" and value is False:
        return "additional properties %s not allowed" % ", ".join(_squote(k) for k in _extras(error))
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        op = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[keyword]
        return "must be %s %s but found %s" % (op, _num(value), _num(inst))
    if keyword == "multipleOf":
        return "%s not multipleOf %s" % (_num(inst), _num(value))
    if keyword in ("minLength", "maxLength"):
        return "%s: got %d, want %d" % (keyword, len(inst), value)
    if keyword in ("minItems", "maxItems", "minProperties", "maxProperties"):
        return "%s: got %d, want %d" % (keyword, len(inst), value)
    if keyword == "pattern":
        return "%s does not match pattern %s" % (_squote(inst), _squote(value))
    if keyword == "format":
        return "%s is not valid %s" % (_display(inst), _squote(value))
    if keyword == "uniqueItems":
        i, j = _duplicate(inst)
        return "items at %d and %d are equal" % (i, j)
    if keyword == "not":
        return "not failed"
    if keyword == "contains":
        return "no items match contains schema"
    if keyword == "dependentRequired":
        return error.message
    if error.validator is None or value is False:
        return "false schema"
    return error.message


def _extras(error):
    schema = error.schema if isinstance(error.schema, dict) else {}
    props = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    out = []
    for key in error.instance:
        if key in props or any(re.search(p, key) for p in patterns):
            continue
        out.append(key)
    return out


def _duplicate(items):
    for j in range(len(items)):
        for i in range(j):
            if _equal(items[i], items[j]):
                return i, j
    return 0, 0


def _equal(a, b):
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
