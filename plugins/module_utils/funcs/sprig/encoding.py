"""Sprig encodings and checksums: b64*/b32* (Go encoding/base64, base32) and *sum."""
import base64
import hashlib
import zlib

from ...govalue.signature import go_signature
from ._go import to_bytes, from_bytes
from ...errors import HelmlessError

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64MAP = {ord(c): i for i, c in enumerate(_B64)}
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_B32MAP = {ord(c): i for i, c in enumerate(_B32)}


class CorruptInput(HelmlessError):
    pass


def _b64_decode(src):
    """base64.StdEncoding.DecodeString; raises CorruptInput(offset) like Go."""
    out = bytearray()
    si = 0
    n = len(src)
    while True:
        dbuf = [0, 0, 0, 0]
        dlen = 4
        j = 0
        err = None
        while j < 4:
            if si == n:
                if j == 0:
                    return bytes(out)
                raise CorruptInput(si - j)
            c = src[si]
            si += 1
            if c in _B64MAP:
                dbuf[j] = _B64MAP[c]
                j += 1
                continue
            if c in (10, 13):
                continue
            if c != 61:
                raise CorruptInput(si - 1)
            if j in (0, 1):
                raise CorruptInput(si - 1)
            if j == 2:
                while si < n and src[si] in (10, 13):
                    si += 1
                if si == n:
                    raise CorruptInput(n)
                if src[si] != 61:
                    raise CorruptInput(si - 1)
                si += 1
            while si < n and src[si] in (10, 13):
                si += 1
            if si < n:
                err = CorruptInput(si)
            dlen = j
            break
        val = dbuf[0] << 18 | dbuf[1] << 12 | dbuf[2] << 6 | dbuf[3]
        out += bytes([(val >> 16) & 255, (val >> 8) & 255, val & 255])[:dlen - 1]
        if err is not None:
            raise err
        if dlen < 4:
            return bytes(out)


def _b32_decode(src):
    """base32.StdEncoding.DecodeString (newlines stripped first, as Go does)."""
    src = bytes(c for c in src if c not in (10, 13))
    olen = len(src)
    out = bytearray()
    pos = 0
    end = False
    while pos < olen and not end:
        dbuf = [0] * 8
        dlen = 8
        j = 0
        while j < 8:
            if pos == olen:
                raise CorruptInput(olen - (olen - pos) - j)
            c = src[pos]
            pos += 1
            remaining = olen - pos
            if c == 61 and j >= 2 and remaining < 8:
                if remaining + j < 7:
                    raise CorruptInput(olen)
                for k in range(7 - j):
                    if remaining > k and src[pos + k] != 61:
                        raise CorruptInput(olen - remaining + k - 1)
                dlen, end = j, True
                if dlen in (1, 3, 6):
                    raise CorruptInput(olen - remaining - 1)
                break
            if c not in _B32MAP:
                raise CorruptInput(olen - remaining - 1)
            dbuf[j] = _B32MAP[c]
            j += 1
        val = 0
        for d in dbuf:
            val = val << 5 | d
        chunk = val.to_bytes(5, "big")
        out += chunk[:{8: 5, 7: 4, 5: 3, 4: 2, 2: 1}.get(dlen, 0)]
    return bytes(out)


@go_signature("string")
def b64enc(s):
    return base64.b64encode(to_bytes(s)).decode()


@go_signature("string")
def b64dec(s):
    try:
        return from_bytes(_b64_decode(to_bytes(s)))
    except CorruptInput as exc:
        return "illegal base64 data at input byte %d" % exc.args[0]


@go_signature("string")
def b32enc(s):
    return base64.b32encode(to_bytes(s)).decode()


@go_signature("string")
def b32dec(s):
    try:
        return from_bytes(_b32_decode(to_bytes(s)))
    except CorruptInput as exc:
        return "illegal base32 data at input byte %d" % exc.args[0]


@go_signature("string")
def sha1sum(s):
    return hashlib.sha1(to_bytes(s)).hexdigest()


@go_signature("string")
def sha256sum(s):
    return hashlib.sha256(to_bytes(s)).hexdigest()


@go_signature("string")
def sha512sum(s):
    return hashlib.sha512(to_bytes(s)).hexdigest()


@go_signature("string")
def adler32sum(s):
    return str(zlib.adler32(to_bytes(s)))


FUNCS = {
    "b64enc": b64enc, "b64dec": b64dec, "b32enc": b32enc, "b32dec": b32dec,
    "sha1sum": sha1sum, "sha256sum": sha256sum, "sha512sum": sha512sum,
    "adler32sum": adler32sum,
}
