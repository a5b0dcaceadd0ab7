"""YAML in and out of the post-render pipeline.

All parsing goes through ``load_all``/``dump_all`` so that switching to the collection's own
``goyaml`` package is a one-line change.  Until then PyYAML is used with YAML 1.2 core scalar
resolution (what kustomize's yaml.v3 does: ``yes``/``on`` stay strings, no timestamps) and
the default 1.1 dumper, which quotes every string a 1.1 reader could misread.
"""
import re

import yaml

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


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
