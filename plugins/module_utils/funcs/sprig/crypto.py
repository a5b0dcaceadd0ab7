"""Sprig crypto functions (crypto.go): hashes live in encoding.py, keys in keys.py and
certificates in certs.py; here bcrypt/htpasswd, derivePassword (Master Password algorithm),
randBytes and AES-256-CBC encryptAES/decryptAES."""
import base64
import hashlib
import hmac
import os
import struct

from ...govalue.signature import go_signature
from ._go import to_bytes, from_bytes, GoPanic
from . import certs, keys
from .encoding import _b64_decode, CorruptInput

Cipher = algorithms = modes = None


def _need_cryptography():
    """Import cryptography's ciphers on first use (see keys.need_cryptography)."""
    global Cipher, algorithms, modes
    if Cipher is not None:
        return
    # lazy: third-party (ansible/libraries.py) and slow
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


# ------------------------------------------------------------------ passwords

@go_signature("string")
def bcrypt(s):
    import bcrypt as lib  # lazy: third-party (ansible/libraries.py), for few charts

    password = to_bytes(s)
    if len(password) > 72:  # Go's x/crypto/bcrypt refuses what others truncate; Sprig returns the error text
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
    h = lib.hashpw(password, lib.gensalt(rounds=10))
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
    "bcrypt": bcrypt, "htpasswd": htpasswd, "derivePassword": derivePassword, "randBytes": randBytes,
    "encryptAES": encryptAES, "decryptAES": decryptAES,
}
FUNCS.update(keys.FUNCS)
FUNCS.update(certs.FUNCS)
