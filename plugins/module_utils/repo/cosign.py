"""cosign signatures of OCI charts, checked with a public key before a chart is used.

``cosign sign --key`` stores its signature of a manifest digest in the chart's own repository, in one of
two forms, and a chart verifies when one signature in either form is by the key and is for the digest of
the manifest that is pulled (so a tag moved to other content after signing fails):

- cosign 2's: an image at the tag ``sha256-<hex>.sig`` whose ``simplesigning`` layers carry the signed
  payload (its ``critical.image.docker-manifest-digest`` names the digest) and, as an annotation, the
  signature over it;
- cosign 3's (the default since 3.0): a Sigstore bundle (v0.3) attached to the digest as an OCI referrer
  (the referrers API, or the ``sha256-<hex>`` tag that stands in for it), holding a DSSE envelope whose
  in-toto statement names the digest as its subject.

The signature formats (DSSE's pre-authentication encoding, PEM keys and their signature schemes) are
securesystemslib's, the library TUF and in-toto are built on; it is imported only when a task verifies.
Transparency-log entries in a bundle are not checked (Rekor cannot be reached offline), as ``cosign
verify --insecure-ignore-tlog``; keyless signatures need Fulcio and Rekor and are not supported.
"""
import base64
import hashlib
import json
import os

from .errors import RepoError

SIMPLE_SIGNING = "application/vnd.dev.cosign.simplesigning.v1+json"
SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature"
BUNDLE = "application/vnd.dev.sigstore.bundle.v0.3+json"
SIGN_PREDICATE = "https://sigstore.dev/cosign/sign/v1"
_MANIFESTS = ("application/vnd.oci.image.manifest.v1+json,application/vnd.oci.image.index.v1+json,"
              "application/vnd.docker.distribution.manifest.v2+json")


class PublicKey(object):
    """A cosign public key (PEM): ``source`` names it in messages."""

    def __init__(self, text, source):
        try:
            from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
            from cryptography.hazmat.primitives.serialization import load_pem_public_key
            from securesystemslib.signer import SSlibKey  # lazy: only a task that verifies needs it
        except ImportError as exc:
            raise RepoError("cosign_key: verifying cosign signatures needs the Python package securesystemslib on "
                            "the managed node (pip install securesystemslib): %s" % exc)
        try:
            crypto = load_pem_public_key(text.encode("utf-8"))
        except (ValueError, TypeError):
            raise RepoError("cosign_key %s: not a PEM public key (cosign.pub, \"-----BEGIN PUBLIC KEY-----\")"
                            % source)
        if isinstance(crypto, rsa.RSAPublicKey):
            scheme = "rsa-pkcs1v15-sha256"  # what cosign's RSA keys sign with
        elif isinstance(crypto, ec.EllipticCurvePublicKey) and crypto.curve.name in ("secp256r1", "secp384r1"):
            scheme = "ecdsa-sha2-nistp256" if crypto.curve.name == "secp256r1" else "ecdsa-sha2-nistp384"
        elif isinstance(crypto, ed25519.Ed25519PublicKey):
            scheme = "ed25519"
        else:
            raise RepoError("cosign_key %s: unsupported key type %s" % (source, type(crypto).__name__))
        self.key = SSlibKey.from_crypto(crypto, scheme=scheme)
        self.source = source

    @classmethod
    def load(cls, value):
        """The key of the ``cosign_key`` option: PEM text, or the path of a PEM file (``cosign.pub``)."""
        if value.lstrip().startswith("-----BEGIN"):
            return cls(value, "(PEM given inline)")
        path = os.path.expanduser(value)
        try:
            with open(path, encoding="utf-8") as handle:
                return cls(handle.read(), path)
        except (OSError, UnicodeDecodeError) as exc:
            raise RepoError("cosign_key %s: %s" % (path, getattr(exc, "strerror", None) or exc))

    def verifies(self, signature, data):
        from securesystemslib.exceptions import UnverifiedSignatureError
        from securesystemslib.signer import Signature
        try:
            self.key.verify_signature(Signature(self.key.keyid, signature.hex()), data)
        except UnverifiedSignatureError:
            return False
        return True


def _json(body, what):
    try:
        return json.loads(body)
    except ValueError:
        raise RepoError("%s is not JSON" % what)


def _b64(text):
    try:
        return base64.b64decode(text or "", validate=True)
    except (ValueError, TypeError):
        return None


class _Check(object):
    """Signatures of one digest, each checked against the key; what was found, for the error."""

    def __init__(self, registry, path, digest, key):
        self.registry, self.path, self.digest, self.key = registry, path, digest, key
        self.scope = "repository:%s:pull" % path
        self.found, self.reasons = 0, []

    def blob(self, digest):
        body = self.registry.get("/v2/%s/blobs/%s" % (self.path, digest), None, self.scope)[0]
        if "sha256:" + hashlib.sha256(body).hexdigest() != digest:
            raise RepoError("blob %s does not match its digest" % digest)
        return body

    def manifest(self, reference):
        body = self.registry.find("/v2/%s/manifests/%s" % (self.path, reference), _MANIFESTS, self.scope)[0]
        return None if body is None else _json(body, "manifest %s" % reference)

    def simple_signing(self):
        """cosign 2's ``sha256-<hex>.sig`` image: True when one of its signatures verifies."""
        image = self.manifest(self.digest.replace(":", "-") + ".sig")
        for layer in (image or {}).get("layers") or []:
            if layer.get("mediaType") != SIMPLE_SIGNING:
                continue
            self.found += 1
            signature = _b64((layer.get("annotations") or {}).get(SIGNATURE_ANNOTATION))
            payload = self.blob(layer.get("digest", ""))
            if signature is None or not self.key.verifies(signature, payload):
                self.reasons.append("a signature (.sig tag) that the key did not make")
                continue
            claim = ((_json(payload, "signed payload").get("critical") or {}).get("image") or {})
            if claim.get("docker-manifest-digest") != self.digest:
                self.reasons.append("a signature by the key for %s, another digest"
                                    % claim.get("docker-manifest-digest"))
                continue
            return True
        return False

    def referrers(self):
        """The descriptors attached to the digest: the referrers API, else its ``sha256-<hex>`` tag."""
        body = self.registry.find("/v2/%s/referrers/%s" % (self.path, self.digest),
                                  "application/vnd.oci.image.index.v1+json", self.scope)[0]
        index = _json(body, "referrers of %s" % self.digest) if body is not None else \
            self.manifest(self.digest.replace(":", "-"))
        return (index or {}).get("manifests") or []

    def bundles(self):
        """cosign 3's Sigstore bundles: True when one of them verifies."""
        for entry in self.referrers():
            if entry.get("artifactType") != BUNDLE:
                continue
            attached = self.manifest(entry.get("digest", "")) or {}
            for layer in attached.get("layers") or []:
                if layer.get("mediaType") == BUNDLE and self._bundle(_json(self.blob(layer.get("digest", "")),
                                                                           "Sigstore bundle")):
                    return True
        return False

    def _bundle(self, bundle):
        from securesystemslib.dsse import Envelope  # lazy: as PublicKey
        self.found += 1
        raw = bundle.get("dsseEnvelope")
        if not isinstance(raw, dict):
            self.reasons.append("a bundle without a DSSE envelope (not cosign sign's)")
            return False
        try:
            envelope = Envelope.from_dict(dict(raw, signatures=[dict({"keyid": ""}, **sig)
                                                                for sig in raw.get("signatures") or []]))
        except (KeyError, ValueError, TypeError) as exc:
            self.reasons.append("an unreadable DSSE envelope (%s)" % exc)
            return False
        if not any(self.key.verifies(bytes.fromhex(sig.signature), envelope.pae())
                   for sig in envelope.signatures.values()):
            self.reasons.append("a bundle that the key did not sign")
            return False
        statement = _json(envelope.payload, "signed statement")
        subjects = ["sha256:%s" % (s.get("digest") or {}).get("sha256") for s in statement.get("subject") or []]
        if statement.get("predicateType") != SIGN_PREDICATE or self.digest not in subjects:
            self.reasons.append("a bundle by the key for %s, another digest" % ", ".join(subjects))
            return False
        return True


def verify(registry, path, digest, key, reference):
    """Raise RepoError naming ``reference`` and why, unless a signature of manifest ``digest`` verifies with
    ``key`` (a PublicKey)."""
    check = _Check(registry, path, digest, key)
    if check.simple_signing() or check.bundles():
        return
    if not check.found:
        why = ("no cosign signature of this digest in the registry (the tag %s.sig and the digest's referrers "
               "hold none: unsigned, or signed before its tag moved to this content)" % digest.replace(":", "-"))
    else:
        why = "no signature of this digest verifies with the key %s: %s" % (key.source, "; ".join(check.reasons))
    raise RepoError("cosign verification of %s (%s) failed: %s" % (reference, digest, why))
