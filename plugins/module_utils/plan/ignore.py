"""Ignore rules, with the semantics of Flux's ``driftDetection.ignore``: JSON pointers (RFC 6901) of fields
another controller owns (an HPA's ``/spec/replicas``, a webhook ``caBundle`` cert-manager injects), left to it.

On an object that exists, an ignored field is *pinned* to its live value in everything the planner compares
and sends (the last manifest, the new one, the body of an apply or replace), so it is never reported as drift,
never part of a diff or of ``changed``, and never written back, whatever the strategy. A new object is still
created with the chart's values. The pointer ``""`` ignores a whole object. A rule's ``target`` selects
objects as Flux's does: ``group``, ``version``, ``kind``, ``name`` and ``namespace`` are anchored Go regular
expressions, ``label_selector`` and ``annotation_selector`` Kubernetes label selectors; no target, every object.
"""
import copy
import json
import re

from ..errors import HelmlessError
from ..govalue.re2 import RegexpError, translate
from ..postrender.errors import PostRenderError
from ..postrender.resources import selector_matches

ROOT = ()  # the tokens of pointer "": the whole object
_REGEX_FIELDS = ("group", "version", "kind", "name", "namespace")
_SELECTORS = ("label_selector", "annotation_selector")
_ALIASES = {"labelSelector": "label_selector", "annotationSelector": "annotation_selector"}  # Flux's names
_MISSING = object()


class IgnoreError(HelmlessError):
    """An ignore rule that cannot be used (a pointer that does not parse, a bad regular expression or selector)."""


def parse_pointer(text):
    """The reference tokens of JSON pointer ``text`` (``~1`` is ``/``, ``~0`` is ``~``); ValueError if it is not one."""
    if not isinstance(text, str):
        raise ValueError("it is a %s, not a string" % type(text).__name__)
    if text == "":
        return ROOT
    if not text.startswith("/"):
        raise ValueError('it must be "" (the whole object) or start with "/"')
    tokens = []
    for raw in text[1:].split("/"):
        if re.search(r"~(?![01])", raw):
            raise ValueError('"~" must be followed by 0 or 1 (write "~0" for "~" and "~1" for "/")')
        tokens.append(raw.replace("~1", "/").replace("~0", "~"))
    return tuple(tokens)


class Rule:
    """One compiled rule: its pointers and its target's matchers."""

    def __init__(self, paths, target):
        self.paths = paths  # [(pointer text, tokens)]
        self.regexes = {k: re.compile(translate("^(?:%s)$" % v)[0]) for k, v in target.items()
                        if k in _REGEX_FIELDS and v}
        self.selectors = {k: v for k, v in target.items() if k in _SELECTORS and v}

    def matches(self, obj, namespace):
        api_version = str(obj.get("apiVersion") or "")
        group, _sep, version = api_version.rpartition("/")
        meta = obj.get("metadata") or {}
        have = {"group": group, "version": version, "kind": str(obj.get("kind") or ""),
                "name": str(meta.get("name") or ""), "namespace": namespace or ""}
        if any(not pattern.match(have[key]) for key, pattern in self.regexes.items()):
            return False
        for key, selector in self.selectors.items():
            values = meta.get("labels" if key == "label_selector" else "annotations") or {}
            if not selector_matches(selector, {k: str(v) for k, v in values.items()}):
                return False
        return True


class IgnoreRules:
    """The compiled rules of a task; ``for_object`` gives the pointers that apply to one object."""

    def __init__(self, rules):
        self.rules = rules

    def __bool__(self):
        return bool(self.rules)

    def for_object(self, obj, namespace):
        """[(pointer text, tokens)] of every rule matching ``obj`` in ``namespace`` (its own or the release's)."""
        out = []
        for rule in self.rules:
            if rule.matches(obj, namespace):
                out.extend(p for p in rule.paths if p not in out)
        return out


NONE = IgnoreRules([])


def compile_rules(rules, option="ignore"):
    """IgnoreRules from the option's list; IgnoreError naming the rule and field of the first bad entry."""
    compiled = []
    for index, rule in enumerate(rules or ()):
        where = "%s[%d]" % (option, index)
        if not isinstance(rule, dict):
            raise IgnoreError("%s: a rule is a mapping with paths (and a target), got %r" % (where, rule))
        paths = rule.get("paths")
        if isinstance(paths, str) or not isinstance(paths, (list, tuple)) or not paths:
            raise IgnoreError("%s.paths: a list of one or more JSON pointers (RFC 6901) is required" % where)
        parsed = []
        for number, text in enumerate(paths):
            try:
                parsed.append((text, parse_pointer(text)))
            except ValueError as exc:
                raise IgnoreError('%s.paths[%d]: %s is not a JSON pointer (RFC 6901): %s'
                                  % (where, number, json.dumps(text), exc)) from exc
        target = rule.get("target") or {}
        if not isinstance(target, dict):
            raise IgnoreError("%s.target: a mapping of %s, got %r" % (
                where, ", ".join(_REGEX_FIELDS + _SELECTORS), target))
        target = dict(target)
        for alias, name in _ALIASES.items():  # Ansible keeps an alias beside the option it names
            value = target.pop(alias, None)
            if target.get(name) is None:
                target[name] = value
        unknown = sorted(set(target) - set(_REGEX_FIELDS + _SELECTORS))
        if unknown:
            raise IgnoreError("%s.target: unknown field(s) %s (known: %s)" % (
                where, ", ".join(unknown), ", ".join(_REGEX_FIELDS + _SELECTORS)))
        for key in _REGEX_FIELDS:
            if target.get(key):
                try:
                    translate("^(?:%s)$" % target[key])
                except RegexpError as exc:
                    raise IgnoreError("%s.target.%s: %s" % (where, key, exc)) from exc
        for key in _SELECTORS:
            if target.get(key):
                try:
                    selector_matches(str(target[key]), {})
                except PostRenderError as exc:
                    raise IgnoreError("%s.target.%s: invalid label selector %s" % (
                        where, key, json.dumps(target[key]))) from exc
        compiled.append(Rule(parsed, {k: str(v) for k, v in target.items() if v is not None}))
    return IgnoreRules(compiled)


def value_at(obj, tokens):
    """The value at ``tokens`` in ``obj``, _MISSING when absent."""
    node = obj
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _MISSING
    return node


def _remove(obj, tokens):
    parent = value_at(obj, tokens[:-1])
    last = tokens[-1]
    if isinstance(parent, dict):
        parent.pop(last, None)
    elif isinstance(parent, list) and last.isdigit() and int(last) < len(parent):
        del parent[int(last)]


def _put(obj, tokens, value):
    """Set ``value`` at ``tokens`` where its parent exists (an item may be appended to a list); False else. A
    parent the object lacks is left out: nothing under it is compared, sent or reported either way."""
    parent = value_at(obj, tokens[:-1])
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
        return True
    if isinstance(parent, list) and last.isdigit() and int(last) <= len(parent):
        if int(last) == len(parent):
            parent.append(value)
        else:
            parent[int(last)] = value
        return True
    return False


def pinned(obj, live, paths):
    """A copy of ``obj`` holding ``live``'s value at every pointer of ``paths`` (left out where live has none)."""
    if not paths or obj is None or live is None:
        return obj
    out = copy.deepcopy(obj)
    for _text, tokens in paths:
        if tokens == ROOT:
            continue
        have = value_at(live, tokens)
        if have is _MISSING or not _put(out, tokens, copy.deepcopy(have)):
            _remove(out, tokens)
        if out.get("kind") == "Secret" and tokens[0] == "data" and len(tokens) <= 2:
            _remove(out, ("stringData",) + tokens[1:])  # the server folds stringData over data: it would win
    return out


def differing(obj, live, paths):
    """The pointers of ``paths`` where ``live`` holds another value than ``obj`` (what the rules keep)."""
    return [text for text, tokens in paths
            if tokens != ROOT and value_at(obj, tokens) != value_at(live, tokens)]


def whole(paths):
    """Whether ``paths`` ignore the whole object (pointer ``""``)."""
    return any(tokens == ROOT for _text, tokens in paths)


def _owned_node(node, container, token):
    """The FieldsV1 child of ``node`` for ``token`` of ``container`` (the live map or list), or None."""
    if isinstance(container, dict):
        return node.get("f:" + token)
    if not (isinstance(container, list) and token.isdigit() and int(token) < len(container)):
        return None
    item = container[int(token)]
    for key, child in node.items():
        if key.startswith("k:") and isinstance(item, dict):
            try:
                keys = json.loads(key[2:])
            except ValueError:
                continue
            if all(item.get(k) == v for k, v in keys.items()):
                return child
        elif key.startswith("v:"):
            try:
                if json.loads(key[2:]) == item:
                    return child
            except ValueError:
                continue
        elif key == "i:" + token:
            return child
    return None


def owns(owned, live, tokens):
    """Whether the FieldsV1 trie ``owned`` (one manager's) covers the field at ``tokens`` of ``live``."""
    node, container = owned or {}, live
    for token in tokens:
        if not node:
            return bool(owned)  # a leaf: owned as a whole (an atomic map or list above the field)
        node = _owned_node(node, container, token)
        if node is None:
            return False
        container = value_at(container, (token,))
    return True


def unowned_left_out(body, live, paths, owned):
    """A server-side apply body without the pinned fields the manager does not own: applying another
    manager's value would make ours a co-owner (a change to managedFields), and leaving out one we own
    would remove it."""
    out = body
    for _text, tokens in paths:
        if tokens != ROOT and value_at(live, tokens) is not _MISSING and not owns(owned, live, tokens):
            if out is body:
                out = copy.deepcopy(body)
            _remove(out, tokens)
    return out
