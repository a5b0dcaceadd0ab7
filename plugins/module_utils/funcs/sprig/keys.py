"""Sprig's private keys (crypto.go): genPrivateKey, parsePrivateKeyPEM and pemBlockForKey.

Keys are parsed as Go's crypto/x509 parses them, not as OpenSSL does, because a chart's
bad key must fail with the text Helm prints and a key Go accepts must work here too:
``encoding/pem.Decode``, the PKCS #1, SEC 1 and PKCS #8 parsers with their checks in
Go's order, and Sprig's own DSA format, which Go reads without any check."""
import base64
import hashlib
import warnings

from ...govalue.signature import go_signature
from ._go import to_bytes, from_bytes
from . import der
from .encoding import _b64_decode, CorruptInput
from ...errors import HelmlessError

dsa = ec = ed25519 = rsa = x25519 = serialization = None


def need_cryptography():
    """Import cryptography on first use: it costs a fresh process about a second, which every
    render would pay although few charts call these functions."""
    global dsa, ec, ed25519, rsa, x25519, serialization
    if rsa is not None:
        return
    # lazy: third-party (ansible/libraries.py) and slow, see above
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa, x25519


class PrivateKeyError(HelmlessError):
    """An error of parsePrivateKeyPEM; each caller prefixes its own text, as Sprig does."""


# ------------------------------------------------------------------ PEM

_BEGIN, _END, _DASHES = b"-----BEGIN ", b"\n-----END ", b"-----"


def _line(data):
    """pem's getLine: (line without CR/LF and trailing blanks, rest, bytes consumed)."""
    i = data.find(b"\n")
    if i < 0:
        i = j = len(data)
    else:
        j = i + 1
        if i > 0 and data[i - 1] == 13:
            i -= 1
    return data[:i].rstrip(b" \t"), data[j:], j


def pem_decode(data):
    """encoding/pem.Decode: (type, bytes) of the first well-formed block, or None.

    A block whose END line, headers or base64 body is broken is skipped, as Go skips it."""
    rest = to_bytes(data) if isinstance(data, str) else data
    trailer = 0
    while True:
        if trailer < 0 or trailer > len(rest):
            return None
        rest = rest[trailer:]
        end = rest.find(_END)
        if end < 0:
            return None
        trailer = end + len(_END)
        begin = rest.rfind(_BEGIN, 0, end)
        if begin < 0 or (begin > 0 and rest[begin - 1] != 10):
            continue
        skip = begin + len(_BEGIN)
        rest, end, trailer = rest[skip:], end - skip, trailer - skip
        type_line, rest, used = _line(rest)
        end, trailer = end - used, trailer - used
        if not type_line.endswith(_DASHES):
            continue
        btype = type_line[:-len(_DASHES)]
        headers = False
        while True:
            if not rest:
                return None
            line, following, used = _line(rest)
            if b":" not in line:
                break
            headers = True
            rest, end, trailer = following, end - used, trailer - used
        if headers and end < 0:
            continue
        tail = rest[trailer:]
        size = len(btype) + len(_DASHES)
        if len(tail) < size:
            continue
        after, tail = tail[size:], tail[:size]
        if not tail.startswith(btype) or not tail.endswith(_DASHES) or _line(after)[0]:
            continue
        body = b""
        if end > 0:
            try:
                body = _b64_decode(rest[:end].replace(b" ", b"").replace(b"\t", b""))
            except CorruptInput:
                continue
        return from_bytes(btype), body


def pem_encode(btype, data):
    """pem.EncodeToMemory of a block without headers."""
    body = base64.b64encode(data).decode()
    lines = "".join(body[i:i + 64] + "\n" for i in range(0, len(body), 64))
    return "-----BEGIN %s-----\n%s-----END %s-----\n" % (btype, lines, btype)


# ------------------------------------------------------------------ writing keys

# PEM text -> key, of every key this process wrote out: a chart passes genCA's .Key back to genSignedCert,
# and parsing it anew would check the RSA key (tens of ms) that is valid by construction.
_WRITTEN = {}


def pem_key(priv):
    """pemBlockForKey: PKCS #1 RSA, SEC 1 EC, Sprig's DSA format, PKCS #8 otherwise."""
    if isinstance(priv, MultiPrimeRsaKey):
        return pem_encode("RSA PRIVATE KEY", priv.pkcs1())
    if isinstance(priv, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        fmt = serialization.PrivateFormat.TraditionalOpenSSL
    else:
        fmt = serialization.PrivateFormat.PKCS8
    pem = priv.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode()
    if len(_WRITTEN) >= 256:
        _WRITTEN.clear()
    _WRITTEN[pem] = priv
    return pem


@go_signature("string")
def genPrivateKey(typ):
    need_cryptography()
    if typ in ("", "rsa"):
        priv = rsa.generate_private_key(65537, 4096)
    elif typ == "dsa":
        return _dsa_key_pem()
    elif typ == "ecdsa":
        priv = ec.generate_private_key(ec.SECP256R1())
    elif typ == "ed25519":
        priv = ed25519.Ed25519PrivateKey.generate()
    else:
        return "Unknown type " + typ
    return pem_key(priv)


def _dsa_key_pem():
    """Sprig's DSA key (L2048N256) in its PEM format, which is OpenSSL's traditional one. cryptography 51
    deprecates DSA: a warning on every render would tell the user running a chart of the chart's choice.
    Parsed back, the key is a DsaKey, as any DSA key read from text."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "DSA is deprecated")
        priv = dsa.generate_private_key(2048)
    fmt = serialization.PrivateFormat.TraditionalOpenSSL
    return priv.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode()


# ------------------------------------------------------------------ parsing keys

class DsaKey:
    """A key of Sprig's DSA PEM, unchecked as Go leaves it: it parses, but it cannot sign
    (Go's *dsa.PrivateKey is no crypto.Signer) and no certificate can carry its public half."""

    def __init__(self, numbers):
        self.numbers = numbers


CURVES = {"1.3.132.0.33": "SECP224R1", "1.2.840.10045.3.1.7": "SECP256R1", "1.3.132.0.34": "SECP384R1",
          "1.3.132.0.35": "SECP521R1"}
OID_RSA, OID_EC, OID_ED25519, OID_X25519 = "1.2.840.113549.1.1.1", "1.2.840.10045.2.1", "1.3.101.112", "1.3.101.110"
_USE = "x509: failed to parse private key (use %s instead for this key format)"
_NOT_MODULUS = "modulus must be > 1"
_OVERFLOW = "input overflows the modulus"


def _rsa_check(n, e, d, p, q, crt):
    """The first failure of Go's crypto/rsa precompute and key check, or None.

    crt: (dP, dQ, qInv) when the key holds all three, else None (Go recomputes them)."""
    if p <= 1 or q <= 1 or n <= 1:
        return _NOT_MODULUS
    if _overflow(d, n):
        return _overflow(d, n)
    if crt is None:
        if p <= 2 or q <= 2:
            return _NOT_MODULUS
        if p % 2 == 0:
            return "crypto/rsa: p is even"
        dp, dq, qinv = d % (p - 1), d % (q - 1), pow(q % p, p - 2, p)
    else:
        dp, dq, qinv = crt
        if _overflow(qinv, p):
            return _overflow(qinv, p)
    problem = _rsa_public_check(n, e)
    if problem:
        return problem
    if p >= n or q >= n:
        return "crypto/rsa: invalid prime"
    if p * q % n:
        return "crypto/rsa: p * q != n"
    for prime, exp in ((p, dp), (q, dq)):
        if prime <= 2:
            return "crypto/rsa: invalid prime"
        if exp >= prime - 1 or e * exp % (prime - 1) != 1:
            return "crypto/rsa: invalid CRT exponent"
    if qinv * q % p != 1:
        return "crypto/rsa: invalid CRT coefficient"
    if d % (p - 1) != dp:
        return "crypto/rsa: d does not match dP"
    if d % (q - 1) != dq:
        return "crypto/rsa: d does not match dQ"
    if p == q:
        return "crypto/rsa: p == q"
    if abs(p - q).bit_length() <= n.bit_length() // 2 - 100:
        return "crypto/rsa: |p - q| too small"
    if d.bit_length() <= n.bit_length() // 2:
        return "crypto/rsa: d too small"
    return None


def _overflow(value, modulus):
    """bigmod's Nat.SetBytes failure: more bytes than the modulus's 64-bit limbs hold, or not below it."""
    if (value.bit_length() + 7) // 8 > 8 * ((modulus.bit_length() + 63) // 64):
        return _OVERFLOW + " size"
    return _OVERFLOW if value >= modulus else None


def _rsa_public_check(n, e):
    if n % 2 == 0:
        return "crypto/rsa: public modulus is even"
    if e < 2:
        return "crypto/rsa: public exponent too small or negative"
    if e % 2 == 0:
        return "crypto/rsa: public exponent is even"
    if e > 2 ** 31 - 1:
        return "crypto/rsa: public exponent too large"
    return None


def _parse_pkcs1(data):
    """x509.ParsePKCS1PrivateKey."""
    try:
        k, rest = der.unmarshal(data, der.PKCS1)
    except der.Asn1Error:
        if der.parses(data, der.EC):
            raise der.Asn1Error(_USE % "ParseECPrivateKey")
        if der.parses(data, der.PKCS8):
            raise der.Asn1Error(_USE % "ParsePKCS8PrivateKey")
        raise
    if rest:
        raise der.Asn1Error("asn1: syntax error: trailing data")
    if k["Version"] > 1:
        raise der.Asn1Error("x509: unsupported private key version")
    crt = (k["Dp"], k["Dq"], k["Qinv"])
    if min(k["N"], k["D"], k["P"], k["Q"]) <= 0 or any(v is not None and v <= 0 for v in crt):
        raise der.Asn1Error("x509: private key contains zero or negative value")
    if k["AdditionalPrimes"]:
        return _multi_prime(k)
    n, e, d, p, q = k["N"], k["E"], k["D"], k["P"], k["Q"]
    problem = _rsa_check(n, e, d, p, q, None if None in crt else crt)
    if problem:
        raise der.Asn1Error(problem)
    dp, dq, qinv = (d % (p - 1), d % (q - 1), pow(q, -1, p)) if None in crt else crt
    # Go's checks above cover OpenSSL's; its own (tens of ms for 4096 bits) would only repeat them.
    return rsa.RSAPrivateNumbers(p, q, d, dp, dq, qinv, rsa.RSAPublicNumbers(e, n)).private_key(
        unsafe_skip_rsa_key_validation=True)


def _multi_prime(k):
    """A PKCS #1 key of more than two primes, checked as Go's precomputeLegacy checks it (not that the
    primes make n: Go signs with d alone, and the signature's own check catches a wrong d)."""
    if any(extra["Prime"] <= 0 for extra in k["AdditionalPrimes"]):
        raise der.Asn1Error("x509: private key contains zero or negative prime")
    n, e, d = k["N"], k["E"], k["D"]
    primes = [k["P"], k["Q"]] + [extra["Prime"] for extra in k["AdditionalPrimes"]]
    problem = _NOT_MODULUS if n <= 1 else _overflow(d, n) or _rsa_public_check(n, e)
    if problem:
        raise der.Asn1Error(problem)
    if min(primes) <= 1:
        raise der.Asn1Error("crypto/rsa: prime factor is <= 1")
    try:
        pow(primes[1], -1, primes[0])
        product = primes[0] * primes[1]
        for prime in primes[2:]:
            pow(product, -1, prime)
            product *= prime
    except ValueError:
        raise der.Asn1Error("crypto/rsa: prime factors are not relatively prime") from None
    return MultiPrimeRsaKey(n, e, d, primes)


class MultiPrimeRsaKey:
    """An RSA key of more than two primes, as Go keeps one; cryptography, like OpenSSL's default
    provider, has none. It signs PKCS #1 v1.5 with SHA-256 by d alone and checks the signature, as
    Go's crypto/rsa does, and is written back with the CRT values Go recomputes for it."""

    _SHA256_INFO = bytes.fromhex("3031300d060960864801650304020105000420")

    def __init__(self, n, e, d, primes):
        self.n, self.e, self.d, self.primes = n, e, d, primes
        self.key_size = n.bit_length()

    def public_key(self):
        return rsa.RSAPublicNumbers(self.e, self.n).public_key()

    def sign_sha256(self, data):
        size = (self.key_size + 7) // 8
        digest = self._SHA256_INFO + hashlib.sha256(data).digest()
        message = int.from_bytes(b"\x00\x01" + b"\xff" * (size - len(digest) - 3) + b"\x00" + digest, "big")
        signature = pow(message, self.d, self.n)
        if pow(signature, self.e, self.n) != message:
            raise ValueError("crypto/rsa: decryption error")
        return signature.to_bytes(size, "big")

    def pkcs1(self):
        """MarshalPKCS1PrivateKey: version 1, the first two primes' CRT values, then each further
        prime with its exponent and its coefficient over the product of the primes before it."""
        p, q = self.primes[:2]
        extras, product = [], p * q
        for prime in self.primes[2:]:
            extras.append(der.seq(*[der.integer(v) for v in (prime, self.d % (prime - 1), pow(product, -1, prime))]))
            product *= prime
        head = (1, self.n, self.e, self.d, p, q, self.d % (p - 1), self.d % (q - 1), pow(q, -1, p))
        return der.seq(*[der.integer(v) for v in head], der.seq(*extras))


def _parse_ec(data, curve_oid=None):
    """x509.ParseECPrivateKey, or parseECPrivateKey with the curve PKCS #8 names."""
    try:
        k = der.unmarshal(data, der.EC)[0]
    except der.Asn1Error as exc:
        if der.parses(data, der.PKCS8):
            raise der.Asn1Error(_USE % "ParsePKCS8PrivateKey")
        if der.parses(data, der.PKCS1):
            raise der.Asn1Error(_USE % "ParsePKCS1PrivateKey")
        raise der.Asn1Error("x509: failed to parse EC private key: %s" % exc)
    if k["Version"] != 1:
        raise der.Asn1Error("x509: unknown EC private key version %d" % k["Version"])
    curve = CURVES.get(curve_oid if curve_oid is not None else k["NamedCurveOID"])
    if curve is None:
        raise der.Asn1Error("x509: unknown elliptic curve")
    curve = getattr(ec, curve)()
    raw = k["PrivateKey"]
    while len(raw) > (curve.key_size + 7) // 8:
        if raw[0]:
            raise der.Asn1Error("x509: invalid private key length")
        raw = raw[1:]
    value = int.from_bytes(raw, "big")
    order = _ORDERS[curve.name]
    if value % order == 0:  # d*G is the point at infinity, which has no encoding
        raise der.Asn1Error("ecdsa: invalid public key encoding")
    if value >= order:
        raise der.Asn1Error(_OVERFLOW)
    return ec.derive_private_key(value, curve)


_ORDERS = {
    "secp224r1": 0xffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d,
    "secp256r1": 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551,
    "secp384r1": int("ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973", 16),
    "secp521r1": int("1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d0"
                     "3bb5c9b8899c47aebb6fb71e91386409", 16),
}


def _parse_curve25519(name, params, inner):
    if params:
        raise der.Asn1Error("x509: invalid %s private key parameters" % name)
    try:
        seed = der.unmarshal(inner, "bytes")[0]
    except der.Asn1Error as exc:
        raise der.Asn1Error("x509: invalid %s private key: %s" % (name, exc))
    if name == "X25519":
        if len(seed) != 32:
            raise der.Asn1Error("crypto/ecdh: invalid private key size")
        return x25519.X25519PrivateKey.from_private_bytes(seed)
    if len(seed) != 32:
        raise der.Asn1Error("x509: invalid Ed25519 private key length: %d" % len(seed))
    return ed25519.Ed25519PrivateKey.from_private_bytes(seed)


def _parse_pkcs8(data):
    """x509.ParsePKCS8PrivateKey."""
    try:
        k = der.unmarshal(data, der.PKCS8)[0]
    except der.Asn1Error:
        if der.parses(data, der.EC):
            raise der.Asn1Error(_USE % "ParseECPrivateKey")
        if der.parses(data, der.PKCS1):
            raise der.Asn1Error(_USE % "ParsePKCS1PrivateKey")
        raise
    algo, params, inner = k["Algo"]["Algorithm"], k["Algo"]["Parameters"], k["PrivateKey"]
    if algo == OID_RSA:
        try:
            return _parse_pkcs1(inner)
        except der.Asn1Error as exc:
            raise der.Asn1Error("x509: failed to parse RSA private key embedded in PKCS#8: %s" % exc)
    if algo == OID_EC:
        try:
            curve = der.unmarshal(params or b"", "oid")[0]
        except der.Asn1Error:
            curve = None
        try:
            return _parse_ec(inner, curve)
        except der.Asn1Error as exc:
            raise der.Asn1Error("x509: failed to parse EC private key embedded in PKCS#8: %s" % exc)
    if algo in (OID_ED25519, OID_X25519):
        return _parse_curve25519("Ed25519" if algo == OID_ED25519 else "X25519", params, inner)
    raise der.Asn1Error("x509: PKCS#8 wrapping contained private key with unknown algorithm: %s" % algo)


def _parse_dsa(data):
    return DsaKey(der.unmarshal(data, der.DSA)[0])


def parse_private_key_pem(text):
    """Sprig's parsePrivateKeyPEM, with its error texts."""
    need_cryptography()
    written = _WRITTEN.get(text)
    if written is not None:
        return written
    block = pem_decode(text)
    if block is None:
        raise PrivateKeyError("no PEM data in input")
    btype, data = block
    if btype == "PRIVATE KEY":
        try:
            return _parse_pkcs8(data)
        except der.Asn1Error as exc:
            raise PrivateKeyError("decoding PEM as PKCS#8: %s" % exc)
    if not btype.endswith(" PRIVATE KEY"):
        raise PrivateKeyError("no private key data in PEM block of type %s" % btype)
    kind = btype[:-12]
    parse = {"RSA": _parse_pkcs1, "EC": _parse_ec, "DSA": _parse_dsa}.get(kind)
    if parse is None:
        raise PrivateKeyError("invalid private key type %s" % btype)
    try:
        return parse(data)
    except der.Asn1Error as exc:
        raise PrivateKeyError("parsing %s private key from PEM: %s" % (kind, exc))


FUNCS = {"genPrivateKey": genPrivateKey}
