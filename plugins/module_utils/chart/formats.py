"""``format`` checks of santhosh-tekuri/jsonschema v6 (asserted up to draft-07), with its reasons.

Each checker returns ``None`` for a valid (or non-string) value, else v6's reason text,
which follows ``'<value>' is not valid <format>: `` in Helm's message.
"""

import ipaddress
import re
from urllib.parse import urlsplit

from ..govalue.re2 import RegexpError, translate
from ..govalue.strconv import go_quote


def squote(text):
    """santhosh-tekuri/jsonschema v6's ``quote``: Go's %q with single quotes (also a rune's %q)."""
    return "'" + go_quote(str(text))[1:-1].replace('\\"', '"').replace("'", "\\'") + "'"


def uuid(s):
    groups = s.split("-")
    if len(groups) != 5:
        return "must have 5 elements"
    for i, (group, size) in enumerate(zip(groups, (8, 4, 4, 4, 12))):
        if len(group) != size:
            return "element %d must be %d characters long" % (i + 1, size)
        for ch in group:
            if ch not in "0123456789abcdefABCDEF":
                return "non-hex character %s" % squote(ch)
    return None


def duration(s):
    if not s.startswith("P"):
        return "must start with P"
    s = s[1:]
    if not s:
        return "nothing after P"
    if s.endswith("W"):
        s = s[:-1]
        if not s:
            return "no number in week"
        return None if s.isdigit() and s.isascii() else "invalid week"
    all_units = ("YMD", "HMS")
    for i, part in enumerate(s.split("T")):
        if i and not part:
            return "no time elements"
        if i >= len(all_units):
            return "more than one T"
        units = all_units[i]
        while part:
            digits = len(part) - len(part.lstrip("0123456789"))
            if not digits:
                return "missing number"
            part = part[digits:]
            if not part:
                return "missing unit"
            unit, part = part[0], part[1:]
            j = units.find(unit)
            if j < 0:
                return ("unit %s out of order" if unit in all_units[i] else "invalid unit %s") % squote(unit)
            units = units[j + 1:]
    return None


def ipv4(s):
    groups = s.split(".")
    if len(groups) != 4:
        return "expected four decimals"
    for group in groups:
        if len(group) > 1 and group[0] == "0":
            return "leading zeros"
        body = group[1:] if group[:1] in "+-" else group
        if not body or not body.isascii() or not body.isdigit():
            return 'strconv.Atoi: parsing %s: invalid syntax' % go_quote(group)
        if not 0 <= int(group) <= 255:
            return "decimal must be between 0 and 255"
    return None


def ipv6(s):
    if ":" not in s:
        return "missing colon"
    if "%" in s:
        return "zone id is not a part of ipv6 address"
    try:
        ipaddress.IPv6Address(s)
    except ValueError:
        return "ParseAddr(%s): invalid IPv6 address" % go_quote(s)
    return None


def hostname(s):
    s = s[:-1] if s.endswith(".") else s
    if len(s) > 253:
        return "more than 253 characters long"
    for label in s.split("."):
        if not 1 <= len(label) <= 63:
            return "label must be 1 to 63 characters long"
        if label.startswith("-"):
            return "label starts with hyphen"
        if label.endswith("-"):
            return "label ends with hyphen"
        for ch in label:
            if not (ch.isascii() and (ch.isalnum() or ch == "-")):
                return "invalid character %s" % squote(ch)
    return None


def email(s):
    if len(s.encode("utf-8")) > 254:
        return "more than 255 characters long"
    at = s.rfind("@")
    if at < 0:
        return "missing @"
    local, domain = s[:at], s[at + 1:]
    if len(local.encode("utf-8")) > 64:
        return "local part more than 64 characters long"
    if len(local) > 1 and local.startswith('"') and local.endswith('"'):
        if "\\" in local[1:-1] or '"' in local[1:-1]:
            return "backslash and quote are not allowed within quoted local part"
    else:
        if local.startswith("."):
            return "starts with dot"
        if local.endswith("."):
            return "ends with dot"
        if ".." in local:
            return "consecutive dots"
        for ch in local:
            if not (ch.isascii() and ch.isalnum() or ch in ".!#$%&'*+-/=?^_`{|}~"):
                return "invalid character %s" % squote(ch)
    if domain.startswith("[") and domain.endswith("]"):
        inner = domain[1:-1]
        if inner.startswith("IPv6:"):
            reason = ipv6(inner[5:])
            return "invalid ipv6 address: %s" % reason if reason else None
        reason = ipv4(inner)
        return "invalid ipv4 address: %s" % reason if reason else None
    reason = hostname(domain)
    return "invalid domain: %s" % reason if reason else None


def date(s):
    """Go's ``time.Parse("2006-01-02", s)`` error text, or None."""
    prefix = "parsing time %s as \"2006-01-02\": cannot parse " % go_quote(s)
    rest = s
    values = []
    for element, width in (("2006", 4), ("-", 0), ("01", 2), ("-", 0), ("02", 2)):
        if width == 0:
            if not rest.startswith("-"):
                return prefix + "%s as \"-\"" % go_quote(rest)
            rest = rest[1:]
            continue
        head = rest[:width]
        if len(head) < width or not (head.isascii() and head.isdigit()):
            return prefix + "%s as %s" % (go_quote(rest), go_quote(element))
        values.append(int(head))
        rest = rest[width:]
    if rest:
        return "parsing time %s: extra text: %s" % (go_quote(s), go_quote(rest))
    year, month, day = values
    if not 1 <= month <= 12:
        return "parsing time %s: month out of range" % go_quote(s)
    days = [31, 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28, 31, 30, 31, 30, 31, 31,
            30, 31, 30, 31][month - 1]
    if not 1 <= day <= days:
        return "parsing time %s: day out of range" % go_quote(s)
    return None


def time(s):
    if len(s) < 9:
        return "less than 9 characters long"
    if s[2] != ":" or s[5] != ":":
        return "missing colon in correct place"
    hms = []
    for tok in s[:8].split(":", 2):
        if not tok.lstrip("+-").isdigit():
            return "invalid hour/min/sec"
        if int(tok) < 0:
            return "non-positive hour/min/sec"
        hms.append(int(tok))
    h, m, sec = hms
    if h > 23 or m > 59 or sec > 60:
        return "hour/min/sec out of range"
    rest = s[8:]
    if rest.startswith("."):
        digits = len(rest[1:]) - len(rest[1:].lstrip("0123456789"))
        if not digits:
            return "no digits in second fraction"
        rest = rest[1 + digits:]
    if rest not in ("z", "Z"):
        if len(rest) != 6:
            return "offset must be 6 characters long"
        if rest[0] not in "+-":
            return "offset must begin with plus/minus"
        sign = -1 if rest[0] == "+" else 1
        rest = rest[1:]
        if rest[2] != ":":
            return "missing colon in offset in correct place"
        zh, zm = rest.split(":", 1)
        if not zh.isdigit() or not zm.isdigit():
            return "invalid hour/min in offset"
        zh, zm = int(zh), int(zm)
        if zh > 23 or zm > 59:
            return "hour/min in offset out of range"
        hm = (h * 60 + m) + sign * (zh * 60 + zm)
        if hm < 0:
            hm += 24 * 60
        h, m = hm // 60, hm % 60
    if sec >= 60 and (h != 23 or m != 59):
        return "invalid leap second"
    return None


def date_time(s):
    if len(s) < 20:
        return "less than 20 characters long"
    if s[10] not in "tT":
        return "11th character must be t or T"
    reason = date(s[:10])
    if reason:
        return "invalid date element: %s" % reason
    reason = time(s[11:])
    return "invalid time element: %s" % reason if reason else None


def _ri(s, international, reference):
    if "\\" in s:
        return "contains \\"
    try:
        parts = urlsplit(s)
    except ValueError as exc:
        return str(exc)
    if not reference and not parts.scheme:
        return "relative url"
    return None


def json_pointer(s):
    if not s:
        return None
    if not s.startswith("/"):
        return "not starting with /"
    for tok in s.split("/")[1:]:
        if re.search(r"~(?![01])", tok):
            return "~ must be followed by 0 or 1"
    return None


CHECKERS = {
    "uuid": uuid, "duration": duration, "ipv4": ipv4, "ipv6": ipv6, "hostname": hostname, "email": email,
    "date": date, "time": time, "date-time": date_time, "json-pointer": json_pointer,
    "uri": lambda s: _ri(s, False, False), "iri": lambda s: _ri(s, True, False),
    "uri-reference": lambda s: _ri(s, False, True), "iri-reference": lambda s: _ri(s, True, True),
}


def check(value, fmt):
    """v6's reason why ``value`` is not a valid ``fmt`` ("" for the regex format), or ``None``."""
    if not isinstance(value, str):
        return None
    if fmt == "regex":
        try:
            translate(value)
        except RegexpError as exc:
            return str(exc)
        return None
    checker = CHECKERS.get(fmt)
    return checker(value) if checker else None
