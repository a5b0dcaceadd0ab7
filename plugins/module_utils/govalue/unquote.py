"""strconv.Unquote / UnquoteChar for template string and character literals.

Byte escapes (``\\xff``, ``\\377``) may form invalid UTF-8; such bytes are kept as
``surrogateescape`` characters, the value model's representation of raw bytes.
"""
_SIMPLE = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
_HEX = "0123456789abcdefABCDEF"
_WIDTH = {"x": 2, "u": 4, "U": 8}


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
    v, end = _escape(s, 0, quote)
    return v, s[end:]


def _escape(s, i, quote):
    """The escape whose backslash is ``s[i]``: ``(code, index after it)``."""
    if i + 1 >= len(s):
        raise ValueError("invalid syntax")
    c = s[i + 1]
    k = i + 2
    if c in _SIMPLE:
        return _SIMPLE[c], k
    if c in "xuU":
        n = _WIDTH[c]
        digits = s[k:k + n]
        if len(digits) < n or any(d not in _HEX for d in digits):
            raise ValueError("invalid syntax")
        v = int(digits, 16)
        if c != "x" and (v > 0x10FFFF or 0xD800 <= v <= 0xDFFF):
            raise ValueError("invalid syntax")
        return v, k + n
    if "0" <= c <= "7":
        digits = s[i + 1:i + 4]
        if len(digits) < 3 or any(d not in "01234567" for d in digits):
            raise ValueError("invalid syntax")
        v = int(digits, 8)
        if v > 255:
            raise ValueError("invalid syntax")
        return v, i + 4
    if c in "'\"":
        if c != quote:
            raise ValueError("invalid syntax")
        return ord(c), k
    raise ValueError("invalid syntax")


def _utf8(run):
    """``run`` as UTF-8, raw bytes (surrogateescape characters) as themselves; a character UTF-8 cannot hold
    fails as it does encoded on its own."""
    try:
        return run.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise UnicodeEncodeError(exc.encoding, run[exc.start], 0, 1, exc.reason) from None


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
    # Runs of plain characters between escapes, by index: slicing the rest off after each character made long
    # strings quadratic.
    out = bytearray()
    i = 0
    n = len(body)
    while i < n:
        j = body.find("\\", i)
        if j < 0:
            j = n
        if j > i:
            run = body[i:j]
            stop = len(run)
            for ch in '"\n':  # a quote or newline ends a string before its closing quote
                found = run.find(ch, 0, stop)
                if found >= 0:
                    stop = found
            out += _utf8(run[:stop])
            if stop < len(run):
                raise ValueError("invalid syntax")
            i = j
            continue
        is_byte = i + 1 < n and (body[i + 1] == "x" or "0" <= body[i + 1] <= "7")
        v, i = _escape(body, i, '"')
        if is_byte:
            out.append(v)
        else:
            out += chr(v).encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "surrogateescape")
