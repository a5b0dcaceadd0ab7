"""DER as Go reads and writes it for Sprig's key and certificate functions.

``unmarshal`` is Go's ``encoding/asn1.Unmarshal`` for the few structures crypto/x509 decodes
keys into (PKCS #1, SEC 1, PKCS #8 and Sprig's DSA format), with Go's error texts, because
a chart's bad key must fail with the message Helm prints. The encoders write the
certificate fields exactly as ``x509.CreateCertificate`` marshals them."""

from ...errors import HelmlessError


class Asn1Error(HelmlessError, ValueError):
    """An ``encoding/asn1`` error; ``str`` is Go's ``err.Error()``."""


def _syntax(msg):
    return Asn1Error("asn1: syntax error: " + msg)


def _structural(msg):
    return Asn1Error("asn1: structure error: " + msg)


class Field:
    """One struct field: its Go kind (``int``, ``bigint``, ``bytes``, ``oid``, ``bits``, ``raw``,
    a Struct, or ``("seq", Struct)`` for a slice of structs) and its ``asn1:"..."`` tag."""

    def __init__(self, name, kind, optional=False, explicit=None, omitempty=False):
        self.name, self.kind = name, kind
        self.optional, self.explicit, self.omitempty = optional, explicit, omitempty


class Struct:
    def __init__(self, name, *fields):
        self.name, self.fields = name, fields


# Go's reflect Type.Name() of each kind, printed in a "tags don't match" error.
_GO_NAME = {"int": "int", "bigint": "", "bytes": "", "oid": "ObjectIdentifier", "bits": "BitString",
            "raw": "RawValue"}
# kind -> (universal tag, compound, matches any tag)
_UNIVERSAL = {"int": (2, False, False), "bigint": (2, False, False), "bytes": (4, False, False),
              "oid": (6, False, False), "bits": (3, False, False), "raw": (0, False, True)}

_NO_PARAMS = Field("", None)


def _params_text(f):
    # %+v of Go's fieldParameters; only fields without a tag number can reach this error here.
    return ("{optional:%s explicit:false application:false private:false defaultValue:<nil> tag:<nil> "
            "stringType:0 timeType:0 set:false omitEmpty:%s}" % (str(f.optional).lower(), str(f.omitempty).lower()))


def _tag_and_length(data, offset):
    if offset >= len(data):
        raise Asn1Error("asn1: internal error in parseTagAndLength")
    b = data[offset]
    offset += 1
    cls, compound, tag = b >> 6, bool(b & 0x20), b & 0x1F
    if tag == 0x1F:
        tag, offset = _base128(data, offset)
        if tag < 0x1F:
            raise _syntax("non-minimal tag")
    if offset >= len(data):
        raise _syntax("truncated tag or length")
    b = data[offset]
    offset += 1
    if not b & 0x80:
        return (cls, tag, b & 0x7F, compound), offset
    count = b & 0x7F
    if count == 0:
        raise _syntax("indefinite length found (not DER)")
    length = 0
    for _i in range(count):
        if offset >= len(data):
            raise _syntax("truncated tag or length")
        b = data[offset]
        offset += 1
        if length >= 1 << 23:
            raise _structural("length too large")
        length = (length << 8) | b
        if length == 0:
            raise _structural("superfluous leading zeros in length")
    if length < 0x80:
        raise _structural("non-minimal length")
    return (cls, tag, length, compound), offset


def _base128(data, offset):
    value = 0
    shifted = 0
    while offset < len(data):
        if shifted == 5:
            raise _structural("base 128 integer too large")
        b = data[offset]
        if shifted == 0 and b == 0x80:
            raise _syntax("integer is not minimally encoded")
        value = (value << 7) | (b & 0x7F)
        offset += 1
        shifted += 1
        if not b & 0x80:
            if value > 0x7FFFFFFF:
                raise _structural("base 128 integer too large")
            return value, offset
    raise _syntax("truncated base 128 integer")


def _check_integer(b):
    if not b:
        raise _structural("empty integer")
    if len(b) > 1 and ((b[0] == 0 and not b[1] & 0x80) or (b[0] == 0xFF and b[1] & 0x80)):
        raise _structural("integer not minimally-encoded")


def _integer(b, bounded):
    _check_integer(b)
    if bounded and len(b) > 8:
        raise _structural("integer too large")
    return int.from_bytes(b, "big", signed=True)


def _oid(b):
    if not b:
        raise _syntax("zero length OBJECT IDENTIFIER")
    v, offset = _base128(b, 0)
    out = [v // 40, v % 40] if v < 80 else [2, v - 80]
    while offset < len(b):
        v, offset = _base128(b, offset)
        out.append(v)
    return ".".join(map(str, out))


def _bits(b):
    if not b:
        raise _syntax("zero length BIT STRING")
    pad = b[0]
    if pad > 7 or (len(b) == 1 and pad > 0) or b[-1] & ((1 << pad) - 1):
        raise _syntax("invalid padding bits in BIT STRING")
    return b[1:]


def _decode(kind, inner, whole):
    if kind == "int":
        return _integer(inner, True)
    if kind == "bigint":
        return _integer(inner, False)
    if kind == "bytes":
        return bytes(inner)
    if kind == "oid":
        return _oid(inner)
    if kind == "bits":
        return _bits(inner)
    return whole


def _parse_field(kind, data, offset, params):
    init = offset
    if offset == len(data):
        if params.optional:
            return None, offset
        raise _syntax("sequence truncated")
    t, offset = _tag_and_length(data, offset)
    if params.explicit is not None:
        if offset == len(data):
            raise _structural("explicit tag has no child")
        if t[0] == 2 and t[1] == params.explicit and (t[2] == 0 or t[3]):
            if t[2] == 0:
                raise _structural("zero length explicit tag was not an asn1.Flag")
            t, offset = _tag_and_length(data, offset)
        elif params.optional:
            return None, init
        else:
            raise _structural("explicitly tagged member didn't match")
    if isinstance(kind, Struct):
        utag, compound, any_tag, name = 16, True, False, kind.name
    elif isinstance(kind, tuple):
        utag, compound, any_tag, name = 16, True, False, ""
    else:
        (utag, compound, any_tag), name = _UNIVERSAL[kind], _GO_NAME[kind]
    if (not any_tag and (t[0] != 0 or t[1] != utag)) or (not any_tag and t[3] != compound):
        if params.optional:
            return None, init
        raise _structural("tags don't match (%d vs {class:%d tag:%d length:%d isCompound:%s}) %s %s @%d" % (
            utag, t[0], t[1], t[2], str(t[3]).lower(), _params_text(params), name, offset))
    if offset + t[2] > len(data):
        raise _syntax("data truncated")
    inner = data[offset:offset + t[2]]
    offset += t[2]
    if isinstance(kind, Struct):
        value, inner_offset = {}, 0
        for f in kind.fields:
            value[f.name], inner_offset = _parse_field(f.kind, inner, inner_offset, f)
        return value, offset
    if isinstance(kind, tuple):
        return _sequence_of(kind[1], inner), offset
    return _decode(kind, inner, data[init:offset]), offset


def _sequence_of(elem, inner):
    offset, count = 0, 0
    while offset < len(inner):
        t, offset = _tag_and_length(inner, offset)
        if t[0] != 0 or t[1] != 16 or not t[3]:
            raise _structural("sequence tag mismatch")
        if offset + t[2] > len(inner):
            raise _syntax("truncated sequence")
        offset += t[2]
        count += 1
    out, offset = [], 0
    for _i in range(count):
        value, offset = _parse_field(elem, inner, offset, _NO_PARAMS)
        out.append(value)
    return out


def unmarshal(data, kind):
    """asn1.Unmarshal(data, &v) for v of a kind or Struct: (value, rest)."""
    value, offset = _parse_field(kind, bytes(data), 0, _NO_PARAMS)
    return value, data[offset:]


def parses(data, kind):
    try:
        unmarshal(data, kind)
    except Asn1Error:
        return False
    return True


ALGORITHM_IDENTIFIER = Struct("AlgorithmIdentifier", Field("Algorithm", "oid"),
                              Field("Parameters", "raw", optional=True))
PKCS1 = Struct("pkcs1PrivateKey", Field("Version", "int"), Field("N", "bigint"), Field("E", "int"),
               Field("D", "bigint"), Field("P", "bigint"), Field("Q", "bigint"),
               Field("Dp", "bigint", optional=True), Field("Dq", "bigint", optional=True),
               Field("Qinv", "bigint", optional=True),
               Field("AdditionalPrimes", ("seq", Struct("pkcs1AdditionalRSAPrime", Field("Prime", "bigint"),
                                                        Field("Exp", "bigint"), Field("Coeff", "bigint"))),
                     optional=True, omitempty=True))
EC = Struct("ecPrivateKey", Field("Version", "int"), Field("PrivateKey", "bytes"),
            Field("NamedCurveOID", "oid", optional=True, explicit=0),
            Field("PublicKey", "bits", optional=True, explicit=1))
PKCS8 = Struct("pkcs8", Field("Version", "int"), Field("Algo", ALGORITHM_IDENTIFIER), Field("PrivateKey", "bytes"))
DSA = Struct("DSAKeyFormat", Field("Version", "int"), *[Field(n, "bigint") for n in "PQGYX"])


def read(data, offset, tag):
    """cryptobyte's ReadASN1Element for one tag byte, as crypto/x509's certificate parser reads:
    (contents, whole element, next offset), or None where Go's read fails."""
    if offset + 2 > len(data) or data[offset] != tag or tag & 0x1F == 0x1F:
        return None
    size = data[offset + 1]
    head = 2
    if size & 0x80:
        count = size & 0x7F
        if count == 0 or count > 4 or offset + 2 + count > len(data):
            return None
        size = int.from_bytes(data[offset + 2:offset + 2 + count], "big")
        if size < 0x80 or size >> ((count - 1) * 8) == 0:
            return None
        head += count
    end = offset + head + size
    if end > len(data):
        return None
    return data[offset + head:end], data[offset:end], end


def peek(data, offset):
    """The tag byte at offset, or None at the end."""
    return data[offset] if offset < len(data) else None


# ------------------------------------------------------------------ encoding

def tlv(tag, body):
    n = len(body)
    if n < 0x80:
        return bytes([tag, n]) + body
    size = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(size)]) + size + body


def seq(*parts):
    return tlv(0x30, b"".join(parts))


def integer(n):
    return tlv(0x02, n.to_bytes(n.bit_length() // 8 + 1, "big", signed=True))


def oid(dotted):
    arcs = [int(a) for a in dotted.split(".")]
    body = b""
    for v in [arcs[0] * 40 + arcs[1]] + arcs[2:]:
        chunk = [v & 0x7F]
        v >>= 7
        while v:
            chunk.append(0x80 | (v & 0x7F))
            v >>= 7
        body += bytes(reversed(chunk))
    return tlv(0x06, body)


def octets(b):
    return tlv(0x04, b)


def bit_string(b, unused=0):
    return tlv(0x03, bytes([unused]) + b)


BOOLEAN_TRUE = b"\x01\x01\xff"
NULL = b"\x05\x00"
