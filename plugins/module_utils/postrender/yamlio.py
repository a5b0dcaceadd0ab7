"""YAML in and out of the post-render pipeline.

kustomize and Helm 4's post-render step (kio.ParseAll / kio.StringAll) read and write with
yaml.v3: ``yes``/``on``/``y`` stay strings, integers stay integers, timestamps stay strings.
``goyaml.load_all`` is sigs.k8s.io/yaml (go-yaml v2 typing plus a JSON round trip), which
would turn ``yes`` into true and every number into a float, so this module keeps yaml.v3
typing on PyYAML's C parser instead.  All parsing and emitting goes through ``load_all`` /
``dump_all`` here, so swapping the backend stays a change to this file only.
"""
import functools
import types

from .errors import PostRenderYAMLError
from ..regexcache import regex

_CORE12_RESOLVERS = (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
)
_V2_BOOLS = {"y": True, "yes": True, "on": True, "true": True,
             "n": False, "no": False, "off": False, "false": False}


def _int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if len(text) > 1 and text[0] == "0" and text.isdigit():
        # go-yaml (kustomize and Helm alike) still reads a leading zero as octal.
        return int(text, 8) if set(text) <= set("01234567") else int(text)
    return int(text, 0) if text.startswith("0x") else int(text)


class EmptyNullMap(dict):
    """A mapping that had ``key:`` entries with no value at all (``empty_keys``); kyaml's
    strategic merge drops exactly those, while an explicit ``null`` survives."""
    empty_keys = frozenset()


def _map(loader, node):
    empty = [k.value for k, v in node.value
             if v.id == "scalar" and v.tag == "tag:yaml.org,2002:null" and v.value == ""]
    data = EmptyNullMap() if empty else {}
    yield data
    data.update(loader.construct_mapping(node))
    if empty:
        data.empty_keys = frozenset(empty)


@functools.lru_cache(maxsize=None)
def _yaml():
    """PyYAML and the (core 1.2, go-yaml v2) loaders and dumper, built on first use so this module
    imports without PyYAML."""
    import yaml  # lazy: module_utils import without PyYAML (ansible/libraries.py)

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Core12Loader(base):
        """Safe loader with YAML 1.2 core schema scalars."""
        yaml_implicit_resolvers = {}

    for tag, regexp, first in _CORE12_RESOLVERS:
        Core12Loader.add_implicit_resolver(tag, regex(regexp), list(first))
    Core12Loader.add_constructor("tag:yaml.org,2002:int", _int)
    Core12Loader.add_constructor("tag:yaml.org,2002:map", _map)

    class GoYamlV2Loader(base):
        """YAML 1.1 as go-yaml v2 reads it (``y``/``n``/``yes``/``off`` are booleans); kustomize
        parses JSON 6902 patches this way (sigs.k8s.io/yaml)."""
        yaml_implicit_resolvers = dict(Core12Loader.yaml_implicit_resolvers)

    for first in "yYnNoO":
        GoYamlV2Loader.yaml_implicit_resolvers[first] = [
            r for r in GoYamlV2Loader.yaml_implicit_resolvers.get(first, []) if r[0] != "tag:yaml.org,2002:bool"]
    GoYamlV2Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool",
        regex(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE"
              r"|on|On|ON|off|Off|OFF)$"), list("yYnNtTfFoO"))
    GoYamlV2Loader.add_constructor("tag:yaml.org,2002:int", _int)
    GoYamlV2Loader.add_constructor(
        "tag:yaml.org,2002:bool", lambda loader, node: _V2_BOOLS[loader.construct_scalar(node).lower()])

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
        """Quotes every string a YAML 1.1 reader would take for a bool, ``y``/``n`` included,
        as yaml.v3's encoder (kyaml, Helm 4) does. Objects shared through input aliases are written
        out in full, never as anchors."""

        def ignore_aliases(self, data):
            return True

    Dumper.add_implicit_resolver("tag:yaml.org,2002:bool", regex(r"^(?:y|Y|n|N)$"), list("yYnN"))
    Dumper.add_representer(EmptyNullMap, Dumper.represent_dict)
    return types.SimpleNamespace(yaml=yaml, core12=Core12Loader, v2=GoYamlV2Loader, dumper=Dumper)


def load_all_v2(text):
    """Like ``load_all`` with go-yaml v2 (YAML 1.1) scalar resolution."""
    return _load_all(text, _yaml().v2)


def load_all(text):
    """Parse a multi-document stream; empty documents are dropped. Raises PostRenderYAMLError."""
    return _load_all(text, _yaml().core12)


def _load_all(text, loader):
    lib = _yaml()
    try:
        return [doc for doc in lib.yaml.load_all(text, Loader=loader) if doc is not None]
    except lib.yaml.YAMLError as exc:
        raise PostRenderYAMLError(str(exc)) from exc


def dump(obj):
    """One document as block YAML, keys in their given order."""
    lib = _yaml()
    return lib.yaml.dump(obj, Dumper=lib.dumper, default_flow_style=False, sort_keys=False,
                         allow_unicode=True, width=1 << 30)


def dump_all(objs):
    """Documents joined with ``---`` separators."""
    return "---\n".join(dump(o) for o in objs)
