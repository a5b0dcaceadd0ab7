"""Sprig's certificate functions (crypto.go): genCA, genSelfSignedCert, genSignedCert, their
WithKey forms and buildCustomCert.

The certificate is written as DER by hand, field by field as Go's x509.CreateCertificate
marshals Sprig's template, because what Go writes is what a chart's user sees: an empty
subject (``genCA ""``), common names of any length, validity times past 2049 or wrapped
by an int64 overflow, IPv4-mapped addresses as four bytes, the critical SAN of an empty
subject; and Go's checks fail in Go's order with Go's texts."""
import datetime
import hashlib
import ipaddress
import os
import time

from ...govalue.cast import wrap_int64
from ...govalue.fmt import format_value
from ...govalue.signature import go_signature
from ...govalue.strconv import go_quote
from ...govalue.values import GoStruct
from ._go import to_bytes, from_bytes
from ...errors import HelmlessError
from . import certparse, der, keys
from .encoding import _b64_decode, CorruptInput

hashes = padding = serialization = None


def _need_cryptography():
    """Import cryptography on first use (see keys.need_cryptography)."""
    global hashes, padding, serialization
    keys.need_cryptography()
    if hashes is not None:
        return
    # lazy: third-party (ansible/libraries.py) and slow
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding


class Certificate(GoStruct):
    """Sprig's ``certificate`` struct: PEM ``Cert`` and ``Key``."""

    GO_TYPE = "sprig.certificate"
    GO_FIELDS = ("Cert", "Key")

    def __init__(self, cert="", key=""):
        self.Cert, self.Key = cert, key


class _CertError(HelmlessError, ValueError):
    """An error of x509.CreateCertificate, which Sprig prefixes."""


# ------------------------------------------------------------------ Sprig's template

def _ips(ips):
    """getNetIPs with net.ParseIP; an IPv4 (or IPv4-mapped) address is written as 4 bytes."""
    out = []
    for ip in ips or []:
        if not isinstance(ip, str):
            raise ValueError("error parsing ip: %s is not a string" % format_value(ip))
        try:
            if "%" in ip:  # netip reads a zone, net.ParseIP refuses it
                raise ValueError(ip)
            addr = ipaddress.ip_address(ip)
        except ValueError:
            raise ValueError("error parsing ip: %s" % ip)
        if addr.version == 6 and addr.ipv4_mapped is not None:
            addr = addr.ipv4_mapped
        out.append(addr.packed)
    return out


def _dns(names):
    out = []
    for name in names or []:
        if not isinstance(name, str):
            raise ValueError("error processing alternate dns name: %s is not a string" % format_value(name))
        out.append(name)
    return out


_PRINTABLE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 '()+,-./:=?")
_EMPTY_NAME = der.seq()


def _name(cn):
    """pkix.Name{CommonName: cn} as asn1.Marshal writes it: no attribute for an empty name,
    PrintableString where every byte allows it, else UTF8String."""
    raw = to_bytes(cn)
    if not raw:
        return _EMPTY_NAME
    tag = 0x13
    if not all(b in _PRINTABLE for b in raw):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _CertError("asn1: string not valid UTF-8")
        tag = 0x0C
    return der.seq(der.tlv(0x31, der.seq(der.oid("2.5.4.3"), der.tlv(tag, raw))))


_EPOCH = datetime.datetime(1970, 1, 1)
_DAY_NS = 24 * 3600 * 10 ** 9


def _time(ns):
    """A validity time as asn1.Marshal writes a time.Time: UTCTime for 1950-2049, else GeneralizedTime."""
    t = _EPOCH + datetime.timedelta(seconds=ns // 10 ** 9)
    if 1950 <= t.year < 2050:
        return der.tlv(0x17, t.strftime("%y%m%d%H%M%SZ").encode())
    return der.tlv(0x18, ("%04d" % t.year + t.strftime("%m%d%H%M%SZ")).encode())


# ------------------------------------------------------------------ x509.CreateCertificate

def _signing(key):
    """signingParamsForKey: (AlgorithmIdentifier DER, sign(tbs))."""
    if isinstance(key, (keys.rsa.RSAPrivateKey, keys.MultiPrimeRsaKey)):
        return der.seq(der.oid("1.2.840.113549.1.1.11"), der.NULL), lambda tbs: _rsa_sign(key, tbs)
    if isinstance(key, keys.ec.EllipticCurvePrivateKey):
        digest, arc = {"secp384r1": (hashes.SHA384, 3), "secp521r1": (hashes.SHA512, 4)}.get(
            key.curve.name, (hashes.SHA256, 2))
        return der.seq(der.oid("1.2.840.10045.4.3.%d" % arc)), lambda tbs: key.sign(tbs, keys.ec.ECDSA(digest()))
    return der.seq(der.oid(keys.OID_ED25519)), key.sign


def _rsa_sign(key, tbs):
    if key.key_size < 1024:  # Go's rsa1024min, checked when the key signs
        raise _CertError("crypto/rsa: %d-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)"
                         % key.key_size)
    if isinstance(key, keys.MultiPrimeRsaKey):
        try:
            return key.sign_sha256(tbs)
        except ValueError as exc:
            raise _CertError(str(exc))
    return key.sign(tbs, padding.PKCS1v15(), hashes.SHA256())


def _is_signer(key):
    return isinstance(key, (keys.rsa.RSAPrivateKey, keys.MultiPrimeRsaKey, keys.ec.EllipticCurvePrivateKey,
                            keys.ed25519.Ed25519PrivateKey))


def _public_key_info(priv):
    """marshalPublicKey: the SubjectPublicKeyInfo of the keys Go can put into a certificate."""
    if isinstance(priv, keys.DsaKey):
        raise _CertError("x509: unsupported public key type: *dsa.PublicKey")
    if isinstance(priv, keys.x25519.X25519PrivateKey):
        raise _CertError("x509: unsupported public key type: *ecdh.PublicKey")
    return _spki(priv.public_key())


def _spki(pub):
    return pub.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def _key_bits(spki):
    """The subjectPublicKey BIT STRING's bytes, without its unused-bits octet."""
    body = der.read(spki, 0, 0x30)[0]
    return der.read(body, der.read(body, 0, 0x30)[2], 0x03)[0][1:]


def _extension(oid, value, critical=False):
    return der.seq(der.oid(oid), der.BOOLEAN_TRUE if critical else b"", der.octets(value))


def _san(dns_names, ips, critical):
    """marshalSANs: DNS names as IA5Strings, then the IP addresses."""
    parts = []
    for name in dns_names:
        if any(ord(c) > 127 for c in name):
            raise _CertError("x509: %s cannot be encoded as an IA5String" % go_quote(name))
        parts.append(der.tlv(0x82, to_bytes(name)))
    parts += [der.tlv(0x87, ip) for ip in ips]
    return _extension("2.5.29.17", der.seq(*parts), critical)


_KEY_USAGE = {True: b"\x03\x02\x02\xa4", False: b"\x03\x02\x05\xa0"}  # +certSign for a CA
_EXT_KEY_USAGE = der.seq(der.oid("1.3.6.1.5.5.7.3.1"), der.oid("1.3.6.1.5.5.7.3.2"))  # serverAuth, clientAuth


def _create(cn, ips, dns_names, days, priv, parent, signer, is_ca):
    """getBaseCertTemplate, then x509.CreateCertificate in Go's order of checks.

    parent: None (self-signed) or (raw subject, public key or None, SubjectKeyId) of the signing CA."""
    ip_list, dns_list = _ips(ips), _dns(dns_names)
    serial = int.from_bytes(os.urandom(16), "big")
    now = time.time_ns()
    validity = der.seq(_time(now), _time(now + wrap_int64(days * _DAY_NS)))
    try:
        if not _is_signer(signer):
            raise _CertError("x509: certificate private key does not implement crypto.Signer")
        sig_alg, sign = _signing(signer)
        spki = _public_key_info(priv)
        subject = _name(cn)
        issuer, parent_pub, parent_ski = parent if parent is not None else (subject, None, None)
        if parent_pub is not None and _spki(signer.public_key()) != parent_pub:
            raise _CertError("x509: provided PrivateKey doesn't match parent's PublicKey")
        exts = [_extension("2.5.29.15", _KEY_USAGE[is_ca], True), _extension("2.5.29.37", _EXT_KEY_USAGE),
                _extension("2.5.29.19", der.seq(der.BOOLEAN_TRUE) if is_ca else der.seq(), True)]
        if is_ca:  # the SubjectKeyId of Go >= 1.25: SHA-256 of the key's bits, cut to 160 bits
            exts.append(_extension("2.5.29.14", der.octets(hashlib.sha256(_key_bits(spki)).digest()[:20])))
        if issuer != subject and parent_ski:
            exts.append(_extension("2.5.29.35", der.seq(der.tlv(0x80, parent_ski))))
        if dns_list or ip_list:
            exts.append(_san(dns_list, ip_list, subject == _EMPTY_NAME))
        tbs = der.seq(b"\xa0\x03\x02\x01\x02", der.integer(serial), sig_alg, issuer, validity, subject, spki,
                      der.tlv(0xA3, der.seq(*exts)))
        cert = der.seq(tbs, sig_alg, der.bit_string(sign(tbs)))
    except _CertError as exc:
        raise ValueError("error creating certificate: %s" % exc)
    return Certificate(keys.pem_encode("CERTIFICATE", cert), keys.pem_key(priv))


# ------------------------------------------------------------------ the functions

def _rsa2048():
    return keys.rsa.generate_private_key(65537, 2048)


def _with_key(pem):
    try:
        return keys.parse_private_key_pem(pem)
    except keys.PrivateKeyError as exc:
        raise ValueError("parsing private key: %s" % exc)


def _certificate_block(pem, what):
    block = keys.pem_decode(pem)
    if block is None:
        raise ValueError("unable to decode certificate")
    try:
        return certparse.parse_certificate(block[1])
    except certparse.CertificateError as exc:
        raise ValueError("error parsing certificate: %s: %s" % (what, exc))


def _signer(ca):
    parent = _certificate_block(ca.Cert, "decodedSignerCert.Bytes")
    try:
        key = keys.parse_private_key_pem(ca.Key)
    except keys.PrivateKeyError as exc:
        raise ValueError("error parsing private key: %s" % exc)
    return parent, key


@go_signature("string", "int")
def genCA(cn, days):
    _need_cryptography()
    priv = _rsa2048()
    return _create(cn, None, None, days, priv, None, priv, True)


@go_signature("string", "int", "string")
def genCAWithKey(cn, days, key):
    _need_cryptography()
    priv = _with_key(key)
    return _create(cn, None, None, days, priv, None, priv, True)


@go_signature("string", "[]interface {}", "[]interface {}", "int")
def genSelfSignedCert(cn, ips, dns_names, days):
    _need_cryptography()
    priv = _rsa2048()
    return _create(cn, ips, dns_names, days, priv, None, priv, False)


@go_signature("string", "[]interface {}", "[]interface {}", "int", "string")
def genSelfSignedCertWithKey(cn, ips, dns_names, days, key):
    _need_cryptography()
    priv = _with_key(key)
    return _create(cn, ips, dns_names, days, priv, None, priv, False)


@go_signature("string", "[]interface {}", "[]interface {}", "int", "sprig.certificate")
def genSignedCert(cn, ips, dns_names, days, ca):
    _need_cryptography()
    priv = _rsa2048()
    parent, signer = _signer(ca)
    return _create(cn, ips, dns_names, days, priv, parent, signer, False)


@go_signature("string", "[]interface {}", "[]interface {}", "int", "sprig.certificate", "string")
def genSignedCertWithKey(cn, ips, dns_names, days, ca, key):
    _need_cryptography()
    priv = _with_key(key)
    parent, signer = _signer(ca)
    return _create(cn, ips, dns_names, days, priv, parent, signer, False)


@go_signature("string", "string")
def buildCustomCert(b64cert, b64key):
    _need_cryptography()
    try:
        cert = _b64_decode(to_bytes(b64cert))
    except CorruptInput:
        raise ValueError("unable to decode base64 certificate")
    try:
        key = _b64_decode(to_bytes(b64key))
    except CorruptInput:
        raise ValueError("unable to decode base64 private key")
    _certificate_block(cert, "decodedCert.Bytes")
    try:
        keys.parse_private_key_pem(from_bytes(key))
    except keys.PrivateKeyError as exc:
        raise ValueError("error parsing private key: %s" % exc)
    return Certificate(from_bytes(cert), from_bytes(key))


FUNCS = {
    "buildCustomCert": buildCustomCert, "genCA": genCA, "genCAWithKey": genCAWithKey,
    "genSelfSignedCert": genSelfSignedCert, "genSelfSignedCertWithKey": genSelfSignedCertWithKey,
    "genSignedCert": genSignedCert, "genSignedCertWithKey": genSignedCertWithKey,
}
