"""``values.schema.json`` validation of a chart and its subcharts, with Helm 4's messages.

Helm 4 validates with santhosh-tekuri/jsonschema v6 (draft from ``$schema``, 2020-12 by
default; ``format`` is only asserted up to draft-07).  Schemas are evaluated by the
compiled port in ``schemav6``; the few it does not cover go through the ``jsonschema``
package, whose errors are rebuilt into v6's tree here: every (sub)schema
evaluation yields its single error, or a ``validation failed`` group when several of
its keywords fail; ``type``/``const``/``enum``/``format`` failures stop the evaluation of
that schema; ``allOf``/``anyOf``/``oneOf``/``contains``/``propertyNames`` nest their
causes; a top-level group is flattened::

    values don't meet the specifications of the schema(s) in the following chart(s):
    mychart:
    - at '/replicas': got string, want integer
    - at '/service': validation failed
      - at '/service': missing property 'port'
      - at '/service/type': value must be one of 'ClusterIP', 'NodePort'

v6 visits object properties in Go map order (random between runs); we visit them
sorted.
"""

import json
import re

from ..govalue.fmt import format_value
from ..govalue.values import go_type_name
from . import schemav6
from .errors import ValuesError
from .formats import squote

HEADER = "values don't meet the specifications of the schema(s) in the following chart(s):\n"


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
                       % (dep.name, go_type_name(raw)))
            continue
        out.append(schema_report(dep, raw))
    return "".join(out)


def validate_single(values, schema_bytes):
    """Errors of one schema as Helm prints them (one line each, newline-terminated); "" when valid."""
    try:
        text = schema_bytes.decode("utf-8") if isinstance(schema_bytes, bytes) else schema_bytes
        schema = json.loads(text)
    except ValueError as exc:
        return "%s\n" % exc
    draft = schemav6.draft_of(schema)
    instance = _plain(values)
    try:
        compiled = schemav6.compile_schema(text, schema, draft)
    except schemav6.Unsupported:
        compiled = None
    if compiled is not None:
        return _render(schemav6.Validator(_Err, _Messages).validate(compiled, instance, ()))
    import jsonschema  # slow to import: only for schemas the compiled port leaves to it
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return "jsonschema: invalid schema: %s\n" % exc.message
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER if draft <= 7 else None)
    try:
        errors = list(validator.iter_errors(instance))
    except Exception as exc:  # e.g. a remote $ref: we never fetch schemas over the network
        return "jsonschema: cannot validate with values.schema.json: %s\n" % exc

    if not errors:
        return ""
    ctx = _Context(validator, draft)
    root = _Node((), schema, instance)
    for error in errors:
        root.add(ctx, error, list(error.absolute_schema_path), list(error.absolute_path))
    return _render(root.result(ctx))


def _render(result):
    if result is None:
        return ""
    causes = result.causes if result.kind == "group" else [result]
    lines = []
    for cause in causes:
        cause.display(lines, 0)
    return "\n".join(lines) + "\n"


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class _Context(object):
    def __init__(self, validator, draft):
        self.validator = validator
        self.draft = draft

    def resolve(self, ref):
        try:
            return self.validator._resolver.lookup(ref).contents
        except Exception:  # referencing's Unresolvable, or no _resolver (jsonschema < 4.18): nothing to describe
            return {}

    def errors(self, schema, instance):
        return list(self.validator.evolve(schema=schema).iter_errors(instance))

    def valid(self, schema, instance):
        return self.validator.evolve(schema=schema).is_valid(instance)


class _Err(object):
    """One v6 ``ValidationError``: kind is leaf, group (``validation failed``), ref or keyword."""

    def __init__(self, loc, message, causes=(), kind="leaf"):
        self.loc = loc
        self.message = message
        self.causes = list(causes)
        self.kind = kind

    def display(self, lines, depth):
        if self.kind == "ref" and len(self.causes) == 1:
            self.causes[0].display(lines, depth)
            return
        lines.append("%s- at %s: %s" % ("  " * depth, squote(_pointer(self.loc)), self.message))
        for cause in self.causes:
            cause.display(lines, depth + 1)


_EARLY = ("type", "const", "enum", "format")
_RANK = {name: i for i, name in enumerate((
    "$ref", "minProperties", "maxProperties", "required", "dependencies", "properties",
    "additionalProperties", "propertyNames", "dependentSchemas", "dependentRequired",
    "minItems", "maxItems", "uniqueItems", "items", "additionalItems", "contains", "maxContains",
    "minLength", "maxLength", "pattern", "contentEncoding", "contentMediaType", "contentSchema",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "not", "allOf", "anyOf", "oneOf", "then", "$dynamicRef", "unevaluatedProperties", "unevaluatedItems"))}
_PER_PROPERTY = {"properties": 0, "patternProperties": 1, "additionalProperties": 2}


class _Node(object):
    """A (sub)schema evaluated at one instance location."""

    def __init__(self, loc, schema, instance):
        self.loc = loc
        self.schema = schema
        self.instance = instance
        self.leaves = []
        self.children = {}

    def child(self, key, loc, schema, instance, cls=None):
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = (cls or _Node)(loc, schema, instance)
        return node

    def _member(self, ipath):
        token = ipath[len(self.loc)] if len(ipath) > len(self.loc) else None
        try:
            return token, self.instance[token]
        except (KeyError, IndexError, TypeError):
            return token, None

    def add(self, ctx, error, spath, ipath):
        cur = self.schema if isinstance(self.schema, dict) else {}
        if not spath or error.validator is None and len(spath) == 1:
            return self._false(error, spath)
        seg = spath[0]
        if "$ref" in cur and seg not in cur:
            target = ctx.resolve(cur["$ref"])
            return self.child(("$ref", None), self.loc, target, self.instance).add(ctx, error, spath, ipath)
        rest = spath[1:]
        if seg in ("properties", "patternProperties", "dependentSchemas") and rest:
            token, value = (rest[0], self._get(rest[0])) if seg != "patternProperties" else self._member(ipath)
            loc = self.loc if seg == "dependentSchemas" else self.loc + (token,)
            sub = (cur.get(seg) or {}).get(rest[0], {})
            return self.child((seg, rest[0], loc), loc, sub, value if seg != "dependentSchemas" else self.instance
                              ).add(ctx, error, rest[1:], ipath)
        if seg == "dependencies" and rest and isinstance((cur.get(seg) or {}).get(rest[0]), dict):
            return self.child((seg, rest[0], self.loc), self.loc, cur[seg][rest[0]], self.instance).add(
                ctx, error, rest[1:], ipath)
        if seg in ("items", "prefixItems") and rest and isinstance(cur.get(seg), list):
            index = rest[0]
            loc = self.loc + (index,)
            return self.child(("items", index, loc), loc, cur[seg][index], self._get(index)).add(
                ctx, error, rest[1:], ipath)
        if seg in ("items", "additionalProperties", "additionalItems", "unevaluatedProperties",
                   "unevaluatedItems") and rest:
            token, value = self._member(ipath)
            loc = self.loc + (token,)
            rank = "properties" if seg == "additionalProperties" else seg
            return self.child((rank, token, loc, seg), loc, cur.get(seg), value).add(ctx, error, rest, ipath)
        if seg in ("then", "else") and rest:
            return self.child(("then", seg, self.loc), self.loc, cur.get(seg), self.instance).add(
                ctx, error, rest, ipath)
        if seg == "allOf" and rest:
            group = self.child(("allOf", None, self.loc), self.loc, cur.get(seg), self.instance, _Group)
            return group.child(rest[0], self.loc, cur[seg][rest[0]], self.instance).add(ctx, error, rest[1:], ipath)
        if seg == "propertyNames" and rest:
            name = error.instance
            group = self.child(("propertyNames", name, self.loc), self.loc, None, None, _Group)
            group.message = "invalid propertyName %s" % squote(name)
            return group.child(0, (), cur.get(seg), name).add(ctx, error, rest, [])
        if seg in ("anyOf", "oneOf") and not rest:
            return self._alternatives(ctx, error, seg, cur)
        if seg == "contains" or error.validator in ("minContains", "maxContains"):
            return self._contains(ctx, cur)
        self.leaves.append((seg, error))

    def _get(self, token):
        try:
            return self.instance[token]
        except (KeyError, IndexError, TypeError):
            return None

    def _false(self, error, spath):
        """A false subschema: jsonschema drops the last path step, so find the members it applies to."""
        cur = self.schema if isinstance(self.schema, dict) else {}
        if spath and spath[0] == "properties" and isinstance(self.instance, dict):
            for name, sub in (cur.get("properties") or {}).items():
                if sub is False and name in self.instance:
                    loc = self.loc + (name,)
                    self.child(("properties", name, loc), loc, False, self.instance[name]).leaves = [("false", None)]
            return None
        self.leaves.append(("false", error))
        return None

    def _alternatives(self, ctx, error, keyword, cur):
        subs = cur.get(keyword) or []
        if keyword == "oneOf" and not error.context:
            matched = [i for i, sub in enumerate(subs) if ctx.valid(sub, self.instance)][:2]
            self.leaves.append(("oneOf", "'oneOf' failed, subschemas %s matched" % ", ".join(map(str, matched))))
            return None
        group = self.child((keyword, None, self.loc), self.loc, None, None, _Group)
        group.message = "'anyOf' failed" if keyword == "anyOf" else "'oneOf' failed, none matched"
        for sub in error.context or ():
            rel = list(sub.relative_schema_path)
            group.child(rel[0], self.loc, subs[rel[0]], self.instance).add(
                ctx, sub, rel[1:], list(sub.absolute_path))
        return None

    def _contains(self, ctx, cur):
        if ("contains", None, self.loc) in self.children or not isinstance(self.instance, list):
            return None
        sub = cur.get("contains", {})
        matched, failed = [], []
        for index, item in enumerate(self.instance):
            errors = ctx.errors(sub, item)
            if not errors:
                matched.append(index)
                continue
            node = _Node(self.loc + (index,), sub, item)
            for err in errors:
                node.add(ctx, err, list(err.relative_schema_path), list(self.loc + (index,)) + list(err.absolute_path))
            failed.append(node)
        at = " ".join(map(str, matched))
        if "minContains" in cur and len(matched) < cur["minContains"]:
            message = "min %d items required to match contains schema, but matched %d items at %s" % (
                cur["minContains"], len(matched), at)
        elif "maxContains" in cur and len(matched) > cur["maxContains"]:
            message, failed = "max %d items required to match contains schema, but matched %d items at %s" % (
                cur["maxContains"], len(matched), at), []
        else:
            message = "no items match contains schema"
        group = self.child(("contains", None, self.loc), self.loc, None, None, _Group)
        group.message = message
        for i, node in enumerate(failed):
            group.children[i] = node
        return None

    def result(self, ctx):
        early = [(keyword, err) for keyword, err in self.leaves if keyword in _EARLY]
        if early:
            keyword, err = sorted(early, key=lambda item: _EARLY.index(item[0]))[0]
            return _Err(self.loc, _message(keyword, err, self))
        items = []
        seen = set()
        for keyword, err in self.leaves:
            if keyword in seen and keyword in ("required", "dependentRequired", "dependencies"):
                continue
            seen.add(keyword)
            if keyword in ("dependentRequired", "dependencies"):
                for prop, missing in _dependents(err):
                    message = "properties %s required, if %s exists" % (
                        ", ".join(squote(n) for n in missing), squote(prop))
                    items.append(((_RANK[keyword], prop), _Err(self.loc, message)))
                continue
            # a false items/unevaluated* leaf covers members after the evaluated children
            tail = "\uffff" if keyword in ("items", "unevaluatedProperties", "unevaluatedItems") else ""
            items.append(((_RANK.get(keyword, len(_RANK)), tail), _leaf(keyword, err, self)))
        for key, node in self.children.items():
            keyword = key[0]
            if keyword == "$ref":
                res = node.result(ctx)
                causes = res.causes if res.kind == "group" else [res]
                err = _Err(self.loc, "validation failed", causes, "ref")
                if ctx.draft < 2019:
                    return err
                items.append(((_RANK["$ref"], ""), err))
                continue
            sub = ""
            if keyword in ("properties", "items", "unevaluatedProperties", "unevaluatedItems"):
                extra = _PER_PROPERTY.get(key[3] if len(key) > 3 else keyword, 0)
                sub = "%s\x00%d\x00%s" % (_sort_token(key[2][-1] if key[2] else ""), extra, _sort_token(key[1]))
            elif keyword in ("patternProperties",):
                keyword, sub = "properties", "%s\x00%d\x00%s" % (_sort_token(key[2][-1]), 1, key[1])
            else:
                sub = _sort_token(key[1])
            items.append(((_RANK.get(keyword, len(_RANK)), sub), node.result(ctx)))
        items.sort(key=lambda item: item[0])
        errs = [err for _key, err in items if err is not None]
        if len(errs) == 1:
            return errs[0]
        return _Err(self.loc, "validation failed", errs, "group")


class _Group(_Node):
    """A keyword whose failing subschemas become its causes (allOf, anyOf, oneOf, contains, propertyNames)."""

    message = "'allOf' failed"

    def result(self, ctx):
        causes = [self.children[key].result(ctx) for key in sorted(self.children, key=_sort_token)]
        if self.message.startswith("invalid propertyName") and causes and causes[0].kind == "group":
            causes = causes[0].causes
        return _Err(self.loc, self.message, causes, "keyword")


def _sort_token(value):
    if isinstance(value, int):
        return "%020d" % value
    return "" if value is None else str(value)


def _pointer(loc):
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in loc)


def _display(value):
    if isinstance(value, str):
        return squote(value)
    return _num(value)


def _num(value):
    if isinstance(value, bool) or value is None:
        return format_value(value)
    if isinstance(value, float) and value == int(value) and abs(value) < 1e21:
        return "%d" % int(value)
    return format_value(value)


class _Messages(object):
    """v6's wording for values, shared with the compiled validator."""

    quote = staticmethod(squote)
    num = staticmethod(_num)
    display = staticmethod(_display)

    @staticmethod
    def const(value):
        return "'const' failed" if isinstance(value, (dict, list)) else "value must be %s" % _display(value)

    @staticmethod
    def enum(values):
        if any(isinstance(v, (dict, list)) for v in values):
            return "'enum' failed"
        if len(values) == 1:
            return "value must be %s" % _display(values[0])
        return "value must be one of %s" % ", ".join(_display(v) for v in values)


def _leaf(keyword, error, node):
    if keyword == "false":
        return _Err(node.loc, "false schema")
    if keyword == "oneOf" and isinstance(error, str):
        return _Err(node.loc, error)
    if keyword == "unevaluatedProperties" and error.validator_value is False:
        names = re.findall(r"'((?:[^'\\]|\\.)*)'", error.message.split("(", 1)[-1])
        causes = [_Err(node.loc + (name,), "false schema") for name in names]
        return causes[0] if len(causes) == 1 else _Err(node.loc, "validation failed", causes, "group")
    if keyword == "items" and error.validator_value is False and isinstance(node.instance, list):
        start = len((node.schema or {}).get("prefixItems") or [])
        causes = [_Err(node.loc + (i,), "false schema") for i in range(start, len(node.instance))]
        return causes[0] if len(causes) == 1 else _Err(node.loc, "validation failed", causes, "group")
    return _Err(node.loc, _message(keyword, error, node))


def _message(keyword, error, node):
    value, inst = error.validator_value, error.instance
    if keyword == "type":
        return schemav6.type_mismatch(value if isinstance(value, list) else [value], inst)
    if keyword == "enum":
        if any(isinstance(v, (dict, list)) for v in value):
            return "'enum' failed"
        if len(value) == 1:
            return "value must be %s" % _display(value[0])
        return "value must be one of %s" % ", ".join(_display(v) for v in value)
    if keyword == "const":
        if isinstance(value, (dict, list)):
            return "'const' failed"
        return "value must be %s" % _display(value)
    if keyword == "format":
        return "%s is not valid %s" % (_display(inst), value)
    if keyword == "required":
        names = [squote(name) for name in value if isinstance(inst, dict) and name not in inst]
        return ("missing property %s" if len(names) == 1 else "missing properties %s") % ", ".join(names)
    if keyword == "additionalProperties" and value is False:
        return "additional properties %s not allowed" % ", ".join(squote(k) for k in _extras(error))
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        return "%s: got %s, want %s" % (keyword, _num(inst), _num(value))
    if keyword in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"):
        return "%s: got %d, want %d" % (keyword, len(inst), value)
    if keyword == "pattern":
        return "%s does not match pattern %s" % (squote(inst), squote(value))
    if keyword == "uniqueItems":
        i, j = _duplicate(inst)
        return "items at %d and %d are equal" % (i, j)
    if keyword == "additionalItems" and value is False:
        start = len((error.schema or {}).get("items") or [])
        return "last %d additionalItem(s) not allowed" % (len(inst) - start)
    if keyword == "not":
        return "'not' failed"
    return error.message


def _dependents(error):
    """``(property, missing names)`` for each present property whose dependencies are missing."""
    inst = error.instance if isinstance(error.instance, dict) else {}
    out = []
    for prop, wanted in (error.validator_value or {}).items():
        if prop in inst and isinstance(wanted, list):
            missing = [name for name in wanted if name not in inst]
            if missing:
                out.append((prop, missing))
    return out


def _extras(error):
    schema = error.schema if isinstance(error.schema, dict) else {}
    props = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    return [key for key in error.instance
            if key not in props and not any(re.search(p, key) for p in patterns)]


def _duplicate(items):
    for j in range(len(items)):
        for i in range(j):
            if json.dumps(items[i], sort_keys=True) == json.dumps(items[j], sort_keys=True):
                return i, j
    return 0, 0
