"""Private keys Sprig reads from a chart, broken in every way we generate (PEM framing, DER structure,
key numbers, key types in the wrong block), against Helm: a key Go accepts comes back re-encoded
exactly as Go writes it, and one Go refuses fails with Go's text."""
import pytest

from crypto_oracle import (both, children, contents, der_of, integer, multi_prime, multi_prime_der, pem, pem_of, private_keys,
                           seq, tlv, variants)

KEYS = private_keys()
RSA = KEYS["rsa2048"]
RSA_PEM = pem(RSA)
PKCS1, SEC1 = der_of(RSA_PEM), der_of(pem(KEYS["p256"]))
PKCS8_RSA, PKCS8_EC, PKCS8_ED = (der_of(pem(KEYS[k], "pkcs8")) for k in ("rsa2048", "p256", "ed25519"))
DSA = der_of(pem(KEYS["dsa"]))
P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551
OID_P256, OID_EC, OID_ED25519 = bytes.fromhex("06082a8648ce3d030107"), bytes.fromhex("06072a8648ce3d0201"), bytes.fromhex("06032b6570")


def _rsa_der(version=0, n=None, e=None, d=None, p=None, q=None, dp=None, dq=None, qinv=None, crt=True, extra=b""):
    num = RSA.private_numbers()
    vals = [version, n or num.public_numbers.n, e or num.public_numbers.e, d or num.d, p or num.p, q or num.q]
    if crt:
        vals += [dp or num.dmp1, dq or num.dmq1, qinv or num.iqmp]
    return seq(*[integer(v) for v in vals], extra)


def _ec_der(version=1, scalar=None, curve=OID_P256, public=True, width=32):
    num = KEYS["p256"].private_numbers()
    value = (num.private_value if scalar is None else scalar).to_bytes(width, "big")
    parts = [integer(version), tlv(0x04, value)]
    if curve is not None:
        parts.append(tlv(0xA0, curve))
    if public:
        parts.append(der_of(pem(KEYS["p256"]))[-68:])
    return seq(*parts)


def _pkcs8(algorithm, inner, version=0):
    return seq(integer(version), seq(*algorithm), tlv(0x04, inner))


num = RSA.private_numbers()
KEY_DERS = {}
for label, kind, data in (("pkcs1", "RSA PRIVATE KEY", PKCS1), ("sec1", "EC PRIVATE KEY", SEC1),
                          ("pkcs8 rsa", "PRIVATE KEY", PKCS8_RSA), ("pkcs8 ec", "PRIVATE KEY", PKCS8_EC),
                          ("pkcs8 ed25519", "PRIVATE KEY", PKCS8_ED), ("dsa", "DSA PRIVATE KEY", DSA)):
    for name, broken in variants(label, data).items():
        KEY_DERS[name] = (kind, broken)
KEY_DERS.update({
    "rsa version 1": ("RSA PRIVATE KEY", _rsa_der(version=1)),
    "rsa version 2": ("RSA PRIVATE KEY", _rsa_der(version=2)),
    "rsa even modulus": ("RSA PRIVATE KEY", _rsa_der(n=num.public_numbers.n + 1)),
    "rsa exponent 1": ("RSA PRIVATE KEY", _rsa_der(e=1)),
    "rsa even exponent": ("RSA PRIVATE KEY", _rsa_der(e=65536)),
    "rsa exponent over int32": ("RSA PRIVATE KEY", _rsa_der(e=2 ** 31 + 1)),
    "rsa exponent over int64": ("RSA PRIVATE KEY", _rsa_der(e=2 ** 70 + 1)),
    "rsa d over the modulus": ("RSA PRIVATE KEY", _rsa_der(d=num.public_numbers.n + 2)),
    "rsa negative d": ("RSA PRIVATE KEY", _rsa_der(d=-num.d)),
    "rsa wrong dP": ("RSA PRIVATE KEY", _rsa_der(dp=num.dmp1 + 2)),
    "rsa wrong dQ": ("RSA PRIVATE KEY", _rsa_der(dq=num.dmq1 + 2)),
    "rsa wrong qInv": ("RSA PRIVATE KEY", _rsa_der(qinv=num.iqmp + 1)),
    "rsa qInv over p": ("RSA PRIVATE KEY", _rsa_der(qinv=num.p + num.iqmp)),
    "rsa d not matching dP": ("RSA PRIVATE KEY", _rsa_der(d=num.d + (num.p - 1) // 2)),
    "rsa without CRT values": ("RSA PRIVATE KEY", _rsa_der(crt=False)),
    "rsa p and q swapped": ("RSA PRIVATE KEY", _rsa_der(p=num.q, q=num.p, dp=num.dmq1, dq=num.dmp1,
                                                        qinv=pow(num.p, -1, num.q))),
    "rsa p and q swapped without CRT": ("RSA PRIVATE KEY", _rsa_der(p=num.q, q=num.p, crt=False)),
    "rsa p over the modulus": ("RSA PRIVATE KEY", _rsa_der(p=num.public_numbers.n + 2, crt=False)),
    "rsa p even": ("RSA PRIVATE KEY", _rsa_der(p=num.p + 1, crt=False)),
    "rsa p equal q": ("RSA PRIVATE KEY", _rsa_der(q=num.p, crt=False)),
    "rsa q is one": ("RSA PRIVATE KEY", _rsa_der(q=1, crt=False)),
    "rsa zero q": ("RSA PRIVATE KEY", seq(*[integer(v) for v in (0, num.public_numbers.n, 65537, num.d, num.p, 0)])),
    "rsa with a trailing field": ("RSA PRIVATE KEY", _rsa_der(extra=integer(5))),
    "ec version 0": ("EC PRIVATE KEY", _ec_der(version=0)),
    "ec version 2": ("EC PRIVATE KEY", _ec_der(version=2)),
    "ec without a curve": ("EC PRIVATE KEY", _ec_der(curve=None)),
    "ec with an unknown curve": ("EC PRIVATE KEY", _ec_der(curve=bytes.fromhex("06052b8104000a"))),
    "ec without a public key": ("EC PRIVATE KEY", _ec_der(public=False)),
    "ec scalar zero": ("EC PRIVATE KEY", _ec_der(scalar=0)),
    "ec scalar one": ("EC PRIVATE KEY", _ec_der(scalar=1)),
    "ec scalar one, short": ("EC PRIVATE KEY", _ec_der(scalar=1, width=1)),
    "ec scalar the order": ("EC PRIVATE KEY", _ec_der(scalar=P256_ORDER)),
    "ec scalar the order plus one": ("EC PRIVATE KEY", _ec_der(scalar=P256_ORDER + 1)),
    "ec scalar zero-padded": ("EC PRIVATE KEY", _ec_der(width=34)),
    "ec scalar too long": ("EC PRIVATE KEY", _ec_der(scalar=2 ** 260, width=33)),
    "pkcs8 ec without curve parameters": ("PRIVATE KEY", _pkcs8([OID_EC], _ec_der())),
    "pkcs8 ec naming another curve": ("PRIVATE KEY", _pkcs8([OID_EC, bytes.fromhex("06052b81040022")], _ec_der())),
    "pkcs8 ec without any curve": ("PRIVATE KEY", _pkcs8([OID_EC], _ec_der(curve=None))),
    "pkcs8 version 5": ("PRIVATE KEY", _pkcs8([OID_ED25519], tlv(0x04, b"\x01" * 32), version=5)),
    "pkcs8 ed25519 with parameters": ("PRIVATE KEY", _pkcs8([OID_ED25519, b"\x05\x00"], tlv(0x04, b"\x01" * 32))),
    "pkcs8 ed25519 seed of 31 bytes": ("PRIVATE KEY", _pkcs8([OID_ED25519], tlv(0x04, b"\x01" * 31))),
    "pkcs8 ed25519 seed not an octet string": ("PRIVATE KEY", _pkcs8([OID_ED25519], integer(7))),
    "pkcs8 x25519 key of 31 bytes": ("PRIVATE KEY", _pkcs8([bytes.fromhex("06032b656e")], tlv(0x04, b"\x01" * 31))),
    "pkcs8 unknown algorithm": ("PRIVATE KEY", _pkcs8([bytes.fromhex("06032a0304")], tlv(0x04, b""))),
    "pkcs8 rsa holding ec": ("PRIVATE KEY", _pkcs8([bytes.fromhex("06092a864886f70d010101"), b"\x05\x00"], SEC1)),
    "pkcs1 as ec": ("EC PRIVATE KEY", PKCS1), "pkcs1 as pkcs8": ("PRIVATE KEY", PKCS1), "pkcs1 as dsa": ("DSA PRIVATE KEY", PKCS1),
    "sec1 as rsa": ("RSA PRIVATE KEY", SEC1), "sec1 as pkcs8": ("PRIVATE KEY", SEC1),
    "pkcs8 as rsa": ("RSA PRIVATE KEY", PKCS8_RSA), "pkcs8 as ec": ("EC PRIVATE KEY", PKCS8_EC),
    "dsa as rsa": ("RSA PRIVATE KEY", DSA),
    "dsa without x": ("DSA PRIVATE KEY", seq(*[c[2] for c in children(contents(DSA))[:-1]])),
})


MULTI = multi_prime(3, 512)
KEY_DERS.update({
    "rsa of three primes": ("RSA PRIVATE KEY", multi_prime_der(*MULTI)),
    "rsa of three primes with wrong CRT values": ("RSA PRIVATE KEY", multi_prime_der(*MULTI, crt=False)),
    "rsa of three primes with a wrong d": ("RSA PRIVATE KEY", multi_prime_der(MULTI[0], MULTI[1], MULTI[2] + 2, MULTI[3])),
    "rsa of three primes, two equal": ("RSA PRIVATE KEY", multi_prime_der(MULTI[0], MULTI[1], MULTI[2], MULTI[3][:2] + MULTI[3][:1],
                                                                crt=False)),
    "rsa of three primes, one of them 1": ("RSA PRIVATE KEY", multi_prime_der(MULTI[0], MULTI[1], MULTI[2], MULTI[3][:2] + [1], crt=False)),
    "rsa of three primes, one of them 0": ("RSA PRIVATE KEY", multi_prime_der(MULTI[0], MULTI[1], MULTI[2], MULTI[3][:2] + [0], crt=False)),
    "rsa of four primes in PKCS#8": ("PRIVATE KEY", seq(integer(0), seq(bytes.fromhex("06092a864886f70d010101"), b"\x05\x00"),
                                                         tlv(0x04, multi_prime_der(*multi_prime(4, 300))))),
    "rsa of three small primes": ("RSA PRIVATE KEY", multi_prime_der(*multi_prime(3, 200))),
})
KEY_TEXTS = {name: pem_of(kind, data) for name, (kind, data) in KEY_DERS.items()}
KEY_TEXTS.update({
    "empty": "", "junk": "junk", "crlf": RSA_PEM.replace("\n", "\r\n"), "no final newline": RSA_PEM.rstrip("\n"),
    "text before": "some text\n" + RSA_PEM, "text before on the BEGIN line": "text" + RSA_PEM,
    "text after END": RSA_PEM.rstrip("\n") + " junk\n", "blanks after END": RSA_PEM.rstrip("\n") + " \t\n",
    "blanks in base64": "\n".join(line if line.startswith("-") else line[:10] + " \t " + line[10:] + " "
                                  for line in RSA_PEM.split("\n")),
    "a header": RSA_PEM.replace("-----\n", "-----\nComment: hi\n\n", 1),
    "a header without a blank line": RSA_PEM.replace("-----\n", "-----\nComment: hi\n", 1),
    "a broken block first": "-----BEGIN RSA PRIVATE KEY-----\n!!!!\n-----END RSA PRIVATE KEY-----\n" + RSA_PEM,
    "an END of another type": RSA_PEM.replace("END RSA", "END EC"), "lowercase": RSA_PEM.lower(),
    "an empty block": "-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----\n",
    "an empty block without newline": "-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----",
    "bad padding": RSA_PEM.replace("\n-----END", "=\n-----END"),
    "encrypted pkcs8": pem(RSA, "pkcs8", b"pw"), "encrypted traditional": pem(RSA, "traditional", b"pw"),
    "openssh": pem(RSA, "openssh"), "a certificate": pem_of("CERTIFICATE", PKCS1), "a public key": pem_of("PUBLIC KEY", PKCS1),
    "an unknown kind": pem_of("FOO PRIVATE KEY", PKCS1), "no kind": pem_of(" PRIVATE KEY", PKCS1),
    "the type PRIVATE KEY only": pem_of("PRIVATE KEY", PKCS8_ED),
})
KEY_CASES = sorted(KEY_TEXTS)
KEY_VALUES = {"keys": {str(i): KEY_TEXTS[name] for i, name in enumerate(KEY_CASES)}}


def _key_case(name):
    return '(genCAWithKey "k" 1 (index .Values.keys "%d")).Key' % KEY_CASES.index(name)


@pytest.fixture(scope="module")
def keys_rendered(tmp_path_factory):
    return both(tmp_path_factory.mktemp("keys"), [_key_case(n) for n in KEY_CASES], KEY_VALUES)


@pytest.mark.parametrize("name", KEY_CASES)
def test_a_key_in_a_chart_reads_as_helm_reads_it(name, keys_rendered):
    theirs, ours = keys_rendered[_key_case(name)]
    assert ours == theirs
