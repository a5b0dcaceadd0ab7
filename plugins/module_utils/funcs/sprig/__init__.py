"""Sprig v3.3.0 in pure Python, as Helm 4 exposes it.

``SPRIG_FUNCS`` maps every Sprig name Helm keeps to a plain callable taking evaluated Go
values (see gotemplate/values.py).  Helm deletes ``env`` and ``expandenv``; Helm's own
``toJson``, ``fromJson``, ``fail``, ``getHostByName`` (and Helm 4's ``mustToJson``) are
registered over Sprig's versions by funcs/helm.py, so the Sprig versions kept here are only
what Helm would use when it does not override them.
"""
from . import strings, lists, dicts, defaults, math, encoding, reflection, misc, regex, semver, dates, crypto

HELM_OVERRIDDEN = ("toJson", "fromJson", "fail", "getHostByName", "mustToJson")
HELM_REMOVED = ("env", "expandenv")

SPRIG_FUNCS = {}
for _mod in (strings, lists, dicts, defaults, math, encoding, reflection, misc, regex, semver, dates, crypto):
    SPRIG_FUNCS.update(_mod.FUNCS)
