"""Helm's release encoding: JSON as Go's encoding/json writes it, gzip level 9, base64.

Go's json.Marshal escapes ``<``, ``>``, ``&``, U+2028 and U+2029 and writes UTF-8 otherwise; we do
the same so the bytes we store match what Helm would store for the same release.
"""
import base64
import gzip
import json
import struct
import threading
import zlib

from ..govalue.strconv import format_float_json
from ..regexcache import LazyRegex

from ..errors import HelmlessError

_GZIP_MAGIC = b"\x1f\x8b\x08"
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_GO_ESCAPED = LazyRegex("[<>&\u2028\u2029]")


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
        out.append(_string(value))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(format_float_json(value))
    elif isinstance(value, dict):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(",")
            out.append(_string(str(key)))
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
        out.append(_string(str(value)))


def _string(value):
    """A JSON string as Go writes it (UTF-8, the HTML-safe escapes); a long one (a manifest, a chart's
    templates) is escaped once per process, as the records of one operation repeat it."""
    found = _json_memo.get(value) if len(value) >= _MEMO_AT else None
    if found is None:
        found = json.dumps(value, ensure_ascii=False)
        if _GO_ESCAPED.search(found):
            found = _GO_ESCAPED.sub(_go_escape, found)
        if len(value) >= _MEMO_AT:
            _kept(_json_memo, value, found)
    return found


def _go_escape(match):
    return _GO_ESCAPES[match.group()]


def go_json(value):
    """Serialise like Go's json.Marshal: compact, Go float format, HTML-safe escapes.

    Key order is the caller's: struct fields in declaration order, maps pre-sorted (model.sorted_map).
    """
    out = []
    _encode(value, out)
    return "".join(out)


_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # deflate, no name, mtime 0, level 9, unknown OS
_FINAL_BLOCK = b"\x03\x00"  # an empty final block: the deflate stream ends
_MEMO_AT = 64 * 1024  # fields at least this long (chart, manifest) stay compressed for the next records
_MEMO_CHARS = 32 * 1024 * 1024  # at most this much field text kept (a releases task encodes many records)
_memo = {}  # field JSON -> its deflate blocks, oldest first
_json_memo = {}  # long string -> its JSON
_memo_lock = threading.Lock()  # releases runs records of several releases in threads


def _deflated(piece, data):
    """``piece`` (one top-level field's JSON; ``data`` its UTF-8) as byte-aligned deflate blocks that refer to
    nothing before them, so that the blocks of a record's fields join into one stream in any record: the chart
    and the manifest are compressed once for the size check, the pending record, the deployed one and the
    revision it supersedes (level 9 of a 7 MB record is about 0.3 s each time)."""
    found = _memo.get(piece)
    if found is not None:
        return found
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    blocks = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    if len(piece) >= _MEMO_AT:
        _kept(_memo, piece, blocks)
    return blocks


def _kept(memo, text, value):
    """Remember ``value`` for ``text`` in ``memo``, forgetting the oldest beyond _MEMO_CHARS of text."""
    with _memo_lock:
        while memo and sum(map(len, memo)) + len(text) > _MEMO_CHARS:
            del memo[next(iter(memo))]
        memo[text] = value


def _piece(first, key, value):
    """The JSON of one top-level field of a record, with the brace or comma before it."""
    parts = ["{" if first else ",", _string(str(key)), ":"]
    _encode(value, parts)
    return "".join(parts)


def encode_release(release):
    """Release dict → the base64 text Helm keeps in Secret/ConfigMap data under ``release``: go_json's text,
    gzip at Helm's level 9 (one member; each top-level field its own blocks, see _deflated), base64."""
    pieces = [_piece(index == 0, key, value) for index, (key, value) in enumerate(release.items())]
    pieces.append("}" if pieces else "{}")
    out, crc, size = [_GZIP_HEADER], 0, 0
    for piece in pieces:
        data = piece.encode("utf-8")
        out.append(_deflated(piece, data))
        crc = zlib.crc32(data, crc)
        size += len(data)
    out += [_FINAL_BLOCK, struct.pack("<II", crc, size & 0xFFFFFFFF)]
    return base64.b64encode(b"".join(out)).decode("ascii")


def prepare(fields):
    """Start encoding and compressing the long ``fields`` (key → value, as a record will hold them after its
    first field) in a thread, while the caller waits on the API server: zlib lets go of the GIL as it deflates,
    and encode_release then finds them done. Returns the thread, to join before the record is encoded."""
    def run():
        try:
            for key, value in fields.items():
                piece = _piece(False, key, value)
                if len(piece) >= _MEMO_AT:
                    _deflated(piece, piece.encode("utf-8"))
        except Exception:  # pylint: disable=broad-except  # encode_release meets and reports it itself
            pass
    thread = threading.Thread(target=run, name="record-compression", daemon=True)
    thread.start()
    return thread


def decode_release(text):
    """The stored base64 text → release dict (gzip optional, as Helm's legacy records are plain JSON)."""
    try:
        data = base64.b64decode(text, validate=False)
        if data[:3] == _GZIP_MAGIC:
            data = gzip.decompress(data)
        return json.loads(data.decode("utf-8"))
    except (ValueError, OSError, EOFError) as exc:
        raise ReleaseDecodeError("cannot decode release record: %s" % exc) from exc
