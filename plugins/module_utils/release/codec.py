"""Helm's release encoding: JSON as Go's encoding/json writes it, gzip level 9, base64.

Go's json.Marshal escapes ``<``, ``>``, ``&``, U+2028 and U+2029 and writes UTF-8 otherwise; we do
the same so the bytes we store match what Helm would store for the same release.
"""
import base64
import gzip
import json

from ..govalue.strconv import format_float_json

from ..errors import HelmlessError

_GZIP_MAGIC = b"\x1f\x8b\x08"
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


class ReleaseDecodeError(HelmlessError, ValueError):
    """A stored release record that is not base64/gzip/JSON."""


def _encode(value, out):
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(format_float_json(value))
    elif isinstance(value, dict):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(",")
            out.append(json.dumps(str(key), ensure_ascii=False))
            out.append(":")
            _encode(item, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _encode(item, out)
        out.append("]")
    elif isinstance(value, bytes):
        out.append(json.dumps(base64.b64encode(value).decode("ascii")))
    else:
        out.append(json.dumps(str(value), ensure_ascii=False))


def go_json(value):
    """Serialise like Go's json.Marshal: compact, Go float format, HTML-safe escapes.

    Key order is the caller's: struct fields in declaration order, maps pre-sorted (model.sorted_map).
    """
    out = []
    _encode(value, out)
    text = "".join(out)
    for char, escaped in _GO_ESCAPES.items():
        if char in text:
            text = text.replace(char, escaped)
    return text


_last = {}  # the last record encoded, by its JSON: the size check before a write encodes what the write stores


def encode_release(release):
    """Release dict → the base64 text Helm keeps in Secret/ConfigMap data under ``release``."""
    raw = go_json(release)
    if _last.get("raw") != raw:  # gzip at Helm's level 9 is most of the cost (0.3 s for a 7 MB record)
        _last.update(raw=raw, text=base64.b64encode(gzip.compress(raw.encode("utf-8"), compresslevel=9,
                                                                  mtime=0)).decode("ascii"))
    return _last["text"]


def decode_release(text):
    """The stored base64 text → release dict (gzip optional, as Helm's legacy records are plain JSON)."""
    try:
        data = base64.b64decode(text, validate=False)
        if data[:3] == _GZIP_MAGIC:
            data = gzip.decompress(data)
        return json.loads(data.decode("utf-8"))
    except (ValueError, OSError, EOFError) as exc:
        raise ReleaseDecodeError("cannot decode release record: %s" % exc) from exc
