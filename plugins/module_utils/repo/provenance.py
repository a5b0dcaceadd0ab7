"""Chart provenance (``.prov`` files) verified as ``helm verify`` does (Helm 4's pkg/provenance).

A ``.prov`` file is an OpenPGP cleartext-signed message: the chart's ``Chart.yaml``, a ``...`` line, then YAML
``files: {<archive name>: sha256:<hex>}``. A chart verifies when the signature was made by a key of the keyring
and the SHA-256 of the archive is the one listed for the archive's file name. Keyrings are read in the three
forms Helm 4 reads (binary ``pubring.gpg``, GnuPG's ``pubring.kbx`` keybox, ASCII-armored keys). The OpenPGP
work (packet parsing, signature check under a modern policy) is done by pysequoia (Sequoia-PGP), imported
only when a task asks for verification. Error texts are Helm's.
"""
import hashlib
import os
import struct

from .errors import RepoError

_KBX_HEADER, _KBX_OPENPGP, _KBX_EPHEMERAL = 1, 2, 0x0002


def default_keyring():
    """Helm's default: ``$GNUPGHOME`` (or ``~/.gnupg``) ``pubring.gpg``, else ``pubring.kbx`` when only it exists."""
    home = os.environ.get("GNUPGHOME") or os.path.join(os.path.expanduser("~"), ".gnupg")
    legacy = os.path.join(home, "pubring.gpg")
    keybox = os.path.join(home, "pubring.kbx")
    return keybox if not os.path.exists(legacy) and os.path.exists(keybox) else legacy


class Verification(object):
    """Who signed (``identities``, primary key ``fingerprint``) and the verified ``file_hash``/``file_name``."""

    def __init__(self, identities, fingerprint, file_hash, file_name):
        self.identities, self.fingerprint = identities, fingerprint
        self.file_hash, self.file_name = file_hash, file_name

    def text(self):
        """What ``helm pull --verify`` / ``helm verify`` print for it."""
        lines = ["Signed by: %s" % name for name in self.identities]
        lines += ["Using Key With Fingerprint: %s" % self.fingerprint.upper(),
                  "Chart Hash Verified: %s" % self.file_hash]
        return "".join(line + "\n" for line in lines)


def _sequoia():
    try:
        import pysequoia  # lazy: optional, only --verify needs it
    except ImportError:
        raise RepoError("verifying chart provenance needs the Python package pysequoia on the managed node "
                        "(pip install pysequoia)")
    return pysequoia


def _keybox_keys(data):
    """The OpenPGP key blocks of a GnuPG keybox (ephemeral entries skipped), concatenated."""
    out, offset = [], 0
    while offset < len(data):
        rest = data[offset:]
        if len(rest) < 5:
            raise RepoError("truncated blob header at offset %d" % offset)
        length = struct.unpack(">I", rest[:4])[0]
        if length < 5:
            raise RepoError("invalid blob length %d at offset %d" % (length, offset))
        if length > len(rest):
            raise RepoError("blob at offset %d has length %d exceeding the %d remaining bytes"
                            % (offset, length, len(rest)))
        blob = rest[:length]
        if blob[4] == _KBX_OPENPGP:
            if len(blob) < 16:
                raise RepoError("OpenPGP blob at offset %d is too short" % offset)
            flags, start, size = struct.unpack(">HII", blob[6:16])
            if start + size > len(blob):
                raise RepoError("OpenPGP blob at offset %d has an out-of-range keyblock" % offset)
            if not flags & _KBX_EPHEMERAL:
                out.append(blob[start:start + size])
        offset += length
    if not out:
        raise RepoError("keybox contains no OpenPGP keys")
    return b"".join(out)


def load_keyring(path):
    """The certificates of a keyring file; errors read as Helm's ``failed to load keyring: ...``."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise RepoError("failed to load keyring: open %s: %s" % (path, (exc.strerror or str(exc)).lower()))
    sequoia = _sequoia()
    try:
        if len(data) >= 12 and data[4] == _KBX_HEADER and data[8:12] == b"KBXf":
            data = _keybox_keys(data)
        certs = sequoia.Cert.split_bytes(data) if data.strip() else []
    except RepoError as exc:
        raise RepoError("failed to load keyring: reading keybox %s: %s" % (path, exc))
    except Exception as exc:  # pysequoia raises plain exceptions for malformed packets
        raise RepoError("failed to load keyring: reading %s: %s" % (path, exc))
    if not certs:
        raise RepoError("failed to load keyring: %s: no keys found" % path)
    return certs


def _signed_by(sequoia, prov, certs):
    """Check the cleartext signature against the keyring; returns (message text, signing certificate)."""
    if b"-----BEGIN PGP SIGNED MESSAGE-----" not in prov:
        raise RepoError("signature block not found")
    try:
        result = sequoia.verify(bytes=prov, store=lambda _ids: certs)  # Sequoia picks the issuer
    except Exception as exc:  # pysequoia raises plain exceptions; the first line is the message
        if not _issuer_known(sequoia, prov, certs):
            raise RepoError("openpgp: signature made by unknown entity")
        raise RepoError("openpgp: invalid signature: %s" % str(exc).strip().splitlines()[0])
    if not result.valid_sigs:
        raise RepoError("openpgp: signature made by unknown entity")
    fingerprint = str(result.valid_sigs[0].certificate).upper()
    cert = next((c for c in certs if c.fingerprint.upper() == fingerprint), None)
    return result.bytes, cert


def _issuer_known(sequoia, prov, certs):
    """Whether the signature's issuer is a key of the keyring (Helm signs with the primary key)."""
    start = prov.find(b"-----BEGIN PGP SIGNATURE-----")
    try:
        sig = sequoia.Sig.from_bytes(prov[start:])
        issuer = (sig.issuer_fingerprint or sig.issuer_key_id or "").upper()
    except Exception:  # an unreadable signature packet: nobody we know made it
        return False
    return bool(issuer) and any(c.fingerprint.upper().endswith(issuer) for c in certs)


def verify_archive(data, prov, filename, keyring):
    """Verify archive bytes against ``.prov`` bytes with the keyring file; returns a :class:`Verification`."""
    sequoia = _sequoia()
    certs = load_keyring(keyring)
    message, cert = _signed_by(sequoia, prov, certs)
    parts = message.split(b"\n...\n")
    if len(parts) < 2:
        raise RepoError("message block must have at least two parts")
    import yaml  # lazy: module_utils load without PyYAML (require_libraries reports it missing)
    try:
        sums = yaml.safe_load(parts[1]) or {}
    except yaml.YAMLError as exc:
        raise RepoError("provenance file list: %s" % exc)
    files = sums.get("files") if isinstance(sums, dict) else None
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if not isinstance(files, dict) or filename not in files:
        raise RepoError('provenance does not contain a SHA for a file named "%s"' % filename)
    if files[filename] != digest:
        raise RepoError('sha256 sum does not match for %s: "%s" != "%s"' % (filename, files[filename], digest))
    identities = [str(uid) for uid in cert.user_ids] if cert is not None else []
    return Verification(identities, cert.fingerprint if cert is not None else "", digest, filename)


def verify_chart_file(path, keyring, prov_path=None):
    """Helm's ``VerifyChart``: a packaged ``.tgz`` and its ``.prov`` beside it (or at ``prov_path``)."""
    if not os.path.exists(path):
        raise RepoError("stat %s: no such file or directory" % path)
    if os.path.isdir(path):
        raise RepoError("unpacked charts cannot be verified")
    if not path.lower().endswith(".tgz"):
        raise RepoError("chart must be a tgz file")
    prov_path = prov_path or path + ".prov"
    if not os.path.exists(prov_path):
        raise RepoError("could not load provenance file %s: stat %s: no such file or directory" % (prov_path, prov_path))
    with open(path, "rb") as handle:
        data = handle.read()
    with open(prov_path, "rb") as handle:
        prov = handle.read()
    return verify_archive(data, prov, os.path.basename(path), keyring)
