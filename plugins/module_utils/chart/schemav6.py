"""A direct port of santhosh-tekuri/jsonschema v6's validation order, for speed and exact messages.

Schemas are compiled once (cached by content) into small objects; validating returns
the v6 error tree (:class:`schema._Err`) or ``None``.  Features outside what charts use
(remote or ``$id``-based references, ``$dynamicRef``, ``$recursiveRef``,
``unevaluated*``, content*) raise :class:`Unsupported`, and the caller falls back to
the ``jsonschema`` package.
"""

import re
from types import MappingProxyType
from urllib.parse import unquote

from ..govalue.re2 import RegexpError, translate
from . import formats
from ..regexcache import regex

_UNSUPPORTED = ("$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems",
                "contentSchema", "$anchor", "$dynamicAnchor", "$recursiveAnchor")
_TYPE_ORDER = ("null", "boolean", "number", "integer", "string", "array", "object")
_DRAFTS = (("draft-04", 4), ("draft-06", 6), ("draft-07", 7), ("2019-09", 2019), ("2020-12", 2020))


def draft_of(schema):
    """The draft ``$schema`` names; anything else (or none) is 2020-12, as for v6."""
    url = schema.get("$schema") if isinstance(schema, dict) else None
    for marker, draft in _DRAFTS:
        if isinstance(url, str) and marker in url:
            return draft
    return 2020


class Unsupported(Exception):
    """The schema needs a feature this port leaves to the ``jsonschema`` package."""


def json_type(value):
    if value is None:
        return "null"
    if value is True or value is False:
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "invalid"


def type_mismatch(types, value):
    """v6's ``type`` failure text: the value's JSON type, then the wanted ones in v6's order."""
    want = sorted(types, key=lambda x: _TYPE_ORDER.index(x) if x in _TYPE_ORDER else 99)
    return "got %s, want %s" % (json_type(value), " or ".join(want))


def _is_integer(value):
    return isinstance(value, int) or isinstance(value, float) and value.is_integer()


def equal(a, b):
    """JSON equality: numbers by value, booleans never equal numbers."""
    ta, tb = json_type(a), json_type(b)
    if ta != tb:
        return False
    if ta == "array":
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if ta == "object":
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    return a == b


class _Compiler(object):
    def __init__(self, root, draft):
        self.root = root
        self.draft = draft
        self.cache = {}

    def compile(self, schema):
        key = id(schema)
        if key in self.cache:
            return self.cache[key]
        node = _Schema()
        self.cache[key] = node
        node.fill(self, schema)
        return node

    def resolve(self, ref):
        if not ref.startswith("#"):
            raise Unsupported("reference %s" % ref)
        target = self.root
        for part in ref[1:].split("/")[1:] if ref != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            part = unquote(part)
            if isinstance(target, list):
                target = target[int(part)]
            elif isinstance(target, dict) and part in target:
                target = target[part]
            else:
                raise Unsupported("unresolvable reference %s" % ref)
        return self.compile(target)


_OBJECT_KEYWORDS = frozenset(("minProperties", "maxProperties", "required", "dependencies", "properties",
                              "patternProperties", "additionalProperties", "propertyNames", "dependentSchemas",
                              "dependentRequired"))
_ARRAY_KEYWORDS = frozenset(("minItems", "maxItems", "uniqueItems", "items", "additionalItems", "prefixItems",
                             "contains", "minContains", "maxContains"))
_STRING_KEYWORDS = frozenset(("minLength", "maxLength", "pattern"))
_NUMBER_KEYWORDS = frozenset(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"))
_LOGIC_KEYWORDS = frozenset(("not", "allOf", "anyOf", "oneOf", "if"))


class _Schema(object):
    """One compiled (sub)schema. A keyword the schema lacks reads as the class's value (None, or an empty
    properties map and prefixItems list), and a group of keywords the schema has none of is not looked at:
    most subschemas are a type and a description, and setting all 47 keywords of each one (loki's schema has
    thousands) was most of compiling it."""
    boolean = types = const = has_const = enum = format = ref = min_props = max_props = None
    required = dependencies = additional = property_names = None
    dependent_schemas = dependent_required = min_items = max_items = unique = items = None
    tuple_items = additional_items = contains = min_contains = max_contains = None
    min_length = max_length = pattern = pattern_text = minimum = maximum = ex_minimum = None
    ex_maximum = multiple_of = not_ = all_of = any_of = one_of = if_ = then = else_ = draft = raw = None
    properties = MappingProxyType({})
    pattern_props = prefix_items = ()

    def fill(self, c, schema):
        self.draft = c.draft
        self.raw = schema
        if isinstance(schema, bool):
            self.boolean = schema
            return
        if not isinstance(schema, dict):
            raise Unsupported("schema is %s" % type(schema).__name__)
        keys = schema.keys()
        if not keys.isdisjoint(_UNSUPPORTED):
            raise Unsupported(next(name for name in _UNSUPPORTED if name in schema))
        if "$id" in schema and schema is not c.root or "id" in schema and c.draft == 4 and schema is not c.root:
            raise Unsupported("$id")
        kind = schema.get("type")
        if kind is not None:
            self.types = set([kind] if isinstance(kind, str) else kind)
            if not self.types <= set(_TYPE_ORDER):
                raise Unsupported("type %r" % (kind,))
        if "const" in schema:
            self.has_const, self.const = True, schema["const"]
        self.enum = schema.get("enum")
        if c.draft <= 7 and isinstance(schema.get("format"), str):
            self.format = schema["format"]
        if "$ref" in schema:
            self.ref = c.resolve(schema["$ref"])
        if not keys.isdisjoint(_OBJECT_KEYWORDS):
            self._object(c, schema)
        if not keys.isdisjoint(_ARRAY_KEYWORDS):
            self._array(c, schema)
        if not keys.isdisjoint(_STRING_KEYWORDS):
            self.min_length, self.max_length = schema.get("minLength"), schema.get("maxLength")
            if "pattern" in schema:
                self.pattern, self.pattern_text = _regex(schema["pattern"]), schema["pattern"]
        if not keys.isdisjoint(_NUMBER_KEYWORDS):
            self._number(c, schema)
        if not keys.isdisjoint(_LOGIC_KEYWORDS):
            self._logic(c, schema)

    def _object(self, c, schema):
        self.min_props, self.max_props = schema.get("minProperties"), schema.get("maxProperties")
        self.required = schema.get("required") or None
        deps = schema.get("dependencies")
        if isinstance(deps, dict):
            self.dependencies = [(k, v if isinstance(v, list) else c.compile(v)) for k, v in deps.items()]
        self.properties = {k: c.compile(v) for k, v in (schema.get("properties") or {}).items()}
        self.pattern_props = [(_regex(p), c.compile(v)) for p, v in (schema.get("patternProperties") or {}).items()]
        add = schema.get("additionalProperties")
        self.additional = add if isinstance(add, bool) or add is None else c.compile(add)
        if "propertyNames" in schema and c.draft != 4:
            self.property_names = c.compile(schema["propertyNames"])
        if c.draft >= 2019:
            self.dependent_schemas = [(k, c.compile(v)) for k, v in (schema.get("dependentSchemas") or {}).items()]
            self.dependent_required = list((schema.get("dependentRequired") or {}).items())

    def _array(self, c, schema):
        self.min_items, self.max_items = schema.get("minItems"), schema.get("maxItems")
        self.unique = schema.get("uniqueItems") is True
        items = schema.get("items")
        if c.draft < 2020:
            if isinstance(items, list):
                self.tuple_items = [c.compile(v) for v in items]
            elif items is not None:
                self.items = c.compile(items)
            add_items = schema.get("additionalItems")
            if add_items is not None:
                self.additional_items = add_items if isinstance(add_items, bool) else c.compile(add_items)
        else:
            self.prefix_items = [c.compile(v) for v in schema.get("prefixItems") or []]
            if items is not None:
                self.items = c.compile(items)
        if "contains" in schema and c.draft != 4:
            self.contains = c.compile(schema["contains"])
            if c.draft >= 2019:
                self.min_contains, self.max_contains = schema.get("minContains"), schema.get("maxContains")

    def _number(self, c, schema):
        self.minimum, self.maximum = schema.get("minimum"), schema.get("maximum")
        ex_min, ex_max = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        if c.draft == 4:
            if ex_min is True:
                self.ex_minimum, self.minimum = self.minimum, None
            if ex_max is True:
                self.ex_maximum, self.maximum = self.maximum, None
        else:
            self.ex_minimum, self.ex_maximum = ex_min, ex_max
        self.multiple_of = schema.get("multipleOf")

    def _logic(self, c, schema):
        if "not" in schema:
            self.not_ = c.compile(schema["not"])
        self.all_of = [c.compile(v) for v in schema.get("allOf") or []]
        self.any_of = [c.compile(v) for v in schema.get("anyOf") or []]
        self.one_of = [c.compile(v) for v in schema.get("oneOf") or []]
        if "if" in schema and c.draft >= 7:
            self.if_ = c.compile(schema["if"])
            self.then = c.compile(schema["then"]) if "then" in schema else None
            self.else_ = c.compile(schema["else"]) if "else" in schema else None


def _regex(pattern):
    """Go RE2 semantics: the pattern translated by ``govalue.re2``."""
    try:
        return regex(translate(pattern)[0])
    except (RegexpError, re.error) as exc:
        raise Unsupported("pattern %s: %s" % (pattern, exc))


_COMPILED = {}


def compile_schema(schema_text, schema, draft):
    """The compiled root schema (cached per schema text)."""
    key = (schema_text, draft)
    if key not in _COMPILED:
        if len(_COMPILED) > 64:
            _COMPILED.clear()
        _COMPILED[key] = _Compiler(schema, draft).compile(schema)
    return _COMPILED[key]


class Validator(object):
    """Evaluates a compiled schema the way v6's ``validator.validate`` does."""

    def __init__(self, err_class, messages):
        self.Err = err_class
        self.msg = messages

    def validate(self, s, v, loc, want_error=True):
        Err = self.Err
        if s.boolean is not None:
            return None if s.boolean else Err(loc, "false schema")
        t = json_type(v)
        if s.types is not None and t not in s.types and not (
                "integer" in s.types and t == "number" and _is_integer(v)):
            return Err(loc, type_mismatch(s.types, v))
        if s.has_const and not equal(v, s.const):
            return Err(loc, self.msg.const(s.const))
        if s.enum is not None and not any(equal(v, item) for item in s.enum):
            return Err(loc, self.msg.enum(s.enum))
        if s.format is not None:
            reason = formats.check(v, s.format)
            if reason is not None:
                return Err(loc, "%s is not valid %s: %s" % (self.msg.display(v), s.format, reason))
        errors = []
        if s.ref is not None:
            err = self.validate(s.ref, v, loc)
            if err is not None:
                err = Err(loc, "validation failed", err.causes if err.kind == "group" else [err], "ref")
            if s.draft < 2019:
                return err
            if err is not None:
                errors.append(err)
        if t == "object":
            self._object(s, v, loc, errors)
        elif t == "array":
            self._array(s, v, loc, errors)
        elif t == "string":
            self._string(s, v, loc, errors)
        elif t == "number":
            self._number(s, v, loc, errors)
        self._conditions(s, v, loc, errors)
        if not errors:
            return None
        if len(errors) == 1:
            return errors[0]
        return Err(loc, "validation failed", errors, "group")

    def _add(self, errors, err):
        if err is not None:
            errors.append(err)

    def _object(self, s, obj, loc, errors):
        Err, q = self.Err, self.msg.quote
        if s.min_props is not None and len(obj) < s.min_props:
            errors.append(Err(loc, "minProperties: got %d, want %d" % (len(obj), s.min_props)))
        if s.max_props is not None and len(obj) > s.max_props:
            errors.append(Err(loc, "maxProperties: got %d, want %d" % (len(obj), s.max_props)))
        if s.required:
            missing = [n for n in s.required if n not in obj]
            if missing:
                errors.append(Err(loc, ("missing property %s" if len(missing) == 1 else "missing properties %s")
                                  % ", ".join(q(n) for n in missing)))
        for name, dep in s.dependencies or ():
            if name in obj:
                if isinstance(dep, list):
                    missing = [n for n in dep if n not in obj]
                    if missing:
                        errors.append(Err(loc, "properties %s required, if %s exists"
                                          % (", ".join(q(n) for n in missing), q(name))))
                else:
                    self._add(errors, self.validate(dep, obj, loc))
        extra = []
        for name in sorted(obj):
            value = obj[name]
            evaluated = False
            sub = s.properties.get(name)
            if sub is not None:
                evaluated = True
                self._add(errors, self.validate(sub, value, loc + (name,)))
            for regex, sub in s.pattern_props:
                if regex.search(name):
                    evaluated = True
                    self._add(errors, self.validate(sub, value, loc + (name,)))
            if not evaluated and s.additional is not None:
                if s.additional is False:
                    extra.append(name)
                elif s.additional is not True:
                    self._add(errors, self.validate(s.additional, value, loc + (name,)))
        if extra:
            errors.append(Err(loc, "additional properties %s not allowed" % ", ".join(q(n) for n in extra)))
        if s.property_names is not None:
            for name in sorted(obj):
                err = self.validate(s.property_names, name, ())
                if err is not None:
                    causes = err.causes if err.kind == "group" else [err]
                    errors.append(Err(loc, "invalid propertyName %s" % q(name), causes, "keyword"))
        for name, sub in s.dependent_schemas or ():
            if name in obj:
                self._add(errors, self.validate(sub, obj, loc))
        for name, wanted in s.dependent_required or ():
            if name in obj:
                missing = [n for n in wanted if n not in obj]
                if missing:
                    errors.append(Err(loc, "properties %s required, if %s exists"
                                      % (", ".join(q(n) for n in missing), q(name))))

    def _array(self, s, arr, loc, errors):
        Err = self.Err
        if s.min_items is not None and len(arr) < s.min_items:
            errors.append(Err(loc, "minItems: got %d, want %d" % (len(arr), s.min_items)))
        if s.max_items is not None and len(arr) > s.max_items:
            errors.append(Err(loc, "maxItems: got %d, want %d" % (len(arr), s.max_items)))
        if s.unique and len(arr) > 1:
            pair = _duplicates(arr)
            if pair:
                errors.append(Err(loc, "items at %d and %d are equal" % pair))
        if s.draft < 2020:
            evaluated = 0
            if s.items is not None:
                for i, item in enumerate(arr):
                    self._add(errors, self.validate(s.items, item, loc + (i,)))
                evaluated = len(arr)
            elif s.tuple_items is not None:
                evaluated = min(len(arr), len(s.tuple_items))
                for i in range(evaluated):
                    self._add(errors, self.validate(s.tuple_items[i], arr[i], loc + (i,)))
            if s.additional_items is not None:
                if s.additional_items is False:
                    if evaluated != len(arr):
                        errors.append(Err(loc, "last %d additionalItem(s) not allowed" % (len(arr) - evaluated)))
                elif s.additional_items is not True:
                    for i in range(evaluated, len(arr)):
                        self._add(errors, self.validate(s.additional_items, arr[i], loc + (i,)))
        else:
            evaluated = min(len(s.prefix_items), len(arr))
            for i in range(evaluated):
                self._add(errors, self.validate(s.prefix_items[i], arr[i], loc + (i,)))
            if s.items is not None:
                for i in range(evaluated, len(arr)):
                    self._add(errors, self.validate(s.items, arr[i], loc + (i,)))
        if s.contains is not None:
            failed, matched = [], []
            for i, item in enumerate(arr):
                err = self.validate(s.contains, item, loc + (i,))
                if err is None:
                    matched.append(i)
                else:
                    failed.append(err)
            at = " ".join(map(str, matched))
            if s.min_contains is not None:
                if len(matched) < s.min_contains:
                    errors.append(Err(loc, "min %d items required to match contains schema, but matched %d items "
                                           "at %s" % (s.min_contains, len(matched), at), failed, "keyword"))
            elif not matched:
                errors.append(Err(loc, "no items match contains schema", failed, "keyword"))
            if s.max_contains is not None and len(matched) > s.max_contains:
                errors.append(Err(loc, "max %d items required to match contains schema, but matched %d items at %s"
                                  % (s.max_contains, len(matched), at)))

    def _string(self, s, text, loc, errors):
        Err = self.Err
        if s.min_length is not None and len(text) < s.min_length:
            errors.append(Err(loc, "minLength: got %d, want %d" % (len(text), s.min_length)))
        if s.max_length is not None and len(text) > s.max_length:
            errors.append(Err(loc, "maxLength: got %d, want %d" % (len(text), s.max_length)))
        if s.pattern is not None and not s.pattern.search(text):
            errors.append(Err(loc, "%s does not match pattern %s" % (self.msg.quote(text), self.msg.quote(s.pattern_text))))

    def _number(self, s, num, loc, errors):
        Err, n = self.Err, self.msg.num
        for bound, name, failed in ((s.minimum, "minimum", lambda b: num < b), (s.maximum, "maximum", lambda b: num > b),
                                    (s.ex_minimum, "exclusiveMinimum", lambda b: num <= b),
                                    (s.ex_maximum, "exclusiveMaximum", lambda b: num >= b)):
            if isinstance(bound, (int, float)) and not isinstance(bound, bool) and failed(bound):
                errors.append(Err(loc, "%s: got %s, want %s" % (name, n(num), n(bound))))
        if s.multiple_of:
            from fractions import Fraction  # lazy: only multipleOf needs exact rationals
            try:
                ratio = Fraction(repr(num) if isinstance(num, float) else num) / Fraction(
                    repr(s.multiple_of) if isinstance(s.multiple_of, float) else s.multiple_of)
            except (ValueError, ZeroDivisionError):
                ratio = 1
            if ratio.denominator != 1:
                errors.append(Err(loc, "multipleOf: got %s, want %s" % (n(num), n(s.multiple_of))))

    def _conditions(self, s, v, loc, errors):
        Err = self.Err
        if s.not_ is not None and self.validate(s.not_, v, loc) is None:
            errors.append(Err(loc, "'not' failed"))
        if s.all_of:
            failed = [e for e in (self.validate(sub, v, loc) for sub in s.all_of) if e is not None]
            if failed:
                errors.append(Err(loc, "'allOf' failed", failed, "keyword"))
        if s.any_of:
            failed = []
            for sub in s.any_of:
                err = self.validate(sub, v, loc)
                if err is None:
                    failed = None
                    break
                failed.append(err)
            if failed is not None:
                errors.append(Err(loc, "'anyOf' failed", failed, "keyword"))
        if s.one_of:
            matched, failed = -1, []
            for i, sub in enumerate(s.one_of):
                err = self.validate(sub, v, loc)
                if err is None:
                    if matched == -1:
                        matched = i
                    else:
                        errors.append(Err(loc, "'oneOf' failed, subschemas %d, %d matched" % (matched, i)))
                        break
                elif matched == -1:
                    failed.append(err)
            if matched == -1:
                errors.append(Err(loc, "'oneOf' failed, none matched", failed, "keyword"))
        if s.if_ is not None:
            if self.validate(s.if_, v, loc) is None:
                if s.then is not None:
                    self._add(errors, self.validate(s.then, v, loc))
            elif s.else_ is not None:
                self._add(errors, self.validate(s.else_, v, loc))


def _duplicates(arr):
    for j in range(1, len(arr)):
        for i in range(j):
            if equal(arr[i], arr[j]):
                return i, j
    return None
