"""strconv.Unquote / UnquoteChar for template string and character literals.

Byte escapes (``\\xff``, ``\\377``) may form invalid UTF-8; such bytes are kept as
``surrogateescape`` characters, the value model's representation of raw bytes.
"""
_SIMPLE = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
_HEX = "0123456789abcdefABCDEF"


def unquote_char(s, quote):
    """Decode one (possibly escaped) character: returns (code, rest).  A ``\\x``/octal
    escape yields a byte value; callers decide how to store it."""
    if not s:
        raise ValueError("invalid syntax")
    c = s[0]
    if c == quote and quote in "'\"":
        raise ValueError("invalid syntax")
    if c != "\\":
        return ord(c), s[1:]
    if len(s) < 2:
        raise ValueError("invalid syntax")
    c = s[1]
    rest = s[2:]
    if c in _SIMPLE:
        return _SIMPLE[c], rest
    if c in "xuU":
        n = {"x": 2, "u": 4, "U": 8}[c]
        digits = rest[:n]
        if len(digits) < n or any(d not in _HEX for d in digits):
            raise ValueError("invalid syntax")
        v = int(digits, 16)
        if c != "x" and (v > 0x10FFFF or 0xD800 <= v <= 0xDFFF):
            raise ValueError("invalid syntax")
        return v, rest[n:]
    if "0" <= c <= "7":
        digits = s[1:4]
        if len(digits) < 3 or any(d not in "01234567" for d in digits):
            raise ValueError("invalid syntax")
        v = int(digits, 8)
        if v > 255:
            raise ValueError("invalid syntax")
        return v, s[4:]
    if c in "'\"":
        if c != quote:
            raise ValueError("invalid syntax")
        return ord(c), rest
    raise ValueError("invalid syntax")


def unquote(s):
    """strconv.Unquote for "..." and `...` literals."""
    if len(s) < 2 or s[0] != s[-1]:
        raise ValueError("invalid syntax")
    q = s[0]
    body = s[1:-1]
    if q == "`":
        if "`" in body:
            raise ValueError("invalid syntax")
        return body.replace("\r", "")
    if q != '"':
        raise ValueError("invalid syntax")
    if "\\" not in body:
        if '"' in body or "\n" in body:
            raise ValueError("invalid syntax")
        return body
    out = bytearray()
    while body:
        c = body[0]
        if c == "\n":
            raise ValueError("invalid syntax")
        is_byte = c == "\\" and len(body) > 1 and (body[1] == "x" or "0" <= body[1] <= "7")
        v, body = unquote_char(body, '"')
        if is_byte:
            out.append(v)
        else:
            out += chr(v).encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "surrogateescape")
