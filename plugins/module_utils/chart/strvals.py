"""Helm's ``--set`` family parser (pkg/strvals/parser.go, literal_parser.go).

``name1=value1,name2=value2`` with ``a.b`` nesting, ``a[0]`` list indexes, ``{x,y}``
lists and ``\\`` escapes.  ``--set`` types values (``true``/``false``/``null``,
int64 for decimal integers without a leading zero); the other variants keep strings,
decode JSON, read files, or take the rest of the line literally.  Errors are
:class:`ValuesError` with Helm's messages.
"""

import json
import os

from ..govalue.strconv import go_quote
from ..govalue.values import Int64, go_type_name
from ..goyaml import merge_maps
from .errors import ValuesError

MAX_INDEX = 65536
MAX_NESTED_NAME_LEVEL = 30
_INT64 = 2 ** 63


class _EOF(Exception):
    """Go's ``io.EOF``: the input ran out (not an error at the top level)."""

    def __str__(self):
        return "EOF"


EOF = _EOF()


class _WrappedEOF(ValuesError):
    """An error wrapping ``io.EOF`` (``error parsing index: EOF``); Helm's loop treats it as the end."""


class _NotList(Exception):
    pass


NOT_LIST = _NotList()


class _Panic(Exception):
    """A Go runtime panic (failed type assertion) that ``key`` recovers from."""


def _assert(value, kind):
    if kind is list and not isinstance(value, list):
        raise _Panic("interface conversion: interface {} is %s, not []interface {}" % _dyn(value))
    if kind is dict and not isinstance(value, dict):
        raise _Panic("interface conversion: interface {} is %s, not map[string]interface {}" % _dyn(value))
    return value


def _dyn(value):
    """Dynamic Go type in a panic message."""
    if value is None:
        return "nil"
    return go_type_name(value)


class _Scanner(object):
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def read(self):
        if self.pos >= len(self.text):
            return None
        ch = self.text[self.pos]
        self.pos += 1
        return ch

    def unread(self):
        self.pos -= 1

    def rest(self):
        return self.text[self.pos:]


def _runes_until(sc, stop, escapes=True):
    """Read up to a stop rune; returns ``(runes, stop_rune, err)`` with ``err`` EOF at the end."""
    out = []
    while True:
        ch = sc.read()
        if ch is None:
            return "".join(out), None, EOF
        if ch in stop:
            return "".join(out), ch, None
        if ch == "\\" and escapes:
            nxt = sc.read()
            if nxt is None:
                return "".join(out), None, EOF
            out.append(nxt)
        else:
            out.append(ch)


def typed_value(text, force_string=False):
    """``--set`` value typing (``typedVal``)."""
    if force_string:
        return text
    low = text.lower()
    if low == "true":
        return True
    if low == "false":
        return False
    if low == "null":
        return None
    if text == "0":
        return Int64(0)
    if text and text[0] != "0":
        body = text[1:] if text[0] in "+-" else text
        if body and body.isascii() and body.isdigit():
            number = int(text)
            if -_INT64 <= number < _INT64:
                return Int64(number)
    return text


def _set(data, key, value):
    if key:
        data[key] = value


def _set_index(lst, index, value):
    if index < 0:
        return lst, ValuesError("negative %d index not allowed" % index)
    if index > MAX_INDEX:
        return lst, ValuesError("index of %d is greater than maximum supported index of %d" % (index, MAX_INDEX))
    if len(lst) <= index:
        lst = lst + [None] * (index + 1 - len(lst))
    lst[index] = value
    return lst, None


def _atoi(text):
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None, ValuesError('strconv.Atoi: parsing %s: invalid syntax' % go_quote(text))
    number = int(text)
    if not -_INT64 <= number < _INT64:
        return None, ValuesError('strconv.Atoi: parsing %s: value out of range' % go_quote(text))
    return number, None


class _Parser(object):
    def __init__(self, text, data, reader=None, json_values=False, literal=False):
        self.sc = _Scanner(text)
        self.data = data
        self.reader = reader
        self.json_values = json_values
        self.literal = literal

    def parse(self):
        while True:
            err = self.key(self.data, 0)
            if err is None:
                continue
            if err is EOF or isinstance(err, _WrappedEOF):
                return
            raise err if isinstance(err, ValuesError) else ValuesError(str(err))

    def _until(self, stop):
        return _runes_until(self.sc, stop, escapes=not self.literal)

    def key(self, data, level):
        try:
            return self._key(data, level)
        except _Panic as exc:
            return ValuesError("unable to parse key: %s" % exc)

    def _key(self, data, level):
        stop = "=[." if self.literal else "=[,."
        k, last, err = self._until(stop)
        if err is not None:
            if not k:
                return err
            return ValuesError("key %s has no value" % go_quote(k))
        if last == "[":
            index, err = self.key_index()
            if err is not None:
                return _index_error(err)
            lst = _assert(data[k], list) if k in data else []
            lst, err = self.list_item(lst, index, level)
            _set(data, k, lst)
            return err
        if last == "=":
            if self.literal:
                value, _last, _err = self._until("")
                _set(data, k, value)
                return None
            if self.json_values:
                return self.json_value(lambda v: _set(data, k, v))
            try:
                value = self.val_list()
            except _EOF:
                _set(data, k, "")
                return EOF
            except _NotList:
                runes, err = self.val()
                if err is not None and err is not EOF:
                    return err
                value, err = self.read_value(runes)
                _set(data, k, value)
                return err
            except ValuesError as exc:
                return exc
            _set(data, k, value)
            return None
        if last == ",":
            _set(data, k, "")
            return ValuesError("key %s has no value (cannot end with ,)" % go_quote(k))
        level += 1
        if level > MAX_NESTED_NAME_LEVEL:
            return ValuesError("value name nested level is greater than maximum supported nested level of %d"
                               % MAX_NESTED_NAME_LEVEL)
        inner = _assert(data[k], dict) if k in data else {}
        err = self.key(inner, level)
        if err is None and not inner:
            return ValuesError("key map %s has no value" % go_quote(k))
        if inner:
            _set(data, k, inner)
        return err

    def key_index(self):
        runes, _last, err = _runes_until(self.sc, "]", escapes=not self.literal)
        if err is not None:
            return 0, err
        return _atoi(runes)

    def list_item(self, lst, index, level):
        if index < 0:
            return lst, ValuesError("negative %d index not allowed" % index)
        k, last, err = self._until("[.=")
        if k:
            return lst, ValuesError("unexpected data at end of array index: [%s]" % " ".join(_quote_rune(r) for r in k))
        if err is not None:
            return lst, err
        if last == "=":
            if self.literal:
                value, _last, _err = self._until("")
                return _set_index(lst, index, value)
            if self.json_values:
                holder = []
                err = self.json_value(holder.append)
                if holder:
                    lst, set_err = _set_index(lst, index, holder[0])
                    if set_err is not None:
                        return lst, set_err
                return lst, err
            try:
                value = self.val_list()
            except _EOF:
                return _set_index(lst, index, "")
            except _NotList:
                runes, err = self.val()
                if err is not None and err is not EOF:
                    return lst, err
                value, err = self.read_value(runes)
                if err is not None:
                    return lst, err
                return _set_index(lst, index, value)
            except ValuesError as exc:
                return lst, exc
            return _set_index(lst, index, value)
        if last == "[":
            next_index, err = self.key_index()
            if err is not None:
                return lst, _index_error(err)
            current = []
            if len(lst) > index and lst[index] is not None:
                current = _assert(lst[index], list)
            inner, err = self.list_item(current, next_index, level)
            if err is not None:
                return lst, err
            return _set_index(lst, index, inner)
        inner = {}
        if len(lst) > index:
            inner = lst[index]
            if not isinstance(inner, dict):
                inner = {}
                lst[index] = inner
        err = self.key(inner, level)
        if err is not None:
            return lst, err
        return _set_index(lst, index, inner)

    def read_value(self, runes):
        try:
            return self.reader(runes), None
        except ValuesError as exc:
            return None, exc

    def empty_val(self):
        """Skip blanks; ``True`` at a comma or the end (the comma is consumed)."""
        while True:
            ch = self.sc.read()
            if ch is None or ch == ",":
                return True
            if not ch.isspace():
                self.sc.unread()
                return False

    def json_value(self, store):
        if self.empty_val():
            store(None)
            return None
        rest = self.sc.rest()
        start = len(rest) - len(rest.lstrip(" \t\r\n"))
        try:
            value, end = json.JSONDecoder(parse_int=float).raw_decode(rest, start)
        except ValueError as exc:
            return ValuesError(_json_error(rest, exc))
        store(value)
        self.sc.pos += end
        self.empty_val()
        return None

    def val(self):
        runes, _last, err = self._until(",")
        return runes, err

    def val_list(self):
        ch = self.sc.read()
        if ch is None:
            raise EOF
        if ch != "{":
            self.sc.unread()
            raise NOT_LIST
        out = []
        while True:
            runes, last, err = self._until(",}")
            if err is not None:
                raise ValuesError("list must terminate with '}'")
            if last == "}":
                nxt = self.sc.read()
                if nxt is not None and nxt != ",":
                    self.sc.unread()
                value, err = self.read_value(runes)
                out.append(value)
                if err is not None:
                    raise err
                return out
            value, err = self.read_value(runes)
            if err is not None:
                raise err
            out.append(value)


def _index_error(err):
    cls = _WrappedEOF if err is EOF else ValuesError
    return cls("error parsing index: %s" % err)


def _quote_rune(ch):
    """Go's ``%q`` of a rune."""
    if ch == "'":
        return "'\\''"
    return "'" + go_quote(ch)[1:-1].replace('\\"', '"') + "'"


def _json_error(text, exc):
    pos = getattr(exc, "pos", None)
    if pos is not None and pos >= len(text):
        return "unexpected EOF"
    if pos is not None:
        return "invalid character %s looking for beginning of value" % _go_rune(text[pos])
    return str(exc)


def _go_rune(ch):
    return "'" + ch + "'" if ch != "'" else "'\\''"


def _parse(text, dest, **kwargs):
    data = dest if dest is not None else {}
    _Parser(text, data, **kwargs).parse()
    return data


def parse_set(text, dest=None):
    """``--set``: typed values.  Merges into ``dest`` (a dict) when given; returns the dict."""
    return _parse(text, dest, reader=typed_value)


def parse_set_string(text, dest=None):
    """``--set-string``: every value stays a string."""
    return _parse(text, dest, reader=lambda runes: typed_value(runes, True))


def parse_set_json(text, dest=None):
    """``--set-json`` values (strvals ``ParseJSON``): each value is a JSON document, numbers float64."""
    return _parse(text, dest, json_values=True)


def parse_set_json_cli(text, dest=None):
    """What Helm's CLI does with one ``--set-json`` argument: a whole JSON object is merged in,
    anything else goes through :func:`parse_set_json`."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return parse_set_json(text, dest)
    try:
        obj = json.loads(stripped, parse_int=float)
    except ValueError:
        obj = None
    if not isinstance(obj, dict):  # Helm's message quotes the argument, not the JSON error
        raise ValuesError("failed parsing --set-json data JSON: %s" % text)
    data = dest if dest is not None else {}
    merged = merge_maps(data, obj)
    data.clear()
    data.update(merged)
    return data


def parse_set_literal(text, dest=None):
    """``--set-literal``: the value is everything after ``=``, verbatim."""
    return _parse(text, dest, literal=True)


def parse_set_file(text, dest=None, base_dir=None):
    """``--set-file``: each value names a file whose content becomes the (string) value."""

    def reader(runes):
        path = runes if base_dir is None or os.path.isabs(runes) else os.path.join(base_dir, runes)
        try:
            with open(path, "rb") as handle:
                return handle.read().decode("utf-8", "surrogateescape")
        except OSError as exc:
            raise ValuesError("open %s: %s" % (runes, (exc.strerror or str(exc)).lower()))

    return _parse(text, dest, reader=reader)
