"""x509.ParseCertificate as Sprig's genSignedCert and buildCustomCert meet it: a chart's CA
certificate is walked in Go's order with Go's error texts (crypto/x509/parser.go on
cryptobyte), down to its names, validity, public key and the extensions Go's own and
OpenSSL's CAs carry. Name constraints, policies, CRL distribution points and the other
extensions Go also checks are read for their structure only."""
import datetime
import re

from ...govalue.strconv import go_quote
from ...errors import HelmlessError
from . import der

OID_DSA = "1.2.840.10040.4.1"
_OID_RSA, _OID_EC, _OID_ED25519 = "1.2.840.113549.1.1.1", "1.2.840.10045.2.1", "1.3.101.112"
_KNOWN_KEYS = (_OID_RSA, _OID_EC, _OID_ED25519, OID_DSA)  # Go's PublicKeyAlgorithm; X25519 is not one
_CURVES = {  # named curve OID: (bits, field prime, b of y^2 = x^3 - 3x + b, element error)
    "1.3.132.0.33": (224, 2 ** 224 - 2 ** 96 + 1,
                     0xb4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4, "invalid P224Element encoding"),
    "1.2.840.10045.3.1.7": (256, 2 ** 256 - 2 ** 224 + 2 ** 192 + 2 ** 96 - 1,
                            0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b,
                            "invalid P256 element encoding"),
    "1.3.132.0.34": (384, 2 ** 384 - 2 ** 128 - 2 ** 96 + 2 ** 32 - 1,
                     int("b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
                         16), "invalid P384Element encoding"),
    "1.3.132.0.35": (521, 2 ** 521 - 1,
                     int("51953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf07"
                         "3573df883d2c34f1ef451fd46b503f00", 16), "invalid P521Element encoding"),
}


class CertificateError(HelmlessError, ValueError):
    """A ParseCertificate error; ``str`` is Go's text."""


class _Reader:
    """A cryptobyte.String: a cursor over DER contents whose reads fail with the caller's text."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, tag, error):
        got = der.read(self.data, self.at, tag)
        if got is None:
            raise CertificateError(error)
        self.at = got[2]
        return got[0], got[1]

    def take_any(self, error):
        """ReadAnyASN1: (tag, contents) of the next element, whatever its (low-number) tag."""
        tag = der.peek(self.data, self.at)
        if tag is None:
            raise CertificateError(error)
        return tag, self.take(tag, error)[0]

    def optional(self, tag, error):
        if der.peek(self.data, self.at) != tag:
            return None
        return self.take(tag, error)[0]

    def empty(self):
        return self.at == len(self.data)


_INT64 = (-2 ** 63, 2 ** 63)


def _integer(body, error, bounds=None):
    """ReadASN1Integer: minimally encoded, and within [low, high) when the Go type is fixed-size."""
    if not body or (len(body) > 1 and (body[0], body[1] & 0x80) in ((0, 0), (0xFF, 0x80))):
        raise CertificateError(error)
    value = int.from_bytes(body, "big", signed=True)
    if bounds is not None and not bounds[0] <= value < bounds[1]:
        raise CertificateError(error)
    return value


def _oid(reader, error):
    body = reader.take(0x06, error)[0]
    try:
        return der.unmarshal(der.tlv(0x06, body), "oid")[0]
    except der.Asn1Error:
        raise CertificateError(error)


def _algorithm(body):
    """parseAI: (OID, parameters element or b"")."""
    r = _Reader(body)
    oid = _oid(r, "x509: malformed OID")
    if r.empty():
        return oid, b""
    got = der.read(body, r.at, body[r.at])
    if got is None:
        raise CertificateError("x509: malformed parameters")
    return oid, got[1]


def _bits(body):
    """ReadASN1BitString's checks; the bytes without the unused-bits octet, or None."""
    if not body or body[0] > 7 or (len(body) == 1 and body[0]) or (len(body) > 1 and body[-1] & ((1 << body[0]) - 1)):
        return None
    return body[1:]


# ------------------------------------------------------------------ names and times

_PRINTABLE = re.compile(rb"[a-zA-Z0-9 '()+,\-./:=?*&]*\Z")


def _string(tag, value):
    """parseASN1String's checks of an attribute value."""
    if tag == 0x14:  # T61String: read as Latin-1
        return
    if tag == 0x13 and not _PRINTABLE.match(value):
        raise ValueError("invalid PrintableString")
    if tag == 0x0C:
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("invalid UTF-8 string")
    elif tag == 0x1E:
        _bmp(value)
    elif tag == 0x16 and any(b > 0x7F for b in value):
        raise ValueError("invalid IA5String")
    elif tag == 0x12 and any(not (0x30 <= b <= 0x39 or b == 0x20) for b in value):
        raise ValueError("invalid NumericString")
    elif tag not in (0x13, 0x0C, 0x1E, 0x16, 0x12):
        raise ValueError("unsupported string type: %d" % tag)


def _bmp(value):
    if len(value) % 2:
        raise ValueError("invalid BMPString")
    if value[-2:] == b"\0\0":
        value = value[:-2]
    for i in range(0, len(value), 2):
        point = value[i] << 8 | value[i + 1]
        if point in (0xFFFE, 0xFFFF) or 0xFDD0 <= point <= 0xFDEF or 0xD800 <= point <= 0xDFFF:
            raise ValueError("invalid BMPString")


def _name(element):
    """parseName."""
    rdns = _Reader(_Reader(element).take(0x30, "x509: invalid RDNSequence")[0])
    while not rdns.empty():
        attrs = _Reader(rdns.take(0x31, "x509: invalid RDNSequence")[0])
        while not attrs.empty():
            attr = _Reader(attrs.take(0x30, "x509: invalid RDNSequence: invalid attribute")[0])
            _oid(attr, "x509: invalid RDNSequence: invalid attribute type")
            tag, value = attr.take_any("x509: invalid RDNSequence: invalid attribute value")
            try:
                _string(tag, value)
            except ValueError as exc:
                raise CertificateError("x509: invalid RDNSequence: invalid attribute value: %s" % exc)


_UTC = re.compile(rb"(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)?(Z|[+-]\d{4})\Z")
_GENERALIZED = re.compile(rb"(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(Z|[+-]\d{4})\Z")


def _time(reader):
    """parseTime: a UTCTime or GeneralizedTime that Go's time.Parse reads and writes back unchanged."""
    for tag, pattern, kind in ((0x17, _UTC, "UTCTime"), (0x18, _GENERALIZED, "GeneralizedTime")):
        if der.peek(reader.data, reader.at) == tag:
            found = pattern.match(reader.take(tag, "x509: malformed " + kind)[0])
            if found is None or not _valid_time(found.groups(), kind):
                raise CertificateError("x509: malformed " + kind)
            return
    raise CertificateError("x509: unsupported time format")


def _valid_time(fields, kind):
    year, month, day, hour, minute, second, zone = fields
    year = int(year) + (0 if kind == "GeneralizedTime" else 1900 if int(year) >= 69 else 2000)
    if zone in (b"+0000", b"-0000") or (zone != b"Z" and (int(zone[1:3]) > 23 or int(zone[3:]) > 59)):
        return False
    try:
        datetime.datetime(max(year, 1), int(month), int(day), int(hour), int(minute), int(second or 0))
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------ the public key

def _public_key(algorithm, params, key):
    """parsePublicKey's checks, for the algorithms Go knows."""
    if algorithm == _OID_RSA:
        if params != b"\x05\x00":
            raise CertificateError("x509: RSA key missing NULL parameters")
        body = _Reader(_Reader(key).take(0x30, "x509: invalid RSA public key")[0])
        n = _integer(body.take(0x02, "x509: invalid RSA modulus")[0], "x509: invalid RSA modulus")
        e = _integer(body.take(0x02, "x509: invalid RSA public exponent")[0], "x509: invalid RSA public exponent", _INT64)
        if n <= 0:
            raise CertificateError("x509: RSA modulus is not a positive number")
        if e <= 0:
            raise CertificateError("x509: RSA public exponent is not a positive number")
    elif algorithm == _OID_EC:
        _ec_point(params, key)
    elif algorithm == _OID_ED25519:
        if params:
            raise CertificateError("x509: Ed25519 key encoded with illegal parameters")
        if len(key) != 32:
            raise CertificateError("x509: wrong Ed25519 public key size")
    else:
        _dsa(params, key)


def _ec_point(params, key):
    curve = _CURVES.get(_oid(_Reader(params), "x509: invalid ECDSA parameters"))
    if curve is None:
        raise CertificateError("x509: unsupported elliptic curve")
    bits, prime, b, element_error = curve
    if not key or key[0] != 4:
        raise CertificateError("ecdsa: invalid uncompressed public key")
    size = (bits + 7) // 8
    if len(key) != 1 + 2 * size:
        raise CertificateError("invalid P%d point encoding" % bits)
    x, y = int.from_bytes(key[1:1 + size], "big"), int.from_bytes(key[1 + size:], "big")
    if x >= prime or y >= prime:
        raise CertificateError(element_error)
    if (y * y - (x * x * x - 3 * x + b)) % prime:
        raise CertificateError("P%d point not on curve" % bits)


def _dsa(params, key):
    y = _Reader(key)
    y = _integer(y.take(0x02, "x509: invalid DSA public key")[0], "x509: invalid DSA public key")
    error = "x509: invalid DSA parameters"
    numbers = _Reader(_Reader(params).take(0x30, error)[0])
    p, q, g = (_integer(numbers.take(0x02, error)[0], error) for _i in range(3))
    if min(y, p, q, g) <= 0:
        raise CertificateError("x509: zero or negative DSA parameter")


# ------------------------------------------------------------------ extensions

def _extensions(body):
    """The extensions' structure, then processExtensions for the ones it checks here; the SubjectKeyId."""
    exts = _Reader(_Reader(body).take(0x30, "x509: malformed extensions")[0])
    seen, parsed = set(), []
    while not exts.empty():
        ext = _Reader(exts.take(0x30, "x509: malformed extension")[0])
        oid = _oid(ext, "x509: malformed extension OID field")
        critical = ext.optional(0x01, "x509: malformed extension critical field")
        if critical is not None and critical not in (b"\x00", b"\xff"):
            raise CertificateError("x509: malformed extension critical field")
        value = ext.take(0x04, "x509: malformed extension value field")[0]
        if oid in seen:
            raise CertificateError("x509: certificate contains duplicate extension with OID %s" % go_quote(oid))
        seen.add(oid)
        parsed.append((oid, critical == b"\xff", value))
    ski = None
    for oid, critical, value in parsed:
        check = _EXTENSION_CHECKS.get(oid)
        if check is not None:
            found = check(critical, _Reader(value))
            if oid == "2.5.29.14":
                ski = found
    return ski


def _key_usage(critical, value):
    if _bits(value.take(0x03, "x509: invalid key usage")[0]) is None:
        raise CertificateError("x509: invalid key usage")


def _basic_constraints(critical, value):
    error = "x509: invalid basic constraints"
    body = _Reader(value.take(0x30, error)[0])
    is_ca = body.optional(0x01, error)
    if is_ca is not None and is_ca not in (b"\x00", b"\xff"):
        raise CertificateError(error)
    path_length = body.optional(0x02, error)
    if path_length is not None:
        _integer(path_length, error, (0, 2 ** 63))  # a uint, at most math.MaxInt


_SAN_KINDS = {1: "rfc822Name", 2: "dNSName", 6: "uniformResourceIdentifier"}


def _subject_alt_names(critical, value):
    names = _Reader(value.take(0x30, "x509: invalid subject alternative names")[0])
    while not names.empty():
        tag, data = names.take_any("x509: invalid subject alternative name")
        kind = tag ^ 0x80
        if kind in (1, 2, 6) and any(b > 0x7F for b in data):
            raise CertificateError("x509: SAN %s is malformed" % _SAN_KINDS[kind])
        if kind == 7 and len(data) not in (4, 16):
            raise CertificateError("x509: cannot parse IP address of length %d" % len(data))


def _ext_key_usage(critical, value):
    usages = _Reader(value.take(0x30, "x509: invalid extended key usages")[0])
    while not usages.empty():
        _oid(usages, "x509: invalid extended key usages")


def _authority_key_id(critical, value):
    if critical:
        raise CertificateError("x509: authority key identifier incorrectly marked critical")
    body = _Reader(value.take(0x30, "x509: invalid authority key identifier")[0])
    body.optional(0x80, "x509: invalid authority key identifier")


def _subject_key_id(critical, value):
    if critical:
        raise CertificateError("x509: subject key identifier incorrectly marked critical")
    return value.take(0x04, "x509: invalid subject key identifier")[0]


_EXTENSION_CHECKS = {"2.5.29.15": _key_usage, "2.5.29.19": _basic_constraints, "2.5.29.17": _subject_alt_names,
                     "2.5.29.37": _ext_key_usage, "2.5.29.35": _authority_key_id, "2.5.29.14": _subject_key_id}


# ------------------------------------------------------------------ the certificate

def parse_certificate(data):
    """(raw subject, SubjectPublicKeyInfo of a key Go knows or None, SubjectKeyId or None)."""
    outer = der.read(data, 0, 0x30)
    if outer is None:
        raise CertificateError("x509: malformed certificate")
    cert = _Reader(outer[0])
    tbs = _Reader(cert.take(0x30, "x509: malformed tbs certificate")[0])
    version = 0
    explicit = tbs.optional(0xA0, "x509: malformed version")
    if explicit is not None:
        inner = _Reader(explicit)
        version = _integer(inner.take(0x02, "x509: malformed version")[0], "x509: malformed version", _INT64)
        if not inner.empty():
            raise CertificateError("x509: malformed version")
    if version < 0:
        raise CertificateError("x509: malformed version")
    if version > 2:
        raise CertificateError("x509: invalid version")
    if _integer(tbs.take(0x02, "x509: malformed serial number")[0], "x509: malformed serial number") < 0:
        raise CertificateError("x509: negative serial number")
    inner_ai = tbs.take(0x30, "x509: malformed signature algorithm identifier")[0]
    if cert.take(0x30, "x509: malformed algorithm identifier")[0] != inner_ai:
        raise CertificateError("x509: inner and outer signature algorithm identifiers don't match")
    _algorithm(inner_ai)
    _name(tbs.take(0x30, "x509: malformed issuer")[1])
    validity = _Reader(tbs.take(0x30, "x509: malformed validity")[0])
    _time(validity)
    _time(validity)
    subject = tbs.take(0x30, "x509: malformed issuer")[1]
    _name(subject)
    spki_body, spki = tbs.take(0x30, "x509: malformed spki")
    key = _Reader(spki_body)
    algorithm, params = _algorithm(key.take(0x30, "x509: malformed public key algorithm identifier")[0])
    bits = _bits(key.take(0x03, "x509: malformed subjectPublicKey")[0])
    if bits is None:
        raise CertificateError("x509: malformed subjectPublicKey")
    if algorithm in _KNOWN_KEYS:
        _public_key(algorithm, params, bits)
    ski = None
    if version > 0:
        tbs.optional(0x81, "x509: malformed issuerUniqueID")
        tbs.optional(0x82, "x509: malformed subjectUniqueID")
    if version == 2:
        extensions = tbs.optional(0xA3, "x509: malformed extensions")
        if extensions is not None:
            ski = _extensions(extensions)
    if _bits(cert.take(0x03, "x509: malformed signature")[0]) is None:
        raise CertificateError("x509: malformed signature")
    if outer[2] != len(data):
        raise CertificateError("x509: trailing data")
    return subject, spki if algorithm in _KNOWN_KEYS else None, ski
