"""Sprig's key and certificate functions through real Helm and through our engine, and what a
user sees of a certificate, for comparing two random certificates made from the same input.

Cases are template texts inside ``{{ }}`` (``$c := genCA "x" 1 }}{{ $c | toJson``), rendered by
``sprig_oracle.oracle_render`` on Helm's side and by our engine on ours, in the same chart
with the same values (the keys and certificates the tests generate)."""
import base64
import datetime
import hashlib
import json
import os
import random

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519, rsa, x448, x25519

from sprig_oracle import oracle_render, _ERR, _write_chart, as_helm_text
from ansible_collections.helmless.core.plugins.module_utils.chart.loader import load_chart
from ansible_collections.helmless.core.plugins.module_utils.chart.values import ReleaseOptions, to_render_values
from ansible_collections.helmless.core.plugins.module_utils.render.engine import Engine, RenderError

CHUNK = 40


def ours(root, index, case, values):
    """What our render of ``{{ case }}`` gives, in the chart and template file oracle_render gives
    the case at ``index`` (so that an error's location reads the same), or 'ERROR ...' as it does."""
    template = "t%04d.txt" % (index % CHUNK)
    _write_chart(root, {template: "{{ %s }}" % case}, values)
    chart = load_chart(root)
    try:
        rendered = Engine().render(chart, to_render_values(chart, {}, ReleaseOptions("rel", "ns")))
    except RenderError as exc:
        found = _ERR.search(str(exc))
        return "ERROR " + (found.group(1) if found else str(exc))
    return as_helm_text(rendered["c/templates/" + template])


def both(tmpdir, cases, values):
    """{case: (Helm's output, ours)}."""
    theirs = oracle_render(tmpdir, cases, values, chunk=CHUNK)
    return {c: (theirs[c], ours(os.path.join(str(tmpdir), "ours%04d" % i, "c"), i, c, values))
            for i, c in enumerate(cases)}


# ------------------------------------------------------------------ keys to feed the functions

def _probable_prime(bits, rng):
    while True:
        n = rng.getrandbits(bits) | (1 << (bits - 1)) | 1
        if all(pow(a, n - 1, n) == 1 for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)):
            return n


def small_rsa(bits):
    """An RSA key below cryptography's 1024-bit floor (Go parses it and refuses to sign with it)."""
    rng = random.Random(bits)
    while True:
        p, q = _probable_prime(bits // 2, rng), _probable_prime(bits // 2, rng)
        if p != q and (p - 1) % 65537 and (q - 1) % 65537:
            break
    d = pow(65537, -1, (p - 1) * (q - 1))
    return rsa.RSAPrivateNumbers(p, q, d, d % (p - 1), d % (q - 1), pow(q, -1, p),
                                 rsa.RSAPublicNumbers(65537, p * q)).private_key(unsafe_skip_rsa_key_validation=True)


def multi_prime(count, bits):
    """(n, e, d, primes) of an RSA key of ``count`` primes of ``bits`` bits each."""
    rng = random.Random(count * bits)
    while True:
        primes = [_probable_prime(bits, rng) for _i in range(count)]
        if len(set(primes)) == count and all((p - 1) % 65537 for p in primes):
            break
    n, phi = 1, 1
    for p in primes:
        n, phi = n * p, phi * (p - 1)
    return n, 65537, pow(65537, -1, phi), primes


def pem(key, fmt="traditional", password=None):
    formats = {"traditional": serialization.PrivateFormat.TraditionalOpenSSL,
               "pkcs8": serialization.PrivateFormat.PKCS8, "openssh": serialization.PrivateFormat.OpenSSH}
    enc = serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    return key.private_bytes(serialization.Encoding.PEM, formats[fmt], enc).decode()


def der_of(pem_text):
    lines = pem_text.strip().splitlines()
    return base64.b64decode("".join(line for line in lines[1:-1] if ":" not in line))


def pem_of(btype, data):
    body = base64.b64encode(data).decode()
    return "-----BEGIN %s-----\n%s\n-----END %s-----\n" % (
        btype, "\n".join(body[i:i + 64] for i in range(0, len(body), 64)), btype)


def private_keys():
    """name -> private key object, one of each type and size the functions meet."""
    return {
        "rsa1024": rsa.generate_private_key(65537, 1024), "rsa2048": rsa.generate_private_key(65537, 2048),
        "rsa4096": rsa.generate_private_key(65537, 4096), "rsa2048e3": rsa.generate_private_key(3, 2048),
        "rsa512": small_rsa(512),
        "p224": ec.generate_private_key(ec.SECP224R1()), "p256": ec.generate_private_key(ec.SECP256R1()),
        "p384": ec.generate_private_key(ec.SECP384R1()), "p521": ec.generate_private_key(ec.SECP521R1()),
        "k256": ec.generate_private_key(ec.SECP256K1()), "brainpool": ec.generate_private_key(ec.BrainpoolP256R1()),
        "ed25519": ed25519.Ed25519PrivateKey.generate(), "x25519": x25519.X25519PrivateKey.generate(),
        "ed448": ed448.Ed448PrivateKey.generate(), "x448": x448.X448PrivateKey.generate(),
        "dsa": dsa.generate_private_key(2048),
    }


# ------------------------------------------------------------------ what a user sees of a certificate

def _tlv(data, at=0):
    """(tag, contents, whole, next offset) of the DER element at ``at``."""
    tag, size, head = data[at], data[at + 1], 2
    if size & 0x80:
        count = size & 0x7F
        size, head = int.from_bytes(data[at + 2:at + 2 + count], "big"), 2 + count
    end = at + head + size
    return tag, data[at + head:end], data[at:end], end


def _children(data):
    out, at = [], 0
    while at < len(data):
        tag, body, whole, at = _tlv(data, at)
        out.append((tag, body, whole))
    return out


def _time(tag, body):
    text = body.decode()
    if tag == 0x17:
        year = int(text[:2])
        text = ("19" if year >= 50 else "20") + text
    return datetime.datetime.strptime(text, "%Y%m%d%H%M%SZ")


def _key_bits(spki):
    return _children(_tlv(spki)[1])[1][1][1:]


def cert_view(cert_pem, issuer_pem=None):
    """What a user sees of a certificate, minus its random parts: the raw subject and issuer,
    the validity's encodings and length in seconds, the key's algorithm and size, each extension
    with its criticality and value (key identifiers as how they were derived), the signature
    algorithm, and whether the issuer's key verifies the signature."""
    tbs, sig_alg, _sig = _children(_tlv(der_of(cert_pem))[1])
    fields = _children(tbs[1])
    version, serial, inner_alg, issuer, validity, subject, spki = fields[:7]
    (t1, b1, _w1), (t2, b2, _w2) = _children(validity[1])
    cert = x509.load_pem_x509_certificate(cert_pem.encode())
    issuer_cert = x509.load_pem_x509_certificate((issuer_pem or cert_pem).encode())
    issuer_ski = _ski(issuer_cert)
    exts = []
    for ext in _children(_children(fields[7][1])[0][1]) if len(fields) > 7 else []:
        parts = _children(ext[1])
        oid = x509.ObjectIdentifier(_dotted(parts[0][1])).dotted_string
        critical = parts[1][2] if len(parts) == 3 else None
        value = parts[-1][1]
        if oid == "2.5.29.14":
            value = _derivation(_tlv(value)[1], spki[2])
        elif oid == "2.5.29.35" and issuer_ski is not None and _tlv(_tlv(value)[1])[1] == issuer_ski:
            value = "the issuer's subject key id"
        exts.append((oid, critical, value))
    key = cert.public_key()
    try:
        cert.verify_directly_issued_by(issuer_cert)
        verified = True
    except Exception as exc:  # InvalidSignature, or a key that cannot verify
        verified = type(exc).__name__
    return {
        "version": version[2], "serial positive, under 2**128": 0 < int.from_bytes(serial[1], "big") < 2 ** 128,
        "signature algorithm": inner_alg[2], "outer signature algorithm": sig_alg[2],
        "issuer": issuer[2], "subject": subject[2], "validity encodings": (t1, t2),
        "not before": _time(t1, b1), "not after": _time(t2, b2),
        "key algorithm": _children(_tlv(spki[2])[1])[0][2], "key": _key_shape(key),
        "extensions": exts, "signature verifies with the issuer's key": verified,
    }


def _ski(cert):
    try:
        return cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest
    except x509.ExtensionNotFound:
        return None


def _derivation(ski, spki):
    bits = _key_bits(spki)
    if ski == hashlib.sha256(bits).digest()[:20]:
        return "sha256 of the key, 160 bits"
    if ski == hashlib.sha1(bits).digest():
        return "sha1 of the key"
    return ski


def _dotted(body):
    arcs, value = [], 0
    for b in body:
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            arcs.append(value)
            value = 0
    first = min(arcs[0] // 40, 2)
    return ".".join(map(str, [first, arcs[0] - 40 * first] + arcs[1:]))


def _key_shape(key):
    if isinstance(key, rsa.RSAPublicKey):
        return ("rsa", key.key_size, key.public_numbers().e)
    if isinstance(key, ec.EllipticCurvePublicKey):
        return ("ecdsa", key.curve.name)
    return (type(key).__name__,)


def key_view(key_pem):
    """The PEM type and key shape of a generated private key."""
    key = serialization.load_pem_private_key(key_pem.encode(), None)
    return key_pem.splitlines()[0], _key_shape(key.public_key()) if hasattr(key, "public_key") else None


def decoded(output):
    """A case's JSON certificate, or the error text as it is."""
    if output.startswith("ERROR") or not output.startswith("{"):
        return None
    return json.loads(output)


# ------------------------------------------------------------------ DER to build broken inputs

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


def children(data):
    """The elements inside a DER SEQUENCE's contents: [(tag, contents, whole)]."""
    return _children(data)


def contents(data):
    return _tlv(data)[1]





def variants(name, data):
    """Truncations and single-byte flips of a valid DER, at fixed offsets and at its middle and end."""
    fixed = [(str(at), at) for at in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 20, 25, 30)]
    relative = [("the middle", len(data) // 2), ("the end", len(data) - 2)]
    out = {"%s cut at %s" % (name, label): data[:at] for label, at in fixed[:6] + fixed[8:9] + relative}
    for label, at in fixed + relative:
        out["%s flipped at %s" % (name, label)] = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]
    out[name + " with trailing data"] = data + b"\x00"
    return out


def multi_prime_der(n, e, d, primes, crt=True):
    """A PKCS #1 key of more than two primes, with its CRT values or with dummy ones (1)."""
    p, q = primes[:2]
    extras, product = [], p * q
    for r in primes[2:]:
        extras.append(seq(integer(r), integer(d % (r - 1) if crt else 1), integer(pow(product, -1, r) if crt else 1)))
        product *= r
    head = [1, n, e, d, p, q] + ([d % (p - 1), d % (q - 1), pow(q, -1, p)] if crt else [1, 1, 1])
    return seq(*[integer(v) for v in head], seq(*extras))
