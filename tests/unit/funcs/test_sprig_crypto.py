"""Sprig crypto functions: deterministic ones match Helm byte for byte; keys, certificates,
bcrypt and AES interoperate with Helm's output in both directions."""
import base64
import datetime

import bcrypt as bcrypt_lib
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, dsa, rsa

from sprig_oracle import oracle_render, evaluate
from crypto_oracle import both
from ansible_collections.helmless.core.plugins.module_utils.funcs.sprig import SPRIG_FUNCS as F

OUR_CA = F["genCA"]("our-ca", 30)
OUR_EC = F["genPrivateKey"]("ecdsa")
OUR_CIPHER = F["encryptAES"]("s3cret", "hello wörld, a longer plaintext!")


def _b64(s):
    return base64.b64encode(s.encode()).decode()


CASES = [
    'derivePassword 1 "long" "password" "user" "example.com"',
    'derivePassword 3 "maximum" "pw" "üser" "site"', 'derivePassword 1 "pin" "a" "b" "c"',
    'derivePassword 1 "basic" "a" "b" "c"', 'derivePassword 1 "short" "a" "b" "c"',
    'derivePassword 1 "medium" "a" "b" "c"', 'derivePassword 1 "nope" "a" "b" "c"',
    'derivePassword 4294967295 "long" "" "" ""',
    'htpasswd "u:x" "p"', 'genPrivateKey "foo"', 'encryptAES "k" ""', 'decryptAES "k" ""',
    'typeOf (genCA "foo" 1)', 'kindOf (genCA "foo" 1)', 'randBytes 0',
    'decryptAES "s3cret" "%s"' % OUR_CIPHER,
    'decryptAES "k" "!!"', 'decryptAES "k" "AAAA"', 'decryptAES "k" "%s"' % base64.b64encode(b"x" * 20).decode(),
    'genSignedCert "leaf" nil nil 1 (buildCustomCert "%s" "%s") | typeOf' % (_b64(OUR_CA.Cert), _b64(OUR_CA.Key)),
    'genSelfSignedCertWithKey "me" nil nil 1 "%s" | typeOf' % OUR_EC.replace("\n", "\\n"),
    'buildCustomCert "!!" "x"', 'buildCustomCert "%s" "!!"' % _b64(OUR_CA.Cert),
    'buildCustomCert "%s" "%s"' % (_b64("junk"), _b64(OUR_CA.Key)),
    'buildCustomCert "%s" "%s"' % (_b64(OUR_CA.Cert), _b64("junk")),
    'buildCustomCert "%s" "%s"' % (_b64(OUR_CA.Cert), _b64("-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n")),
    'genCAWithKey "x" 1 "junk"', 'genSelfSignedCert "x" (list "1.2.3.999") nil 1',
    'genSelfSignedCert "x" (list 1) nil 1', 'genSelfSignedCert "x" nil (list 2) 1',
    '(buildCustomCert "%s" "%s").Key' % (_b64(OUR_CA.Cert), _b64(OUR_CA.Key)),
]



def _aes(password, padded, iv=b"\x07" * 16):
    """An AES-256-CBC ciphertext as encryptAES lays it out (IV first), of bytes padded by the caller."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    enc = Cipher(algorithms.AES((password.encode() + b"\0" * 32)[:32]), modes.CBC(iv)).encryptor()
    return base64.b64encode(iv + enc.update(padded) + enc.finalize()).decode()


LONG = "a" * 1000
EDGE_CASES = [
    '%s %s' % (fn, arg) for fn in ("sha1sum", "sha256sum", "sha512sum", "adler32sum")
    for arg in ('""', '"abc"', '"%s"' % LONG, '"ünïcödé"', '"\\xff\\xfe"', '"\\x00"', "1", "nil")
] + [
    'derivePassword 0 "long" "pw" "u" "s"', 'derivePassword -1 "long" "pw" "u" "s"',
    'derivePassword 4294967296 "long" "pw" "u" "s"', 'derivePassword 1 "maximum" "ünï" "ü" "日本"',
    'derivePassword 1 "long" "%s" "%s" "%s"' % (LONG, LONG, LONG), 'derivePassword 1 "" "a" "b" "c"',
    'derivePassword 1 "LONG" "a" "b" "c"', 'derivePassword 1.5 "long" "a" "b" "c"',
    'htpasswd ":" "p"', 'htpasswd "ü:x" "p"', 'htpasswd "u" "%s"' % ("p" * 73),
    'bcrypt "%s"' % ("p" * 73), 'bcrypt "%s"' % ("ü" * 37),
    'encryptAES "%s" ""' % ("k" * 40), 'decryptAES "%s" ""' % ("k" * 40),
] + [
    'decryptAES "%s" "%s"' % (pw, _aes(pw, text + bytes([pad]) * (16 - len(text) % 16))) for pw, text, pad in (
        ("k", b"exactly sixteen!", 16), ("k" * 40, b"password cut at 32 bytes", 8), ("", b"empty password", 2),
        ("\u00fcn\u00ef", b"non-ascii key", 3), ("k", b"padding zero", 0), ("k", b"pad larger than the data", 255),
        ("k", b"pad 12 in a 16 block", 12), ("k", b"\xff\xfe invalid utf-8!", 10))
] + [
    'decryptAES "k" "%s"' % base64.b64encode(b"\x07" * 16).decode(),
    'decryptAES "k" "%s"' % base64.b64encode(b"\x07" * 33).decode(),
    'decryptAES "k" "%s"' % base64.b64encode(b"\x07" * 15).decode(),
    'decryptAES "k" "AAAA===="', 'decryptAES "k" "A"',
]

GO_CASES = [
    'genCA "go-ca" 30 | toJson', 'genPrivateKey "ecdsa"', 'genPrivateKey "ed25519"',
    'encryptAES "s3cret" "interop plaintext"', 'bcrypt "pa55"', 'htpasswd "user" "pa55"',
    '$ca := genCA "go-ca" 30 }}{{ genSignedCert "leaf" (list "10.0.0.1" "::1") (list "a.example" "b") 10 $ca | toJson',
    'genSelfSignedCertWithKey "me" nil (list "x") 5 (genPrivateKey "ecdsa") | toJson',
]


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    return oracle_render(tmp_path_factory.mktemp("crypto"), CASES)


@pytest.fixture(scope="module")
def go(tmp_path_factory):
    return oracle_render(tmp_path_factory.mktemp("crypto-go"), GO_CASES)


@pytest.mark.parametrize("case", CASES)
def test_crypto_function_output_matches_helm(case, expected):
    assert evaluate(case) == expected[case]


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    return both(tmp_path_factory.mktemp("crypto-edges"), EDGE_CASES, {})


@pytest.mark.parametrize("case", EDGE_CASES)
def test_crypto_function_on_an_edge_input_renders_as_helm_renders_it(case, edges):
    theirs, ours = edges[case]
    assert ours == theirs


def _certs(go_json):
    import json
    d = json.loads(go_json)
    return d["Cert"], d["Key"]


def _shape(pem):
    """What Go decides about a certificate, minus the random parts."""
    c = x509.load_pem_x509_certificate(pem.encode())
    exts = [(e.oid.dotted_string, e.critical, _ext_value(e.value)) for e in c.extensions]
    return {
        "version": c.version, "sig": c.signature_algorithm_oid.dotted_string,
        "subject_types": [a._type for a in c.subject], "exts": exts,
        "serial_bits_ok": 0 < c.serial_number < 2 ** 128,
        "days": (c.not_valid_after_utc - c.not_valid_before_utc).days,
    }


def _ext_value(v):
    if isinstance(v, (x509.SubjectKeyIdentifier, x509.AuthorityKeyIdentifier)):
        return type(v).__name__
    if isinstance(v, x509.SubjectAlternativeName):
        return [str(n.value) for n in v]
    return repr(v)


def test_ca_certificate_has_the_extensions_go_writes(go):
    ours = _shape(F["genCA"]("go-ca", 30).Cert)
    theirs = _shape(_certs(go[GO_CASES[0]])[0])
    assert ours == theirs


def test_signed_certificate_has_the_extensions_go_writes(go):
    ca = F["genCA"]("go-ca", 30)
    ours = F["genSignedCert"]("leaf", ["10.0.0.1", "::1"], ["a.example", "b"], 10, ca)
    theirs = _certs(go[GO_CASES[6]])
    assert _shape(ours.Cert) == _shape(theirs[0])
    assert ours.Key.splitlines()[0] == theirs[1].splitlines()[0] == "-----BEGIN RSA PRIVATE KEY-----"


def test_self_signed_certificate_with_an_ecdsa_key_matches_go(go):
    ours = F["genSelfSignedCertWithKey"]("me", None, ["x"], 5, F["genPrivateKey"]("ecdsa"))
    theirs = _certs(go[GO_CASES[7]])
    assert _shape(ours.Cert) == _shape(theirs[0])
    assert ours.Key.splitlines()[0] == theirs[1].splitlines()[0]


def test_signed_certificate_verifies_against_its_ca():
    ca = F["genCA"]("root", 2)
    leaf = F["genSignedCert"]("leaf", None, None, 1, ca)
    cac = x509.load_pem_x509_certificate(ca.Cert.encode())
    lc = x509.load_pem_x509_certificate(leaf.Cert.encode())
    lc.verify_directly_issued_by(cac)
    assert lc.issuer == cac.subject
    now = datetime.datetime.now(datetime.timezone.utc)
    assert lc.not_valid_before_utc <= now < lc.not_valid_after_utc


def test_a_key_this_process_wrote_signs_without_being_parsed_again_and_others_still_parse(monkeypatch):
    from ansible_collections.helmless.core.plugins.module_utils.funcs.sprig import keys
    ca = F["genCA"]("root", 2)
    other = F["genCA"]("other", 2)
    edited = ca.Key.replace("\n", "\r\n")  # the same key in other text: parsed as any PEM
    parsed = []
    real = keys._parse_pkcs1

    def counting(data):
        parsed.append(data)
        return real(data)
    monkeypatch.setattr(keys, "_parse_pkcs1", counting)
    leaf = F["genSignedCert"]("leaf", None, None, 1, ca)
    assert parsed == []
    x509.load_pem_x509_certificate(leaf.Cert.encode()).verify_directly_issued_by(
        x509.load_pem_x509_certificate(ca.Cert.encode()))
    keys._WRITTEN.clear()  # as in a process that did not write it
    assert keys.parse_private_key_pem(other.Key).private_numbers() == \
        serialization.load_pem_private_key(other.Key.encode(), None).private_numbers()
    assert keys.parse_private_key_pem(edited).private_numbers() == keys.parse_private_key_pem(ca.Key).private_numbers()
    assert len(parsed) == 3
    with pytest.raises(keys.PrivateKeyError):
        keys.parse_private_key_pem(ca.Key.replace("MII", "AAA", 1))


def test_go_generated_ca_can_sign_our_certificates(go):
    cert, key = _certs(go[GO_CASES[0]])
    ca = F["buildCustomCert"](_b64(cert), _b64(key))
    leaf = F["genSignedCertWithKey"]("leaf", None, None, 1, ca, F["genPrivateKey"]("ed25519"))
    x509.load_pem_x509_certificate(leaf.Cert.encode()).verify_directly_issued_by(
        x509.load_pem_x509_certificate(cert.encode()))


@pytest.mark.parametrize("typ,cls", [("ecdsa", ec.EllipticCurvePrivateKey),
                                     ("ed25519", ed25519.Ed25519PrivateKey),
                                     ("dsa", dsa.DSAPrivateKey), ("rsa", rsa.RSAPrivateKey)])
def test_generated_private_keys_parse_as_their_type(typ, cls):
    from ansible_collections.helmless.core.plugins.module_utils.funcs.sprig.keys import DsaKey, parse_private_key_pem
    pem = F["genPrivateKey"](typ)
    assert isinstance(serialization.load_pem_private_key(pem.encode(), None), cls)
    key = parse_private_key_pem(pem)
    assert isinstance(key, DsaKey if typ == "dsa" else cls)  # Go reads Sprig's DSA format unchecked: so do we
    if typ == "rsa":
        assert key.key_size == 4096


def test_private_key_pem_headers_match_go(go):
    assert F["genPrivateKey"]("ecdsa").splitlines()[0] == go[GO_CASES[1]].splitlines()[0]
    assert F["genPrivateKey"]("ed25519").splitlines()[0] == go[GO_CASES[2]].splitlines()[0]
    assert len(F["genPrivateKey"]("ed25519")) == len(go[GO_CASES[2]])


def test_aes_ciphertext_from_go_decrypts_here(go):
    assert F["decryptAES"]("s3cret", go[GO_CASES[3]]) == "interop plaintext"


def test_go_bcrypt_hash_shape_matches_ours_and_both_verify(go):
    ours = F["bcrypt"]("pa55")
    assert ours[:7] == go[GO_CASES[4]][:7] == "$2a$10$" and len(ours) == len(go[GO_CASES[4]])
    assert bcrypt_lib.checkpw(b"pa55", ours.encode())
    assert bcrypt_lib.checkpw(b"pa55", go[GO_CASES[4]].encode())


def test_htpasswd_is_user_colon_bcrypt(go):
    user, _, h = F["htpasswd"]("user", "pa55").partition(":")
    assert user == "user" and bcrypt_lib.checkpw(b"pa55", h.encode())
    assert go[GO_CASES[5]].startswith("user:$2a$10$")


def test_random_functions_have_the_requested_shape():
    import re
    assert len(base64.b64decode(F["randBytes"](24))) == 24
    assert re.fullmatch(r"[A-Za-z0-9]{40}", F["randAlphaNum"](40))
    assert re.fullmatch(r"[A-Za-z]{40}", F["randAlpha"](40))
    assert re.fullmatch(r"[0-9]{40}", F["randNumeric"](40))
    assert re.fullmatch(r"[ -~]{40}", F["randAscii"](40))
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", F["uuidv4"]())
    assert sorted(F["shuffle"]("hello")) == sorted("hello")
    assert 3 <= F["randInt"](3, 5) < 5


BCRYPT_PASSWORDS = ["", "a\\x00b", "p" * 72, "\u00fc" * 36, "\\xff\\xfe"]


@pytest.fixture(scope="module")
def hashed(tmp_path_factory):
    return both(tmp_path_factory.mktemp("bcrypt"), ['bcrypt "%s"' % p for p in BCRYPT_PASSWORDS], {})


@pytest.mark.parametrize("password", BCRYPT_PASSWORDS)
def test_bcrypt_of_an_edge_password_is_go_shaped_and_both_hashes_verify_it(password, hashed):
    theirs, ours = hashed['bcrypt "%s"' % password]
    raw = password.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1") \
        if "\\x" in password else password.encode()
    assert ours[:7] == theirs[:7] == "$2a$10$" and len(ours) == len(theirs)
    assert bcrypt_lib.checkpw(raw, theirs.encode()) and bcrypt_lib.checkpw(raw, ours.encode())


def test_a_chart_generating_a_dsa_key_prints_no_deprecation_warning():
    """cryptography 51 deprecates DSA; the chart chose it, so the user running the chart is not told."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert F["genPrivateKey"]("dsa").startswith("-----BEGIN DSA PRIVATE KEY-----\n")
