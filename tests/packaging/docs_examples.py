"""The YAML examples of the user guide and of the modules' EXAMPLES, and the checks a task of them must pass.

Every fenced ```yaml block of README.md and docs/*.md and every module's EXAMPLES is parsed; each task in it
that calls one of our modules (``helmless.core.<module>``) is validated against that module's own argument
spec, as AnsibleModule validates it (the spec, aliases, choices, types, required_if and mutually_exclusive
rules are taken from the module's ``main()``); each ``module_defaults`` entry against the modules it applies
to; each item of the ``releases`` role's ``helmless_releases`` (over ``helmless_release_defaults``) as an
item of ``helmless.core.releases``. A value Jinja fills in (``"{{ ... }}"``) stands for any value of its
option's type.
"""
import glob
import importlib.util
import os
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREFIX = "helmless.core."
_FENCE = re.compile(r"^```ya?ml[ \t]*\n(.*?)^```", re.M | re.S)
_SAMPLE = {"int": 1, "float": 1.0, "bool": True, "list": ["x"], "dict": {}}


def yaml_blocks():
    """``[(where, text)]``: each fenced YAML block of the user guide and each module's EXAMPLES."""
    out = []
    for path in [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
        with open(path) as fh:
            text = fh.read()
        for match in _FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            out.append(("%s:%d" % (os.path.relpath(path, ROOT), line), match.group(1)))
    for name in module_names():
        out.append(("plugins/modules/%s.py EXAMPLES" % name, _module(name).EXAMPLES))
    return out


def module_names():
    return sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py"))
                  if not os.path.basename(p).startswith("_"))


_MODULES = {}


def _module(name):
    if name not in _MODULES:
        path = os.path.join(ROOT, "plugins", "modules", name + ".py")
        spec = importlib.util.spec_from_file_location("helmless_docs_" + name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _MODULES[name] = mod
    return _MODULES[name]


class _Captured(Exception):
    pass


def module_spec(name):
    """The keyword arguments the module gives AnsibleModule (argument_spec, required_if, ...)."""
    mod = _module(name)
    captured = {}

    def capture(**kwargs):
        captured.update(kwargs)
        raise _Captured()
    original = mod.AnsibleModule
    mod.AnsibleModule = capture
    try:
        mod.main()
    except _Captured:
        pass
    finally:
        mod.AnsibleModule = original
    return captured


def group_modules():
    """The modules of each action group (``group/helmless.core.<group>``), from meta/runtime.yml."""
    with open(os.path.join(ROOT, "meta", "runtime.yml")) as fh:
        groups = yaml.safe_load(fh).get("action_groups") or {}
    return {"group/%s%s" % (PREFIX, group): members for group, members in groups.items()}


def _templated(value):
    return isinstance(value, str) and "{{" in value


def _filled(params, spec):
    """``params`` with each Jinja-filled value replaced by a value of its option's type."""
    names = {}
    for option, opt in spec.items():
        for alias in [option] + list(opt.get("aliases") or ()):
            names[alias] = opt
    out = {}
    for key, value in params.items():
        opt = names.get(key)
        if opt is not None and _templated(value):
            value = [] if opt.get("type") == "list" and opt.get("elements") == "dict" else _SAMPLE.get(opt.get("type"), value)
        elif opt is not None and opt.get("options") and isinstance(value, list):
            value = [_filled(item, opt["options"]) if isinstance(item, dict) else item for item in value]
        out[key] = value
    return out


def _optional(spec):
    return {name: dict(opt, required=False) for name, opt in spec.items()}


def validation_errors(name, params, partial=False):
    """The messages AnsibleModule's validation gives for these parameters of module ``name``; ``partial``
    (module_defaults, which a task completes): only names, types and choices are checked."""
    from ansible.module_utils.common.arg_spec import ModuleArgumentSpecValidator

    kwargs = module_spec(name)
    spec = kwargs["argument_spec"]
    rules = {} if partial else {k: kwargs[k] for k in (
        "mutually_exclusive", "required_together", "required_one_of", "required_if", "required_by") if k in kwargs}
    validator = ModuleArgumentSpecValidator(_optional(spec) if partial else spec, **rules)
    if isinstance(params, str) or _templated(params):
        return []  # free-form or fully templated arguments: nothing to check statically
    result = validator.validate(_filled(params or {}, spec))
    return [str(error) for error in result.errors]


def tasks_in(node):
    """Every ``(module, arguments)`` of our modules, every ``(group, defaults)`` of module_defaults, and every
    ``("releases", {"releases": [...]})`` a role's variables stand for, anywhere in ``node``."""
    if isinstance(node, list):
        for item in node:
            yield from tasks_in(item)
        return
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if isinstance(key, str) and key.startswith(PREFIX) and key[len(PREFIX):] in module_names():
            yield key[len(PREFIX):], value
        elif key == "module_defaults" and isinstance(value, dict):
            for target, defaults in value.items():
                yield target, defaults
        elif key in ("role", "name") and value == PREFIX + "releases" and isinstance(node.get("vars"), dict):
            variables = node["vars"]
            defaults = variables.get("helmless_release_defaults") or {}
            items = variables.get("helmless_releases") or []
            if isinstance(items, list):
                yield "releases", {"releases": [dict(defaults, **item) if isinstance(item, dict) else item
                                                for item in items]}
        else:
            yield from tasks_in(value)
