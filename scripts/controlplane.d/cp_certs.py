"""Certificates and kubeconfigs for a loopback control plane (Python `cryptography`)."""
import base64
import datetime
import ipaddress
import os

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALIDITY = datetime.timedelta(days=30)


def _name(cn, org=None):
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attrs.insert(0, x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attrs)


def _key_pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _cert(subject, key, issuer, issuer_key, *, ca=False, server_sans=None, client=False):
    now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
         .serial_number(x509.random_serial_number()).not_valid_before(now).not_valid_after(now + VALIDITY))
    b = b.add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
    b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                        critical=False)
    if ca:
        b = b.add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                          content_commitment=False, key_encipherment=False,
                                          data_encipherment=False, key_agreement=False,
                                          encipher_only=False, decipher_only=False), critical=True)
    else:
        usages = [ExtendedKeyUsageOID.CLIENT_AUTH] if client else [ExtendedKeyUsageOID.SERVER_AUTH]
        b = b.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
    if server_sans:
        b = b.add_extension(x509.SubjectAlternativeName(server_sans), critical=False)
    return b.sign(issuer_key, hashes.SHA256())


def _write(path, data, mode=0o600):
    with open(path, "wb") as fh:
        fh.write(data)
    os.chmod(path, mode)


def generate(pki):
    """Write CA, apiserver serving cert, client certs and the SA key pair into ``pki``; return paths."""
    os.makedirs(pki, exist_ok=True)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("helmless-local-ca")
    ca = _cert(ca_name, ca_key, ca_name, ca_key, ca=True)
    _write(os.path.join(pki, "ca.crt"), ca.public_bytes(serialization.Encoding.PEM), 0o644)
    _write(os.path.join(pki, "ca.key"), _key_pem(ca_key))
    sans = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
            x509.DNSName("kubernetes"), x509.DNSName("kubernetes.default"),
            x509.DNSName("kubernetes.default.svc"), x509.DNSName("kubernetes.default.svc.cluster.local")]
    pairs = {"apiserver": (_name("kube-apiserver"), dict(server_sans=sans)),
             "admin": (_name("helmless-admin", "system:masters"), dict(client=True)),
             "controller-manager": (_name("system:kube-controller-manager"), dict(client=True)),
             "scheduler": (_name("system:kube-scheduler"), dict(client=True))}
    for stem, (subject, kw) in pairs.items():
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _cert(subject, key, ca_name, ca_key, **kw)
        _write(os.path.join(pki, stem + ".crt"), cert.public_bytes(serialization.Encoding.PEM), 0o644)
        _write(os.path.join(pki, stem + ".key"), _key_pem(key))
    sa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    _write(os.path.join(pki, "sa.key"), _key_pem(sa))
    _write(os.path.join(pki, "sa.pub"), sa.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo), 0o644)


def _b64(path):
    with open(path, "rb") as fh:
        return base64.b64encode(fh.read()).decode()


def kubeconfig(path, server, ca_file, *, cert=None, key=None, token=None, user="admin", namespace=None):
    """Write a self-contained kubeconfig (data embedded, so it survives copying)."""
    if token is not None:
        auth = "    token: %s\n" % token
    else:
        auth = "    client-certificate-data: %s\n    client-key-data: %s\n" % (_b64(cert), _b64(key))
    ns = "    namespace: %s\n" % namespace if namespace else ""
    text = ("apiVersion: v1\nkind: Config\nclusters:\n- name: helmless\n  cluster:\n"
            "    server: %s\n    certificate-authority-data: %s\n"
            "users:\n- name: %s\n  user:\n%s"
            "contexts:\n- name: helmless\n  context:\n    cluster: helmless\n    user: %s\n%s"
            "current-context: helmless\n") % (server, _b64(ca_file), user, auth, user, ns)
    _write(path, text.encode())
    return path
