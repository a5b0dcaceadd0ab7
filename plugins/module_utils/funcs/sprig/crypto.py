"""Sprig crypto functions (crypto.go): hashes live in encoding.py; here bcrypt/htpasswd,
derivePassword (Master Password algorithm), keys and certificates shaped like Go's
crypto/x509 output, and AES-256-CBC encryptAES/decryptAES."""
import base64
import datetime
import hashlib
import hmac
import ipaddress
import os
import struct

from ...govalue.fmt import format_value
from ...govalue.signature import go_signature
from ...govalue.values import GoStruct
from ._go import to_bytes, from_bytes, GoPanic
from .encoding import _b64_decode, CorruptInput
from ...errors import HelmlessError

x509 = hashes = serialization = dsa = ec = ed25519 = rsa = None
Cipher = algorithms = modes = ExtendedKeyUsageOID = NameOID = None


def _need_cryptography():
    """Import cryptography on first use: x509 alone costs about a second per fresh process,
    which every render would pay although few charts call these functions."""
    global x509, hashes, serialization, dsa, ec, ed25519, rsa
    global Cipher, algorithms, modes, ExtendedKeyUsageOID, NameOID
    if x509 is not None:
        return
    # lazy: third-party (ansible/libraries.py) and slow, see above
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    from cryptography import x509


class Certificate(GoStruct):
    """Sprig's ``certificate`` struct: PEM ``Cert`` and ``Key``."""

    GO_TYPE = "sprig.certificate"
    GO_FIELDS = ("Cert", "Key")

    def __init__(self, cert="", key=""):
        self.Cert, self.Key = cert, key


# ------------------------------------------------------------------ passwords

@go_signature("string")
def bcrypt(s):
    import bcrypt as lib  # lazy: third-party (ansible/libraries.py), for few charts

    h = lib.hashpw(to_bytes(s)[:72], lib.gensalt(rounds=10))
    return "$2a$" + h.decode()[4:]


@go_signature("string", "string")
def htpasswd(username, password):
    if ":" in username:
        return "invalid username: " + username
    return "%s:%s" % (username, bcrypt(password))


_SEED = b"com.lyndir.masterpassword"
_TEMPLATES = {
    "maximum": ["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
    "long": ["CvcvnoCvcvCvcv", "CvcvCvcvnoCvcv", "CvcvCvcvCvcvno", "CvccnoCvcvCvcv",
             "CvccCvcvnoCvcv", "CvccCvcvCvcvno", "CvcvnoCvccCvcv", "CvcvCvccnoCvcv",
             "CvcvCvccCvcvno", "CvcvnoCvcvCvcc", "CvcvCvcvnoCvcc", "CvcvCvcvCvccno",
             "CvccnoCvccCvcv", "CvccCvccnoCvcv", "CvccCvccCvcvno", "CvcvnoCvccCvcc",
             "CvcvCvccnoCvcc", "CvcvCvccCvccno", "CvccnoCvcvCvcc", "CvccCvcvnoCvcc",
             "CvccCvcvCvccno"],
    "medium": ["CvcnoCvc", "CvcCvcno"],
    "short": ["Cvcn"],
    "basic": ["aaanaaan", "aannaaan", "aaannaaa"],
    "pin": ["nnnn"],
}
_CHARS = {
    "V": "AEIOU", "C": "BCDFGHJKLMNPQRSTVWXYZ", "v": "aeiou", "c": "bcdfghjklmnpqrstvwxyz",
    "A": "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
    "a": "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz", "n": "0123456789",
    "o": "@&%?,=[]_:-+*$#!'^~;()/.",
    "x": "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
}


@go_signature("uint32", "string", "string", "string", "string")
def derivePassword(counter, ptype, password, user, site):
    templates = _TEMPLATES.get(ptype)
    if templates is None:
        return "cannot find password template " + ptype
    ub, sb = to_bytes(user), to_bytes(site)
    salt = _SEED + struct.pack(">I", len(ub)) + ub
    key = hashlib.scrypt(to_bytes(password), salt=salt, n=32768, r=8, p=2, dklen=64,
                         maxmem=256 * 1024 * 1024)
    msg = _SEED + struct.pack(">I", len(sb)) + sb + struct.pack(">I", counter & 0xFFFFFFFF)
    seed = hmac.new(key, msg, hashlib.sha256).digest()
    temp = templates[seed[0] % len(templates)]
    return "".join(_CHARS[ch][seed[i + 1] % len(_CHARS[ch])] for i, ch in enumerate(temp))


@go_signature("int")
def randBytes(count):
    if count < 0:
        raise GoPanic("runtime error: makeslice: len out of range")
    return base64.b64encode(os.urandom(count)).decode()


# ------------------------------------------------------------------ keys

# PEM text -> key, of every key this process wrote out: a chart passes genCA's .Key back to genSignedCert,
# and parsing it anew makes OpenSSL check the RSA key (40 ms) that is valid by construction.
_WRITTEN = {}


def _pem_key(priv):
    """pemBlockForKey: PKCS#1 RSA, SEC1 EC, OpenSSL DSA, PKCS#8 otherwise."""
    if isinstance(priv, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, dsa.DSAPrivateKey)):
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
    _need_cryptography()
    if typ in ("", "rsa"):
        priv = rsa.generate_private_key(65537, 4096)
    elif typ == "dsa":
        priv = dsa.generate_private_key(2048)
    elif typ == "ecdsa":
        priv = ec.generate_private_key(ec.SECP256R1())
    elif typ == "ed25519":
        priv = ed25519.Ed25519PrivateKey.generate()
    else:
        return "Unknown type " + typ
    return _pem_key(priv)


class _KeyError(HelmlessError):
    pass


def _pem_decode(data):
    """First PEM block of data: (type, der) or None."""
    text = from_bytes(data) if isinstance(data, bytes) else data
    start = text.find("-----BEGIN ")
    if start < 0:
        return None
    head_end = text.find("-----", start + 11)
    if head_end < 0:
        return None
    btype = text[start + 11:head_end]
    end_marker = "-----END %s-----" % btype
    end = text.find(end_marker, head_end)
    if end < 0:
        return None
    body = "".join(line.strip() for line in text[head_end + 5:end].splitlines()
                   if ":" not in line)
    try:
        return btype, base64.b64decode(body, validate=True)
    except ValueError:
        return None


def parse_private_key_pem(text):
    """Sprig's parsePrivateKeyPEM, with its error texts."""
    _need_cryptography()
    written = _WRITTEN.get(text)
    if written is not None:
        return written
    block = _pem_decode(text)
    if block is None:
        raise _KeyError("no PEM data in input")
    btype, der = block
    if btype == "PRIVATE KEY":
        try:
            return serialization.load_der_private_key(der, None)
        except (ValueError, TypeError) as exc:
            raise _KeyError("decoding PEM as PKCS#8: %s" % exc)
    if not btype.endswith(" PRIVATE KEY"):
        raise _KeyError("no private key data in PEM block of type %s" % btype)
    kind = btype[:-12]
    if kind not in ("RSA", "EC", "DSA"):
        raise _KeyError("invalid private key type %s" % btype)
    want = {"RSA": rsa.RSAPrivateKey, "EC": ec.EllipticCurvePrivateKey,
            "DSA": dsa.DSAPrivateKey}[kind]
    try:
        key = serialization.load_der_private_key(der, None)
    except (ValueError, TypeError) as exc:
        raise _KeyError("parsing %s private key from PEM: %s" % (kind, exc))
    if not isinstance(key, want):
        raise _KeyError("parsing %s private key from PEM: structure error" % kind)
    return key


# ------------------------------------------------------------------ certificates

def _name(cn):
    printable = all(c.isascii() and (c.isalnum() or c in " '()+,-./:=?") for c in cn)
    attr = x509.NameAttribute(NameOID.COMMON_NAME, cn, _type=(
        x509.name._ASN1Type.PrintableString if printable else x509.name._ASN1Type.UTF8String))
    return x509.Name([attr])


def _ips(ips):
    out = []
    for ip in ips or []:
        if not isinstance(ip, str):
            raise ValueError("error parsing ip: %s is not a string" % format_value(ip))
        try:
            out.append(ipaddress.ip_address(ip))
        except ValueError:
            raise ValueError("error parsing ip: %s" % ip)
    return out


def _dns(names):
    out = []
    for n in names or []:
        if not isinstance(n, str):
            raise ValueError("error processing alternate dns name: %s is not a string"
                             % format_value(n))
        out.append(n)
    return out


def _build(cn, ips, dns_names, days, priv, parent_cert, signer, is_ca):
    """x509.CreateCertificate with Sprig's template (getBaseCertTemplate)."""
    ip_list, dns_list = _ips(ips), _dns(dns_names)
    pub = priv.public_key()
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    subject = _name(cn)
    issuer = parent_cert.subject if parent_cert is not None else subject
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
         .public_key(pub).serial_number(int.from_bytes(os.urandom(16), "big") or 1)
         .not_valid_before(now).not_valid_after(now + datetime.timedelta(days=days)))
    b = b.add_extension(x509.KeyUsage(
        digital_signature=True, content_commitment=False, key_encipherment=True,
        data_encipherment=False, key_agreement=False, key_cert_sign=is_ca, crl_sign=False,
        encipher_only=False, decipher_only=False), critical=True)
    b = b.add_extension(x509.ExtendedKeyUsage(
        [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    b = b.add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
    if is_ca:
        b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(pub), critical=False)
    if parent_cert is not None and parent_cert.subject != subject:
        try:
            ski = parent_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier)
            b = b.add_extension(x509.AuthorityKeyIdentifier(ski.value.digest, None, None),
                                critical=False)
        except x509.ExtensionNotFound:
            pass
    if dns_list or ip_list:
        b = b.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName(d) for d in dns_list] + [x509.IPAddress(i) for i in ip_list]),
            critical=False)
    algo = None if isinstance(signer, ed25519.Ed25519PrivateKey) else hashes.SHA256()
    cert = b.sign(signer, algo)
    return Certificate(cert.public_bytes(serialization.Encoding.PEM).decode(), _pem_key(priv))


def _rsa2048():
    return rsa.generate_private_key(65537, 2048)


def _with_key(pem):
    try:
        return parse_private_key_pem(pem)
    except _KeyError as exc:
        raise ValueError("parsing private key: %s" % exc)


@go_signature("string", "int")
def genCA(cn, days):
    _need_cryptography()
    priv = _rsa2048()
    return _build(cn, None, None, days, priv, None, priv, True)


@go_signature("string", "int", "string")
def genCAWithKey(cn, days, key):
    _need_cryptography()
    priv = _with_key(key)
    return _build(cn, None, None, days, priv, None, priv, True)


@go_signature("string", "[]interface {}", "[]interface {}", "int")
def genSelfSignedCert(cn, ips, dns_names, days):
    _need_cryptography()
    priv = _rsa2048()
    return _build(cn, ips, dns_names, days, priv, None, priv, False)


@go_signature("string", "[]interface {}", "[]interface {}", "int", "string")
def genSelfSignedCertWithKey(cn, ips, dns_names, days, key):
    _need_cryptography()
    priv = _with_key(key)
    return _build(cn, ips, dns_names, days, priv, None, priv, False)


def _signer(ca):
    block = _pem_decode(ca.Cert)
    if block is None:
        raise ValueError("unable to decode certificate")
    try:
        cert = x509.load_der_x509_certificate(block[1])
    except ValueError as exc:
        raise ValueError("error parsing certificate: decodedSignerCert.Bytes: %s" % exc)
    try:
        key = parse_private_key_pem(ca.Key)
    except _KeyError as exc:
        raise ValueError("error parsing private key: %s" % exc)
    return cert, key


@go_signature("string", "[]interface {}", "[]interface {}", "int", "sprig.certificate")
def genSignedCert(cn, ips, dns_names, days, ca):
    _need_cryptography()
    priv = _rsa2048()
    cert, key = _signer(ca)
    return _build(cn, ips, dns_names, days, priv, cert, key, False)


@go_signature("string", "[]interface {}", "[]interface {}", "int", "sprig.certificate", "string")
def genSignedCertWithKey(cn, ips, dns_names, days, ca, key):
    _need_cryptography()
    priv = _with_key(key)
    cert, signer = _signer(ca)
    return _build(cn, ips, dns_names, days, priv, cert, signer, False)


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
    block = _pem_decode(cert)
    if block is None:
        raise ValueError("unable to decode certificate")
    try:
        x509.load_der_x509_certificate(block[1])
    except ValueError as exc:
        raise ValueError("error parsing certificate: decodedCert.Bytes: %s" % exc)
    try:
        parse_private_key_pem(from_bytes(key))
    except _KeyError as exc:
        raise ValueError("error parsing private key: %s" % exc)
    return Certificate(from_bytes(cert), from_bytes(key))


# ------------------------------------------------------------------ AES

def _aes_key(password):
    return (to_bytes(password) + b"\0" * 32)[:32]


@go_signature("string", "string")
def encryptAES(password, plaintext):
    _need_cryptography()
    if plaintext == "":
        return ""
    content = to_bytes(plaintext)
    pad = 16 - len(content) % 16
    content += bytes([pad]) * pad
    iv = os.urandom(16)
    enc = Cipher(algorithms.AES(_aes_key(password)), modes.CBC(iv)).encryptor()
    return base64.b64encode(iv + enc.update(content) + enc.finalize()).decode()


@go_signature("string", "string")
def decryptAES(password, crypt64):
    _need_cryptography()
    if crypt64 == "":
        return ""
    try:
        crypt = _b64_decode(to_bytes(crypt64))
    except CorruptInput as exc:
        raise ValueError("illegal base64 data at input byte %d" % exc.args[0])
    if len(crypt) < 16:
        raise GoPanic("runtime error: slice bounds out of range [:16] with capacity %d"
                      % len(crypt))
    iv, body = crypt[:16], crypt[16:]
    if len(body) % 16:
        raise GoPanic("crypto/cipher: input not full blocks")
    dec = Cipher(algorithms.AES(_aes_key(password)), modes.CBC(iv)).decryptor()
    out = dec.update(body) + dec.finalize()
    if not out:
        raise GoPanic("runtime error: index out of range [-1]")
    cut = len(out) - out[-1]
    if cut < 0:
        raise GoPanic("runtime error: slice bounds out of range [:%d]" % cut)
    return from_bytes(out[:cut])


FUNCS = {
    "bcrypt": bcrypt, "htpasswd": htpasswd, "derivePassword": derivePassword,
    "randBytes": randBytes, "genPrivateKey": genPrivateKey, "buildCustomCert": buildCustomCert,
    "genCA": genCA, "genCAWithKey": genCAWithKey, "genSelfSignedCert": genSelfSignedCert,
    "genSelfSignedCertWithKey": genSelfSignedCertWithKey, "genSignedCert": genSignedCert,
    "genSignedCertWithKey": genSignedCertWithKey, "encryptAES": encryptAES,
    "decryptAES": decryptAES,
}
