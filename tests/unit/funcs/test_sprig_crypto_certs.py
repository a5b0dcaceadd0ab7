"""Sprig's certificate functions on edge inputs, against Helm: where Helm fails we fail with its
text; where it makes a certificate ours shows the user the same subject, issuer, validity,
key, extensions and signature algorithm (the serial, keys and signatures are random)."""
import base64
import datetime

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import NameOID

from crypto_oracle import both, cert_view, decoded, key_view, multi_prime, multi_prime_der, pem, pem_of, private_keys

KEYS = private_keys()
TRADITIONAL = ("rsa", "p", "k256", "brainpool", "dsa")


def _key_pem(name, key):
    return pem(key, "traditional" if name.startswith(TRADITIONAL) else "pkcs8")


def go_literal(s):
    """A Go template string literal for s (lone surrogates stand for invalid UTF-8 bytes)."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        elif 0xDC80 <= ord(ch) <= 0xDCFF:
            out.append("\\x%02x" % (ord(ch) - 0xDC00))
        else:
            out.append(ch)
    return '"%s"' % "".join(out)


def _name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)] if cn else [])


def _ca(cn, key_name, signer=None, ski=True, subject_key=None):
    """A CA certificate made by cryptography (SubjectKeyId by SHA-1, as OpenSSL makes it) with its key."""
    key = KEYS[key_name]
    signer_name = signer or key_name
    pub = KEYS[subject_key or key_name].public_key()
    now = datetime.datetime.now(datetime.timezone.utc)
    b = (x509.CertificateBuilder().subject_name(_name(cn)).issuer_name(_name(cn)).public_key(pub)
         .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=9))
         .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True))
    if ski:
        b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(pub), critical=False)
    cert = b.sign(KEYS[signer_name], None if signer_name == "ed25519" else hashes.SHA256())
    text = cert.public_bytes(serialization.Encoding.PEM).decode()
    return {"cert": base64.b64encode(text.encode()).decode(),
            "key": base64.b64encode(_key_pem(key_name, key).encode()).decode(), "pem": text}


CAS = {
    "rsa": _ca("py-ca", "rsa2048"),
    "p384-no-ski": _ca("py-ca-384", "p384", ski=False),
    "ed25519": _ca("py-ca-ed", "ed25519"),
    "named-leaf": _ca("leaf", "p256"),
    "empty-subject": _ca("", "rsa1024"),
    "x25519-subject-key": _ca("py-ca-x", "rsa2048", signer="ed25519", subject_key="x25519"),
}
CAS["mismatched-key"] = dict(CAS["rsa"], key=CAS["named-leaf"]["key"])

VALUES = {
    "keys": dict({name: _key_pem(name, key) for name, key in KEYS.items()},
                 **{name + "-pkcs8": pem(KEYS[name], "pkcs8") for name in ("rsa2048", "p256", "p384", "p521", "dsa")}),
    "cas": {name: {"cert": ca["cert"], "key": ca["key"]} for name, ca in CAS.items()},
    "ips": ["1.2.3.4", 5], "days": 3,
}
VALUES["keys"]["rsa-3-primes"] = pem_of("RSA PRIVATE KEY", multi_prime_der(*multi_prime(3, 512)))


def _ca_arg(name):
    return '(buildCustomCert .Values.cas.%s.cert .Values.cas.%s.key)' % (name.replace("-", "_"), name.replace("-", "_"))


VALUES["cas"] = {name.replace("-", "_"): v for name, v in VALUES["cas"].items()}
VALUES["keys"] = {name.replace("-", "_"): v for name, v in VALUES["keys"].items()}

SUBJECTS = ["", "a", "x" * 64, "x" * 65, "y" * 200, "ünïcödé 日本", "a*b", "a&b", "it's (ok) +,-./:=?", "tab\there",
            "nul\x00", "bad \udcff\udcfe utf-8", 'quote " back \\']
DAYS = [0, 1, -1, 9000, -30000, 36500, 106751, 106752, 213504, 2147483648, 9223372036854775807, -9223372036854775808]
IPS = ["nil", "(list)", '(list "")', '(list "1.2.3.4")', '(list "::1")', '(list "::ffff:1.2.3.4")', '(list "::1.2.3.4")',
       '(list "fe80::1%eth0")', '(list "01.2.3.4")', '(list "1.2.3.4 ")', '(list "1.2.3")', '(list "١.٢.٣.٤")',
       '(list "2001:DB8::1" "10.0.0.1" "::")', '(list "256.1.1.1")', '(list "1:2:3:4:5:6:7::")', '(list "::ffff:0:0")',
       '(list "0.0.0.0")', '(list "[::1]")', "(list 1)", "(list nil)", "(list 1.5)", '(list (list "1.2.3.4"))',
       ".Values.ips", '"1.2.3.4"']
DNS = ["nil", "(list)", '(list "")', '(list "a.example")', '(list "*.example.com" "UPPER.example")', '(list "ünï.example")',
       '(list "with space")', "(list 1)", "(list nil)", '(list "a" 2)', '(list "\\xff")', '(list "a" "a")']
KEY_NAMES = sorted(VALUES["keys"])


def _case(text, issuer=None, key=None):
    return {"text": text, "issuer": issuer, "key": key}


CASES = (
    [_case("genCA %s 1 | toJson" % go_literal(s)) for s in SUBJECTS]
    + [_case('genCA "d" %d | toJson' % d) for d in DAYS]
    + [_case(t) for t in ('genCA "x" "1"', 'genCA "x" 1.5', 'genCA "x" nil', 'genCA 1 1', 'genCA "x" .Values.days',
                          'genSignedCert "x" nil nil 1 "notacert"')]
    + [_case('genSelfSignedCert "s" %s nil 1 | toJson' % ips) for ips in IPS]
    + [_case('genSelfSignedCert "s" nil %s 1 | toJson' % dns) for dns in DNS]
    + [_case('genSelfSignedCert "" (list "1.2.3.4") (list "a") 1 | toJson'), _case('genSelfSignedCert "" nil nil 1 | toJson'),
       _case('genSelfSignedCert "x" (list 1) (list 2) 1 | toJson'),
       _case('genSelfSignedCert "x" (list "1.2.3.4") (list "ünï") 1 | toJson')]
    + [_case("genCAWithKey %s 7 .Values.keys.%s | toJson" % (go_literal("k-" + k), k), key=k) for k in KEY_NAMES]
    + [_case('genSelfSignedCertWithKey "k" (list "10.0.0.1") (list "k.example") 7 .Values.keys.%s | toJson' % k, key=k)
       for k in KEY_NAMES]
    + [_case('genSignedCertWithKey "k" nil (list "k.example") 7 %s .Values.keys.%s | toJson' % (_ca_arg("rsa"), k),
             issuer="rsa", key=k) for k in KEY_NAMES]
    + [_case('genSignedCert "leaf" (list "10.0.0.1") (list "leaf.example") 30 %s | toJson' % _ca_arg(ca), issuer=ca)
       for ca in CAS]
    + [_case('genSignedCert "" (list "10.0.0.1") nil 30 %s | toJson' % _ca_arg(ca), issuer=ca)
       for ca in ("rsa", "empty-subject")]
    + [_case('genSignedCert "" nil nil 30 %s | toJson' % _ca_arg("empty-subject"), issuer="empty-subject"),
       _case('genSignedCert "leaf" %s nil 30 %s | toJson' % (IPS[7], _ca_arg("rsa")), issuer="rsa"),
       _case('genSignedCertWithKey "leaf" nil nil 30 %s .Values.keys.dsa | toJson' % _ca_arg("mismatched-key"),
             issuer="rsa", key="dsa")]
)
TEXTS = [c["text"] for c in CASES]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    start = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)
    out = both(tmp_path_factory.mktemp("certs"), TEXTS, VALUES)
    end = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    return out, start, end


def _view(cert, case, start, end):
    issuer = CAS[case["issuer"]]["pem"] if case["issuer"] else None
    view = cert_view(cert["Cert"], issuer)
    not_before = view.pop("not before")
    view["validity seconds"] = (view.pop("not after") - not_before).total_seconds()
    view["starts when it was made"] = start <= not_before <= end
    return view


@pytest.mark.parametrize("case", CASES, ids=TEXTS)
def test_certificate_function_on_an_edge_input_gives_what_helm_gives(case, rendered):
    out, start, end = rendered
    theirs, ours = out[case["text"]]
    if decoded(theirs) is None or decoded(ours) is None:
        assert ours == theirs
        return
    go_cert, our_cert = decoded(theirs), decoded(ours)
    go_view, our_view = _view(go_cert, case, start, end), _view(our_cert, case, start, end)
    # Go reads the clock twice (NotBefore, NotAfter), so the truncated seconds may differ by one.
    assert abs(go_view.pop("validity seconds") - our_view.pop("validity seconds")) <= 1
    assert our_view == go_view
    if case["key"]:
        assert our_cert["Key"] == go_cert["Key"]
    else:
        assert key_view(our_cert["Key"]) == key_view(go_cert["Key"])


KEY_TYPES = ["", "rsa", "dsa", "ecdsa", "ed25519", "RSA", "x25519"]


def _key_shape(text):
    """A generated key as a user sees it: PEM type and key shape, with DSA's parameter sizes."""
    from cryptography.hazmat.primitives.asymmetric import dsa
    if not text.startswith("-----BEGIN"):
        return text
    key = serialization.load_pem_private_key(text.encode(), None)
    if isinstance(key, dsa.DSAPrivateKey):
        params = key.parameters().parameter_numbers()
        return text.splitlines()[0], ("dsa", params.p.bit_length(), params.q.bit_length())
    return key_view(text)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return both(tmp_path_factory.mktemp("genkeys"), ["genPrivateKey %s" % go_literal(t) for t in KEY_TYPES], {})


@pytest.mark.parametrize("typ", KEY_TYPES)
def test_a_generated_private_key_has_the_type_and_size_helm_gives(typ, generated):
    theirs, ours = generated["genPrivateKey %s" % go_literal(typ)]
    assert _key_shape(ours) == _key_shape(theirs)
