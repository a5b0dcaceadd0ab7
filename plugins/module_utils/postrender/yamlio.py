"""YAML in and out of the post-render pipeline.

kustomize and Helm 4's post-render step (kio.ParseAll / kio.StringAll) read and write with
yaml.v3: ``yes``/``on``/``y`` stay strings, integers stay integers, timestamps stay strings.
``goyaml.load_all`` is sigs.k8s.io/yaml (go-yaml v2 typing plus a JSON round trip), which
would turn ``yes`` into true and every number into a float, so this module keeps yaml.v3
typing on PyYAML's C parser instead.  All parsing and emitting goes through ``load_all`` /
``dump_all`` here, so swapping the backend stays a change to this file only.
"""
import re

import yaml

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DumperBase = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Core12Loader(_Base):
    """Safe loader with YAML 1.2 core schema scalars."""


_Core12Loader.yaml_implicit_resolvers = {}
for _tag, _regexp, _first in (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
     r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
):
    _Core12Loader.add_implicit_resolver(_tag, re.compile(_regexp), list(_first))


def _int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if len(text) > 1 and text[0] == "0" and text.isdigit():
        # go-yaml (kustomize and Helm alike) still reads a leading zero as octal.
        return int(text, 8) if set(text) <= set("01234567") else int(text)
    return int(text, 0) if text.startswith("0x") else int(text)


_Core12Loader.add_constructor("tag:yaml.org,2002:int", _int)


class _GoYamlV2Loader(_Base):
    """YAML 1.1 as go-yaml v2 reads it (``y``/``n``/``yes``/``off`` are booleans); kustomize
    parses JSON 6902 patches this way (sigs.k8s.io/yaml)."""


_GoYamlV2Loader.yaml_implicit_resolvers = dict(_Core12Loader.yaml_implicit_resolvers)
for _first in "yYnNoO":
    _GoYamlV2Loader.yaml_implicit_resolvers[_first] = [
        r for r in _GoYamlV2Loader.yaml_implicit_resolvers.get(_first, []) if r[0] != "tag:yaml.org,2002:bool"]
_GoYamlV2Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE"
               r"|on|On|ON|off|Off|OFF)$"), list("yYnNtTfFoO"))
_GoYamlV2Loader.add_constructor("tag:yaml.org,2002:int", _int)
_V2_BOOLS = {"y": True, "yes": True, "on": True, "true": True,
             "n": False, "no": False, "off": False, "false": False}
_GoYamlV2Loader.add_constructor(
    "tag:yaml.org,2002:bool", lambda loader, node: _V2_BOOLS[loader.construct_scalar(node).lower()])


class _Dumper(_DumperBase):
    """Quotes every string a YAML 1.1 reader would take for a bool, ``y``/``n`` included,
    as yaml.v3's encoder (kyaml, Helm 4) does."""


_Dumper.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))
# Objects shared through input aliases are written out in full, never as anchors.
_Dumper.ignore_aliases = lambda self, data: True


def load_all_v2(text):
    """Like ``load_all`` with go-yaml v2 (YAML 1.1) scalar resolution."""
    return [doc for doc in yaml.load_all(text, Loader=_GoYamlV2Loader) if doc is not None]


class EmptyNullMap(dict):
    """A mapping that had ``key:`` entries with no value at all (``empty_keys``); kyaml's
    strategic merge drops exactly those, while an explicit ``null`` survives."""
    empty_keys = frozenset()


def _map(loader, node):
    empty = [k.value for k, v in node.value
             if isinstance(v, yaml.ScalarNode) and v.tag == "tag:yaml.org,2002:null" and v.value == ""]
    data = EmptyNullMap() if empty else {}
    yield data
    data.update(loader.construct_mapping(node))
    if empty:
        data.empty_keys = frozenset(empty)


_Core12Loader.add_constructor("tag:yaml.org,2002:map", _map)
_Dumper.add_representer(EmptyNullMap, _Dumper.represent_dict)


def load_all(text):
    """Parse a multi-document stream; empty documents are dropped."""
    return [doc for doc in yaml.load_all(text, Loader=_Core12Loader) if doc is not None]


def dump(obj):
    """One document as block YAML, keys in their given order."""
    return yaml.dump(obj, Dumper=_Dumper, default_flow_style=False, sort_keys=False,
                     allow_unicode=True, width=1 << 30)


def dump_all(objs):
    """Documents joined with ``---`` separators."""
    return "---\n".join(dump(o) for o in objs)
