"""YAML loading with the semantics of ``sigs.k8s.io/yaml.Unmarshal`` (Helm's loader).

Go first decodes with go-yaml v2 (YAML 1.1 typing, merge keys, alias limits), then
turns the result into JSON (keys become strings, NaN/Inf fail) and decodes that into
``interface{}`` (every number becomes float64).  PyYAML's (libyaml) event parser does
the syntax: go-yaml v2 is a port of libyaml, so error texts and marks agree.  The
events are turned into values here, directly in the JSON model.
"""
import base64
import binascii
import math

from ..govalue.strconv import format_float, go_quote
from .errors import YAMLError
from .resolve import resolve_plain
from ..regexcache import regex

# PyYAML, its parser and event classes: bound by _bind() on first use, so this module imports without
# PyYAML (the modules then report the missing library, see ansible/requirements.py). Module globals keep
# the event loop's class checks as cheap as before.
_yaml = _parser_class = _deep_parser_class = None
_SCALAR = _ALIAS = _MAP_START = _SEQ_START = _MAP_END = _SEQ_END = _DOC_START = _DOC_END = _STREAM_END = None


def _bind():
    global _yaml, _parser_class, _deep_parser_class, _SCALAR, _ALIAS, _MAP_START, _SEQ_START, _MAP_END, _SEQ_END
    global _DOC_START, _DOC_END, _STREAM_END
    # lazy: module_utils import without PyYAML (ansible/libraries.py)
    import yaml
    from yaml import events

    try:
        from yaml import _yaml as ext
        parser_class = ext.CParser
    except ImportError:  # PyYAML without libyaml: same events, slower
        parser_class = yaml.BaseLoader
    else:
        get_level = getattr(ext, "_get_max_nest_level", None)  # PyYAML >= 6.0.4
        if get_level is not None and get_level() != -1:  # libyaml >= 0.2.6 limits nesting
            _deep_parser_class = _deep_parser(parser_class, get_level, ext._set_max_nest_level)
    _SCALAR, _ALIAS = events.ScalarEvent, events.AliasEvent
    _MAP_START, _SEQ_START = events.MappingStartEvent, events.SequenceStartEvent
    _MAP_END, _SEQ_END = events.MappingEndEvent, events.SequenceEndEvent
    _DOC_START, _DOC_END, _STREAM_END = events.DocumentStartEvent, events.DocumentEndEvent, events.StreamEndEvent
    _yaml, _parser_class = yaml, parser_class


# libyaml 0.2.6 (PyYAML 6.0.4's wheels) refuses more than 1000 nested block indents and flow levels together,
# with this text; go-yaml v2 allows 10000 of each (MAX_DEPTH below).
_LIBYAML_NESTING = "exceeded maximum nesting depth"


def _deep_parser(base, get_level, set_level):
    """A libyaml parser that reads each event with the nesting limit go-yaml needs.

    The limit is process-wide (PyYAML's own loaders rely on it against deep recursion), so it is
    raised only for the duration of each event and restored at once; the parser is used only for
    a text the default limit refused."""
    def get_event(self):
        saved = get_level()
        set_level(max(saved, 2 * MAX_DEPTH))
        try:
            return base.get_event(self)
        finally:
            set_level(saved)

    return type("DeepParser", (base,), {"get_event": get_event})


_T = "tag:yaml.org,2002:"
_STR, _BINARY, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP, _MERGE = (
    _T + n for n in ("str", "binary", "int", "float", "bool", "null", "timestamp", "merge"))
_RESOLVABLE = frozenset(("", _STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP))
_NOKEY = object()
_MERGEKEY = object()


class _Fail(Exception):
    """A go-yaml decode-phase error: reported only if the document parses."""


def _short_tag(tag):
    return "!!" + tag[len(_T):] if tag.startswith(_T) else tag


def _tag_of(raw):
    if raw is None:
        return _NULL
    if isinstance(raw, bool):
        return _BOOL
    if isinstance(raw, int):
        return _INT
    if isinstance(raw, float):
        return _FLOAT
    return _STR


def go_sharp_v(v, top=True):
    """Go's ``%#v`` for decoded YAML values (used in Go's error texts)."""
    if v is None:
        return "<nil>" if top else "interface {}(nil)"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return format_float(v)
    if isinstance(v, str):
        return go_quote(v)
    if isinstance(v, list):
        return "[]interface {}{" + ", ".join(go_sharp_v(x, False) for x in v) + "}"
    if isinstance(v, dict):
        return "map[interface {}]interface {}{" + ", ".join(
            "%s:%s" % (go_sharp_v(k, False), go_sharp_v(x, False)) for k, x in sorted(v.items())) + "}"
    return repr(v)


def _resolve_tagged(tag, value, plain):
    """go-yaml v2 ``resolve(tag, value)`` for a scalar; returns the raw Go value."""
    if tag is None:
        return resolve_plain(value) if plain else value
    if tag == _BINARY:
        try:
            data = base64.b64decode(value.replace("\n", "").replace(" ", ""), validate=True)
        except (binascii.Error, ValueError):
            raise _Fail("!!binary value contains invalid base64 data")
        return data.decode("utf-8", "replace")
    if tag not in _RESOLVABLE:
        return value  # unknown tags leave the text as is
    if tag == _STR:
        return value
    raw = resolve_plain(value)
    if tag == _TIMESTAMP and isinstance(raw, str):
        return raw
    rtag = _tag_of(raw)
    if tag == _FLOAT and rtag == _INT:
        return float(raw)
    if rtag != tag:
        raise _Fail("cannot decode %s `%s` as a %s" % (_short_tag(rtag), value, _short_tag(tag)))
    return raw


def _copy(v):
    """Deep copy of containers: each alias use is an independent Go value after JSON."""
    if isinstance(v, dict):
        return {k: _copy(x) if isinstance(x, (dict, list)) else x for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) if isinstance(x, (dict, list)) else x for x in v]
    return v


def _allowed_alias_ratio(decode_count):
    if decode_count <= 400000:
        return 0.99
    if decode_count >= 4000000:
        return 0.10
    return 0.99 - 0.89 * (float(decode_count - 400000) / 3600000.0)


# go-yaml v2 knows no ``\/`` escape (libyaml 0.2 does): an odd run of backslashes before "/".
_SLASH_ESCAPE = regex(r"(?<!\\)(?:\\\\)*\\/")


MAX_DEPTH = 10000
_BREAKS = "\r\n\x85\u2028\u2029"
_BLANKS = " \t" + _BREAKS


class _Decoder(object):
    """Builds one document's value from parser events, counting like go-yaml v2."""

    def __init__(self, parser, text):
        self.parser = parser
        self.source = text
        self.text = text if "\\/" in text else None
        self.late = None  # first error of the JSON conversion step (after YAML decoding)

    def _late(self, msg):
        if self.late is None:
            self.late = msg

    def _check(self, value):
        """json.Marshal refuses NaN and ±Inf values (keys were stringified before)."""
        if not math.isfinite(value):
            self._late("json: unsupported value: " + format_float(value))

    @staticmethod
    def _key(raw):
        """sigs.k8s.io/yaml's key conversion; a tuple (error prefix,) for unsupported keys."""
        if isinstance(raw, str):
            return raw
        if isinstance(raw, bool):
            return "true" if raw else "false"
        if isinstance(raw, int):
            if raw > (1 << 63) - 1:
                return ("unsupported map key of type: uint64, key: %s, value: " % hex(raw),)
            return str(raw)
        if isinstance(raw, float):
            s = format_float(raw, bits=32)
            return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(s, s)
        if raw is None:
            return ("unsupported map key of type: %!s(<nil>), key: <nil>, value: ",)
        raise _Fail("invalid map key: %s" % go_sharp_v(raw))

    def document(self):
        """Decode events up to the DocumentEndEvent; return the document value.

        The loop runs once per event of every rendered document, so the common case (an untagged
        scalar, a plain container) is tested first and the counters live in locals."""
        get = self.parser.get_event
        text = self.text
        anchors = {}
        in_progress = set()
        stack = []  # frames: [container, anchor, start_count, pending_key, pending_raw_key]
        result = None
        count = 1  # go-yaml's decode count: one per node, and an alias counts its target's size
        aliased = 0
        while True:
            ev = get()
            cls = ev.__class__
            if cls is _SCALAR:
                count += 1
                style = ev.style
                plain = not style
                tag = ev.tag
                if tag is None:
                    value = ev.value
                    if plain:
                        if value == "<<" and stack and stack[-1][3] is _NOKEY and stack[-1][0].__class__ is dict:
                            count -= 1
                            stack[-1][3] = _MERGEKEY
                            continue
                        if not value and stack and stack[-1][3] is _NOKEY and stack[-1][0].__class__ is dict:
                            self._explicit_key(ev)
                        raw = resolve_plain(value)
                    else:
                        if text is not None and style == '"':
                            self._slash_escape(ev)
                        raw = value
                else:
                    if tag == _MERGE and stack and stack[-1][3] is _NOKEY and stack[-1][0].__class__ is dict:
                        stack[-1][3] = _MERGEKEY
                        continue
                    if text is not None and style == '"':
                        self._slash_escape(ev)
                    raw = _resolve_tagged(tag, ev.value, plain)
                value = float(raw) if raw.__class__ is int else raw  # the JSON round trip: numbers are float64
                if ev.anchor is not None:
                    anchors[ev.anchor] = (raw, value, 1)
            elif cls is _MAP_START or cls is _SEQ_START:
                if len(stack) >= MAX_DEPTH:  # go-yaml's max_flow_level / max_indents
                    raise _Fail("exceeded max depth of %d" % MAX_DEPTH)
                count += 1
                if ev.anchor is not None:
                    in_progress.add(ev.anchor)
                stack.append([{} if cls is _MAP_START else [], ev.anchor, count, _NOKEY, None])
                continue
            elif cls is _MAP_END or cls is _SEQ_END:
                frame = stack.pop()
                value = raw = frame[0]
                if frame[1] is not None:
                    in_progress.discard(frame[1])
                    anchors[frame[1]] = (raw, value, count - frame[2] + 1)
            elif cls is _ALIAS:
                name = ev.anchor
                if name in in_progress:
                    raise _Fail("anchor '%s' value contains itself" % name)
                target = anchors.get(name)
                if target is None:
                    raise YAMLError("yaml: unknown anchor '%s' referenced" % name)
                raw, value, size = target
                count += 1 + size
                aliased += size
                if aliased > 100 and count > 1000 and float(aliased) / count > _allowed_alias_ratio(count):
                    raise _Fail("document contains excessive aliasing")
                value = _copy(value)
            elif cls is _DOC_END:
                return result
            else:
                continue
            if not stack:
                if value.__class__ is float:
                    self._check(value)
                result = value
                continue
            top = stack[-1]
            container = top[0]
            if container.__class__ is list:
                if value.__class__ is float:
                    self._check(value)
                container.append(value)
            elif top[3] is _NOKEY:
                top[3] = raw if raw.__class__ is str else (
                    self._key(raw) if not isinstance(raw, (dict, list)) else self._key_container(raw))
            elif top[3] is _MERGEKEY:
                top[3] = _NOKEY
                self._merge(container, value)
            else:
                if value.__class__ is float:
                    self._check(value)
                if top[3].__class__ is tuple:
                    self._late(top[3][0] + go_sharp_v(raw))
                else:
                    container[top[3]] = value
                top[3] = _NOKEY

    def drain(self):
        """Parse to the end of the current document (its syntax errors win over decode errors)."""
        get = self.parser.get_event
        prev = None
        while True:
            ev = get()
            cls = ev.__class__
            if cls is _DOC_END:
                return
            if cls is _SCALAR and prev is _MAP_START and not ev.value and not ev.style and ev.tag is None:
                self._explicit_key(ev)
            prev = cls

    def _explicit_key(self, ev):
        """go-yaml v2's reading of ``[?]``, where libyaml 0.2.6 (PyYAML 6.0.4's wheels) differs.

        After the ``?`` of a pair in a flow sequence, libyaml 0.2.6 leaves a ``]`` to close the
        sequence (an empty key at the ``]``); go-yaml, a port of libyaml 0.2.5, takes that ``]`` as
        the key's token and goes on in the sequence it still reads as open, so it fails at the next
        token unless that is ``,``, ``]`` or ``:``; after those it reads on in a sequence libyaml 0.2.6
        has closed, which is left as libyaml 0.2.6 reads it.
        """
        text = self.source
        at = ev.start_mark.index + (text[:1] == "\ufeff")  # libyaml's marks do not count a BOM
        if at >= len(text) or text[at] != "]" or text[at - 1] in ":,]":  # after : , ] the empty key is theirs
            return
        end = len(text)
        nxt = at + 1
        while nxt < end and (text[nxt] in _BLANKS or text[nxt] == "#"):
            if text[nxt] == "#":
                while nxt < end and text[nxt] not in _BREAKS:
                    nxt += 1
            else:
                nxt += 1
        if nxt < end and text[nxt] in ",]:":
            return
        try:  # the value, the pair's and the sequence's ends, then what scanning that token says
            for _step in range(4):
                self.parser.get_event()
        except _yaml.scanner.ScannerError:
            raise
        except _yaml.YAMLError:
            pass
        line = ev.start_mark.line + _breaks(text[at:nxt])
        if nxt == end and text[-1:] not in _BREAKS:
            line += 1  # the end of the stream is on a line of its own
        raise _located(line, "did not find expected ',' or ']'")

    def _slash_escape(self, ev):
        start = ev.start_mark.index
        m = _SLASH_ESCAPE.search(self.text, start, ev.end_mark.index)
        if m is not None:
            line0 = self.text.count("\n", 0, m.end() - 2)
            where = "line %d: " % (line0 + 1) if line0 else ""
            raise YAMLError("yaml: %sfound unknown escape character" % where, line=line0 + 1 if line0 else None)

    def _key_container(self, raw):
        raise _Fail("invalid map key: %s" % go_sharp_v(raw))

    @staticmethod
    def _merge(container, value):
        if isinstance(value, dict):
            container.update(value)
            return
        if isinstance(value, list) and all(isinstance(x, dict) for x in value):
            for item in reversed(value):
                container.update(item)
            return
        raise _Fail("map merge requires map or sequence of maps as the value")


def _parse_error(exc):
    """Go's text for a libyaml reader/scanner/parser error (``parser.fail`` in yaml.go)."""
    if isinstance(exc, _yaml.reader.ReaderError):
        return YAMLError("yaml: " + (exc.reason or "invalid input"))
    problem = getattr(exc, "problem", None) or "unknown problem parsing YAML content"
    pm = getattr(exc, "problem_mark", None)
    cm = getattr(exc, "context_mark", None)
    line = 0
    if pm is not None and pm.line != 0:
        line = pm.line + (1 if isinstance(exc, _yaml.scanner.ScannerError) else 0)
    elif cm is not None and cm.line != 0:
        line = cm.line
    if problem == _LIBYAML_NESTING:  # beyond the deep parser's limit: go-yaml stops at MAX_DEPTH
        problem = "exceeded max depth of %d" % MAX_DEPTH
    return _located(line, problem)


def _located(line, problem):
    """Go's error text for a problem at a 1-based line (0 when Go names none)."""
    if line:
        return YAMLError("yaml: line %d: %s" % (line, problem), line=line)
    return YAMLError("yaml: " + problem)


def _breaks(text):
    """Line breaks as libyaml counts them (CR LF is one)."""
    return sum(text.count(c) for c in _BREAKS) - text.count("\r\n")


def _text(text):
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise YAMLError("yaml: invalid leading UTF-8 octet")
    return text


def _incompatible(text):
    """go-yaml v2 accepts only ``%YAML 1.1`` (a parser error at the directive)."""
    line0 = text.count("\n", 0, max(text.find("%YAML"), 0))
    if line0:
        return YAMLError("yaml: line %d: found incompatible YAML document" % line0, line=line0)
    return YAMLError("yaml: found incompatible YAML document")


def iter_documents(text):
    """Yield ``(value, late_error)`` per document: go-yaml decode + JSON conversion.

    ``late_error`` is the JSON-conversion error message of that document or None.
    Raises YAMLError (Go text, without the ``error converting YAML to JSON`` prefix).
    """
    text = _text(text)
    if _yaml is None:
        _bind()
    done = 0
    parser_class = _parser_class
    while True:
        try:
            for item in _documents(parser_class(text), text, done):
                yield item
                done += 1
            return
        except _Deeper:  # read again past libyaml's default nesting limit, from the refused document
            parser_class = _deep_parser_class


class _Deeper(Exception):
    """libyaml refused the nesting with its default limit, below go-yaml's."""


def _documents(parser, text, skip):
    """The documents of ``text`` after the first ``skip`` (read already)."""
    try:
        while True:
            try:
                ev = parser.get_event()
                if isinstance(ev, _STREAM_END):
                    return
                if not isinstance(ev, _DOC_START):
                    continue
                if skip:
                    skip -= 1
                    while not isinstance(parser.get_event(), _DOC_END):
                        pass
                    continue
                if ev.version is not None and tuple(ev.version) != (1, 1):
                    raise _incompatible(text)
                dec = _Decoder(parser, text)
                try:
                    value = dec.document()
                except _Fail as fail:
                    dec.drain()
                    raise YAMLError("yaml: " + str(fail))
            except _yaml.YAMLError as exc:
                if getattr(exc, "problem", None) == _LIBYAML_NESTING and _deep_parser_class is not None \
                        and not isinstance(parser, _deep_parser_class):
                    raise _Deeper()
                raise _parse_error(exc)
            yield value, dec.late
    finally:
        if hasattr(parser, "dispose"):
            parser.dispose()


def convert_error(err, source=None):
    """Wrap a YAML-phase error in sigs.k8s.io/yaml's prefix."""
    if err.go_message.startswith("error converting YAML to JSON: "):
        msg = err.go_message
    else:
        msg = "error converting YAML to JSON: " + err.go_message
    return YAMLError(msg, source, err.line)


__all__ = ["iter_documents", "convert_error", "YAMLError"]
