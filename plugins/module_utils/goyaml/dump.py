"""``toYaml`` (sigs.k8s.io/yaml.Marshal) and ``toYamlPretty`` (yaml.v3 Encoder)."""
import base64

from ..govalue.strconv import format_float, format_float_json
from ..govalue.values import GoStruct, go_type_name
from .emitter import Emitter
from .errors import YAMLError
from .gojson import struct_value, NilMap, NilList
from ..regexcache import regex

_INT_TEXT = regex(r"^-?[0-9]+$")
# After json.Marshal these reach yaml.v2's reader raw and are rejected by it.
_JSON_RAW_BAD = regex("[\x7f-\x84\x86-\x9f\ufffe\uffff\ud800-\udfff\x85]")
_NEL_RUN = regex(" *\x85(?: *\x85)* *")
_REJECTED = regex("[\x7f-\x84\x86-\x9f\ufffe\uffff]")
_SURROGATE = regex("[\ud800-\udfff]")
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1


def _fold_nel(m):
    n = m.group(0).count("\x85")
    return " " if n == 1 else "\n" * (n - 1)


def v2_number(v):
    """The text yaml.v2 prints for a number after the JSON round trip."""
    if isinstance(v, int):
        return str(v)
    a = abs(v)
    if a < 1e15 and v == int(v):
        return str(int(v))  # JSON writes the digits, yaml.v2 reads an int back
    if 1e-4 <= a < 1e6:
        return repr(v)  # same shortest digits, fixed notation for both Go and Python
    j = format_float_json(v)  # ValueError for NaN/Inf, like json.Marshal
    if _INT_TEXT.match(j):
        n = int(j)
        if _INT64_MIN <= n <= _UINT64_MAX:
            return str(n)
    return format_float(v)


class _V2(Emitter):
    """sigs.k8s.io/yaml.Marshal: json.Marshal, yaml.v2 Unmarshal, yaml.v2 Marshal."""

    nil_types = (NilMap, NilList)

    def format_number(self, v):
        return v2_number(v)

    def prep_str(self, s):
        if _JSON_RAW_BAD.search(s) is None:
            return s
        s = _SURROGATE.sub("\ufffd", s)
        if _REJECTED.search(s):
            raise YAMLError("yaml: control characters are not allowed")
        return _NEL_RUN.sub(_fold_nel, s)

    def prep_keys(self, d):
        for k in d:
            if not isinstance(k, str) or _JSON_RAW_BAD.search(k):
                return {self.prep_key(_key_str(k)): v for k, v in d.items()}
        return d

    def prep_key(self, k):
        if "\x85" in k:
            # A raw NEL is a line break; a JSON key spanning lines is no simple key.
            raise YAMLError("yaml: line 1: did not find expected ',' or '}'")
        return self.prep_str(k)

    def convert(self, v):
        if isinstance(v, (bytes, bytearray)):
            return base64.b64encode(bytes(v)).decode("ascii")
        if isinstance(v, GoStruct):
            return struct_value(v)
        if isinstance(v, tuple):
            return list(v)
        raise YAMLError("error marshaling into JSON: json: unsupported type: %s" % go_type_name(v))


def _key_str(k):
    if isinstance(k, str):
        return k
    if isinstance(k, int) and not isinstance(k, bool):
        return str(k)
    raise YAMLError("error marshaling into JSON: json: unsupported type: map[%s]interface {}"
                    % type(k).__name__)


class _V3(Emitter):
    """gopkg.in/yaml.v3 Encoder with SetIndent(2) on the Go values themselves."""

    def format_number(self, v):
        if isinstance(v, int):
            return str(v)
        s = format_float(v)
        return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(s, s)

    def prep_keys(self, d):
        for k in d:
            if not isinstance(k, str):
                return {str(k): v for k, v in d.items()}
        return d

    def convert(self, v):
        if isinstance(v, (bytes, bytearray)):
            return list(bytes(v))
        if isinstance(v, GoStruct):
            return {k.lower(): x for k, x in struct_value(v).items()}
        if isinstance(v, tuple):
            return list(v)
        raise YAMLError("cannot marshal type: %s" % go_type_name(v))


def to_yaml(value):
    """``sigs.k8s.io/yaml.Marshal(value)`` with its trailing newline.

    Raises YAMLError when Go's Marshal fails (NaN/Inf, characters yaml.v2 rejects);
    Helm's ``toYaml`` then renders ``""``.
    """
    try:
        return _V2().document(value)
    except ValueError as exc:
        raise YAMLError("error marshaling into JSON: " + str(exc))
    except RecursionError:
        raise YAMLError("error marshaling into JSON: json: unsupported value: encountered a cycle")


def to_yaml_pretty(value):
    """``toYamlPretty``: yaml.v3 Encoder, indent 2, with the trailing newline."""
    try:
        return _V3(v3=True).document(value)
    except RecursionError:
        raise YAMLError("yaml: value too deep or cyclic")
