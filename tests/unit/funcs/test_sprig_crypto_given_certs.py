"""Certificates Sprig reads from a chart (buildCustomCert, the CA of genSignedCert), broken in every way
we generate (truncations, flipped bytes, structure re-signed so that only it is at fault), against
Helm: a certificate Go parses is accepted as it is, and one Go refuses fails with Go's text."""
import base64
import datetime

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.x509.oid import NameOID

from crypto_oracle import both, children, contents, integer, pem, pem_of, private_keys, seq, tlv, variants

KEYS = private_keys()
PKCS1 = base64.b64decode("".join(pem(KEYS["rsa2048"]).strip().splitlines()[1:-1]))

def _certificate():
    key = KEYS["p256"]
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "given")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(12345).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.DER)


CERT = _certificate()


def _resigned(tbs_fields, key=KEYS["p256"]):
    """A certificate of the given TBS fields, signed so that only its structure is at fault."""
    tbs = seq(*tbs_fields)
    alg = seq(bytes.fromhex("06082a8648ce3d040302"))
    sig = key.sign(tbs, ec.ECDSA(hashes.SHA256())) if isinstance(key, ec.EllipticCurvePrivateKey) else \
        key.sign(tbs, padding.PKCS1v15(), hashes.SHA256())
    return seq(tbs, alg, tlv(0x03, b"\x00" + sig))


TBS = [c[2] for c in children(children(contents(CERT))[0][1])]
CERT_DERS = variants("certificate", CERT)
CERT_DERS.update({
    "version 1 without extensions": _resigned(TBS[1:7]),
    "version 4": _resigned([tlv(0xA0, integer(3))] + TBS[1:]),
    "negative version": _resigned([tlv(0xA0, integer(-1))] + TBS[1:]),
    "negative serial": _resigned([TBS[0], integer(-5)] + TBS[2:]),
    "zero serial": _resigned([TBS[0], integer(0)] + TBS[2:]),
    "other inner algorithm": _resigned([TBS[0], TBS[1], seq(bytes.fromhex("06082a8648ce3d040303"))] + TBS[3:]),
    "no extensions, version 3": _resigned(TBS[:7]),
    "duplicate extensions": _resigned(TBS[:7] + [tlv(0xA3, seq(*(2 * [c[2] for c in children(contents(contents(TBS[7])))])))]),
    "critical key id": _resigned(TBS[:7] + [tlv(0xA3, seq(seq(bytes.fromhex("0603551d0e"), b"\x01\x01\xff",
                                                              tlv(0x04, tlv(0x04, b"\x01" * 20)))))]),
    "key id not an octet string": _resigned(TBS[:7] + [tlv(0xA3, seq(seq(bytes.fromhex("0603551d0e"), tlv(0x04, integer(1)))))]),
    "a key as the certificate": PKCS1,
})
CN = bytes.fromhex("0603550403")


def _named(tag, value):
    return seq(tlv(0x31, seq(CN, tlv(tag, value))))


def _times(before, after, tags=(0x17, 0x17)):
    return seq(tlv(tags[0], before), tlv(tags[1], after))


def _with_extension(oid_hex, value, critical=False):
    return _resigned(TBS[:7] + [tlv(0xA3, seq(seq(bytes.fromhex(oid_hex), b"\x01\x01\xff" if critical else b"",
                                                   tlv(0x04, value))))])


GOOD_TIMES = (b"260101000000Z", b"360101000000Z")
for label, tag, value in (("printable string with @", 0x13, b"a@b"), ("UTF8String not UTF-8", 0x0C, b"\xff"),
                          ("BMPString of odd length", 0x1E, b"\x00a\x00"), ("BMPString surrogate", 0x1E, b"\xd8\x00"),
                          ("IA5String not ASCII", 0x16, b"\xe9"), ("NumericString with a letter", 0x12, b"12a"),
                          ("T61String latin-1", 0x14, b"caf\xe9"), ("VisibleString", 0x1A, b"visible"),
                          ("BMPString", 0x1E, "bmp".encode("utf-16-be"))):
    CERT_DERS["an issuer " + label] = _resigned(TBS[:3] + [_named(tag, value)] + TBS[4:])
    CERT_DERS["a subject " + label] = _resigned(TBS[:5] + [_named(tag, value)] + TBS[6:])
for label, times in (("UTCTime +0000", _times(b"260101000000+0000", GOOD_TIMES[1])),
                     ("UTCTime with an offset", _times(b"260101000000+0130", GOOD_TIMES[1])),
                     ("UTCTime without seconds", _times(b"2601010000Z", GOOD_TIMES[1])),
                     ("UTCTime month 13", _times(b"261301000000Z", GOOD_TIMES[1])),
                     ("UTCTime February 30", _times(GOOD_TIMES[0], b"360230000000Z")),
                     ("GeneralizedTime", _times(b"20260101000000Z", b"20360101000000Z", (0x18, 0x18))),
                     ("GeneralizedTime with a fraction", _times(b"20260101000000.5Z", b"20360101000000Z", (0x18, 0x18))),
                     ("GeneralizedTime fraction ending in 0", _times(b"20260101000000.50Z", b"20360101000000Z", (0x18, 0x18))),
                     ("GeneralizedTime of the year 0001", _times(b"00010101000000Z", b"20360101000000Z", (0x18, 0x18))),
                     ("a time of another type", _times(b"260101000000Z", GOOD_TIMES[1], (0x17, 0x04)))):
    CERT_DERS["validity " + label] = _resigned(TBS[:4] + [times] + TBS[5:])
RSA_KEY = KEYS["rsa2048"].public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
RSA_ALG, RSA_BITS = children(contents(RSA_KEY))[0][2], children(contents(RSA_KEY))[1][2]
EC_ALG = children(contents(TBS[6]))[0][2]
for label, spki in (("rsa key without NULL parameters", seq(seq(bytes.fromhex("06092a864886f70d010101")), RSA_BITS)),
                    ("rsa key with a negative exponent", seq(RSA_ALG, tlv(0x03, b"\x00" + seq(integer(99991), integer(-3))))),
                    ("rsa key with a zero modulus", seq(RSA_ALG, tlv(0x03, b"\x00" + seq(integer(0), integer(3))))),
                    ("rsa key that is no sequence", seq(RSA_ALG, tlv(0x03, b"\x00" + integer(5)))),
                    ("ec key off the curve", seq(EC_ALG, tlv(0x03, b"\x00\x04" + b"\x01" * 64))),
                    ("ec key compressed", seq(EC_ALG, tlv(0x03, b"\x00\x02" + b"\x01" * 32))),
                    ("ec key too short", seq(EC_ALG, tlv(0x03, b"\x00\x04" + b"\x01" * 63))),
                    ("ec key over the field", seq(EC_ALG, tlv(0x03, b"\x00\x04" + b"\xff" * 64))),
                    ("ec key on an unknown curve", seq(seq(bytes.fromhex("06072a8648ce3d0201"), bytes.fromhex("06052b8104000a")),
                                                       tlv(0x03, b"\x00\x04" + b"\x01" * 64))),
                    ("ed25519 key of 31 bytes", seq(seq(bytes.fromhex("06032b6570")), tlv(0x03, b"\x00" + b"\x01" * 31))),
                    ("ed25519 key with parameters", seq(seq(bytes.fromhex("06032b6570"), b"\x05\x00"), tlv(0x03, b"\x00" + b"\x01" * 32))),
                    ("x25519 key", seq(seq(bytes.fromhex("06032b656e")), tlv(0x03, b"\x00" + b"\x01" * 32))),
                    ("unknown key algorithm", seq(seq(bytes.fromhex("06032a0304")), tlv(0x03, b"\x00\x01")))):
    CERT_DERS["a " + label] = _resigned(TBS[:6] + [spki] + TBS[7:])
for label, ext in (("key usage that is no bit string", _with_extension("0603551d0f", integer(1), True)),
                   ("key usage with bad padding", _with_extension("0603551d0f", tlv(0x03, b"\x07\xff"), True)),
                   ("basic constraints with a negative path length", _with_extension("0603551d13", seq(b"\x01\x01\xff", integer(-1)))),
                   ("basic constraints with a bad boolean", _with_extension("0603551d13", seq(b"\x01\x01\x01"))),
                   ("subject alt names with a non-ASCII DNS name", _with_extension("0603551d11", seq(tlv(0x82, b"\xe9.example")))),
                   ("subject alt names with an IP of 5 bytes", _with_extension("0603551d11", seq(tlv(0x87, b"\x01" * 5)))),
                   ("subject alt names that are no sequence", _with_extension("0603551d11", tlv(0x82, b"x"))),
                   ("extended key usage with a bad OID", _with_extension("0603551d25", seq(tlv(0x06, b"\x80\x01")))),
                   ("critical authority key id", _with_extension("0603551d23", seq(tlv(0x80, b"\x01")), True)),
                   ("authority key id that is no sequence", _with_extension("0603551d23", tlv(0x04, b"\x01"))),
                   ("an unknown critical extension", _with_extension("06032a0304", b"\x05\x00", True))):
    CERT_DERS["an extension: " + label] = ext
CERT_TEXTS = {name: pem_of("CERTIFICATE", data) for name, data in CERT_DERS.items()}
CERT_TEXTS.update({"not PEM": "junk", "a trusted certificate block": pem_of("TRUSTED CERTIFICATE", CERT)})
CERT_CASES = sorted(CERT_TEXTS)
CERT_VALUES = {"certs": {str(i): base64.b64encode(CERT_TEXTS[n].encode()).decode() for i, n in enumerate(CERT_CASES)},
               "key": base64.b64encode(pem(KEYS["p256"]).encode()).decode()}


def _cert_case(name):
    return '(buildCustomCert (index .Values.certs "%d") .Values.key).Cert | sha256sum' % CERT_CASES.index(name)


@pytest.fixture(scope="module")
def certs_rendered(tmp_path_factory):
    return both(tmp_path_factory.mktemp("given-certs"), [_cert_case(n) for n in CERT_CASES], CERT_VALUES)


@pytest.mark.parametrize("name", CERT_CASES)
def test_a_certificate_in_a_chart_reads_as_helm_reads_it(name, certs_rendered):
    theirs, ours = certs_rendered[_cert_case(name)]
    assert ours == theirs
